#include "rules/rl105_jitter_clipped_by_cap.h"

#include <cmath>

#include "rules/rule.h"

namespace retrylint {

namespace {
// Unbounded retries: how far to look for the retry where the cap starts to cut.
constexpr int kSearchLimit = 200;
} // namespace

std::optional<ClippedJitter> clippedJitter(const RetryPolicy &p) {
  const Backoff &b = p.backoff;
  if (!b.jitter_order.known() || b.jitter_order.value != JitterOrder::BeforeCap) return std::nullopt;
  if (!b.jitter.known() || b.jitter.value == Jitter::None) return std::nullopt;
  if (!b.growth.known() || b.growth.value == Growth::NoWait) return std::nullopt;
  const bool bounded = p.max_attempts.value.has_value() && p.max_attempts.origin != Origin::Unknown;
  const bool unbounded = (p.max_attempts.known() && !p.max_attempts.value) || p.schedule_only;
  // Unbounded retries with a growing wait pass any cap: clipped, even where the numbers are not read.
  const bool grows = b.growth.value == Growth::Exponential || b.growth.value == Growth::Linear;
  ClippedJitter generic;
  generic.bounded = false;
  if (b.cap.origin == Origin::Unknown) return unbounded && grows ? std::optional(generic) : std::nullopt;
  if (!b.cap.known() || !b.cap.value) return std::nullopt;
  const Duration cap = *b.cap.value;
  const int last = bounded ? p.retries() : kSearchLimit;
  if (last < 1 || (!bounded && !unbounded)) return std::nullopt;

  ClippedJitter c;
  c.cap = cap;
  c.bounded = bounded;
  for (int n = 1; n <= last && !c.from; ++n) {
    auto r = drawRange(b, n);
    if (!r) return unbounded && grows ? std::optional(generic) : std::nullopt;
    if (r->hi ? *r->hi > cap : r->lo >= cap) {
      c.from = n;
      c.from_at_latest = !r->hi; // an added random term of unknown size may cross earlier
    }
  }
  if (!c.from) return std::nullopt;

  if (bounded) {
    c.at = last;
  } else {
    // Unbounded: the first retry at which every draw is cut, or else the share a few retries on.
    c.at = std::max(*c.from, 10);
    for (int n = *c.from; n <= kSearchLimit; ++n)
      if (auto s = shareAbove(b, n, cap); s && *s >= 1.0) {
        c.at = n;
        break;
      }
  }
  c.share = shareAbove(b, c.at, cap);
  if (!c.share) {
    // The share is only known where the grown wait alone passes the cap (then every draw is cut).
    if (c.from_at_latest) c.share = 1.0;
    else return std::nullopt;
  }
  return c;
}

std::string describeShare(double share) {
  if (share >= 1.0) return "every client waits";
  double pct = std::floor(share * 100.0);
  if (pct < 1) return "under 1 % of clients wait";
  return std::to_string(static_cast<int>(pct)) + " % of clients wait";
}

namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    auto c = clippedJitter(p);
    if (!c) continue;
    const Backoff &b = p.backoff;
    // A calculator is called as often as its callers retry: as far as unbounded retries go.
    const std::string open = p.schedule_only ? "as often as its callers retry" : "retries are unbounded";
    if (!c->from) {
      std::string msg = "the random term is drawn before the cap is applied, and " +
                        (p.schedule_only ? b.description + " is used as often as its callers retry" : std::string("retries are unbounded")) +
                        ": once the grown wait passes the cap, every draw above it becomes exactly the cap and clients retry in "
                        "step again";
      if (!b.full_jitter_instead.empty()) msg += "; instead, " + b.full_jitter_instead;
      out.report(p, b.jitter_order.where, "jitter-order", msg);
      continue;
    }
    const std::string cap = formatDuration(c->cap);
    std::string msg = "the random term is drawn before the " + cap + " cap is applied";
    if (!b.jitter_order.source.empty()) msg += " (" + b.jitter_order.source + ")";
    msg += ", so every draw above the cap becomes exactly " + cap + ": ";
    const std::string from = std::to_string(*c->from), at = std::to_string(c->at);
    if (c->from_at_latest) {
      auto g = grownWait(b, *c->from);
      msg += "by retry " + from + " at the latest the grown wait alone" + (g ? " (" + formatDuration(*g) + ")" : "") +
             " passes the cap, and from then on every client waits exactly " + cap;
    } else {
      msg += "from retry " + from + " on, draws are cut to the cap; ";
      if (!c->bounded && *c->share >= 1.0) msg += "from retry " + at + " on (" + open + "), ";
      else if (!c->bounded) msg += "at retry " + at + " (" + open + "), ";
      else if (c->at == *c->from) msg += "at that retry, the last, ";
      else msg += "at retry " + at + ", the last, ";
      msg += describeShare(*c->share) + " exactly " + cap;
    }
    msg += ", so they retry in step again";
    if (!b.full_jitter_instead.empty()) msg += "; instead, " + b.full_jitter_instead;
    out.report(p, b.jitter_order.where, "jitter-order", msg);
  }
}

} // namespace

