// cenkalti/backoff v4 ExponentialBackOff, which Dapr (exponential policies) and the
// OpenTelemetry Collector (retry_on_failure) both use: waits grow by `multiplier` up to
// `maxInterval`, each drawn from [1 - r, 1 + r] x the interval, and retrying stops once the
// elapsed time plus the next wait would pass `maxElapsedTime` (0 = never).
// Source: github.com/cenkalti/backoff/v4 exponential.go (NextBackOff, incrementCurrentInterval).
#pragma once
#include <optional>

#include "lint/model/duration.h"

namespace retrylint {

// Such a schedule bounds retries by time, not by count: how many attempts run depends on how long
// each one takes. This is the count when every attempt fails at once and every wait is its
// nominal interval — an estimate for messages, not a configured limit. nullopt when the count is
// not bounded that way (maxElapsedTime 0, or waits of zero).
std::optional<int> cenkaltiNominalAttempts(Duration initial, double multiplier, Duration maxInterval,
                                           Duration maxElapsed);

} // namespace retrylint
