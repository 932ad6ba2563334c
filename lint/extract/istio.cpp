// Istio VirtualService: spec.http[].retries, spec.http[].timeout, spec.http[].match[].method.
//
// Field facts: istio/api networking/v1alpha3/virtual_service.proto (HTTPRetry, HTTPRoute);
// what istiod generates: istio/istio pilot/pkg/networking/core/route/retry/retry.go;
// validation: istio/istio pkg/config/validation/validation.go. See docs/formats.md §2.
#include <algorithm>
#include <cctype>

#include "lint/extract/envoy_common.h"
#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "istio-virtualservice";

// Istio's implicit policy for a route without a `retries` block: 2 retries.
// Source: istio/istio pilot/pkg/networking/core/route/retry/retry.go (DefaultPolicy, NumRetries 2).
constexpr int kIstioDefaultRetries = 2;
constexpr const char *kIstioDefaultRetriesSource =
    "Istio's default when a route has no retries block: 2 retries "
    "(istio/istio pilot/pkg/networking/core/route/retry/retry.go)";
// The implicit retryOn. 503 is left out: EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY defaults to true
// since istio/istio PR #52111.
constexpr const char *kIstioDefaultRetryOnSource =
    "Istio's default retryOn: connect-failure,refused-stream,unavailable,cancelled "
    "(istio/api virtual_service.proto HTTPRetry.retry_on; istio/istio retry.go)";

std::vector<Condition> defaultRetryOn(Span where) {
  std::vector<Condition> out;
  for (auto name : {"connect-failure", "refused-stream", "unavailable", "cancelled"})
    out.push_back(envoyCondition(*findEnvoyRetryOn(name), Origin::Defaulted, where));
  return out;
}

