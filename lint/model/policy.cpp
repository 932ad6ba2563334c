#include "lint/model/policy.h"

#include <algorithm>
#include <cmath>

namespace retrylint {

std::optional<Duration> grownWait(const Backoff &b, int n) {
  if (!b.growth.known() || n < 1) return std::nullopt;
  if (b.growth.value == Growth::NoWait) return Duration{0};
  if (!b.initial.value) return std::nullopt;
  Duration base = *b.initial.value;
  switch (b.growth.value) {
  case Growth::NoWait: return Duration{0};
  case Growth::Constant: return base;
  case Growth::Linear: return base * static_cast<double>(n);
  case Growth::Exponential: {
    double factor = b.envoy_schedule ? std::pow(2.0, n) - 1.0 : std::pow(b.multiplier.value, n - 1);
    if (!std::isfinite(factor) || factor > 1e12) factor = 1e12;
    return base * factor;
  }
  }
  return std::nullopt;
}

std::optional<Duration> worstCaseWait(const Backoff &b, int n) {
  auto nominal = grownWait(b, n);
  if (!nominal) return std::nullopt;
  // The cap bounds the drawn wait when it is applied after the draw (BeforeCap: min(cap, draw)),
  // else the grown wait the draw is made around.
  if (b.jitter_order.known() && b.jitter_order.value == JitterOrder::BeforeCap && b.cap.value) {
    if (*nominal > *b.cap.value) nominal = *b.cap.value;
    Duration drawn = *nominal * b.jitter_upper;
    return drawn > *b.cap.value ? *b.cap.value : drawn;
  }
  if (b.cap.value && *nominal > *b.cap.value) nominal = *b.cap.value;
  return *nominal * b.jitter_upper;
}

namespace {

// Polly DecorrelatedJitterBackoffV2 (App-vNext/Polly src/Polly.Core/Retry/RetryHelper.cs, v8):
// before retry n (Polly's attempt n-1) t = n-1 + U, next = 2^t * tanh(sqrt(4t)), and the delay is
// (next - prev) / 1.4 * base, prev being the previous retry's `next` (0 before the first).
double pollyNext(double t) { return t <= 0 ? 0.0 : std::pow(2.0, t) * std::tanh(std::sqrt(4.0 * t)); }
constexpr double kPollyScale = 1 / 1.4;

} // namespace

std::optional<DrawRange> drawRange(const Backoff &b, int n) {
  auto g = grownWait(b, n);
  if (!g) return std::nullopt;
  switch (b.jitter_shape) {
  case JitterShape::Uniform: return DrawRange{*g * b.jitter_lower, *g * b.jitter_upper};
  case JitterShape::AddedUnknown: return DrawRange{*g, std::nullopt};
  case JitterShape::Unknown: return std::nullopt;
  case JitterShape::Decorrelated: {
    if (!b.initial.value || n > 1000) return std::nullopt;
    double hi = pollyNext(n) - (n >= 2 ? pollyNext(n - 2) : 0.0);
    return DrawRange{Duration{0}, *b.initial.value * (hi * kPollyScale)};
  }
  }
  return std::nullopt;
}

std::optional<double> shareAbove(const Backoff &b, int n, Duration cap) {
  auto r = drawRange(b, n);
  if (!r) return std::nullopt;
  if (r->lo >= cap) return 1.0;
  if (!r->hi) return std::nullopt;
  if (*r->hi <= cap) return 0.0;
  if (b.jitter_shape == JitterShape::Decorrelated) {
    // P((next(n-1+U) - next(n-2+V)) / 1.4 * base > cap), U and V independent uniform: midpoint grid.
    constexpr int kGrid = 600;
    double limit = cap.seconds() / b.initial.value->seconds() / kPollyScale;
    long above = 0;
    for (int i = 0; i < kGrid; ++i) {
      double next = pollyNext(n - 1 + (i + 0.5) / kGrid);
      if (n == 1) {
        above += next > limit ? kGrid : 0;
        continue;
      }
      for (int j = 0; j < kGrid; ++j)
        if (next - pollyNext(n - 2 + (j + 0.5) / kGrid) > limit) ++above;
    }
    return static_cast<double>(above) / (static_cast<double>(kGrid) * kGrid);
  }
  double lo = static_cast<double>(r->lo.nanos), hi = static_cast<double>(r->hi->nanos);
  return (hi - static_cast<double>(cap.nanos)) / (hi - lo);
}

namespace {
// Waits are summed one by one while they change; once two in a row are equal (a cap reached, a
// constant backoff, growth clamped) every later one is the same, and the rest is one product.
// Past this many retries a wait that still changes is taken as repeating too: only absurd counts
// (2^31 retries of a 1.0001x growth) get there, and a run never loops over a stranger's count.
constexpr int kExactRetries = 100000;
} // namespace

std::optional<Duration> worstCaseWaits(const Backoff &b, int k) {
  Duration sum{0};
  std::optional<Duration> prev;
  for (int n = 1; n <= k; ++n) {
    auto w = worstCaseWait(b, n);
    if (!w) return std::nullopt;
    if ((prev && *w == *prev) || n > kExactRetries) return sum + *w * static_cast<double>(k - n + 1);
    sum = sum + *w;
    prev = w;
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

bool RetryPolicy::mayRetry() const {
  // No count: unbounded (known) or not known (set elsewhere, bounded by time); a dialect that cannot
  // say (NotApplicable) leaves the rules alone.
  if (!max_attempts.value) return max_attempts.origin != Origin::NotApplicable;
  return retries() > 0;
}

bool RetryPolicy::retriesOnlyUnsent() const {
  return !retry_on.empty() && std::all_of(retry_on.begin(), retry_on.end(), [](const Condition &c) { return c.before_send; });
}

std::optional<int> RetryPolicy::boundedRetries() const {
  if (!max_attempts.value || max_attempts.origin == Origin::Unknown) return std::nullopt;
  const int n = retries();
  // A deadline over the whole run ends the retries whose waits alone do not fit before it
  // (an Express workflow's 5 minutes against waits of 20, 200, 2000 s: 2 retries, not 5); with the
  // schedule unknown, the written count stands.
  if (overall_deadline.known() && overall_deadline.value) return retriesThatFit(backoff, n, *overall_deadline.value).value_or(n);
  return n;
}

std::string RetryPolicy::boundedRetriesNote() const {
  auto reach = boundedRetries(), all = exactRetries();
  if (!reach || !all || *reach >= *all || !overall_deadline.value) return {};
  return " (of the " + std::to_string(*all) + " configured: the others cannot start within the " + deadline_name + " " +
         formatSeconds(*overall_deadline.value) + ")";
}

std::optional<int> retriesThatFit(const Backoff &b, int n, Duration deadline) {
  // The most retries k <= n whose waits sum to less than the deadline; summed as worstCaseWaits does.
  Duration sum{0};
  std::optional<Duration> prev;
  for (int fit = 0; fit < n; ++fit) {
    auto w = worstCaseWait(b, fit + 1);
    if (!w) return std::nullopt;
    if ((prev && *w == *prev) || fit >= kExactRetries) {
      // Every later wait is w: j more fit while sum + j * w < deadline.
      if (w->nanos <= 0) return n;
      int64_t more = (deadline.nanos - sum.nanos - 1) / w->nanos;
      return static_cast<int>(std::min<int64_t>(n, fit + std::max<int64_t>(more, 0)));
    }
    sum = sum + *w;
    if (sum >= deadline) return fit;
    prev = w;
  }
  return n;
}

const char *workloadName(Workload w) {
  switch (w) {
  case Workload::Request: return "request path";
  case Workload::Background: return "background workload";
  }
  return "request path";
}

std::optional<int> RetryPolicy::exactRetries() const {
  if (max_attempts.origin == Origin::Unknown) return std::nullopt;
  if (runtime_max_by_design && !runtime_max_attempts) return std::nullopt; // an upper bound only
  return retries();
}

std::string RetryPolicy::describeAttempts() const {
  if (!max_attempts.value)
    return max_attempts.origin == Origin::Unknown ? "an unknown number of attempts" : "unbounded attempts";
  int n = *max_attempts.value;
  std::string tries = std::to_string(n) + (n == 1 ? " attempt" : " attempts");
  std::string text;
  // A field is quoted only when the file writes it: a default is described, never shown as written.
  const std::string field = max_attempts.written() ? attempts_field : "";
  if (attempts_count_retries) {
    int retries = n - 1;
    std::string head = field.empty() ? "" : field + ": " + std::to_string(retries) + " = ";
    text = head + std::to_string(retries) + (retries == 1 ? " retry" : " retries") + " + the first try = " + tries;
  } else {
    text = field.empty() ? tries : field + " " + std::to_string(n);
  }
  if (runtime_max_attempts && n > *runtime_max_attempts)
    text += runtime_max_by_design ? " (" + runtime_max_source + ", so " + std::to_string(*runtime_max_attempts) + " at most)"
                                  : " (clamped to " + std::to_string(*runtime_max_attempts) + " at run time)";
  return text;
}

} // namespace retrylint

namespace retrylint {

void forEachSpan(RetryPolicy &p, const std::function<void(Span &)> &each) {
  forEachOtherSpan(p, each);
  forEachSetting(p, [&](auto &s) { each(s.where); });
}

void dropFixes(RetryPolicy &p) {
  forEachSetting(p, [](auto &s) { s.fix.reset(); });
}

} // namespace retrylint
