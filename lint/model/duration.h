// Durations as the retry configs write them, and the parsers for each syntax.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace retrylint {

// A length of time, kept in nanoseconds (the finest unit any supported format writes).
struct Duration {
  int64_t nanos = 0;

  // Saturating: absurd values from configs (1e308 seconds, NaN) must not overflow (UB).
  static constexpr int64_t clamp(double v) {
    if (!(v == v)) return 0;
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(v);
  }
  static constexpr Duration ms(double v) { return Duration{clamp(v * 1e6)}; }
  static constexpr Duration s(double v) { return Duration{clamp(v * 1e9)}; }
  double seconds() const { return static_cast<double>(nanos) / 1e9; }
  double millis() const { return static_cast<double>(nanos) / 1e6; }

  friend Duration operator+(Duration a, Duration b) {
    int64_t sum;
    if (__builtin_add_overflow(a.nanos, b.nanos, &sum)) sum = a.nanos > 0 ? INT64_MAX : INT64_MIN;
    return {sum};
  }
  friend Duration operator*(Duration a, double k) { return {clamp(static_cast<double>(a.nanos) * k)}; }
  friend auto operator<=>(Duration, Duration) = default;
};

// Human form used in messages: "25 ms", "1.5 s", "0.1 s", "2 min 30 s" is not used —
// seconds with up to three decimals from one second up, milliseconds below.
std::string formatDuration(Duration d);
// The same, always in seconds ("0.1 s"), for arithmetic shown next to second-sized values.
std::string formatSeconds(Duration d);

// Go `time.ParseDuration` syntax (Istio, Linkerd, Dapr): "1.5s", "100ms", "1h30m", "0".
// Returns nullopt and sets *error on malformed input.
std::optional<Duration> parseGoDuration(std::string_view text, std::string *error);

// proto3 JSON Duration (gRPC service config, Envoy): decimal seconds with an "s" suffix,
// at most 9 fractional digits: "0.100s", "30s". "100ms" is rejected.
std::optional<Duration> parseProtoJsonDuration(std::string_view text, std::string *error);

// Argo Workflows `retryStrategy.backoff` durations: a bare integer is seconds ("10", "-1"),
// anything else is Go `time.ParseDuration` syntax ("2m", "1h30m"). Source: argoproj/argo-workflows
// workflow/controller/operator.go parseStringToDuration (strconv.Atoi first, then time.ParseDuration).
std::optional<Duration> parseArgoDuration(std::string_view text, std::string *error);
// Gateway API Duration (GEP-2257; kubernetes-sigs/gateway-api apis/v1/shared_types.go, also Envoy
// Gateway's gwapiv1.Duration): `^([0-9]{1,5}(h|m|s|ms)){1,4}$` — integers only, so "0.5s" and
// "1.5h" are invalid ("500ms" is the way), no sign, at most four components. "0s" is zero.
std::optional<Duration> parseGatewayDuration(std::string_view text, std::string *error);
// Spring Boot `java.time.Duration` binding (Resilience4j, Spring Cloud Gateway), as Spring's
// DurationStyle reads it: an integer with an optional unit ns/us/ms/s/m/h/d (case-insensitive;
// a bare number is milliseconds, the default unit of these properties), or ISO-8601 such as
// "PT2S", "PT0.5S", "P1DT2H". Decimals are only allowed in ISO seconds ("1.5s" is rejected).
std::optional<Duration> parseSpringDuration(std::string_view text, std::string *error);

// .NET `TimeSpan.Parse` invariant forms (Polly / Microsoft.Extensions.Http.Resilience options):
// "[-]d", "[-][d.]hh:mm[:ss[.fffffff]]". A bare integer is a number of DAYS ("2" = 2 days).
std::optional<Duration> parseTimeSpan(std::string_view text, std::string *error);

// NGINX time values of millisecond directives (proxy_next_upstream_timeout), as ngx_parse_time
// reads them (nginx/nginx src/core/ngx_parse.c, is_sec = 0): whole numbers with units w, d, h, m,
// s, ms in that order, optionally separated by spaces ("1m 30s", "1m30s", "500ms"); a number with
// no unit is seconds ("30"). No decimals, no sign; "0" is zero (no limit where the directive says so).
std::optional<Duration> parseNginxTime(std::string_view text, std::string *error);
// HAProxy time values (doc/configuration.txt 2.5 "Time format"): a whole number with an optional
// unit us, ms, s, m, h, d; without one the directive's default unit, milliseconds for timeouts.
std::optional<Duration> parseHaproxyTime(std::string_view text, std::string *error);

} // namespace retrylint
