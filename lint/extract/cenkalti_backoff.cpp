#include "lint/extract/cenkalti_backoff.h"

namespace retrylint {

std::optional<int> cenkaltiNominalAttempts(Duration initial, double multiplier, Duration maxInterval,
                                           Duration maxElapsed) {
  if (maxElapsed.nanos <= 0 || initial.nanos <= 0) return std::nullopt;
  Duration interval = initial, elapsed{0};
  int attempts = 1;
  while (attempts < 100000) {
    if (elapsed + interval > maxElapsed) return attempts;
    elapsed = elapsed + interval;
    ++attempts;
    // incrementCurrentInterval: jump to the cap once the next step would pass it.
    if (maxInterval.nanos > 0 && static_cast<double>(interval.nanos) >= static_cast<double>(maxInterval.nanos) / multiplier)
      interval = maxInterval;
    else
      interval = interval * multiplier;
  }
  return std::nullopt;
}

} // namespace retrylint
