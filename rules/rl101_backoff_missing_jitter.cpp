#include "rules/rule.h"

namespace retrylint {
namespace {

// Background work retrying this often or less is advice (docs/accuracy.md: reviewers judged such
// waves too small to act on).
constexpr int kSmallWave = 2;

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    const Backoff &b = p.backoff;
    if (!p.mayRetry() || !b.growth.known() || b.growth.value == Growth::NoWait) continue;
    if (!b.jitter.known() || b.jitter.value != Jitter::None) continue;
    const bool fixed = b.growth.value == Growth::Constant;
    const bool quoted = b.initial.value && b.initial.written();
    std::string msg = p.schedule_only  ? b.description
                      : fixed && quoted ? "the fixed wait of " + formatDuration(*b.initial.value) + " between attempts"
                      : quoted        ? "the wait between attempts starting at " + formatDuration(*b.initial.value)
                                      : std::string("the wait between attempts");
    msg += " has no random component";
    if (b.jitter.origin == Origin::Defaulted) msg += " (" + b.jitter.source + ")";
    auto n = p.boundedRetries();
    msg += ": clients that failed together retry together, so " +
           (n ? std::to_string(*n) + (*n == 1 ? " retry arrives" : " retries arrive") : std::string("their retries arrive")) +
           " at the recovering service in synchronized waves" + p.boundedRetriesNote() +
           (p.max_attempts.known() && !p.max_attempts.value ? std::string(", for as long as the retries go on (they are unbounded)") : "");
    // Background work that retries once or twice sends a small wave, seconds long: advice.
    const bool smallWave = p.workload == Workload::Background && n && *n <= kSmallWave;
    // Advice, at note severity: the breakers, not the waves, meet the recovering service; a small
    // wave; or nothing in the file can add jitter (no fix to offer).
    bool advice = true;
    std::optional<Fix> fix = b.jitter.fix;
    if (!p.breaker_stops_retries.empty()) msg += " only until " + p.breaker_stops_retries;
    else if (smallWave)
      msg += " (" + std::to_string(*n) + (*n == 1 ? " retry" : " retries") + " of background work: a small wave" +
             (p.workload_why.empty() ? "" : "; " + p.workload_why) + ")";
    else if (b.jitter_configurable) advice = false;
    else fix.reset();
    Reporter reporter = out;
    if (advice) reporter.capSeverity(Severity::Note);
    reporter.report(p, b.jitter.where, "jitter", msg, fix);
  }
}

} // namespace

extern const Rule kRL101 = {
    "RL101", "backoff-missing-jitter", Severity::Warning,
    "delays between attempts contain no randomness, so clients that failed together retry together",
    {
        "A retry policy whose wait between attempts is fixed by the schedule alone: no random term is "
        "added to or multiplied into the delay. Reported for policies whose jitter is absent or switched "
        "off; never for gRPC, Envoy or Istio, whose runtimes jitter every backoff themselves. Where the "
        "dialect has no jitter setting at all (Argo Workflows, Spring Cloud Gateway Server MVC) it is a note: "
        "the message says so, and there is no fix to offer in that file. A herd needs a crowd: on a request "
        "path there always is one; in a workflow (Step Functions) it is a warning only where the files show "
        "one, and the message says which: a Map state running more than 10 iterations at once, or a trigger "
        "that starts an execution per event (an API or queue event, an event rule or pipe, a function that "
        "starts it and is itself triggered by an event), read from the SAM or CloudFormation template beside "
        "the definition. An event rule that matches S3 object calls as CloudTrail records them (eventName "
        "PutObject) counts only where the template defines a trail: those are data events, which CloudTrail "
        "does not log by default. A distributed Map over one listObjectsV2 page (at most 1,000 keys) in "
        "batches runs at most 1,000 / batch child executions, whatever its MaxConcurrency; an inline Map "
        "without a limit inside them runs up to 40 of its batch's items at once, and the message quotes "
        "those counts. A workflow only a schedule starts, one whose trigger is not in the files, and "
        "background work with 1 or 2 retries get a note, as do a retrier after a callback or a job run to "
        "completion (.waitForTaskToken, .sync) of the same execution and a C++ loop whose callers each sleep "
        "a random time before it: each caller gets there, and sees a failure, at its own phase, and a "
        "schedule without randomness keeps it there. A retry that asks a circuit breaker before every "
        "attempt and does not retry the breaker's rejection (Resilience4j's default aspect order, "
        "Retry(CircuitBreaker(...))) is a note too: the waves last only until the breakers open, and the "
        "recovering service then meets the breakers' half-open probes.",
        "When a dependency fails, every client sees the failure at about the same instant. Without "
        "jitter they all wait the same time and retry at the same instant again: 1,000 clients that got a "
        "503 together hit the recovering service together, in waves, for as long as the outage lasts. "
        "Exponential growth spreads the waves out in time; only jitter spreads the clients inside a wave.",
        "A C++ loop that doubles its sleep without a random source, or a Step Functions retrier:\n"
        "    \"Retry\": [{\"ErrorEquals\": [\"States.TaskFailed\"], \"IntervalSeconds\": 1, \"BackoffRate\": 2}]",
        "Use full jitter, delay = random(0, min(cap, base * 2^retry)):\n"
        "    \"Retry\": [{\"ErrorEquals\": [\"States.TaskFailed\"], \"IntervalSeconds\": 1, \"BackoffRate\": 2,\n"
        "               \"MaxDelaySeconds\": 20, \"JitterStrategy\": \"FULL\"}]",
        "None.",
        "AWS Architecture Blog, \"Exponential Backoff And Jitter\"; AWS SDKs and Tools Reference Guide, "
        "retry behavior; gRFC A6 (gRPC applies ±20 % jitter itself); Envoy router filter, x-envoy-max-retries.",
    },
    check,
    nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/false,
    /*needs_a_crowd=*/true,
    /*needs_a_crowd_shown=*/true,
};

} // namespace retrylint
