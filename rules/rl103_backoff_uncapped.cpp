#include "rules/rule.h"

#include <cstdio>

namespace retrylint {
namespace {

std::string ordinal(int n) {
  int tens = n % 100;
  const char *suffix = (tens >= 11 && tens <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

void check(const FileModel &m, const Settings &settings, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    const Backoff &b = p.backoff;
    if (!p.mayRetry() || !b.growth.known() || b.growth.value != Growth::Exponential) continue;
    if (!b.cap.known() || b.cap.value) continue;
    const Duration limit = settings.limitsFor(p.workload).max_wait;
    const std::string limitText = formatDuration(limit) + " (settings." +
                                  (p.workload == Workload::Background ? "background." : "") + "max-wait for a " +
                                  workloadName(p.workload) + ")";
    std::string msg = "the wait grows";
    if (b.multiplier.known()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " x%g", b.multiplier.value);
      msg += buf;
    }
    msg += " per retry with no maximum";
    bool advice = false; // a note rather than a warning
    if (b.cap.origin == Origin::Defaulted) msg += " (" + b.cap.source + ")";
    // Only waits the configured attempts can reach count: an uncapped backoff that stays short over
    // the retries it has is harmless where it stands.
    // A count that is written, defaulted, or only estimated or inherited (Origin::Unknown with a
    // value: a lower bound, a base config's) is the count the waits are measured over.
    if (p.max_attempts.value) {
      int n = std::max(p.retries(), 1);
      // A deadline over the whole run (an Express workflow's 5 minutes) ends the waits first: only
      // the retries whose waits fit before it are reachable (RL301 reports the ones that are not).
      std::string cut;
      if (p.overall_deadline.known() && p.overall_deadline.value) {
        const int fit = retriesThatFit(b, n, *p.overall_deadline.value).value_or(0);
        if (fit == 0) continue;
        if (fit < n) cut = " (the " + p.deadline_name + " of " + formatDuration(*p.overall_deadline.value) + " ends the later ones)";
        n = fit;
      }
      auto w = worstCaseWait(b, n);
      if (!w || *w <= limit) continue;
      // A first wait already above the limit is the author's choice (a pipeline that waits 20 min for
      // its input), not the effect of a missing cap: a cap would have to sit at or above it. What the
      // cap prevents is the growth past that choice, so then the waits count only once the configured
      // retries more than double the first wait.
      const auto first = worstCaseWait(b, 1);
      std::string chosen; // how the last wait compares with a first wait the file chose above the limit
      if (first && *first > limit) {
        if (*w <= *first * 2) continue;
        char times[32];
        std::snprintf(times, sizeof times, "%.3g", static_cast<double>(w->nanos) / static_cast<double>(first->nanos));
        chosen = std::string(times) + " times the first wait of " + formatDuration(*first) + " the file chooses, and ";
      }
      msg += ": with " + std::to_string(n) + (n == 1 ? " retry" : " retries") + cut + " the last waits up to " + formatDuration(*w) +
             ", " + chosen + "more than " + limitText +
             (p.workload == Workload::Background ? ", so a failed task sits idle that long and recovery is noticed late"
                                                  : ", and a caller that waits that long has usually given up");
      // In background work a last wait at most two-thirds above the line (25 min against 15 min) is
      // a threshold case, advice, as RL203 treats a count up to a quarter above its ceiling
      // (docs/accuracy.md: reviewers took single waits of 8 to 18 min, and 24.3 min, for threshold
      // cases, 25.6 min and more for defects).
      if (p.workload == Workload::Background && chosen.empty() && w->seconds() * 3 <= limit.seconds() * 5) {
        msg += " (at most two-thirds above it: a threshold case)";
        advice = true;
      }
    } else {
      // Unbounded, or a count this file does not show: the waits keep growing past any limit.
      constexpr int kSearch = 64;
      int k = 1;
      std::optional<Duration> w;
      for (; k <= kSearch; ++k)
        if ((w = worstCaseWait(b, k)) && *w > limit) break;
      if (k > kSearch || !w) continue;
      const bool unbounded = p.max_attempts.known() && !p.max_attempts.value;
      if (!unbounded) {
        // A count the file leaves to a variable or template: whether the waits get long depends on
        // a number it does not show (a Terraform variable that defaults to 3), so advice.
        msg += " and a retry count this file does not show: should it reach " + std::to_string(k) + ", the " + ordinal(k) +
               " retry waits up to " + formatDuration(*w) + ", more than " + limitText + ", and later ones longer";
        advice = true;
      } else {
        msg += " and no limit on the retries: from the " + ordinal(k) + " retry on, each waits more than " + limitText + " (the " +
             ordinal(k) + " up to " + formatDuration(*w) + "), and the waits keep growing into minutes and hours";
      }
    }
    Reporter r = out;
    if (advice) r.capSeverity(Severity::Note);
    r.report(p, b.cap.where, "cap", msg, b.cap.fix);
  }
}

} // namespace

extern const Rule kRL103 = {
    "RL103", "backoff-uncapped", Severity::Warning,
    "the wait grows exponentially with no maximum",
    {
        "Exponential backoff without a maximum delay (no max interval, no `MaxDelaySeconds`, no "
        "`std::min`/`std::clamp` around a `base << n` in C++) whose waits really get long: the longest wait the "
        "configured attempts can reach is above the workload's limit (20 s on a request path, 15 min in a "
        "background workload; in background work a last wait at most two-thirds above it, up to 25 min, is a "
        "note), or the attempts are unbounded or not known. Three retries from 100 ms never "
        "wait more than 0.4 s, cap or no cap, and are not reported. A first wait that is itself above the "
        "limit is the author's choice, which a cap could not undo: then only growth past twice that first "
        "wait is reported (20 min then 30 min is not; 20 min then 80 min is).",
        "Exponential growth is the point of backoff, but unbounded it soon stops being a retry: with a 100 ms "
        "base the 10th retry waits 51.2 s and the 15th over half an hour. Requests then hang far past any "
        "caller's deadline, holding resources, and recovery is noticed late.",
        "A Step Functions retrier with BackoffRate 2 and no MaxDelaySeconds, or in C++:\n"
        "    std::this_thread::sleep_for(base << attempt);",
        "Cap the delay (AWS SDKs cap at 20 s):\n"
        "    std::this_thread::sleep_for(std::min(base << attempt, std::chrono::milliseconds(20000)));",
        "settings.max-wait (default 20s, a request path) and settings.background.max-wait (default 15m) in "
        ".retrylint.yaml: the longest single wait an uncapped backoff may reach before it is reported.",
        "AWS SDKs and Tools Reference Guide, retry behavior (20 s cap); AWS Architecture Blog, "
        "\"Exponential Backoff And Jitter\".",
    },
    check,
    nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/false,
    /*needs_a_crowd=*/true,
};

} // namespace retrylint
