// Envoy Gateway BackendTrafficPolicy: spec.retry (numRetries, retryOn.triggers/httpStatusCodes,
// perRetry.timeout, perRetry.backOff), spec.timeout.http.requestTimeout and
// spec.circuitBreaker.retryBudget.
//
// Field facts: envoyproxy/gateway api/v1alpha1/retry_types.go (comments and kubebuilder defaults),
// site/content/en/latest/user/traffic/retry.md ("NumRetries ... Defaults to 2"). The policy becomes
// an Envoy route retry_policy (docs/formats.md §3), so Envoy's jittered backoff applies. See docs/formats.md §9a.
#include "lint/extract/envoy_common.h"
#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "envoy-gateway-backendtrafficpolicy";

// retry_types.go: NumRetries "Defaults to 2" (+kubebuilder:default=2).
constexpr int kEgDefaultRetries = 2;
constexpr const char *kEgDefaultRetriesSource =
    "Envoy Gateway's default numRetries: 2 (envoyproxy/gateway api/v1alpha1/retry_types.go)";
// retry_types.go RetryOn: default triggers when retryOn is not set.
constexpr const char *kEgDefaultRetryOnSource =
    "Envoy Gateway's default retryOn: connect-failure, refused-stream, unavailable, cancelled, "
    "retriable-status-codes with 503 (envoyproxy/gateway api/v1alpha1/retry_types.go)";
constexpr int kEgDefaultStatusCode = 503;
constexpr const char *kEgPerTrySource =
    "Envoy Gateway: no per-try timeout unless perRetry.timeout is set, so each try may use the whole "
    "route timeout (envoyproxy/gateway api/v1alpha1/retry_types.go PerRetryPolicy)";

constexpr const char *kEgRouteTimeoutSource =
    "Envoy's default route timeout of 15 s, which includes all retries (envoyproxy/data-plane-api route_components.proto "
    "RouteAction.timeout): Envoy Gateway sets a route timeout only from timeout.http.requestTimeout or the HTTPRoute's "
    "timeouts.request (envoyproxy/gateway internal/xds/translator/route.go getEffectiveRequestTimeout)";

// Durations as the runtime reads them.
const DurationSyntax kDurations{parseGatewayDuration, "the API server rejects the BackendTrafficPolicy", false};

