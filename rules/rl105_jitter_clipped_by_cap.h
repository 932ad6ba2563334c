// RL105's computation, exposed for its unit test: from which retry a cap applied after the random
// draw cuts draws to exactly the cap, and what share of draws it cuts at the retry reported.
#pragma once
#include <optional>
#include <string>

#include "lint/model/policy.h"

namespace retrylint {

struct ClippedJitter {
  Duration cap;
  std::optional<int> from;     // first retry (1-based) whose random range reaches above the cap
  bool from_at_latest = false; // the random term's size is unknown: it may cross earlier
  bool bounded = true;         // retries are bounded; `at` is the last retry
  int at = 0;                  // the retry whose share is reported
  std::optional<double> share; // share of draws cut to exactly the cap at `at`
};

// nullopt when the policy does not clip its jitter within its attempts (or it cannot be shown).
std::optional<ClippedJitter> clippedJitter(const RetryPolicy &p);
// "75 % of clients wait", "every client waits", "under 1 % of clients wait" (floored: never overstated).
std::string describeShare(double share);

} // namespace retrylint
