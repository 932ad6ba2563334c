// OpenTelemetry Collector: exporters.<type>[/<name>].retry_on_failure, next to the exporter's
// per-attempt `timeout`.
//
// Field facts and defaults: open-telemetry/opentelemetry-collector config/configretry/backoff.go
// (NewDefaultBackOffConfig, Validate); exporterhelper NewDefaultTimeoutConfig (5s per export
// attempt); backoff schedule: cenkalti/backoff v4 ExponentialBackOff. See docs/formats.md §11.2.
//
// Retries are bounded by time (max_elapsed_time), not by a count: max_attempts is Unknown (the
// count depends on how long each export takes), carrying the nominal estimate for messages;
// max_elapsed_time: 0 retries forever (RL201). Permanent errors are never retried (built in).
#include "lint/extract/cenkalti_backoff.h"
#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "otel-collector";

// config/configretry/backoff.go NewDefaultBackOffConfig.
constexpr double kInitialS = 5, kMaxIntervalS = 30, kMaxElapsedS = 300, kMultiplier = 1.5, kRandomization = 0.5;
constexpr const char *kDefaultsSource =
    "OpenTelemetry Collector defaults: initial_interval 5s, multiplier 1.5, randomization_factor 0.5, "
    "max_interval 30s, max_elapsed_time 5m (config/configretry/backoff.go)";
// exporterhelper NewDefaultTimeoutConfig: 5s per export attempt.
constexpr double kTimeoutS = 5;
constexpr const char *kTimeoutSource = "OpenTelemetry Collector default exporter timeout: 5s per attempt (exporterhelper NewDefaultTimeoutConfig)";
// Exporters built on exporterhelper that retry by default (retry_on_failure.enabled defaults to true).
bool retriesByDefault(const std::string &type) { return type == "otlp" || type == "otlphttp"; }

// A value the collector expands at startup, before it reads the field: `${env:NAME}`,
// `${env:NAME:-default}`, `${NAME}`, `${file:…}`, `$NAME` (opentelemetry.io/docs/collector/configuration,
// "Environment variables"; confmap's expansion). Which value it becomes the file does not say.
bool expandedAtStartup(const yaml::Node &n) {
  if (!isScalarString(n) || !n.IsScalar()) return false;
  const std::string &v = n.Scalar();
  return v.find("${") != std::string::npos || (v.size() > 1 && v[0] == '$');
}

bool readBool(ExtractContext &cx, const yaml::Node &n, std::string_view field) {
  if (expandedAtStartup(n)) return true; // the default, enabled: unknown either way
  std::string v = requireString(cx, n, field);
  if (v == "true" || v == "True" || v == "TRUE") return true;
  if (v == "false" || v == "False" || v == "FALSE") return false;
  throw TypeError(cx.span(n), std::string(field) + " must be true or false, not '" + v + "'");
}

struct Reader {
  ExtractContext &cx;
  const yaml::Node &block; // retry_on_failure (may be null for an implicit policy)
  Span blockKey;
  std::string anchor;

  // A duration field: written, or the default.
  Setting<std::optional<Duration>> duration(std::string_view field, double defaultS) {
    if (auto n = get(block, field); n && !isNull(*n)) {
      if (expandedAtStartup(*n)) return {std::nullopt, Origin::Unknown, cx.span(*n), {}, {}};
      std::string text = requireString(cx, *n, field);
      std::string err;
      auto d = parseGoDuration(text, &err);
      if (!d || d->nanos < 0) {
        cx.problem(cx.span(*n), std::string(field) + ": " + (d ? "'" + text + "' must be non-negative" : err) +
                                    ": the collector rejects the configuration at startup",
                   anchor + "/" + std::string(field));
        return {std::nullopt, Origin::Unknown, cx.span(*n), {}, {}};
      }
      return written(std::optional<Duration>(d), cx.span(*n));
    }
    return defaulted(std::optional<Duration>(Duration::s(defaultS)), blockKey, kDefaultsSource);
  }
  Setting<double> number(std::string_view field, double def) {
    if (auto n = get(block, field); n && !isNull(*n)) {
      if (expandedAtStartup(*n)) return {def, Origin::Unknown, cx.span(*n), {}, {}};
      return written(requireNumber(cx, *n, field, false), cx.span(*n));
    }
    return defaulted(def, blockKey, kDefaultsSource);
  }
};

