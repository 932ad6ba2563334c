#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    const Backoff &b = p.backoff;
    if (!p.mayRetry() || !b.growth.known() || b.growth.value != Growth::NoWait) continue;
    // In background work each retry is a new task (an Argo pod, a workflow step) that takes seconds
    // to start: a few immediate retries (fewer than five) are the platform's normal rescheduling.
    // Reported as a note there.
    Reporter advice = out;
    if (auto r = p.boundedRetries(); r && *r < 5 && p.workload == Workload::Background) advice.capSeverity(Severity::Note);
    // Only connections that failed are retried: what goes out at once is a connection attempt, which
    // costs a server that refuses it little. Worth a look, not a storm.
    const bool unsent = p.retriesOnlyUnsent();
    if (unsent) advice.capSeverity(Severity::Note);
    std::string msg = p.describeAttempts() + " follow each other with no wait";
    if (b.growth.origin == Origin::Defaulted || b.growth.origin == Origin::BuiltIn) msg += " (" + b.growth.source + ")";
    auto n = p.boundedRetries();
    if (unsent)
      msg += ": only failed connections are retried (the request was never sent), so each retry is a new connection attempt"
             " at once" + (n ? std::string(", ") + std::to_string(*n + 1) + " in all" : std::string());
    else
      msg += ": each retry goes out as soon as the last attempt failed, multiplying the load on a failing service" +
             (n ? " by " + std::to_string(*n + 1) : std::string()) + " before it can recover";
    advice.report(p, b.growth.where, "backoff", msg, b.growth.fix);
  }
}

} // namespace

extern const Rule kRL104 = {
    "RL104", "backoff-missing", Severity::Warning,
    "attempts follow each other with no wait at all (tight retry loop)",
    {
        "Retries that are sent immediately after a failure: a C++ retry loop with no sleep, a config whose "
        "delay is explicitly zero, a Spring Cloud Gateway Retry filter without `backoff`. In background work "
        "(Argo, Step Functions) fewer than five immediate retries are a note: each retry is a new task that "
        "takes seconds to start, which spaces them a little already. Retries of connections that never carried the "
        "request (Traefik's network errors, HAProxy's conn-failure) are a note too: they cost the server a connection attempt.",
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
    nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/false,
    /*needs_a_crowd=*/true,
};

} // namespace retrylint