extern const Rule kRL105 = {
    "RL105", "jitter-clipped-by-cap", Severity::Warning,
    "the jitter is drawn before the cap, so once the wait reaches the cap clients wait exactly the cap again",
    {
        "A backoff with both jitter and a maximum wait whose random term is applied to the grown wait "
        "and the cap after it: min(cap, randomize(base * multiplier^n)). Every draw above the cap becomes "
        "exactly the cap. Reported only when it happens within the configured attempts (always, when they "
        "are unbounded): some retry's random range reaches above the cap. Runtimes that draw over the capped "
        "wait (gRPC, Envoy, the AWS SDKs' full jitter, Step Functions, Dapr, Spring Cloud Gateway) are not "
        "reported. Clipping happens in Resilience4j's exponential random backoff "
        "(IntervalFunction.ofExponentialRandomBackoff with a max interval, what enableExponentialBackoff + "
        "enableRandomizedWait + exponentialMaxWaitDuration build), in Polly's jittered delay with MaxDelay, "
        "and in hand-written C++ such as std::min(delay * dist(rng), max_delay).",
        "Jitter exists to spread clients that failed together. Clipping the draw puts them back together: "
        "once the grown wait passes the cap, a growing share of clients (all of them, once the lowest draw "
        "passes it) wait exactly the cap and retry in the same instant, in synchronized waves, which is the "
        "storm the jitter was added to prevent. The configuration looks right to a reviewer because both words, "
        "jitter and cap, are there.",
        "Resilience4j in Spring Boot, 8 attempts from 500 ms doubling, capped at 2 s:\n"
        "    resilience4j.retry.instances.backend:\n"
        "      maxAttempts: 8\n"
        "      waitDuration: 500ms\n"
        "      enableExponentialBackoff: true\n"
        "      exponentialBackoffMultiplier: 2\n"
        "      enableRandomizedWait: true\n"
        "      randomizedWaitFactor: 0.5\n"
        "      exponentialMaxWaitDuration: 2s\n"
        "Retry 3 draws from 1 s to 3 s, so half the clients wait exactly 2 s; from retry 4 on (2 s to 6 s) all of them do.\n"
        "In C++:\n"
        "    std::this_thread::sleep_for(std::min(base * (1 << attempt) + jitter(rng), cap));",
        "Draw after the cap (full jitter): delay = random(0, min(cap, base * 2^n)). In C++:\n"
        "    std::uniform_int_distribution<long> pick(0, std::min(cap, base << attempt).count());\n"
        "    std::this_thread::sleep_for(std::chrono::milliseconds(pick(rng)));\n"
        "Resilience4j's properties cannot express that order: set an IntervalFunction (or IntervalBiFunction) "
        "in code that draws over the capped wait, e.g.\n"
        "    RetryConfig.custom().intervalFunction(attempt -> ThreadLocalRandom.current().nextLong(\n"
        "        Math.min(2000L, 500L << (attempt - 1)) + 1))\n"
        "or keep the schedule below the cap within the attempts. No automatic fix is offered.",
        "None.",
        "AWS Architecture Blog, \"Exponential Backoff And Jitter\" (full jitter); resilience4j-core "
        "IntervalFunction.java ofExponentialRandomBackoff (Math.min(randomize(interval), maxInterval)); "
        "Polly src/Polly.Core/Retry/RetryHelper.cs GetRetryDelay (the jittered delay clamped to MaxDelay).",
    },
    check,
};

} // namespace retrylint
