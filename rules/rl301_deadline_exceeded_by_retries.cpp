#include "lint/model/chain.h"
#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (p.implicit || p.retries() == 0) continue;
    if (!p.overall_deadline.known() || !p.overall_deadline.value) continue;
    const Duration deadline = *p.overall_deadline.value;
    const int attempts = *p.effectiveAttempts();
    auto waits = worstCaseWaits(p.backoff, attempts - 1);
    bool seconds = deadline >= Duration::s(1);
    auto fmt = [&](Duration d) { return seconds ? formatSeconds(d) : formatDuration(d); };
    std::string deadlineText = p.deadline_name + " " + fmt(deadline);
    const Span &at = p.max_attempts.written() ? p.max_attempts.where : p.where;

    // The waits are spent on every run, the per-try timeouts only when tries hang: when the waits
    // alone pass the deadline, that is the cause to state.
    const bool waitsAlone = waits && *waits >= deadline;
    // Tries that run to their timeout add up only if such a try can be followed by a retry.
    const bool longTriesAddUp = p.long_try_retried != false;
    if (p.per_try_timeout.known() && p.per_try_timeout.value && !waitsAlone && longTriesAddUp) {
      const Duration perTry = *p.per_try_timeout.value;
      Duration w = waits.value_or(Duration{0});
      Duration total = perTry * static_cast<double>(attempts) + w;
      if (total <= deadline) continue;
      // How many attempts do fit? The time to the end of attempt k grows with k: the last k whose
      // tries and waits end by the deadline, by bisection (a stranger's count may be 2^31).
      auto endOf = [&](int k) { return perTry * static_cast<double>(k) + worstCaseWaits(p.backoff, k - 1).value_or(Duration{0}); };
      int fit = 0;
      for (int lo = 1, hi = attempts; lo <= hi;) {
        int mid = lo + (hi - lo) / 2;
        if (endOf(mid) <= deadline) fit = mid, lo = mid + 1;
        else hi = mid - 1;
      }
      std::string msg = std::to_string(attempts) + " attempts x " + fmt(perTry) + " per try";
      if (waits) msg += " + " + fmt(w) + " backoff";
      msg += " = " + fmt(total) + " > " + deadlineText + ": ";
      std::string field = p.attempts_field.empty() ? "attempts" : p.attempts_field;
      // A try cut off by its timeout is retried (or not known not to be): "time out"; else only a
      // failure that comes late in a try is (a function's own error).
      const bool timedOut = p.timed_out_try_retried != false;
      // The tries alone fit (timeout = attempts x per try, the usual sizing) and only the waits
      // between them overrun: every attempt starts, and the last is cut short by at most the waits.
      // A threshold case, worth a note (docs/accuracy.md: eks-lab's 3 x 1 s in 3 s).
      const Duration lastStart = perTry * static_cast<double>(attempts - 1) + w;
      if (perTry * static_cast<double>(attempts) <= deadline && lastStart < deadline) {
        const Duration left{deadline.nanos - lastStart.nanos};
        const Duration even = Duration{deadline.nanos - w.nanos} * (1.0 / attempts);
        msg += std::string(p.timed_out_try_retried != false ? "when attempts time out" : "when attempts run long before they fail") +
               ", every one starts but the last gets at most " + fmt(left) + " of its " + fmt(perTry) +
               " per try: the per-try timeouts fill the deadline and leave no room for the waits between them; a per-try "
               "timeout of " + fmt(even) + " fits them all";
        Reporter advice = out;
        advice.capSeverity(Severity::Note);
        advice.report(p, at, "deadline", msg);
        continue;
      }
      if (perTry >= deadline)
        msg += "a single attempt can use up the whole deadline (" + fmt(perTry) +
               " per try): its timeout never strikes first, so no retry follows an attempt that hangs and the retries help "
               "only after fast failures; make the per-try timeout shorter than the deadline";
      else if (fit <= 1)
        msg += std::string(timedOut ? "when attempts time out" : "when attempts run long before they fail") +
               ", only the first fits: a retry after " + (timedOut ? "a timed-out try" : "such a try") +
               " is cut off by the deadline before its " + fmt(perTry) +
               " per try, so the retries help only after fast failures; drop the retries or raise the timeout";
      else
        msg += std::string(timedOut ? "when attempts time out" : "when attempts run long before they fail") +
               ", the last ones can never run: only " + std::to_string(fit) + " fit, so set " + field + " to " +
               std::to_string(p.attempts_count_retries ? fit - 1 : fit) + " or raise the timeout";
      // A proxy route (Envoy, Istio, gateways) whose conditions do not retry a try cut off by its
      // per-try timeout (Istio's default retryOn, connection failures only): the sum needs every
      // try to run nearly to its timeout and then fail on its own, which a route rarely sees.
      // Three first-contact rounds judged it so: advice. (Step Functions say which late failures
      // they retry, long_try_retried, and keep the finding.)
      if (!timedOut && !p.long_try_retried.has_value()) {
        Reporter advice = out;
        advice.capSeverity(Severity::Note);
        advice.report(p, at, "deadline", msg);
        continue;
      }
      out.report(p, at, "deadline", msg);
    } else if (waitsAlone) {
      std::string msg = "the waits before " + std::to_string(attempts - 1) + " retries add up to " + fmt(*waits) +
                        " (worst case) >= " + deadlineText + ": the last attempts can never run (only " +
                        std::to_string(retriesThatFit(p.backoff, p.retries(), deadline).value_or(0)) + " of the retries can start in time)";
      out.report(p, at, "deadline", msg);
    }
  }
}