void extractExporter(ExtractContext &cx, const yaml::Node &exporter, const std::string &name, const yaml::Node *parent,
                     const std::string &anchor, const std::string &component) {
  std::string type = name.substr(0, name.find('/'));
  auto rof = get(exporter, "retry_on_failure");
  bool implicit = !rof || isNull(*rof);
  if (implicit && !retriesByDefault(type)) return;
  yaml::Node block = implicit ? yaml::Node() : *rof;
  if (!implicit) requireMap(cx, block, "retry_on_failure");
  Span key = implicit ? (parent ? cx.keySpan(*parent, name) : cx.span(exporter)) : cx.keySpan(exporter, "retry_on_failure");

  if (auto en = get(block, "enabled"); en && !isNull(*en) && !readBool(cx, *en, "retry_on_failure.enabled")) return;

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.component = component;
  p.where = key;
  p.implicit = implicit;
  // An exporter sends telemetry in the background: no user request waits on its retries.
  p.workload = Workload::Background;
  p.budget.origin = Origin::NotApplicable;
  p.overall_deadline.origin = Origin::NotApplicable; // max_elapsed_time bounds the retrying itself
  p.per_try_field = "timeout";

  Reader r{cx, block, key, anchor};
  auto initial = r.duration("initial_interval", kInitialS);
  auto maxInterval = r.duration("max_interval", kMaxIntervalS);
  auto maxElapsed = r.duration("max_elapsed_time", kMaxElapsedS);
  auto multiplier = r.number("multiplier", kMultiplier);
  auto randomization = r.number("randomization_factor", kRandomization);

  // configretry Validate(): the collector refuses to start on these.
  bool valid = true;
  auto reject = [&](Span where, const std::string &msg, const std::string &field) {
    cx.problem(where, msg + ": the collector rejects the configuration at startup (config/configretry/backoff.go Validate)", anchor + "/" + field);
    valid = false;
  };
  if (randomization.value < 0 || randomization.value > 1) reject(randomization.where, "randomization_factor must be within [0, 1]", "randomization_factor");
  if (multiplier.value < 0) reject(multiplier.where, "multiplier must be non-negative", "multiplier");
  if (maxElapsed.value && maxElapsed.value->nanos > 0) {
    if (initial.value && *maxElapsed.value < *initial.value)
      reject(maxElapsed.where, "max_elapsed_time " + formatDuration(*maxElapsed.value) + " is less than initial_interval " + formatDuration(*initial.value), "max_elapsed_time");
    else if (maxInterval.value && *maxElapsed.value < *maxInterval.value)
      reject(maxElapsed.where, "max_elapsed_time " + formatDuration(*maxElapsed.value) + " is less than max_interval " + formatDuration(*maxInterval.value), "max_elapsed_time");
  }
  if (!valid || !initial.known() || !maxInterval.known() || !maxElapsed.known()) return;
  if (maxInterval.value->nanos == 0 && initial.value->nanos > 0)
    cx.problem(maxInterval.where, "max_interval 0 makes every wait after the first zero (cenkalti/backoff jumps to max_interval once it is reached): the exporter retries in a tight loop",
               anchor + "/max_interval");

  Backoff &b = p.backoff;
  b.initial = initial;
  b.multiplier = multiplier;
  b.cap = maxInterval;
  if (initial.value->nanos == 0) {
    b.growth = written(Growth::NoWait, initial.where); // only when written: the default is 5s
  } else if (multiplier.value <= 1) {
    b.growth = multiplier.written() ? written(Growth::Constant, multiplier.where) : defaulted(Growth::Constant, key, kDefaultsSource);
  } else if (initial.written() || multiplier.written()) {
    b.growth = written(Growth::Exponential, multiplier.written() ? multiplier.where : initial.where);
  } else {
    b.growth = defaulted(Growth::Exponential, key, kDefaultsSource);
  }
  if (randomization.value == 0) b.jitter = randomization.written() ? written(Jitter::None, randomization.where) : defaulted(Jitter::None, key, kDefaultsSource);
  else b.jitter = randomization.written() ? written(Jitter::Proportional, randomization.where) : defaulted(Jitter::Proportional, key, kDefaultsSource);
  b.jitter_upper = 1 + randomization.value;
  b.jitter_lower = 1 - randomization.value;
  // RL105: after the cap: the exporter helper uses cenkalti/backoff ExponentialBackOff, which
  // randomizes around the interval already capped at MaxInterval (exponential.go NextBackOff).
  if (randomization.value > 0)
    b.jitter_order = builtIn(JitterOrder::AfterCap, key, "cenkalti/backoff randomizes around the interval already capped at MaxInterval");
  if (randomization.written() && randomization.value == 0)
    b.jitter.fix = Fix{"set randomization_factor: 0.5", {cx.src.replace(randomization.where, "0.5")}};

  if (maxElapsed.value->nanos == 0) {
    p.max_attempts = written(std::optional<int>(), maxElapsed.where); // 0 = never stop (backoff.go)
  } else {
    auto est = cenkaltiNominalAttempts(*initial.value, multiplier.value, *maxInterval.value, *maxElapsed.value);
    p.max_attempts = Setting<std::optional<int>>{est, Origin::Unknown, maxElapsed.where,
                                                 "retries stop after max_elapsed_time " + formatDuration(*maxElapsed.value), {}};
  }

  if (auto t = get(exporter, "timeout"); t && expandedAtStartup(*t)) {
    p.per_try_timeout = {std::nullopt, Origin::Unknown, cx.span(*t), {}, {}};
  } else if (auto t = get(exporter, "timeout"); t && !isNull(*t)) {
    std::string text = requireString(cx, *t, "timeout");
    std::string err;
    auto d = parseGoDuration(text, &err);
    if (!d || d->nanos < 0) cx.problem(cx.span(*t), "timeout: " + (d ? "'" + text + "' must be non-negative" : err) + ": the collector rejects the configuration at startup", anchor + "/timeout");
    else p.per_try_timeout = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t)); // 0 = no timeout
  } else {
    p.per_try_timeout = defaulted(std::optional<Duration>(Duration::s(kTimeoutS)), key, kTimeoutSource);
  }
  cx.model.policies.push_back(std::move(p));
}

