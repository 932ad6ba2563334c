#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (p.implicit || p.retries() == 0) continue;
    if (!p.budget.known() || p.budget.value) continue;
    std::string msg = p.describeAttempts() + " with no retry budget";
    if (!p.budget_field.empty()) msg += " (" + p.budget_field + ")";
    auto n = p.exactRetries();
    msg += ": when most calls fail, every call is still retried" +
           (n ? " " + std::to_string(*n) + (*n == 1 ? " time" : " times") + ", multiplying load by " + std::to_string(*n + 1)
              : std::string(", multiplying load")) +
           " instead of backing off";
    out.report(p, p.where, "budget", msg);
  }
}

} // namespace

extern const Rule kRL303 = {
    "RL303", "retry-budget-missing", Severity::Note,
    "retries are enabled with no retry budget / throttling",
    {
        "A retry policy with no budget that stops retries when too many calls fail: gRPC without "
        "`retryThrottling`, Envoy without a cluster `retry_budget`, Linkerd routes marked retryable without a "
        "budget. Policies that exist only by a library's default are left to RL202. At its default severity "
        "(note) a run reports it once, with the number of policies and files concerned, because it holds for "
        "most retry policies of a repository; set it to warning to have each policy reported.",
        "Attempt limits bound the amplification per request, not in total. During a real outage every request "
        "fails and every one is retried, so the dependency sees (attempts) x normal traffic exactly when it can "
        "least take it. A budget (a token bucket, a percentage of live requests) lets retries absorb scattered "
        "failures and switches them off in an outage.",
        "gRPC service config with a retryPolicy and no top-level retryThrottling.",
        "    \"retryThrottling\": {\"maxTokens\": 10, \"tokenRatio\": 0.1}",
        "None.",
        "gRFC A6 (retry throttling); Envoy circuit_breakers retry_budget; AWS SDKs retry quota (500 tokens).",
    },
    check,
    nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/true,
};

} // namespace retrylint
