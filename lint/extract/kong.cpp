// Kong Gateway: declarative kong.yml services[].retries (and the Kong Ingress Controller's
// `konghq.com/retries` annotation on a Service, `proxy.retries` on a KongIngress).
//
// Field facts: Kong/kong kong/db/schema/entities/services.lua (retries integer 0-32767, default 5;
// connect/write/read_timeout integer ms, default 60000). Retries are transport-level (connection
// failures and timeouts) and go out at once, to the next target of the balancer: there is no
// backoff to configure. See docs/formats.md §11.5.
#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "kong";

constexpr int kDefaultRetries = 5;
constexpr int kMaxRetries = 32767;
constexpr const char *kDefaultRetriesSource =
    "Kong's default when a service sets no retries: 5 retries (Kong/kong kong/db/schema/entities/services.lua)";
constexpr long long kDefaultTimeoutMs = 60000;
constexpr const char *kDefaultTimeoutSource = "Kong's default read_timeout: 60000 ms per try (services.lua)";
// A retry goes to the balancer's next target at once: a wait is not something Kong has (no
// setting), and the retry is not a tight loop on the target that failed, so the wait rules stay out.
constexpr const char *kNoBackoffSource =
    "Kong retries at once on the balancer's next target, with no backoff setting (Kong balancer; services.lua has no retry delay)";

RetryPolicy basePolicy(std::string anchor, std::string component, Span where) {
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = std::move(anchor);
  p.component = std::move(component);
  p.where = where;
  p.attempts_field = "retries";
  p.attempts_count_retries = true;
  p.per_try_field = "read_timeout";
  p.budget.origin = Origin::NotApplicable;
  p.overall_deadline.origin = Origin::NotApplicable;
  p.backoff.jitter.origin = Origin::NotApplicable;
  p.backoff.description = "no wait (Kong retries at once)";
  return p;
}

// retries as written: 0 turns retries off (returns false); out of range is a problem.
bool setRetries(ExtractContext &cx, RetryPolicy &p, long long n, Span where, Origin origin) {
  if (n < 0 || n > kMaxRetries) {
    cx.problem(where, "retries " + std::to_string(n) + " is outside 0-" + std::to_string(kMaxRetries) + ": Kong rejects the configuration",
               p.anchor + "/retries");
    return false;
  }
  if (n == 0) return false;
  std::optional<int> attempts = static_cast<int>(n) + 1;
  p.max_attempts = origin == Origin::Written ? written(attempts, where) : defaulted(attempts, where, kDefaultRetriesSource);
  p.attempts_restate_default = origin == Origin::Written && n == kDefaultRetries;
  p.backoff.growth = {Growth::NoWait, Origin::NotApplicable, where, kNoBackoffSource, {}};
  return true;
}

void extractService(ExtractContext &cx, const yaml::Node &svc, size_t index) {
  requireMap(cx, svc, "services[" + std::to_string(index) + "]");
  std::string name;
  if (auto n = get(svc, "name"); n && n->IsScalar()) name = n->Scalar();
  std::string label = name.empty() ? std::to_string(index) : name;
  Span svcWhere = name.empty() ? cx.span(svc) : cx.keySpan(svc, "name");
  RetryPolicy p = basePolicy("services[" + label + "]", "Kong service " + label, svcWhere);

  if (auto r = get(svc, "retries"); r && !isNull(*r)) {
    p.where = cx.keySpan(svc, "retries");
    if (!setRetries(cx, p, requireInt(cx, *r, "retries", false), cx.span(*r), Origin::Written)) return;
  } else {
    p.implicit = true;
    setRetries(cx, p, kDefaultRetries, svcWhere, Origin::Defaulted);
  }
  if (auto t = get(svc, "read_timeout"); t && !isNull(*t)) {
    long long ms = requireInt(cx, *t, "read_timeout", false);
    if (ms < 1) cx.problem(cx.span(*t), "read_timeout must be at least 1 ms: Kong rejects the configuration", p.anchor + "/read_timeout");
    else p.per_try_timeout = written(std::optional<Duration>(Duration::ms(static_cast<double>(ms))), cx.span(*t));
  } else {
    p.per_try_timeout = defaulted(std::optional<Duration>(Duration::ms(kDefaultTimeoutMs)), svcWhere, kDefaultTimeoutSource);
  }
  cx.model.policies.push_back(std::move(p));
}

