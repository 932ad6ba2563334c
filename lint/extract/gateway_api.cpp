// Kubernetes Gateway API HTTPRoute (GRPCRoute): spec.rules[].retry (GEP-1731: codes, attempts,
// backoff), spec.rules[].timeouts (GEP-1742: request, backendRequest), spec.rules[].matches[].method.
//
// Field facts: kubernetes-sigs/gateway-api apis/v1/httproute_types.go (HTTPRouteRetry,
// HTTPRouteTimeouts), apis/v1/shared_types.go (Duration, GEP-2257), geps/gep-1731. See docs/formats.md §9a.
// What the standard leaves to implementations (attempts and backoff when absent, whether backoff
// grows or is jittered, timeouts when absent) is Unknown here, so the rules stay quiet about it.
#include <algorithm>
#include <cctype>

#include "lint/extract/envoy_common.h"
#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "gateway-api-route";

// HTTPRouteRetry.Attempts: "When this field is unspecified, the number of times to attempt to retry
// a backend request is implementation-specific." A retry stanza means at least one retry: the
// model keeps that lower bound (Unknown origin) so RL401/RL403 can speak, while RL201/RL203,
// which need a known count, stay quiet.
constexpr int kAtLeastAttempts = 2;
constexpr const char *kAttemptsSource =
    "Gateway API: attempts unset is implementation-specific (kubernetes-sigs/gateway-api apis/v1/httproute_types.go "
    "HTTPRouteRetry.Attempts); at least one retry assumed";
// HTTPRouteRetry.Codes: +kubebuilder:validation:Minimum:=400, Maximum:=599.
constexpr int kMinCode = 400, kMaxCode = 599;

// Durations as the API server reads them (the only kind here with durations is HTTPRoute).
const DurationSyntax kDurations{parseGatewayDuration, "the API server rejects the HTTPRoute", false};

void collectMatches(ExtractContext &cx, const yaml::Node &rule, RetryPolicy &p) {
  auto matches = get(rule, "matches");
  if (!matches || !matches->IsSequence()) return;
  for (const auto &m : *matches) {
    if (!m.IsMap()) continue;
    if (auto method = get(m, "method"); method && method->IsScalar()) {
      std::string v = method->Scalar();
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::toupper(c); });
      p.methods.push_back(written(v, cx.span(*method)));
    }
    if (auto headers = get(m, "headers"); headers && headers->IsSequence())
      for (const auto &h : *headers)
        if (auto n = get(h, "name"); n && n->IsScalar()) {
          std::string k = n->Scalar();
          std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
          if (k == "idempotency-key" || k == "x-idempotency-key") p.idempotency_key = true;
        }
  }
}

