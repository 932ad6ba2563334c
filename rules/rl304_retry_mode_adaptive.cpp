#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.adaptive_rate_limit.known() || !p.adaptive_rate_limit.value) continue;
    out.report(p, p.adaptive_rate_limit.where, "adaptive",
               "retry mode adaptive adds a client-side rate limiter per client: after throttling errors it delays every "
               "request of that client, including those to resources that are not throttled; use standard unless this "
               "client works on a single resource");
  }
}

} // namespace

extern const Rule kRL304 = {
    "RL304", "retry-mode-adaptive", Severity::Note,
    "AWS retry_mode adaptive outside a single-resource batch client: its rate limit delays unrelated resources",
    {
        "AWS SDK configuration that selects the adaptive retry mode (`retry_mode = adaptive` in the shared config, "
        "`AWS_RETRY_MODE=adaptive`, `AdaptiveRetryStrategy` in C++).",
        "Adaptive mode adds a token-bucket rate limiter per client instance on top of standard retries. When one "
        "table or bucket throttles, the client slows down every request it sends, to unrelated resources too. "
        "That suits a batch job hammering one resource, not a general-purpose client shared by a service.",
        "    [profile app]\n    retry_mode = adaptive\n    max_attempts = 3",
        "    [profile app]\n    retry_mode = standard\n    max_attempts = 3",
        "None.",
        "AWS SDKs and Tools Reference Guide, \"Retry behavior\" (adaptive mode).",
    },
    check,
};

} // namespace retrylint
