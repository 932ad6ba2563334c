// The storm a retry policy or a declared call chain makes when its dependency fails: N clients
// send one request each at t = 0, the service at the bottom answers every call with an error
// until the outage ends at T and then succeeds, and each layer retries as its policy says
// (attempts, waits drawn from the configured schedule with its jitter and cap, a retry budget).
// Seeded and deterministic: the same inputs give the same series on every machine.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/policy.h"

namespace retrylint {

// One layer of retries, outermost first; a single policy is a chain of one layer.
struct StormLayer {
  std::string name;            // "gateway", or the policy's component
  std::optional<int> attempts; // total tries per call into the layer; nullopt = unbounded
  Backoff backoff;             // the waits between them (drawRange, then the cap)
  bool budget = false;         // retries limited to kBudgetRatio of the requests (see storm.cpp)
};

struct StormOptions {
  int clients = 1000;            // requests that fail together at t = 0
  double outage_s = 10;          // the bottom service answers errors for [0, outage_s)
  uint64_t seed = 1;
  int64_t max_calls = 5000000;   // a run that would make more bottom calls stops there (truncated)
  // Calls followed through all layers (12 bytes each, plus their events): a run stops there too,
  // and stormTooLarge refuses up front one whose first tries alone would pass it.
  int64_t max_records = 8000000;
  // Calls left for the whole run (every policy and chain simulated, both schedules), taken down by
  // each simulation; null: no such bound. Keeps `simulate .` over a thousand policies in seconds.
  int64_t *run_budget = nullptr;
};

// The calls one run of `retrylint simulate` or `review` may simulate in all.
inline constexpr int64_t kRunSimulationBudget = 20000000;

struct StormResult {
  std::vector<double> call_times; // every call reaching the failing service, in seconds, sorted
  int64_t calls = 0;              // = call_times.size()
  int64_t during_outage = 0;      // of them, before outage_s
  double amplification = 0;       // calls / clients
  double last_call_s = 0;
  int64_t gave_up = 0;            // requests that failed for good
  bool truncated = false;         // max_calls reached: the counts are lower bounds
};

// Why a layer cannot be simulated ("the wait between attempts is not known"), or "".
std::string stormBlocker(const StormLayer &l);
// Why a chain is too large to simulate with these options (every client's first try alone passes
// max_records: 1,000,000 clients through 1,000 layers; the run's budget is spent), or "".
std::string stormTooLarge(const std::vector<StormLayer> &layers, const StormOptions &o);
StormResult simulateStorm(const std::vector<StormLayer> &layers, const StormOptions &o);

// Calls per bin of `width` seconds over [0, horizon), and the bin width a picture of `horizon`
// seconds uses (a round 0.01 s … 10 min, about 150 bins).
std::vector<int64_t> binCalls(const StormResult &r, double width, double horizon);
double binWidthFor(double horizon);

// The layer a policy makes: its attempts (written or defaulted), backoff and budget.
StormLayer stormLayerOf(const RetryPolicy &p, std::string name);
// The same layer with full jitter, random(0, min(cap, base * mult^(n-1))), and a cap: the
// configured start and growth (100 ms and x2 where there are none), the configured cap, else 20 s.
StormLayer withFullJitterAndCap(const StormLayer &l);

// Retry budgets as Envoy (budget_percent 20 %) and Linkerd (retryRatio 0.2) default them.
inline constexpr double kBudgetRatio = 0.2;
// The cap the full-jitter comparison uses when the policy has none: the doctrine's 20 s.
inline constexpr double kComparisonCapS = 20;

} // namespace retrylint