// Across layers: an inner layer whose retries outlast the time its caller waits for one call.
void checkChain(const Chain &chain, const Settings &, Reporter &out) {
  const std::vector<LayerFigures> &figures = chain.figures;
  for (size_t i = 1; i < chain.layers.size(); ++i) {
    const LayerFigures &caller = figures[i - 1];
    if (!caller.limit_below) continue;
    std::optional<Duration> below = i + 1 < figures.size() ? figures[i + 1].worst_time : std::nullopt;
    for (const RetryPolicy *p : chain.layers[i].policies) {
      if (p->retries() == 0) continue;
      std::string arithmetic;
      auto t = worstCaseTime(*p, below, &arithmetic);
      if (!t || *t <= *caller.limit_below) continue;
      const Span &at = p->max_attempts.written() ? p->max_attempts.where : p->where;
      out.report(*p, at, "deadline/caller",
                 "layer '" + chain.layers[i].name + "' can take " + arithmetic + " when every attempt times out, but its caller '" +
                     chain.layers[i - 1].name + "' waits at most " + caller.limit_below_text +
                     ": the last attempts run for a caller that has given up (and may be retrying itself); fit this layer's "
                     "attempts in the caller's timeout or retry in one layer only");
    }
  }
}

} // namespace

extern const Rule kRL301 = {
    "RL301", "deadline-exceeded-by-retries", Severity::Error,
    "per-try timeout x attempts + the worst-case waits exceed the overall deadline",
    {
        "A retry policy whose attempts cannot all fit in the overall deadline: per-try timeout x attempts + "
        "the sum of the worst-case waits between them is larger than the route timeout (Istio, Envoy), the "
        "method timeout (gRPC) or the deadline around a C++ retry loop. The message shows the arithmetic "
        "and how many attempts do fit. Where the tries alone fit (timeout = attempts x per-try timeout, the "
        "usual sizing) and only the waits between them overrun, every attempt starts and the last is cut "
        "short by at most the waits: a note that says how much of its per-try timeout it keeps.",
        "The overall deadline wins: when it expires the caller gets a timeout and the remaining attempts "
        "never run. The configured attempts are then a fiction that hides the real behaviour, and a slow "
        "first attempt can use up the whole deadline. Set the overall deadline first, then fit attempts "
        "inside it; if they do not fit, cut attempts rather than the per-try timeout (shortening that fails "
        "requests that would have succeeded).",
        "Istio (3 attempts x 1.5 s + 0.1 s backoff = 4.6 s > 3 s):\n"
        "    timeout: 3s\n"
        "    retries:\n"
        "      attempts: 2\n"
        "      perTryTimeout: 1.5s",
        "    timeout: 3s\n"
        "    retries:\n"
        "      attempts: 1\n"
        "      perTryTimeout: 1.4s",
        "None. With layers declared in .retrylint.yaml the rule also compares each layer's worst-case time "
        "(nested: an attempt without its own timeout lasts as long as the layer below) with its caller's per-try "
        "timeout or deadline.",
        "Istio HTTPRetry and HTTPRoute.timeout (istio/api virtual_service.proto); istio/istio#21137; "
        "gRFC A6 (the method timeout covers all attempts); Envoy router filter (route timeout includes retries).",
    },
    check,
    checkChain,
    /*checks_implicit=*/true, // a declared chain makes a default a finding
};

} // namespace retrylint
