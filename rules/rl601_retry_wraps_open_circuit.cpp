#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.breaker || !p.breaker->retry_outside_breaker || !p.breaker->retries_open_circuit) continue;
    if (p.retries() == 0) continue;
    std::string msg = "the retry sits outside the circuit breaker (" + p.breaker->explanation +
                      ") and retries its open-circuit rejections: an open breaker is asked " +
                      (p.exactRetries() ? std::to_string(p.retries() + 1) + " times per call" : std::string("again on every retry")) +
                      " instead of failing fast; put the retry inside the breaker or ignore the rejection";
    out.report(p, p.breaker->where.known() ? p.breaker->where : p.where, "breaker", msg);
  }
}

} // namespace

extern const Rule kRL601 = {
    "RL601", "retry-wraps-open-circuit", Severity::Warning,
    "a retry outside a circuit breaker retries the breaker's open-circuit rejections",
    {
        "A retry and a circuit breaker on the same call where the retry is the outer one and the breaker's "
        "rejection (Resilience4j `CallNotPermittedException`) is among the retried failures.",
        "A circuit breaker exists to fail fast while a dependency is down. Wrapped in a retry that retries its "
        "rejections, every call waits through the whole backoff schedule and asks the open breaker again and "
        "again. Retry belongs inside the breaker; or the retry must ignore the rejection.",
        "    resilience4j.retry.instances.backend.retryExceptions: [java.lang.Exception]\n"
        "    resilience4j.circuitbreaker.instances.backend: {}",
        "    resilience4j.retry.instances.backend.ignoreExceptions:\n"
        "      - io.github.resilience4j.circuitbreaker.CallNotPermittedException",
        "None.",
        "Resilience4j Spring Boot documentation (aspect order: Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead)))))).",
    },
    check,
};

} // namespace retrylint
