// Traefik's Retry middleware: a Kubernetes `Middleware` (traefik.io/v1alpha1, and the older
// traefik.containo.us/v1alpha1) with `spec.retry`, and the file provider's
// `http.middlewares.<name>.retry` in YAML and TOML (a `.toml` file read into the same tree,
// lint/yaml/toml.h, and judged by the same code).
//
// Field facts: traefik/traefik pkg/config/dynamic/middlewares.go (type Retry) and
// pkg/middlewares/retry/retry.go (New, ServeHTTP, newBackOff, responseWriter.WriteHeader), checked at
// fd5a576 (2026-07-24); docs/content/reference/routing-configuration/http/middlewares/retry.md.
// See docs/formats.md §11.8.
//
// - `attempts` is the number of tries, the first included, whatever the docs' wording ("how many
//   times the request should be retried"): ServeHTTP serves the last try when `attempts ==
//   r.attempts`, and 1 is no retry. 0 or less: New() refuses the middleware.
// - `initialInterval` unset or 0: backoff.ZeroBackOff, every retry at once. Set: cenkalti/backoff v4
//   ExponentialBackOff from it with Multiplier 2^(1/(attempts-1)), so the waits reach twice the
//   initial interval at the last retry, each drawn from [0.5, 1.5] x the interval (RandomizationFactor
//   0.5, the library's default).
// - What is retried: a network error before any byte of the request reached the backend (any method;
//   off with `disableRetryOnNetworkError`), and the `status` ranges, for methods other than POST,
//   PATCH and LOCK unless `retryNonIdempotentMethod`.
// - `timeout`: how long the middleware may keep retrying (the retries' deadline).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"
#include "lint/yaml/toml.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "traefik";

constexpr double kRandomization = 0.5; // cenkalti/backoff v4 DefaultRandomizationFactor
constexpr const char *kBackoffSource =
    "Traefik's retry backoff: exponential from initialInterval with multiplier 2^(1/(attempts-1)), reaching twice "
    "initialInterval at the last retry, each wait drawn from [0.5, 1.5] x the interval (traefik pkg/middlewares/retry/"
    "retry.go newBackOff; cenkalti/backoff v4 ExponentialBackOff)";
constexpr const char *kNoBackoffSource =
    "Traefik retries at once when initialInterval is unset (\"If unspecified, requests will be retried immediately\"; "
    "retry.go newBackOff returns backoff.ZeroBackOff)";

// ptypes.Duration: a number is seconds, a text a Go duration.
std::optional<Duration> readTraefikDuration(ExtractContext &cx, const yaml::Node &n, std::string_view field, const std::string &anchor) {
  if (!n.IsScalar()) throw TypeError(cx.span(n), std::string(field) + " must be a duration");
  const std::string v = n.Scalar();
  if (!v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }) && v.size() < 12)
    return Duration::s(std::stod(v));
  static const DurationSyntax syntax{parseGoDuration, "Traefik refuses the middleware", true};
  return readDuration(cx, n, field, anchor, syntax);
}

// "500", "500-504" (types.NewHTTPCodeRanges), each entry its own list item or comma-separated.
void readStatuses(ExtractContext &cx, const yaml::Node &list, RetryPolicy &p, const std::string &anchor) {
  requireSequence(cx, list, "retry.status");
  for (const auto &item : list) {
    const std::string field = requireString(cx, item, "retry.status[]");
    for (const ListEntry &e : commaList(field)) {
      Span where = entrySpan(cx, item, e);
      const std::string &t = e.text;
      size_t dash = t.find('-');
      auto num = [](std::string_view s) -> std::optional<int> {
        if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); })) return std::nullopt;
        return std::stoi(std::string(s));
      };
      auto lo = num(dash == std::string::npos ? t : t.substr(0, dash));
      auto hi = dash == std::string::npos ? lo : num(t.substr(dash + 1));
      if (!lo || !hi || *lo > *hi || !httpCodeInRange(*lo) || !httpCodeInRange(*hi)) {
        cx.problem(where, "retry.status entry '" + t + "' is no HTTP status or range (500, 500-504): Traefik refuses the middleware", anchor + "/status/" + t);
        continue;
      }
      p.retry_on.push_back(*lo == *hi ? httpStatusCondition(*lo, Origin::Written, where) : httpStatusRange(t, *lo, *hi, Origin::Written, where));
    }
  }
}

