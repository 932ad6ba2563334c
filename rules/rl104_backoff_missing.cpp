#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    const Backoff &b = p.backoff;
    if (!p.mayRetry() || !b.growth.known() || b.growth.value != Growth::NoWait) continue;
    std::string msg = p.describeAttempts() + " follow each other with no wait";
    if (b.growth.origin == Origin::Defaulted || b.growth.origin == Origin::BuiltIn) msg += " (" + b.growth.source + ")";
    auto n = p.boundedRetries();
    msg += ": a tight retry loop multiplies load on a failing service" + (n ? " by " + std::to_string(*n + 1) : std::string()) +
           " within milliseconds, before it can recover";
    out.report(p, b.growth.where, "backoff", msg, b.growth.fix);
  }
}

} // namespace

extern const Rule kRL104 = {
    "RL104", "backoff-missing", Severity::Warning,
    "attempts follow each other with no wait at all (tight retry loop)",
    {
        "Retries that are sent immediately after a failure: a C++ retry loop with no sleep, a config whose "
        "delay is explicitly zero, a Spring Cloud Gateway Retry filter without `backoff`.",
        "An immediate retry hits the dependency while it is still failing, so it almost always fails too, "
        "and every caller doing it multiplies the load at the worst moment. Waiting even a few tens of "
        "milliseconds (growing, with jitter) lets transient faults clear and spreads the retries.",
        "    for (int attempt = 0; attempt < 3; ++attempt) {\n"
        "      if (client.Call(req).ok()) break;\n"
        "    }",
        "    for (int attempt = 0; attempt < 3; ++attempt) {\n"
        "      if (client.Call(req).ok()) break;\n"
        "      std::this_thread::sleep_for(jittered(std::min(50ms << attempt, 2s)));\n"
        "    }",
        "None.",
        "AWS Architecture Blog, \"Timeouts, retries, and backoff with jitter\" (Amazon Builders' Library).",
    },
    check,
};

} // namespace retrylint
