#include "rules/rule.h"

#include <cstdio>

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    const Backoff &b = p.backoff;
    if (p.retries() == 0 || !b.growth.known() || b.growth.value != Growth::Exponential) continue;
    if (!b.cap.known() || b.cap.value) continue;
    std::string msg = "the wait grows";
    if (b.multiplier.known()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " x%g", b.multiplier.value);
      msg += buf;
    }
    msg += " per retry with no maximum";
    if (b.cap.origin == Origin::Defaulted) msg += " (" + b.cap.source + ")";
    if (auto w = worstCaseWait(b, 10)) msg += ": the 10th retry would wait " + formatDuration(*w);
    msg += "; a long outage turns retries into waits of minutes or hours";
    out.report(p, b.cap.where, "cap", msg, b.cap.fix);
  }
}

} // namespace

extern const Rule kRL103 = {
    "RL103", "backoff-uncapped", Severity::Warning,
    "the wait grows exponentially with no maximum",
    {
        "Exponential backoff without a maximum delay: no max interval, no `MaxDelaySeconds`, no "
        "`std::min`/`std::clamp` around a `base << n` in C++.",
        "Exponential growth is the point of backoff, but unbounded it soon stops being a retry: with a 100 ms "
        "base the 10th retry waits 51.2 s and the 15th over half an hour. Requests then hang far past any "
        "caller's deadline, holding resources, and recovery is noticed late.",
        "A Step Functions retrier with BackoffRate 2 and no MaxDelaySeconds, or in C++:\n"
        "    std::this_thread::sleep_for(base << attempt);",
        "Cap the delay (AWS SDKs cap at 20 s):\n"
        "    std::this_thread::sleep_for(std::min(base << attempt, std::chrono::milliseconds(20000)));",
        "None.",
        "AWS SDKs and Tools Reference Guide, retry behavior (20 s cap); AWS Architecture Blog, "
        "\"Exponential Backoff And Jitter\".",
    },
    check,
};

} // namespace retrylint
