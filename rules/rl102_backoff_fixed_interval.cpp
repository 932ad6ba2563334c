#include "rules/rule.h"

#include <cstdio>

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    const Backoff &b = p.backoff;
    if (!p.mayRetry() || !b.growth.known() || b.growth.value != Growth::Constant) continue;
    // With a few retries per request every request makes the same attempts whatever the waits:
    // growth sheds load only over a long run of retries (or ones bounded by time, or unbounded).
    // Three or fewer, or a count this file does not show (bounded elsewhere: a circuit breaker, an
    // inherited value): advice, at note severity.
    const auto few = p.boundedRetries();
    // One retry waits once: there is no second wait that could have grown.
    if (few && *few <= 1) continue;
    const bool unbounded = p.max_attempts.known() && !p.max_attempts.value;
    Reporter advice = out;
    if ((few && *few <= 3) || (!few && !unbounded) || p.waits_for_lock) advice.capSeverity(Severity::Note);
    std::string wait = b.initial.value ? formatDuration(*b.initial.value) : "the same time";
    auto n = few;
    std::string msg = "the wait stays at " + wait + " before " +
                      (n ? "each of the " + std::to_string(*n) + (*n == 1 ? " retry" : " retries")
                         : std::string(unbounded ? "every retry, and the retries never stop" : "every retry"));
    if (b.multiplier.written()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " (multiplier %g)", b.multiplier.value);
      msg += buf;
    }
    if (b.growth.origin == Origin::Defaulted) msg += " (" + b.growth.source + ")";
    msg += ": through a long outage the retry load never backs off";
    if (p.waits_for_lock) msg += " (a lock wait polls at a fixed interval by design; jitter matters more)";
    advice.report(p, b.growth.where, "growth", msg, b.growth.fix);
  }
}

} // namespace

extern const Rule kRL102 = {
    "RL102", "backoff-fixed-interval", Severity::Warning,
    "the wait does not grow between attempts (constant or absent multiplier)",
    {
        "A retry policy whose wait is the same before every retry: a backoff multiplier of 1, a constant "
        "policy, a C++ loop that sleeps the same duration each time round. A single retry waits once, so "
        "there is nothing to grow and nothing is said. With three retries or fewer it is "
        "a note: every request then makes the same few attempts whatever the waits, and growth matters over a "
        "long run of retries (more than three, bounded by time, or unbounded). A loop polling for a lock "
        "another holder has is a note too: a fixed poll is the usual design there, and jitter (RL101) matters "
        "more.",
        "A fixed interval keeps the retry load constant for the whole outage: the struggling service gets "
        "the same extra traffic after a minute as after a second. Growing the wait (exponentially, with a cap "
        "and jitter) sheds that load while the outage lasts and still retries quickly after a blip.",
        "gRPC service config:\n"
        "    \"retryPolicy\": {\"maxAttempts\": 4, \"initialBackoff\": \"1s\", \"maxBackoff\": \"1s\",\n"
        "                    \"backoffMultiplier\": 1, \"retryableStatusCodes\": [\"UNAVAILABLE\"]}",
        "    \"retryPolicy\": {\"maxAttempts\": 4, \"initialBackoff\": \"0.2s\", \"maxBackoff\": \"5s\",\n"
        "                    \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"UNAVAILABLE\"]}",
        "None.",
        "AWS Architecture Blog, \"Exponential Backoff And Jitter\"; gRFC A6 client retries (backoff schedule).",
    },
    check,
    nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/false,
    /*needs_a_crowd=*/true,
    /*needs_a_crowd_shown=*/true,
};

} // namespace retrylint