void parseRetryOn(ExtractContext &cx, const yaml::Node &node, const std::string &anchor, RetryPolicy &p) {
  std::string value = requireString(cx, node, "retries.retryOn");
  for (const ListEntry &entry : commaList(value, " \t\n\v\f\r")) {
    const std::string &raw = entry.raw, &tok = entry.text;
    Span where = entrySpan(cx, node, entry);
    if (tok.empty()) {
      cx.problem(where, "retryOn has an empty entry: Istio rejects the VirtualService", anchor + "/retryOn");
      continue;
    }
    if (tok != raw) {
      // The fix removes the spaces around the entry: replace the raw entry's extent by the token.
      Span rawSpan = cx.tokenSpan(node, entry.offset, raw.size());
      cx.problem(where, "retryOn entry '" + raw + "' has spaces: Istio's validation splits on ',' without trimming and rejects the VirtualService; write '" + tok + "'",
                 anchor + "/retryOn/" + tok, Fix{"remove the spaces around '" + tok + "'", {cx.src.replace(rawSpan, tok)}});
    }
    if (std::all_of(tok.begin(), tok.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      int code = tok.size() > 4 ? 0 : std::stoi(tok);
      if (!httpCodeInRange(code)) {
        cx.problem(where, "retryOn '" + tok + "' is not an HTTP status code (100-599): Istio rejects the VirtualService", anchor + "/retryOn/" + tok);
        continue;
      }
      p.retry_on.push_back(httpStatusCondition(code, Origin::Written, where));
      continue;
    }
    const EnvoyRetryOn *t = findEnvoyRetryOn(tok);
    if (!t) {
      cx.problem(where, "retryOn '" + tok + "' is not a retry condition Istio accepts (" + envoyRetryOnNames() + ", or an HTTP status code): Istio rejects the VirtualService",
                 anchor + "/retryOn/" + tok);
      continue;
    }
    p.retry_on.push_back(envoyCondition(*t, Origin::Written, where));
  }
}

// Istio accepts Go-style durations; min 1 ms for perTryTimeout.
// Durations as the runtime reads them.
const DurationSyntax kDurations{parseGoDuration, "Istio rejects the VirtualService", true};

void collectMethods(ExtractContext &cx, const yaml::Node &route, RetryPolicy &p) {
  auto match = get(route, "match");
  if (!match || !match->IsSequence()) return;
  for (const auto &m : *match) {
    if (!m.IsMap()) continue;
    if (auto headers = get(m, "headers"); headers && headers->IsMap()) {
      for (auto it = headers->begin(); it != headers->end(); ++it) {
        if (!it->first.IsScalar()) continue;
        std::string k = it->first.Scalar();
        std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
        if (k == "idempotency-key" || k == "x-idempotency-key") p.idempotency_key = true;
      }
    }
    auto method = get(m, "method");
    if (!method || !method->IsMap()) continue;
    for (auto kind : {"exact", "prefix", "regex"}) {
      auto v = get(*method, kind);
      if (!v || !v->IsScalar()) continue;
      for (auto &name : methodsMatching(kind, v->Scalar())) p.methods.push_back(written(name, cx.span(*v)));
    }
  }
}

// Turns the implicit retries off: `retries: {attempts: 0}` as the route's first key (attempts
// counts retries, so 0 = a single attempt).
std::optional<Fix> noRetriesFix(ExtractContext &cx, const yaml::Node &route) {
  if (route.begin() == route.end()) return std::nullopt;
  yaml::Mark m = route.begin()->first.Mark();
  if (m.is_null()) return std::nullopt;
  bool flow = route.Style() == yaml::EmitterStyle::Flow;
  std::string text = flow ? "retries: {attempts: 0}, " : "retries: {attempts: 0}\n" + std::string(m.column, ' ');
  Span at{cx.src.path(), m.line + 1, m.column + 1, m.line + 1, m.column + 1};
  return Fix{"set retries.attempts to 0 (one attempt, no retry)", {cx.src.replace(at, text)}, /*safe=*/false};
}

void extractRoute(ExtractContext &cx, const yaml::Node &route, size_t index, const std::string &vsName,
                  const std::string &vsAnchor) {
  requireMap(cx, route, "spec.http[" + std::to_string(index) + "]");
  std::string routeName;
  if (auto n = get(route, "name"); n && n->IsScalar()) routeName = n->Scalar();
  std::string anchor = vsAnchor + "/http[" + (routeName.empty() ? std::to_string(index) : routeName) + "]";

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.component = "VirtualService " + vsName + " http[" + std::to_string(index) + "]" +
                (routeName.empty() ? "" : " (" + routeName + ")");
  p.anchor = anchor;
  p.attempts_field = "attempts";
  p.attempts_count_retries = true;
  p.deadline_name = "route timeout";
  p.per_try_field = "perTryTimeout";
  p.budget_field = "a DestinationRule retryBudget";
  // Istio's retry budget lives in a DestinationRule (trafficPolicy.retryBudget), not here.
  p.budget.origin = Origin::Unknown;
  collectMethods(cx, route, p);

  if (auto t = get(route, "timeout")) {
    auto d = readDuration(cx, *t, "timeout", anchor, kDurations);
    if (d) p.overall_deadline = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t));
  } else {
    p.overall_deadline = defaulted(std::optional<Duration>(), cx.span(route),
                                   "Istio: no route timeout unless set (istio/api virtual_service.proto HTTPRoute.timeout, 'default is disabled')");
  }

  auto retries = get(route, "retries");
  bool fault = get(route, "fault").has_value();

  if (!retries || isNull(*retries)) {
    if (fault) return; // fault injection turns Istio's retries off for the route
    p.implicit = true;
    p.where = cx.span(route);
    p.max_attempts = defaulted(std::optional<int>(kIstioDefaultRetries + 1), p.where, kIstioDefaultRetriesSource);
    p.max_attempts.fix = noRetriesFix(cx, route);
    p.retry_on = defaultRetryOn(p.where);
    for (auto &c : p.retry_on) c.origin = Origin::Defaulted;
    p.per_try_timeout = defaulted(std::optional<Duration>(), p.where, "Istio: perTryTimeout defaults to the route timeout");
    setEnvoyBackoff(p, p.where, std::nullopt, p.where);
    markTimedOutTryRetried(p);
  cx.model.policies.push_back(std::move(p));
    return;
  }

  requireMap(cx, *retries, "retries");
  Span retriesKey = cx.keySpan(route, "retries");
  p.where = retriesKey;
  auto attempts = get(*retries, "attempts");
  auto perTry = get(*retries, "perTryTimeout");
  auto retryOn = get(*retries, "retryOn");
  auto backoff = get(*retries, "backoff");

  long long n = 0;
  Span attemptsWhere = retriesKey;
  if (attempts) {
    n = requireInt(cx, *attempts, "retries.attempts", false);
    attemptsWhere = cx.span(*attempts);
    if (n < 0) {
      cx.problem(attemptsWhere, "attempts " + std::to_string(n) + " is negative: Istio rejects the VirtualService", anchor + "/retries/attempts");
      return;
    }
    if (n > 1'000'000) {
      cx.problem(attemptsWhere, "attempts " + std::to_string(n) + " is not a usable retry count", anchor + "/retries/attempts");
      return;
    }
  }
  if (n == 0) {
    if (perTry || retryOn || backoff) {
      cx.problem(attempts ? attemptsWhere : retriesKey,
                 std::string(attempts ? "attempts: 0" : "retries without attempts") +
                     " disables retries, yet perTryTimeout/retryOn are set: Istio rejects this ('http retry policy configured when attempts are set to 0 (disabled)') and no retry runs",
                 anchor + "/retries/attempts");
    }
    return; // retries off on this route
  }
  if (fault) {
    cx.problem(retriesKey, "retries are ignored on this route: Istio enables no retries or timeouts on a route with fault injection (istio/api virtual_service.proto HTTPRoute.fault)",
               anchor + "/retries");
    return;
  }

  p.max_attempts = written(std::optional<int>(static_cast<int>(n) + 1), attemptsWhere);

  if (perTry) {
    auto d = readDuration(cx, *perTry, "perTryTimeout", anchor, kDurations);
    if (d && d->nanos < 1'000'000) {
      cx.problem(cx.span(*perTry), "perTryTimeout " + perTry->Scalar() + " is below Istio's minimum of 1ms: Istio rejects the VirtualService", anchor + "/perTryTimeout");
      d.reset();
    }
    if (d) p.per_try_timeout = written(std::optional<Duration>(d), cx.span(*perTry));
  } else {
    p.per_try_timeout = defaulted(std::optional<Duration>(), retriesKey, "Istio: perTryTimeout defaults to the route timeout");
  }

  if (retryOn) {
    parseRetryOn(cx, *retryOn, anchor, p);
  } else {
    p.retry_on = defaultRetryOn(retriesKey);
    for (auto &c : p.retry_on) c.origin = Origin::Defaulted;
  }

  std::optional<Duration> base;
  Span baseWhere = retriesKey;
  if (backoff) {
    base = readDuration(cx, *backoff, "backoff", anchor, kDurations);
    baseWhere = cx.span(*backoff);
    if (base && base->nanos < 1'000'000) {
      cx.problem(baseWhere, "backoff " + backoff->Scalar() + " is below Envoy's minimum base interval of 1ms", anchor + "/backoff");
      base.reset();
    }
  }
  setEnvoyBackoff(p, retriesKey, base, baseWhere);
  markTimedOutTryRetried(p);
  cx.model.policies.push_back(std::move(p));
}

bool recognise(const yaml::Node &doc) {
  return isKubernetesObject(doc, "networking.istio.io", {"VirtualService"});
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  std::string name = meta.name, ns = meta.ns;
  auto spec = mapAt(cx, doc, "spec", "spec");
  if (!spec) return;
  auto http = sequenceAt(cx, *spec, "http", "spec.http");
  if (!http) return;
  const std::string anchor = "VirtualService/" + ns + "/" + name;
  forEachItem(cx, *http, [&](const yaml::Node &route, size_t i) { extractRoute(cx, route, i, name, anchor); });
}

} // namespace

namespace {
const Extractor &istioExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"networking.istio.io"},
      .priority = 10,
      .prefilter_words = {"networking.istio.io"},
      .retry_keys = {"retries"},
  };
  return e;
}
const ExtractorRegistration registered(&istioExtractor);
} // namespace

} // namespace retrylint