bool isCollectorConfig(const yaml::Node &doc) {
  auto exporters = get(doc, "exporters");
  if (!exporters || !exporters->IsMap()) return false;
  auto service = get(doc, "service");
  return get(doc, "receivers").has_value() || (service && get(*service, "pipelines").has_value());
}

// The body of one exporters.<name> entry, as the collector's own test data keeps them.
bool isExporterBody(const yaml::Node &doc) {
  if (get(doc, "apiVersion") || get(doc, "kind")) return false;
  auto rof = get(doc, "retry_on_failure");
  if (!rof || !rof->IsMap()) return false;
  for (auto k : {"initial_interval", "max_interval", "max_elapsed_time", "randomization_factor"})
    if (get(*rof, k)) return true;
  return false;
}

bool recognise(const yaml::Node &doc) { return isCollectorConfig(doc) || isExporterBody(doc); }

void extract(const yaml::Node &doc, ExtractContext &cx) {
  if (!isCollectorConfig(doc)) {
    extractExporter(cx, doc, "exporter", nullptr, "exporter", "OpenTelemetry Collector exporter");
    return;
  }
  auto exporters = *get(doc, "exporters");
  for (auto it = exporters.begin(); it != exporters.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    std::string name = it->first.Scalar();
    try {
      if (!it->second.IsMap() && !isNull(it->second)) requireMap(cx, it->second, "exporters." + name);
      extractExporter(cx, it->second, name, &exporters, "exporters/" + name, "OpenTelemetry Collector exporter " + name);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

} // namespace

namespace {
const Extractor &otelCollectorExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"retry_on_failure"},
      .priority = 90,
      .prefilter_words = {"exporters", "retryonfailure"},
      .retry_keys = {"retry_on_failure"},
  };
  return e;
}
const ExtractorRegistration registered(&otelCollectorExtractor);
} // namespace

} // namespace retrylint
