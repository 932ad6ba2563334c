// ingress-nginx: the `nginx.ingress.kubernetes.io/proxy-next-upstream`, `-tries` and `-timeout`
// annotations of an Ingress, which become NGINX's proxy_next_upstream* directives for its locations.
//
// Field facts: NGINX ngx_http_proxy_module (nginx.org/en/docs/http/ngx_http_proxy_module.html
// #proxy_next_upstream): the conditions error, timeout, invalid_header, http_500, http_502, http_503,
// http_504, http_403, http_404, http_429, non_idempotent, off; "tries" counts every try, the first
// included, 0 = no limit; non-idempotent requests (POST, LOCK, PATCH) are not passed on once sent
// unless non_idempotent is listed. ingress-nginx defaults: kubernetes/ingress-nginx
// internal/ingress/defaults (Backend: ProxyNextUpstream "error timeout", ProxyNextUpstreamTries 3,
// ProxyNextUpstreamTimeout 0) and docs/user-guide/nginx-configuration/annotations.md. See
// docs/formats.md §11.9.
//
// A next upstream is another server of the Service: NGINX passes the failed request on at once, a
// failover with no wait between tries by design, so the backoff rules have nothing to say (the
// backoff is NotApplicable); how many tries and what is retried are the findings. What the words
// mean is NGINX's, shared with nginx.conf files: lint/extract/nginx_next_upstream.h.
// ingress-nginx checks the annotation first (internal/ingress/annotations/proxy/main.go
// validUpstreamAnnotation, case-sensitive, without NGINX's `updating`): a value it refuses is
// dropped with a warning in the controller's log and the default "error timeout" applies.
// An Ingress without these annotations gets the controller's defaults (possibly changed in its
// ConfigMap, which this file does not show): not reported.
#include <algorithm>
#include <cctype>

#include <llvm/ADT/StringRef.h>

#include "lint/extract/extractors.h"
#include "lint/extract/nginx_next_upstream.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "ingress-nginx";
constexpr std::string_view kPrefix = "nginx.ingress.kubernetes.io/";
constexpr std::string_view kNext = "nginx.ingress.kubernetes.io/proxy-next-upstream";
constexpr std::string_view kTries = "nginx.ingress.kubernetes.io/proxy-next-upstream-tries";
constexpr std::string_view kTimeout = "nginx.ingress.kubernetes.io/proxy-next-upstream-timeout";

constexpr int kDefaultTries = 3;
constexpr const char *kTriesSource =
    "ingress-nginx default proxy-next-upstream-tries 3, every try counted (kubernetes/ingress-nginx internal/ingress/"
    "defaults ProxyNextUpstreamTries; NGINX proxy_next_upstream_tries)";
constexpr const char *kConditionsSource =
    "ingress-nginx default proxy-next-upstream \"error timeout\" (internal/ingress/defaults ProxyNextUpstream)";
constexpr const char *kRejected =
    "ingress-nginx's annotation validation drops the value and NGINX's default \"error timeout\" applies (with validation "
    "turned off, NGINX refuses the directive as an \"invalid value\" and the controller cannot reload)";
// The words ingress-nginx's validation accepts: NGINX's proxy_next_upstream words but `updating`,
// in lower case only (validUpstreamAnnotation).
bool validatorAccepts(std::string_view w) { return w != "updating" && nginx::accepts(nginx::Module::Proxy, w); }

bool recognise(const yaml::Node &doc) {
  if (!isKubernetesObject(doc, "networking.k8s.io", {"Ingress"}) && !isKubernetesObject(doc, "extensions", {"Ingress"})) return false;
  auto meta = get(doc, "metadata");
  auto ann = meta ? get(*meta, "annotations") : std::nullopt;
  return ann && ann->IsMap() && (get(*ann, kNext) || get(*ann, kTries) || get(*ann, kTimeout));
}

std::optional<std::string> scalar(const ExtractContext &cx, const yaml::Node &ann, std::string_view key) {
  auto v = get(ann, key);
  if (!v || isNull(*v)) return std::nullopt;
  if (!v->IsScalar()) throw TypeError(cx.span(*v), std::string(key) + " must be a string");
  return v->Scalar();
}

