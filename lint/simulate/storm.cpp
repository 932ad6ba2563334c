#include "lint/simulate/storm.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <queue>

namespace retrylint {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): the same stream on every platform, unlike the
// standard distributions, whose algorithms the library chooses.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; } // [0, 1)
};

// The wait before retry n (1-based), in seconds: a draw from the schedule's range, then the cap.
double drawWait(const Backoff &b, int n, Rng &rng) {
  if (b.growth.value == Growth::NoWait) return 0;
  auto r = drawRange(b, n);
  if (!r) return 0; // stormBlocker refused such a layer
  double lo = r->lo.seconds(), hi = r->hi ? r->hi->seconds() : lo;
  double w = hi > lo ? lo + (hi - lo) * rng.uniform() : lo;
  if (b.cap.value) w = std::min(w, b.cap.value->seconds());
  return std::max(0.0, w);
}

// Envoy's retry budget and Linkerd's retryRatio count over a window (Linkerd's ttl, 10 s):
// retries may be at most kBudgetRatio of the requests in it, plus a floor so that a quiet
// service can still retry (Envoy's min_retry_concurrency, 3).
constexpr double kBudgetWindowS = 10;
constexpr double kBudgetFloor = 3;

struct Budget {
  std::deque<double> requests, retries;
  void trim(double t) {
    while (!requests.empty() && requests.front() <= t - kBudgetWindowS) requests.pop_front();
    while (!retries.empty() && retries.front() <= t - kBudgetWindowS) retries.pop_front();
  }
  bool allows(double t) {
    trim(t);
    return static_cast<double>(retries.size()) < kBudgetRatio * static_cast<double>(requests.size()) + kBudgetFloor;
  }
};

struct Call {
  int layer;
  int parent; // -1: a client's request
  int made = 0;
};

