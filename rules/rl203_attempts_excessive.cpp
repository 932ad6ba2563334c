#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &settings, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.max_attempts.known() || !p.max_attempts.value) continue;
    int n = *p.max_attempts.value;
    bool aboveCeiling = n > settings.max_attempts;
    bool clamped = p.runtime_max_attempts && n > *p.runtime_max_attempts;
    if (!aboveCeiling && !clamped) continue;
    std::string msg;
    if (p.attempts_count_retries) msg = p.describeAttempts();
    else msg = p.attempts_field + " " + std::to_string(n);
    if (aboveCeiling) {
      int runs = p.effectiveAttempts().value_or(n);
      msg += (p.attempts_count_retries ? " exceed" : " exceeds");
      msg += " the ceiling of " + std::to_string(settings.max_attempts) + " attempts";
      if (clamped) {
        msg += "; " + p.runtime_max_source + ", so " + std::to_string(runs) + " attempts run, not " + std::to_string(n);
      } else {
        msg += ": during an outage each request becomes " + std::to_string(n) + " calls to the failing service";
      }
    } else {
      msg += " is above what the runtime allows: " + p.runtime_max_source + ", so " +
             std::to_string(*p.runtime_max_attempts) + " attempts run, not " + std::to_string(n);
    }
    if (p.max_attempts.origin == Origin::Defaulted) msg += " (" + p.max_attempts.source + ")";
    out.report(p, p.max_attempts.where, "attempts", msg);
  }
}

} // namespace

extern const Rule kRL203 = {
    "RL203", "attempts-excessive", Severity::Warning,
    "more attempts than the configured ceiling (default 5); also gRPC maxAttempts above 5, which gRPC clamps",
    {
        "A retry policy that allows more attempts in total (the first try included) than the ceiling, "
        "`settings.max-attempts` (default 5). Counts are compared after normalisation: Istio `attempts: 5` "
        "means 5 retries, so 6 attempts. Also any gRPC `maxAttempts` above 5, which gRPC silently clamps to 5.",
        "Each attempt is another request on a service that is already failing. Beyond a handful, extra "
        "attempts rarely succeed where the earlier ones failed, but they multiply the load by the attempt "
        "count during every outage, and more again where layers each retry. A value the runtime clamps "
        "misleads readers about how the system behaves.",
        "Istio:\n"
        "    retries:\n"
        "      attempts: 10\n"
        "      perTryTimeout: 1s",
        "    retries:\n"
        "      attempts: 2\n"
        "      perTryTimeout: 1s",
        "settings.max-attempts in .retrylint.yaml (default 5): the largest total number of attempts allowed.",
        "gRFC A6 client retries (maxAttempts limit 5); grpc/grpc retry_service_config.cc; AWS SDKs and Tools "
        "Reference Guide (max_attempts default 3).",
    },
    check,
};

} // namespace retrylint
