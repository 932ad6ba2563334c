// What Istio, Envoy and Envoy Gateway share because they all end up as an Envoy route
// retry_policy: the retry_on vocabulary, Envoy's built-in backoff, HTTP status conditions and
// reading HTTP methods out of a method match.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/policy.h"

namespace retrylint {

// Envoy's backoff: base 25 ms (runtime upstream.base_retry_backoff_ms), max 10x base, full jitter.
// Source: envoyproxy/envoy docs/root/configuration/http/http_filters/router_filter.rst
// (x-envoy-max-retries); route_components.proto RetryPolicy.RetryBackOff.
constexpr double kEnvoyBaseBackoffMs = 25;
constexpr double kEnvoyMaxBackoffFactor = 10;
// RouteAction.timeout: "If not specified, the default is 15s. ... includes all retries"; 0 disables.
constexpr double kEnvoyDefaultRouteTimeoutS = 15;
constexpr const char *kEnvoyDefaultRouteTimeoutSource =
    "Envoy's default route timeout of 15 s, which includes all retries "
    "(envoyproxy/data-plane-api route_components.proto RouteAction.timeout)";
extern const char *const kEnvoyBackoffSource;

// One x-envoy-retry-on / x-envoy-retry-grpc-on condition.
struct EnvoyRetryOn {
  std::string_view name;
  Condition::Kind kind;
  int lo, hi;      // HTTP statuses covered
  int grpc;        // gRPC code
  bool processed;  // the failed attempt may already have taken effect
  std::string_view why;
};

// The conditions Envoy knows (router_filter.rst; Istio accepts the same list:
// istio/istio pkg/config/validation/validation.go supportedRetryOnPolicies).
const std::vector<EnvoyRetryOn> &envoyRetryOnTokens();
const EnvoyRetryOn *findEnvoyRetryOn(std::string_view name);
std::string envoyRetryOnNames(); // "5xx, gateway-error, …" for messages
Condition envoyCondition(const EnvoyRetryOn &t, Origin origin, Span where);

// Sets p.timed_out_try_retried from p.retry_on: Envoy retries an attempt that hit its per-try
// timeout only when 5xx, gateway-error or reset is among the conditions (envoy
// source/common/router/router.cc onPerTryTimeoutCommon -> RetryStateImpl::shouldRetryReset /
// "per try timeouts ... are only retried if ... RETRY_ON_5XX or RETRY_ON_GATEWAY_ERROR"; reset
// covers the upstream reset). Left unknown when no condition is known.
void markTimedOutTryRetried(RetryPolicy &p);

// Envoy's jittered exponential backoff; `base`/`max` when written, the built-in values otherwise.
void setEnvoyBackoff(RetryPolicy &p, Span blockWhere, std::optional<Duration> base, Span baseWhere,
                     std::optional<Duration> max = std::nullopt, Span maxWhere = {});

// Upper-case HTTP methods named by a method match: `exact` names one, `prefix` every known
// method starting with it, `regex` the alternatives of a simple alternation like ^(POST|PUT)$.
std::vector<std::string> methodsMatching(std::string_view kind, std::string_view pattern);

} // namespace retrylint
