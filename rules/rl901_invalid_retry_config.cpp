#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  std::string format = m.formats.empty() ? "" : m.formats.front();
  for (const ConfigProblem &pr : m.problems) {
    Reporter r = out;
    if (pr.one_consumer) r.capSeverity(Severity::Warning);
    r.report(pr.where, format, pr.anchor, pr.message, pr.fix);
  }
}

} // namespace

extern const Rule kRL901 = {
    "RL901", "invalid-retry-config", Severity::Error,
    "a value the runtime rejects, ignores or silently changes",
    {
        "Retry settings the runtime will not use as written: malformed durations (`100ms` in a gRPC service "
        "config), gRPC `maxAttempts` below 2, `backoffMultiplier` <= 0, missing required fields, status codes "
        "that do not exist or that gRPC C++ cannot read (lower-case names, numbers), negative attempts, "
        "Istio retry settings with `attempts: 0`, retries on a route with fault injection, a gRPC methodConfig "
        "without names. A value only one of a file's consumers refuses (an ingress-nginx annotation status "
        "that Traefik's NGINX-annotation provider takes) is a warning, and the message names both.",
        "Istio and gRPC reject a whole VirtualService or service config for one bad value, or keep running "
        "without the retries you wrote: the policy you read in review is not the one in production, and the "
        "failure shows up only at deploy time or during the outage the retries were meant for.",
        "    \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"100ms\", …}",
        "    \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"0.1s\", …}",
        "None.",
        "gRFC A6 (validation); grpc/grpc src/core/client_channel/retry_service_config.cc; istio/istio "
        "pkg/config/validation/validation.go; protobuf JSON mapping for Duration.",
    },
    check,
};

} // namespace retrylint
