#include "lint/extract/envoy_common.h"

#include <algorithm>
#include <cctype>

#include "lint/model/status_codes.h"

namespace retrylint {

const char *const kEnvoyBackoffSource =
    "Envoy's built-in retry backoff: fully jittered, 25 ms base, capped at 10x base "
    "(envoyproxy/envoy router_filter.rst, x-envoy-max-retries)";

const std::vector<EnvoyRetryOn> &envoyRetryOnTokens() {
  using K = Condition::Kind;
  static const std::vector<EnvoyRetryOn> t = {
      {"5xx", K::HttpStatus, 500, 599, -1, true, "5xx retries 500, 504 and per-try timeouts, after which the first attempt may have been processed"},
      {"gateway-error", K::HttpStatus, 502, 504, -1, true, "gateway-error retries 504 and per-try timeouts, after which the first attempt may have been processed"},
      {"reset", K::Transport, 0, -1, -1, true, "reset retries connections reset or timed out after the request was sent"},
      {"reset-before-request", K::Transport, 0, -1, -1, false, ""},
      {"connect-failure", K::Transport, 0, -1, -1, false, ""},
      {"retriable-4xx", K::HttpStatus, 409, 409, -1, false, ""},
      {"refused-stream", K::Transport, 0, -1, -1, false, ""},
      {"retriable-status-codes", K::Transport, 0, -1, -1, false, ""},
      {"retriable-headers", K::Transport, 0, -1, -1, false, ""},
      {"envoy-ratelimited", K::Transport, 0, -1, -1, false, ""},
      {"http3-post-connect-failure", K::Transport, 0, -1, -1, false, ""},
      {"cancelled", K::GrpcStatus, 0, -1, 1, false, ""},
      {"deadline-exceeded", K::GrpcStatus, 0, -1, 4, true, "deadline-exceeded retries calls that timed out, which the server may have processed"},
      {"internal", K::GrpcStatus, 0, -1, 13, true, "internal retries calls that failed inside the server, possibly after taking effect"},
      {"resource-exhausted", K::GrpcStatus, 0, -1, 8, false, ""},
      {"unavailable", K::GrpcStatus, 0, -1, 14, false, ""},
  };
  return t;
}

const EnvoyRetryOn *findEnvoyRetryOn(std::string_view name) {
  for (const auto &t : envoyRetryOnTokens())
    if (t.name == name) return &t;
  return nullptr;
}

std::string envoyRetryOnNames() {
  std::string s;
  for (const auto &t : envoyRetryOnTokens()) s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

void markTimedOutTryRetried(RetryPolicy &p) {
  if (p.retry_on.empty()) return;
  bool retried = false;
  for (const Condition &c : p.retry_on)
    if (c.text == "5xx" || c.text == "gateway-error" || c.text == "reset") retried = true;
  p.timed_out_try_retried = retried;
}

Condition envoyCondition(const EnvoyRetryOn &t, Origin origin, Span where) {
  Condition c;
  c.kind = t.kind;
  c.text = std::string(t.name);
  c.http_lo = t.lo;
  c.http_hi = t.hi;
  c.grpc_code = t.grpc;
  c.may_have_been_processed = t.processed;
  c.why_processed = std::string(t.why);
  c.origin = origin;
  c.where = std::move(where);
  return c;
}

void setEnvoyBackoff(RetryPolicy &p, Span blockWhere, std::optional<Duration> base, Span baseWhere,
                     std::optional<Duration> max, Span maxWhere) {
  Backoff &b = p.backoff;
  b.envoy_schedule = true;
  b.growth = builtIn(Growth::Exponential, blockWhere, kEnvoyBackoffSource);
  if (base) b.initial = written(base, baseWhere);
  else b.initial = builtIn(std::optional<Duration>(Duration::ms(kEnvoyBaseBackoffMs)), blockWhere, kEnvoyBackoffSource);
  b.multiplier = builtIn(2.0, blockWhere, kEnvoyBackoffSource);
  if (max) b.cap = written(max, maxWhere);
  else b.cap = builtIn(std::optional<Duration>(*b.initial.value * kEnvoyMaxBackoffFactor), blockWhere, kEnvoyBackoffSource);
  b.jitter = builtIn(Jitter::Full, blockWhere, kEnvoyBackoffSource);
  b.jitter_lower = 0;
  // RL105: after the cap. envoyproxy/envoy source/common/common/backoff_strategy.cc
  // JitteredExponentialBackOffStrategy::nextBackOffMs: next_interval_ms_ is doubled up to
  // max_interval_ms_ first, the wait is random() % that capped interval (full jitter).
  b.jitter_order = builtIn(JitterOrder::AfterCap, blockWhere, "Envoy draws over the capped interval (backoff_strategy.cc JitteredExponentialBackOffStrategy)");
  b.description = "Envoy's jittered backoff (" + formatDuration(*b.initial.value) + " base)";
}

std::vector<std::string> methodsMatching(std::string_view kind, std::string_view pattern) {
  std::vector<std::string> out;
  std::string text;
  for (char c : pattern) text += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (kind == "regex") {
    // Simple alternations such as ^(POST|PUT)$ name their methods; anything else is opaque.
    std::string cleaned;
    for (char c : text)
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '|') cleaned += c;
    size_t start = 0;
    while (start <= cleaned.size()) {
      size_t bar = cleaned.find('|', start);
      if (bar == std::string::npos) bar = cleaned.size();
      std::string alt = cleaned.substr(start, bar - start);
      if (!alt.empty()) out.push_back(alt);
      start = bar + 1;
    }
  } else if (kind == "prefix") {
    // A prefix names every method that starts with it ("P" matches POST, PUT and PATCH).
    for (std::string_view m : {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
      if (text.size() <= m.size() && m.substr(0, text.size()) == text) out.emplace_back(m);
  } else {
    out.push_back(text);
  }
  return out;
}


} // namespace retrylint