bool recognise(const yaml::Node &doc) {
  return isKubernetesObject(doc, "gateway.envoyproxy.io", {"BackendTrafficPolicy"});
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  std::string name = meta.name, ns = meta.ns;
  auto spec = mapAt(cx, doc, "spec", "spec");
  if (!spec) return;
  auto retry = mapAt(cx, *spec, "retry", "spec.retry");
  if (!retry) return; // no retry block: Envoy Gateway configures no retries

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = "BackendTrafficPolicy/" + ns + "/" + name + "/retry";
  p.component = "BackendTrafficPolicy " + name;
  Span retryKey = cx.keySpan(*spec, "retry");
  p.where = retryKey;
  p.attempts_field = "numRetries";
  p.attempts_count_retries = true;
  p.per_try_field = "perRetry.timeout";
  p.deadline_name = "route timeout (Envoy's default)";
  // circuitBreaker.retryBudget (envoyproxy/gateway api/v1alpha1/circuitbreaker_types.go RetryBudget:
  // percent of active requests, minRetryConcurrency default 3) becomes the cluster's Envoy
  // retry_budget. Without it the budget is not known from this file alone: another policy may
  // set the circuit breaker of the same backend.
  p.budget.origin = Origin::Unknown;
  p.budget_field = "circuitBreaker.retryBudget";
  if (auto cb = get(*spec, "circuitBreaker"); cb && cb->IsMap())
    if (auto rb = get(*cb, "retryBudget"); rb && rb->IsMap()) p.budget = written(true, cx.keySpan(*cb, "retryBudget"));
  // No requestTimeout: Envoy Gateway leaves the route's timeout unset unless the HTTPRoute sets
  // timeouts.request (envoyproxy/gateway internal/xds/translator/route.go
  // getEffectiveRequestTimeout), so Envoy's default of 15 s applies.
  p.overall_deadline = defaulted(std::optional<Duration>(Duration::s(kEnvoyDefaultRouteTimeoutS)), retryKey, kEgRouteTimeoutSource);

  if (auto t = get(*spec, "timeout"); t && t->IsMap())
    if (auto http = get(*t, "http"); http && http->IsMap())
      if (auto rt = get(*http, "requestTimeout")) {
        auto d = readDuration(cx, *rt, "timeout.http.requestTimeout", p.anchor, kDurations);
        if (d) {
          p.overall_deadline = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*rt));
          p.deadline_name = "requestTimeout";
        } else {
          p.overall_deadline.origin = Origin::Unknown;
        }
      }

  if (auto n = get(*retry, "numRetries")) {
    long long v = requireInt(cx, *n, "retry.numRetries", false);
    if (v < 0) {
      cx.problem(cx.span(*n), "numRetries " + std::to_string(v) + " is negative: the API server rejects the BackendTrafficPolicy", p.anchor + "/numRetries");
      return;
    }
    if (v == 0) return; // retries off
    p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(v, 1'000'000)) + 1), cx.span(*n));
  } else {
    p.max_attempts = defaulted(std::optional<int>(kEgDefaultRetries + 1), retryKey, kEgDefaultRetriesSource);
  }

  if (auto on = get(*retry, "retryOn"); on && !isNull(*on)) {
    requireMap(cx, *on, "retry.retryOn");
    if (auto tr = get(*on, "triggers"); tr && !isNull(*tr)) {
      requireSequence(cx, *tr, "retry.retryOn.triggers");
      for (const auto &t : *tr) {
        std::string tok = requireString(cx, t, "retry.retryOn.triggers[]");
        const EnvoyRetryOn *e = findEnvoyRetryOn(tok);
        if (!e) {
          cx.problem(cx.span(t), "trigger '" + tok + "' is not an Envoy retry condition (" + envoyRetryOnNames() + "): the API server rejects the BackendTrafficPolicy",
                     p.anchor + "/triggers/" + tok);
          continue;
        }
        p.retry_on.push_back(envoyCondition(*e, Origin::Written, cx.span(t)));
      }
    }
    // internal/xds/translator/route.go buildRetryPolicy: the codes become Envoy's
    // retriable_status_codes, which act only under the retriable-status-codes trigger: the default
    // triggers (no triggers written) include it, a written list must name it.
    bool codesApply = true;
    if (auto tr = get(*on, "triggers"); tr && tr->IsSequence() && tr->size() > 0) {
      codesApply = false;
      for (const auto &t : *tr) codesApply |= t.IsScalar() && t.Scalar() == "retriable-status-codes";
    }
    if (auto codes = get(*on, "httpStatusCodes"); codes && !isNull(*codes)) {
      requireSequence(cx, *codes, "retry.retryOn.httpStatusCodes");
      for (const auto &c : *codes) {
        long long code = requireInt(cx, c, "retry.retryOn.httpStatusCodes[]", false);
        if (!httpCodeInRange(static_cast<int>(code))) {
          cx.problem(cx.span(c), std::to_string(code) + " is not an HTTP status code (100-599): the API server rejects the BackendTrafficPolicy",
                     p.anchor + "/httpStatusCodes/" + std::to_string(code));
          continue;
        }
        // A success or a redirect is not a failure: Envoy retries the answered request and, once the
        // retries are spent, returns the last response anyway.
        if (codesApply && code >= 200 && code <= 399) {
          std::string cls = code < 300 ? "a success (2xx)" : "a redirect (3xx)";
          std::string sends = p.max_attempts.value ? "up to " + std::to_string(*p.max_attempts.value) + " times" : "again";
          cx.problem(cx.span(c), "httpStatusCodes " + std::to_string(code) + " is " + cls + ", not a failure: Envoy retries every request answered with " +
                                     std::to_string(code) + ", so each one is sent " + sends + " and the caller still gets the last " + std::to_string(code),
                     p.anchor + "/httpStatusCodes/" + std::to_string(code));
          continue;
        }
        p.retry_on.push_back(httpStatusCondition(static_cast<int>(code), Origin::Written, cx.span(c)));
      }
    }
  } else {
    for (auto n : {"connect-failure", "refused-stream", "unavailable", "cancelled", "retriable-status-codes"}) {
      Condition c = envoyCondition(*findEnvoyRetryOn(n), Origin::Defaulted, retryKey);
      p.retry_on.push_back(c);
    }
    p.retry_on.push_back(httpStatusCondition(kEgDefaultStatusCode, Origin::Defaulted, retryKey));
    (void)kEgDefaultRetryOnSource;
  }

  std::optional<Duration> base, max;
  Span baseWhere = retryKey, maxWhere = retryKey, backoffWhere = retryKey;
  p.per_try_timeout = defaulted(std::optional<Duration>(), retryKey, kEgPerTrySource);
  if (auto pr = get(*retry, "perRetry"); pr && !isNull(*pr)) {
    requireMap(cx, *pr, "retry.perRetry");
    if (auto t = get(*pr, "timeout")) {
      auto d = readDuration(cx, *t, "perRetry.timeout", p.anchor, kDurations);
      if (d) p.per_try_timeout = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t));
      else p.per_try_timeout.origin = Origin::Unknown;
    }
    if (auto bo = get(*pr, "backOff"); bo && !isNull(*bo)) {
      requireMap(cx, *bo, "retry.perRetry.backOff");
      backoffWhere = cx.keySpan(*pr, "backOff");
      if (auto b = get(*bo, "baseInterval")) {
        base = readDuration(cx, *b, "backOff.baseInterval", p.anchor, kDurations);
        baseWhere = cx.span(*b);
        if (base && base->nanos < 1'000'000) {
          cx.problem(baseWhere, "baseInterval " + b->Scalar() + " is below Envoy's minimum of 1ms: the translated route is rejected", p.anchor + "/baseInterval");
          base.reset();
        }
      }
      if (auto m = get(*bo, "maxInterval")) {
        max = readDuration(cx, *m, "backOff.maxInterval", p.anchor, kDurations);
        maxWhere = cx.span(*m);
        Duration b = base.value_or(Duration::ms(kEnvoyBaseBackoffMs));
        if (max && *max < b) {
          cx.problem(maxWhere, "maxInterval " + m->Scalar() + " is below the base interval " + formatDuration(b) + ": Envoy rejects the translated route", p.anchor + "/maxInterval");
          max.reset();
        }
      }
    }
  }
  setEnvoyBackoff(p, backoffWhere, base, baseWhere, max, maxWhere);
  markTimedOutTryRetried(p);
  cx.model.policies.push_back(std::move(p));
}

} // namespace

namespace {
const Extractor &envoyGatewayExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"gateway.envoyproxy.io"},
      .priority = 40,
      .prefilter_words = {"gateway.envoyproxy.io"},
      .retry_keys = {"retry"},
  };
  return e;
}
const ExtractorRegistration registered(&envoyGatewayExtractor);
} // namespace

} // namespace retrylint