// A decK/declarative file without _format_version (decK accepts it, and its own test files often
// leave it out) is known by its shape: a top-level `services` list of maps that each name a `host`
// or `url`, at least one with a field only a Kong service has (routes, retries, *_timeout); or a
// decK-only top-level key. docker-compose (`services` is a map), Kubernetes objects and Helm values
// with a `services` list of hosts and ports do not match.
bool kongServiceShape(const yaml::Node &services) {
  if (!services.IsSequence() || services.size() == 0) return false;
  bool kongField = false;
  for (const auto &s : services) {
    if (!s.IsMap() || (!get(s, "host") && !get(s, "url"))) return false;
    for (auto f : {"routes", "retries", "connect_timeout", "read_timeout", "write_timeout"}) kongField |= get(s, f).has_value();
  }
  return kongField;
}

bool isDeclarative(const yaml::Node &doc) {
  if (!doc.IsMap()) return false;
  auto services = get(doc, "services");
  if (!services || !services->IsSequence()) return false;
  if (auto v = get(doc, "_format_version"); v && v->IsScalar()) return true;
  if (get(doc, "apiVersion") || get(doc, "kind")) return false;
  for (auto k : {"_info", "_workspace", "_konnect", "_transform"})
    if (get(doc, k)) return true;
  return kongServiceShape(*services);
}

std::optional<yaml::Node> kicRetries(const yaml::Node &doc) {
  auto t = typeMeta(doc);
  if (!t) return std::nullopt;
  if (t->api_version == "v1" && t->kind == "Service") {
    auto md = get(doc, "metadata");
    auto ann = md ? get(*md, "annotations") : std::nullopt;
    return ann ? get(*ann, "konghq.com/retries") : std::nullopt;
  }
  if (t->inGroup("configuration.konghq.com") && t->kind == "KongIngress") {
    auto proxy = get(doc, "proxy");
    return proxy ? get(*proxy, "retries") : std::nullopt;
  }
  return std::nullopt;
}

bool recognise(const yaml::Node &doc) { return isDeclarative(doc) || kicRetries(doc).has_value(); }

void extract(const yaml::Node &doc, ExtractContext &cx) {
  if (isDeclarative(doc)) {
    size_t i = 0;
    const yaml::Node services = *get(doc, "services"); // named: `: *get(...)` would dangle
    for (const auto &svc : services) {
      try {
        extractService(cx, svc, i);
      } catch (const TypeError &e) {
        cx.error(e);
      }
      ++i;
    }
    return;
  }
  // Kong Ingress Controller: the annotation is a string ("3"), KongIngress proxy.retries an integer.
  auto r = *kicRetries(doc);
  std::string kind = get(doc, "kind")->Scalar(), name = "(unnamed)", ns = "default";
  if (auto md = get(doc, "metadata"); md && md->IsMap()) {
    if (auto n = get(*md, "name"); n && n->IsScalar()) name = n->Scalar();
    if (auto n = get(*md, "namespace"); n && n->IsScalar()) ns = n->Scalar();
  }
  bool annotation = kind == "Service";
  std::string field = annotation ? "konghq.com/retries" : "proxy.retries";
  RetryPolicy p = basePolicy(kind + "/" + ns + "/" + name, kind + " " + name + " (" + field + ")", cx.span(r));
  p.attempts_field = field;
  p.per_try_timeout.origin = Origin::Unknown;
  if (isNull(r)) return;
  if (!setRetries(cx, p, requireInt(cx, r, field, annotation), cx.span(r), Origin::Written)) return;
  cx.model.policies.push_back(std::move(p));
}

} // namespace

namespace {
const Extractor &kongExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"_format_version", "konghq.com/"},
      .priority = 100,
      .prefilter_words = {"formatversion", "konghq.com", "services"},
      .retry_keys = {"retries"},
  };
  return e;
}
const ExtractorRegistration registered(&kongExtractor);
} // namespace

} // namespace retrylint