bool readBool(ExtractContext &cx, const yaml::Node &n, std::string_view what) {
  const std::string v = requireString(cx, n, what);
  if (v == "true") return true;
  if (v == "false") return false;
  throw TypeError(cx.span(n), std::string(what) + " must be true or false, not '" + v + "'");
}

void extractRetry(ExtractContext &cx, const yaml::Node &owner, const yaml::Node &retry, const std::string &name, const std::string &anchor) {
  requireMap(cx, retry, "retry");
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.component = "Traefik middleware " + name;
  p.where = cx.keySpan(owner, "retry");
  p.attempts_field = "attempts";
  p.per_try_timeout.origin = Origin::Unknown; // serversTransport forwardingTimeouts, elsewhere
  p.per_try_field = "serversTransport forwardingTimeouts.responseHeaderTimeout";
  p.deadline_name = "retry.timeout";
  p.budget.origin = Origin::Unknown;

  auto attempts = get(retry, "attempts");
  if (!attempts || isNull(*attempts)) {
    cx.problem(p.where, "retry has no attempts: Traefik refuses the middleware (\"incorrect (or empty) value for attempt\"), and the routes using it fail",
               anchor + "/attempts");
    return;
  }
  long long n = requireInt(cx, *attempts, "retry.attempts", false);
  if (n <= 0) {
    cx.problem(cx.span(*attempts), "attempts " + std::to_string(n) + " is not above 0: Traefik refuses the middleware, and the routes using it fail",
               anchor + "/attempts");
    return;
  }
  if (n == 1) return; // one try: no retry
  const int tries = static_cast<int>(std::min<long long>(n, 1'000'000));
  p.max_attempts = written(std::optional<int>(tries), cx.span(*attempts));

  Backoff &b = p.backoff;
  std::optional<Duration> initial;
  Span initialAt = p.where;
  if (auto i = get(retry, "initialInterval"); i && !isNull(*i)) {
    initial = readTraefikDuration(cx, *i, "retry.initialInterval", anchor);
    initialAt = cx.span(*i);
  }
  if (!initial || initial->nanos == 0) {
    b.growth = initial ? written(Growth::NoWait, initialAt) : defaulted(Growth::NoWait, p.where, kNoBackoffSource);
  } else {
    b.growth = builtIn(Growth::Exponential, initialAt, kBackoffSource);
    b.initial = written(std::optional<Duration>(initial), initialAt);
    b.multiplier = builtIn(std::pow(2.0, 1.0 / (tries - 1)), initialAt, kBackoffSource);
    b.cap = builtIn(std::optional<Duration>(*initial * 2.0), initialAt, kBackoffSource);
    b.jitter = builtIn(Jitter::Proportional, initialAt, kBackoffSource);
    b.jitter_lower = 1 - kRandomization;
    b.jitter_upper = 1 + kRandomization;
    b.jitter_configurable = false;
    // cenkalti draws around the interval after capping it (exponential.go NextBackOff).
    b.jitter_order = builtIn(JitterOrder::AfterCap, initialAt, "cenkalti/backoff v4 exponential.go: the draw is around the capped interval");
    b.description = "Traefik's backoff (from initialInterval to twice it, jittered)";
  }

  bool network = true;
  if (auto d = get(retry, "disableRetryOnNetworkError"); d && !isNull(*d)) network = !readBool(cx, *d, "retry.disableRetryOnNetworkError");
  if (network) {
    Condition c;
    c.kind = Condition::Kind::Transport;
    c.text = "network error";
    c.before_send = true; // "before any byte of the request reached the backend" (retry.go)
    c.origin = Origin::BuiltIn;
    c.where = p.where;
    p.retry_on.push_back(std::move(c));
  }
  auto status = get(retry, "status");
  if (status && !isNull(*status)) readStatuses(cx, *status, p, anchor);
  if (!network && (!status || isNull(*status) || status->size() == 0)) {
    cx.problem(cx.keySpan(retry, "disableRetryOnNetworkError"),
               "disableRetryOnNetworkError with no status: Traefik refuses the middleware (\"requires at least HTTP status codes or retry on TCP\")",
               anchor + "/disableRetryOnNetworkError");
    return;
  }
  // Statuses are retried for POST, PATCH and LOCK only when asked to.
  if (auto nonIdem = get(retry, "retryNonIdempotentMethod"); nonIdem && !isNull(*nonIdem) && readBool(cx, *nonIdem, "retry.retryNonIdempotentMethod") && status)
    for (const char *m : {"POST", "PATCH", "LOCK"}) p.methods.push_back(written(std::string(m), cx.span(*nonIdem)));

  if (auto t = get(retry, "timeout"); t && !isNull(*t)) {
    auto d = readTraefikDuration(cx, *t, "retry.timeout", anchor);
    if (d && d->nanos != 0) p.overall_deadline = written(std::optional<Duration>(d), cx.span(*t));
    else p.overall_deadline.origin = Origin::Unknown;
  } else {
    p.overall_deadline.origin = Origin::Unknown; // the entry point's and the transport's timeouts, elsewhere
  }
  cx.model.policies.push_back(std::move(p));
}