void extractRule(ExtractContext &cx, const yaml::Node &rule, size_t index, const std::string &kind, const std::string &name,
                 const std::string &routeAnchor) {
  requireMap(cx, rule, "spec.rules[" + std::to_string(index) + "]");
  std::string ruleName;
  if (auto n = get(rule, "name"); n && n->IsScalar()) ruleName = n->Scalar();
  std::string anchor = routeAnchor + "/rules[" + (ruleName.empty() ? std::to_string(index) : ruleName) + "]";
  auto retry = get(rule, "retry");
  if (!retry || isNull(*retry)) return;
  if (kind == "GRPCRoute") {
    cx.problem(cx.keySpan(rule, "retry"),
               "GRPCRoute rules have no retry field (GEP-1731 defines it for HTTPRoute only): the API server drops it and no retry is configured",
               anchor + "/retry");
    return;
  }
  requireMap(cx, *retry, "retry");

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.component = kind + " " + name + " rules[" + std::to_string(index) + "]" + (ruleName.empty() ? "" : " (" + ruleName + ")");
  Span retryKey = cx.keySpan(rule, "retry");
  p.where = retryKey;
  p.attempts_field = "attempts";
  p.attempts_count_retries = true;
  p.per_try_field = "timeouts.backendRequest";
  p.deadline_name = "timeouts.request";
  p.budget.origin = Origin::Unknown; // an XBackendTrafficPolicy elsewhere may set one (GEP-3388)
  collectMatches(cx, rule, p);

  if (auto a = get(*retry, "attempts")) {
    long long n = requireInt(cx, *a, "retry.attempts", false);
    if (n < 0) {
      cx.problem(cx.span(*a), "attempts " + std::to_string(n) + " is negative: the API server rejects the HTTPRoute", anchor + "/attempts");
      return;
    }
    if (n == 0) return; // no retries
    p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(n, 1'000'000)) + 1), cx.span(*a));
  } else {
    p.attempts_field.clear();
    p.max_attempts = {std::optional<int>(kAtLeastAttempts), Origin::Unknown, retryKey, kAttemptsSource, {}};
  }

  if (auto codes = get(*retry, "codes"); codes && !isNull(*codes)) {
    requireSequence(cx, *codes, "retry.codes");
    for (const auto &c : *codes) {
      long long code = requireInt(cx, c, "retry.codes[]", false);
      if (code < kMinCode || code > kMaxCode) {
        cx.problem(cx.span(c), std::to_string(code) + " is outside 400-599: the API server rejects the HTTPRoute", anchor + "/codes/" + std::to_string(code));
        continue;
      }
      p.retry_on.push_back(httpStatusCondition(static_cast<int>(code), Origin::Written, cx.span(c)));
    }
  }

  // backoff is the minimum wait; growth, cap and jitter are the implementation's (Unknown).
  p.backoff.growth.origin = Origin::Unknown;
  p.backoff.jitter.origin = Origin::Unknown;
  p.backoff.cap.origin = Origin::Unknown;
  if (auto b = get(*retry, "backoff")) {
    auto d = readDuration(cx, *b, "retry.backoff", anchor, kDurations);
    if (d) p.backoff.initial = written(std::optional<Duration>(d), cx.span(*b));
  }

  p.overall_deadline.origin = Origin::Unknown;
  p.per_try_timeout.origin = Origin::Unknown;
  if (auto t = get(rule, "timeouts"); t && !isNull(*t)) {
    requireMap(cx, *t, "timeouts");
    std::optional<Duration> req, back;
    if (auto r = get(*t, "request")) {
      req = readDuration(cx, *r, "timeouts.request", anchor, kDurations);
      if (req) p.overall_deadline = written(req->nanos == 0 ? std::optional<Duration>() : req, cx.span(*r));
    }
    if (auto r = get(*t, "backendRequest")) {
      back = readDuration(cx, *r, "timeouts.backendRequest", anchor, kDurations);
      if (back && req && req->nanos != 0 && *back > *req) {
        cx.problem(cx.span(*r), "backendRequest " + r->Scalar() + " is longer than request " + formatDuration(*req) +
                                    ": the API server rejects the HTTPRoute (backendRequest must not exceed request)",
                   anchor + "/backendRequest");
        back.reset();
      }
      if (back) p.per_try_timeout = written(back->nanos == 0 ? std::optional<Duration>() : back, cx.span(*r));
    }
  }
  cx.model.policies.push_back(std::move(p));
}

bool recognise(const yaml::Node &doc) {
  return isKubernetesObject(doc, "gateway.networking.k8s.io", {"HTTPRoute", "GRPCRoute"});
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  std::string kind = get(doc, "kind")->Scalar();
  const ObjectMeta meta = objectMeta(doc);
  std::string name = meta.name, ns = meta.ns;
  auto spec = mapAt(cx, doc, "spec", "spec");
  if (!spec) return;
  auto rules = sequenceAt(cx, *spec, "rules", "spec.rules");
  if (!rules) return;
  const std::string anchor = kind + "/" + ns + "/" + name;
  forEachItem(cx, *rules, [&](const yaml::Node &rule, size_t i) { extractRule(cx, rule, i, kind, name, anchor); });
}

} // namespace

namespace {
const Extractor &gatewayApiExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"gateway.networking.k8s.io"},
      .priority = 50,
      .prefilter_words = {"gateway.networking.k8s.io"},
      .retry_keys = {"retry"},
  };
  return e;
}
const ExtractorRegistration registered(&gatewayApiExtractor);
} // namespace

} // namespace retrylint