// What Traefik's ingress-nginx provider, which accepts any http_NNN, makes of a word ingress-nginx
// refuses: a permanent 4xx is then passed on to the next endpoint, where it fails the same way.
std::string traefikTakes(const std::string &word) {
  llvm::StringRef digits(word);
  if (!digits.consume_front("http_")) return "";
  unsigned code = 0;
  if (digits.size() == 3 && !digits.getAsInteger(10, code) && httpCodeIsPermanent(static_cast<int>(code)))
    return " (Traefik's ingress-nginx provider accepts any http_NNN: there a " + digits.str() + ", a permanent failure, is passed on to the next endpoint and fails the same way)";
  return " (Traefik's ingress-nginx provider accepts any http_NNN)";
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  const yaml::Node ann = *get(*get(doc, "metadata"), "annotations");
  const std::string anchor = "Ingress/" + meta.ns + "/" + meta.name + "/proxy-next-upstream";

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.component = "Ingress " + meta.ns + "/" + meta.name + " (ingress-nginx next upstream)";
  p.where = cx.keySpan(ann, get(ann, kNext) ? kNext : get(ann, kTries) ? kTries : kTimeout);
  p.attempts_field = std::string(kTries.substr(kPrefix.size()));
  p.deadline_name = "proxy-next-upstream-timeout";
  nginx::markFailover(p);

  bool nonIdempotent = false, bad = false;
  if (auto next = scalar(cx, ann, kNext)) {
    auto n = get(ann, kNext);
    // NGINX reads the value as space-separated words; ingress-nginx also accepts them comma-separated
    // in the ConfigMap only, so a comma here reaches NGINX as part of a word.
    size_t i = 0;
    const std::string &v = *next;
    bool any = false, off = false;
    while (i < v.size()) {
      while (i < v.size() && v[i] == ' ') ++i;
      if (i >= v.size()) break;
      size_t j = v.find(' ', i);
      if (j == std::string::npos) j = v.size();
      const std::string word = v.substr(i, j - i);
      Span where = cx.tokenSpan(*n, i, word.size());
      if (!validatorAccepts(word)) {
        cx.problem(where, "proxy-next-upstream condition '" + word + "' is none of error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, http_429, non_idempotent, off: " +
                              kRejected + traefikTakes(word),
                   anchor + "/" + word);
        // Traefik's provider takes it: true for ingress-nginx only, a level lower.
        cx.model.problems.back().one_consumer = word.rfind("http_", 0) == 0;
        bad = true;
      } else {
        off = off || word == "off";
        nginx::addCondition(word, where, p, nonIdempotent);
      }
      any = true;
      i = j;
    }
    if (off && !bad) return; // `off` wins over the other words (NGINX merges it so): nothing is retried
    if (!any) nginx::addDefaultConditions(p, p.where, kConditionsSource);
    if (nonIdempotent && !bad) nginx::addNonIdempotentMethods(p, cx.span(*n));
  } else {
    nginx::addDefaultConditions(p, p.where, kConditionsSource);
  }
  if (bad) { // the whole value is dropped: the default applies
    p.retry_on.clear();
    nginx::addDefaultConditions(p, p.where, kConditionsSource);
  }

  if (auto tries = scalar(cx, ann, kTries)) {
    auto n = get(ann, kTries);
    const bool digits = !tries->empty() && tries->size() < 7 && std::all_of(tries->begin(), tries->end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits) {
      cx.problem(cx.span(*n), "proxy-next-upstream-tries '" + *tries + "' is not a whole number: ingress-nginx ignores it and uses its default of 3 tries", anchor + "/tries");
      p.max_attempts = defaulted(std::optional<int>(kDefaultTries), cx.span(*n), kTriesSource);
    } else if (std::stoi(*tries) == 0) {
      // No limit: NGINX tries every server of the upstream once, so the count is the Service's endpoints.
      p.max_attempts.origin = Origin::Unknown;
      p.max_attempts.where = cx.span(*n);
    } else {
      p.max_attempts = written(std::optional<int>(std::stoi(*tries)), cx.span(*n));
      // A bound, not a count: NGINX tries each endpoint of the Service once, and they are not here.
      p.runtime_max_source = "if the Service has as many endpoints: NGINX tries each once";
      p.runtime_max_by_design = true;
    }
  } else {
    p.max_attempts = defaulted(std::optional<int>(kDefaultTries), p.where, kTriesSource);
  }

  if (auto t = scalar(cx, ann, kTimeout)) {
    auto n = get(ann, kTimeout);
    const bool digits = !t->empty() && t->size() < 9 && std::all_of(t->begin(), t->end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits)
      cx.problem(cx.span(*n), "proxy-next-upstream-timeout '" + *t + "' is not a whole number of seconds: ingress-nginx ignores it (no limit)", anchor + "/timeout");
    else if (std::stoi(*t) > 0)
      p.overall_deadline = written(std::optional<Duration>(Duration::s(std::stoi(*t))), cx.span(*n));
  }
  if (!p.overall_deadline.written()) p.overall_deadline.origin = Origin::Unknown; // the client's own deadline
  cx.model.policies.push_back(std::move(p));
}

} // namespace

namespace {
const Extractor &ingressNginxExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"nginx.ingress.kubernetes.io/proxy-next-upstream"},
      .priority = 56,
      .prefilter_words = {"nginx.ingress.kubernetes.io/proxynextupstream"},
      .retry_keys = {"proxy-next-upstream"},
  };
  return e;
}
const ExtractorRegistration registered(&ingressNginxExtractor);
} // namespace

} // namespace retrylint