// The file provider: http.middlewares.<name>.retry.
std::optional<yaml::Node> fileProviderMiddlewares(const yaml::Node &doc) {
  auto http = get(doc, "http");
  auto mws = http && http->IsMap() ? get(*http, "middlewares") : std::nullopt;
  if (!mws || !mws->IsMap()) return std::nullopt;
  for (const auto &kv : *mws)
    if (kv.second.IsMap() && get(kv.second, "retry")) return mws;
  return std::nullopt;
}

bool isMiddleware(const yaml::Node &doc) {
  return isKubernetesObject(doc, "traefik.io", {"Middleware"}) || isKubernetesObject(doc, "traefik.containo.us", {"Middleware"});
}

bool recognise(const yaml::Node &doc) {
  if (isMiddleware(doc)) {
    auto spec = get(doc, "spec");
    return spec && spec->IsMap() && get(*spec, "retry");
  }
  return !get(doc, "apiVersion") && fileProviderMiddlewares(doc).has_value();
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  if (isMiddleware(doc)) {
    const ObjectMeta meta = objectMeta(doc);
    auto spec = mapAt(cx, doc, "spec", "spec");
    if (!spec) return;
    auto retry = get(*spec, "retry");
    if (!retry || isNull(*retry)) return;
    extractRetry(cx, *spec, *retry, meta.ns + "/" + meta.name, "Middleware/" + meta.ns + "/" + meta.name + "/retry");
    return;
  }
  const yaml::Node mws = *fileProviderMiddlewares(doc);
  for (const auto &kv : mws) {
    if (!kv.first.IsScalar() || !kv.second.IsMap()) continue;
    auto retry = get(kv.second, "retry");
    if (!retry || isNull(*retry)) continue;
    try {
      extractRetry(cx, kv.second, *retry, kv.first.Scalar(), "http.middlewares/" + kv.first.Scalar() + "/retry");
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

// The file provider's TOML: a `.toml` file that names middlewares and a retry.
bool recogniseText(const SourceFile &src) {
  if (!isFileKind(src.path().str(), {".toml"})) return false;
  const std::string_view t = src.text();
  return t.find("middlewares") != std::string_view::npos && t.find("retry") != std::string_view::npos;
}

void extractText(const SourceFile &src, ExtractContext &cx) {
  yaml::Stream docs;
  yaml::TomlError e;
  if (!yaml::readToml(src.text(), cx.options.max_nesting, docs, &e)) {
    // A template of a TOML file (Helm, Go templates) is not TOML until it is rendered.
    if (src.text().find("{{") != std::string_view::npos) return;
    throw TypeError(Span{src.path(), std::max(1, e.line), std::max(1, e.column), std::max(1, e.line), std::max(1, e.column) + 1},
                    "not TOML: " + e.message);
  }
  for (const yaml::Node &doc : docs.documents)
    if (recognise(doc)) extract(doc, cx);
}

} // namespace

namespace {
const Extractor &traefikExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"traefik.io/", "traefik.containo.us/"},
      .recogniseText = recogniseText,
      .extractText = extractText,
      .priority = 55,
      .prefilter_words = {"traefik", "middlewares"},
      .retry_keys = {"retry"},
      .file_kinds = {".toml"},
  };
  return e;
}
const ExtractorRegistration registered(&traefikExtractor);
} // namespace

} // namespace retrylint
