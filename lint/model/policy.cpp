#include "lint/model/policy.h"

#include <algorithm>
#include <cmath>

namespace retrylint {

std::optional<Duration> worstCaseWait(const Backoff &b, int n) {
  if (!b.growth.known() || n < 1) return std::nullopt;
  if (b.growth.value == Growth::NoWait) return Duration{0};
  if (!b.initial.value) return std::nullopt;
  Duration base = *b.initial.value;
  Duration nominal;
  switch (b.growth.value) {
  case Growth::NoWait: return Duration{0};
  case Growth::Constant: nominal = base; break;
  case Growth::Linear: nominal = base * static_cast<double>(n); break;
  case Growth::Exponential: {
    double factor = b.envoy_schedule ? std::pow(2.0, n) - 1.0 : std::pow(b.multiplier.value, n - 1);
    if (!std::isfinite(factor) || factor > 1e12) factor = 1e12;
    nominal = base * factor;
    break;
  }
  }
  if (b.cap.value && nominal > *b.cap.value) nominal = *b.cap.value;
  return nominal * b.jitter_upper;
}

std::optional<Duration> worstCaseWaits(const Backoff &b, int k) {
  Duration sum{0};
  for (int n = 1; n <= k; ++n) {
    auto w = worstCaseWait(b, n);
    if (!w) return std::nullopt;
    sum = sum + *w;
  }
  return sum;
}

std::optional<int> RetryPolicy::effectiveAttempts() const {
  if (!max_attempts.value) return std::nullopt;
  int n = *max_attempts.value;
  if (runtime_max_attempts) n = std::min(n, *runtime_max_attempts);
  return n;
}

int RetryPolicy::retries() const {
  auto n = effectiveAttempts();
  return n && *n > 1 ? *n - 1 : 0;
}

std::optional<int> RetryPolicy::exactRetries() const {
  if (max_attempts.origin == Origin::Unknown) return std::nullopt;
  return retries();
}

std::string RetryPolicy::describeAttempts() const {
  if (!max_attempts.value) return "unbounded attempts";
  int n = *max_attempts.value;
  std::string tries = std::to_string(n) + (n == 1 ? " attempt" : " attempts");
  std::string text;
  if (attempts_count_retries) {
    int retries = n - 1;
    std::string head = attempts_field.empty() ? "" : attempts_field + ": " + std::to_string(retries) + " = ";
    text = head + std::to_string(retries) + (retries == 1 ? " retry" : " retries") + " + the first try = " + tries;
  } else {
    text = attempts_field.empty() ? tries : attempts_field + " " + std::to_string(n);
  }
  if (runtime_max_attempts && n > *runtime_max_attempts)
    text += " (clamped to " + std::to_string(*runtime_max_attempts) + " at run time)";
  return text;
}

} // namespace retrylint