struct Event {
  double t;
  uint64_t seq;
  int call;
  bool operator>(const Event &o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

} // namespace

std::string stormBlocker(const StormLayer &l) {
  const Backoff &b = l.backoff;
  if (l.attempts && *l.attempts < 1) return "the number of attempts is not known from the files";
  if (l.attempts && *l.attempts == 1) return "";
  if (!b.growth.known()) return "the wait between attempts is not known from the files";
  if (b.growth.value != Growth::NoWait && !drawRange(b, 1)) return "the wait between attempts is not known from the files";
  return "";
}

std::string stormTooLarge(const std::vector<StormLayer> &layers, const StormOptions &o) {
  const int64_t first = static_cast<int64_t>(o.clients) * static_cast<int64_t>(layers.size());
  if (first > o.max_records)
    return std::to_string(o.clients) + " clients through " + std::to_string(layers.size()) + " layers make " + std::to_string(first) +
           " calls before any retry, more than the " + std::to_string(o.max_records) +
           " the simulation follows: simulate fewer --clients";
  if (o.run_budget && *o.run_budget < first)
    return "the " + std::to_string(kRunSimulationBudget) +
           " calls one run simulates are spent on the ones before it: select this one with --policy or --chain";
  return "";
}

StormResult simulateStorm(const std::vector<StormLayer> &layers, const StormOptions &o) {
  StormResult r;
  if (layers.empty() || o.clients < 1 || !stormTooLarge(layers, o).empty()) return r;
  Rng rng{o.seed};
  std::vector<Call> calls;
  std::vector<Budget> budgets(layers.size());
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue;
  uint64_t seq = 0;
  calls.reserve(static_cast<size_t>(o.clients) * layers.size()); // at most max_records (stormTooLarge)
  for (int c = 0; c < o.clients; ++c) {
    calls.push_back({0, -1, 0});
    queue.push({0.0, seq++, c});
  }
  const int bottom = static_cast<int>(layers.size()) - 1;

  // The outcome of call c's latest attempt, known at t: retry, or report to the caller above.
  auto outcome = [&](int c, bool ok, double t) {
    for (;;) {
      Call &call = calls[c];
      const StormLayer &l = layers[call.layer];
      if (!ok) {
        bool more = !l.attempts || call.made < *l.attempts;
        if (more && l.budget && !budgets[call.layer].allows(t)) more = false;
        if (more) {
          if (l.budget) budgets[call.layer].retries.push_back(t);
          queue.push({t + drawWait(l.backoff, call.made, rng), seq++, c});
          return;
        }
      }
      if (call.parent < 0) {
        if (!ok) ++r.gave_up;
        return;
      }
      c = call.parent;
    }
  };

  while (!queue.empty()) {
    Event e = queue.top();
    queue.pop();
    Call &call = calls[e.call];
    if (call.made == 0 && layers[call.layer].budget) budgets[call.layer].requests.push_back(e.t);
    ++call.made;
    if (call.layer == bottom) {
      if (r.calls >= o.max_calls) {
        r.truncated = true;
        break;
      }
      r.call_times.push_back(e.t);
      ++r.calls;
      if (e.t < o.outage_s) ++r.during_outage;
      outcome(e.call, e.t >= o.outage_s, e.t);
    } else {
      if (static_cast<int64_t>(calls.size()) >= o.max_records) {
        r.truncated = true;
        break;
      }
      int child = static_cast<int>(calls.size());
      calls.push_back({call.layer + 1, e.call, 0});
      queue.push({e.t, seq++, child});
    }
  }
  // Events are taken in time order, so the calls are already sorted.
  r.last_call_s = r.call_times.empty() ? 0 : r.call_times.back();
  r.amplification = static_cast<double>(r.calls) / o.clients;
  if (o.run_budget) *o.run_budget -= static_cast<int64_t>(calls.size()) + r.calls;
  return r;
}

std::vector<int64_t> binCalls(const StormResult &r, double width, double horizon) {
  size_t n = static_cast<size_t>(std::ceil(horizon / width));
  std::vector<int64_t> bins(std::max<size_t>(n, 1), 0);
  for (double t : r.call_times) {
    size_t i = static_cast<size_t>(t / width);
    if (i < bins.size()) ++bins[i];
  }
  return bins;
}

double binWidthFor(double horizon) {
  static const double nice[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600};
  for (double w : nice)
    if (w >= horizon / 150) return w;
  return nice[std::size(nice) - 1];
}

StormLayer stormLayerOf(const RetryPolicy &p, std::string name) {
  StormLayer l;
  l.name = std::move(name);
  l.backoff = p.backoff;
  l.budget = p.budget.known() && p.budget.value;
  if (!p.mayRetry()) {
    l.attempts = 1;
  } else if (auto n = p.boundedRetries()) {
    l.attempts = *n + 1;
    if (p.runtime_max_attempts) l.attempts = std::min(*l.attempts, *p.runtime_max_attempts);
  } else if (p.max_attempts.origin == Origin::Unknown) {
    l.attempts = 0; // not known: stormBlocker says so
  } else {
    l.attempts = std::nullopt; // unbounded
  }
  return l;
}

StormLayer withFullJitterAndCap(const StormLayer &l) {
  StormLayer f = l;
  Backoff &b = f.backoff;
  const Backoff &o = l.backoff;
  const bool hasStart = o.growth.known() && o.growth.value != Growth::NoWait && o.initial.value;
  b.growth = written(Growth::Exponential, o.growth.where);
  b.initial = written(std::optional<Duration>(hasStart ? *o.initial.value : Duration::ms(100)), o.initial.where);
  const bool grows = o.growth.known() && o.growth.value == Growth::Exponential && o.multiplier.value > 1;
  b.multiplier = written(grows ? o.multiplier.value : 2.0, o.multiplier.where);
  b.envoy_schedule = false;
  b.cap = written(std::optional<Duration>(o.cap.value ? *o.cap.value : Duration::s(kComparisonCapS)), o.cap.where);
  b.jitter = written(Jitter::Full, o.jitter.where);
  b.jitter_shape = JitterShape::Uniform;
  b.jitter_lower = 0;
  b.jitter_upper = 1;
  return f;
}

} // namespace retrylint
