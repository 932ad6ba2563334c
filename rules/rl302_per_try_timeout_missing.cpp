#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (p.implicit || p.retries() == 0) continue;
    if (p.timed_out_try_retried == false) continue; // a per-try timeout would only fail sooner
    const auto &t = p.per_try_timeout;
    if (t.origin != Origin::Written && t.origin != Origin::Defaulted) continue;
    if (t.value) continue;
    std::string msg = p.describeAttempts() + " with no " + (p.per_try_field.empty() ? "per-try timeout" : p.per_try_field) + ": ";
    if (p.overall_deadline.value)
      msg += "one hung attempt can run for the whole " + p.deadline_name + " of " + formatDuration(*p.overall_deadline.value) +
             ", leaving no time for the retries";
    else if (!p.overall_deadline.known())
      msg += "one hung attempt holds the request for as long as the caller waits (no " + p.deadline_name +
             " is set here), and the retries never run";
    else
      msg += "one hung attempt can wait forever (there is no " + p.deadline_name + " either), and the retries never run";
    out.report(p, p.where, "perTryTimeout", msg);
  }
}

} // namespace

extern const Rule kRL302 = {
    "RL302", "per-try-timeout-missing", Severity::Warning,
    "retries are enabled with no per-attempt timeout",
    {
        "A retry policy with more than one attempt and no timeout per attempt (Istio `perTryTimeout`, Envoy "
        "`per_try_timeout`, a C++ call without its own deadline). Policies that exist only by a library's "
        "default are left to RL202; formats with no per-attempt timeout (gRPC retries) are not reported.",
        "The failures worth retrying are often hangs: a dead connection, an overloaded server. Without a "
        "per-try timeout the first attempt waits until the overall deadline (or forever, when there is none), "
        "so the retry never happens and the caller's whole budget is spent on one stuck request.",
        "    retries:\n"
        "      attempts: 2\n"
        "      retryOn: connect-failure,reset,503",
        "    timeout: 3s\n"
        "    retries:\n"
        "      attempts: 2\n"
        "      perTryTimeout: 1s\n"
        "      retryOn: connect-failure,reset,503",
        "None.",
        "Istio HTTPRetry.per_try_timeout (istio/api virtual_service.proto); Amazon Builders' Library, "
        "\"Timeouts, retries, and backoff with jitter\".",
    },
    check,
};

} // namespace retrylint
