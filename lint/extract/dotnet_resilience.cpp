// .NET resilience options in appsettings.json: a section bound to
// Microsoft.Extensions.Http.Resilience `HttpStandardResilienceOptions` (its `Retry`,
// `AttemptTimeout`, `TotalRequestTimeout` subsections), the Polly v8 retry options.
//
// Field facts: App-vNext/Polly src/Polly.Core/Retry/RetryStrategyOptions.TResult.cs,
// RetryConstants.cs, RetryHelper.cs; dotnet/extensions src/Libraries/
// Microsoft.Extensions.Http.Resilience/Polly/HttpRetryStrategyOptions.cs,
// HttpStandardResilienceOptions.cs. See docs/formats.md §11.1.
//
// Recognition is strict: a JSON object holding a `Retry` object with `MaxRetryAttempts`,
// `BackoffType` or `UseJitter` (keys as .NET configuration reads them: case-insensitively).
// Such a section is read as HttpRetryStrategyOptions (the standard handler's `Retry`): its HTTP
// defaults apply (Exponential, jitter on). Timeouts are read only when the section has the
// standard handler's `AttemptTimeout` or `TotalRequestTimeout`, the evidence that it is one;
// otherwise they are unknown. Whether unsafe methods are retried is decided in code
// (`DisableForUnsafeHttpMethods`), which the JSON cannot show, so RL403 is left to the C++/C#
// side: no methods are recorded.
#include <set>

#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "dotnet-resilience";

// RetryConstants.DefaultRetryCount = 3 retries (Polly.Core RetryConstants.cs).
constexpr int kDefaultRetries = 3;
constexpr const char *kRetriesSource = "Polly default MaxRetryAttempts 3 retries (Polly.Core Retry/RetryConstants.cs DefaultRetryCount)";
// HttpRetryStrategyOptions sets BackoffType Exponential and UseJitter true (HttpRetryStrategyOptions.cs).
constexpr const char *kBackoffSource = "Microsoft.Extensions.Http.Resilience default BackoffType Exponential (HttpRetryStrategyOptions.cs)";
constexpr const char *kJitterSource = "Microsoft.Extensions.Http.Resilience default UseJitter true (HttpRetryStrategyOptions.cs)";
// RetryConstants.DefaultBaseDelay = 2 s.
constexpr double kDefaultDelayS = 2;
constexpr const char *kDelaySource = "Polly default Delay 2 s (Polly.Core Retry/RetryConstants.cs DefaultBaseDelay)";
constexpr const char *kMaxDelaySource = "Polly default MaxDelay null: the exponential delay is uncapped (RetryStrategyOptions.MaxDelay)";
// Polly's MaxRetryAttempts range [1, int.MaxValue] and Delay range [0, 1 day] (RetryStrategyOptions annotations).
constexpr double kMaxDelayDays = 1;
// HttpStandardResilienceOptions: AttemptTimeout 10 s, TotalRequestTimeout 30 s.
constexpr double kAttemptTimeoutS = 10;
constexpr const char *kAttemptSource = "HttpStandardResilienceOptions default AttemptTimeout 10 s (HttpStandardResilienceOptions.cs)";
constexpr double kTotalTimeoutS = 30;
constexpr const char *kTotalSource = "HttpStandardResilienceOptions default TotalRequestTimeout 30 s (HttpStandardResilienceOptions.cs)";
// RetryHelper: Constant/Linear with jitter spread ±25 %; Exponential with jitter uses
// decorrelated jitter, whose delays follow the exponential curve on average.
constexpr double kLinearJitterUpper = 1.25;
constexpr double kLinearJitterLower = 0.75; // ApplyJitter: delay + delay * 0.5 * (U - 0.5)
// RL105: RetryHelper.GetRetryDelay computes the jittered delay first (ApplyJitter, or
// DecorrelatedJitterBackoffV2 for Exponential) and then returns MaxDelay for any delay above it:
// the draw is made before the cap (App-vNext/Polly src/Polly.Core/Retry/RetryHelper.cs, v8, checked
// at main 173d6d1). Without UseJitter there is no draw to clip.
constexpr const char *kOrderSource = "Polly's RetryHelper.GetRetryDelay draws the jittered delay, then returns MaxDelay for any delay above it";
constexpr const char *kOrderInstead =
    "set a DelayGenerator that draws over the capped delay, random(0, min(MaxDelay, Delay x 2^(retry-1))), "
    "or keep MaxDelay above the delays the retries reach";


// map[key], case-insensitively (.NET configuration keys are).
std::optional<yaml::Node> getCI(const yaml::Node &map, std::string_view key) {
  if (!map.IsMap()) return std::nullopt;
  std::string want = lower(key);
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && lower(it->first.Scalar()) == want) return it->second;
  return std::nullopt;
}

Span keySpanCI(const ExtractContext &cx, const yaml::Node &map, std::string_view key) {
  std::string want = lower(key);
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && lower(it->first.Scalar()) == want) return cx.span(it->first);
  return cx.span(map);
}

bool isRetryOptions(const yaml::Node &n) {
  return n.IsMap() && (getCI(n, "MaxRetryAttempts") || getCI(n, "BackoffType") || getCI(n, "UseJitter"));
}

bool hasRetrySection(const yaml::Node &n, int depth) {
  if (!n.IsMap() || depth > 6) return false;
  if (auto r = getCI(n, "Retry"); r && isRetryOptions(*r)) return true;
  for (auto it = n.begin(); it != n.end(); ++it)
    if (hasRetrySection(it->second, depth + 1)) return true;
  return false;
}

bool readBool(const ExtractContext &cx, const yaml::Node &n, const std::string &what) {
  std::string s = lower(requireString(cx, n, what));
  if (s == "true") return true;
  if (s == "false") return false;
  throw TypeError(cx.span(n), what + " must be true or false, not '" + n.Scalar() + "'");
}

std::optional<Duration> readTimeSpan(ExtractContext &cx, const yaml::Node &n, const std::string &what, const std::string &anchor) {
  std::string text = requireString(cx, n, what);
  std::string err;
  auto d = parseTimeSpan(text, &err);
  if (!d) {
    cx.problem(cx.span(n), what + ": " + err + ": binding fails and the application does not start", anchor);
    return std::nullopt;
  }
  return d;
}

void extractSection(ExtractContext &cx, const yaml::Node &section, const std::string &path, Span sectionKey) {
  yaml::Node retry = *getCI(section, "Retry");
  Span retryKey = keySpanCI(cx, section, "Retry");
  std::string anchor = "appsettings/" + path + "/Retry";
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.component = "resilience options '" + path + "' Retry";
  p.anchor = anchor;
  p.where = retryKey;
  p.attempts_field = "MaxRetryAttempts";
  p.attempts_count_retries = true;
  p.per_try_field = "AttemptTimeout.Timeout";
  p.deadline_name = "TotalRequestTimeout";

  static const std::set<std::string> known = {"maxretryattempts", "backofftype", "usejitter", "delay", "maxdelay",
                                              "shouldretryafterheader", "name"};
  for (auto it = retry.begin(); it != retry.end(); ++it) {
    if (!it->first.IsScalar() || known.count(lower(it->first.Scalar()))) continue;
    std::string k = it->first.Scalar();
    std::string hint = lower(k).rfind("backoff", 0) == 0 ? " (the property is BackoffType)" : "";
    cx.problem(cx.span(it->first), "Retry." + k + " is not a property of HttpRetryStrategyOptions" + hint +
                                       ": the configuration binder ignores it silently and the default applies",
               anchor + "/" + k);
  }

  p.max_attempts = defaulted(std::optional<int>(kDefaultRetries + 1), retryKey, kRetriesSource);
  if (auto n = getCI(retry, "MaxRetryAttempts")) {
    long long v = requireInt(cx, *n, "Retry.MaxRetryAttempts", true);
    if (v < 1) cx.problem(cx.span(*n), "Retry.MaxRetryAttempts " + std::to_string(v) + " must be at least 1: options validation fails at startup", anchor + "/MaxRetryAttempts");
    else p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(v, 1'000'000)) + 1), cx.span(*n));
  }

  Backoff &b = p.backoff;
  Growth growth = Growth::Exponential;
  b.growth = defaulted(Growth::Exponential, retryKey, kBackoffSource);
  if (auto n = getCI(retry, "BackoffType")) {
    std::string s = lower(requireString(cx, *n, "Retry.BackoffType"));
    if (s == "constant" || s == "0") growth = Growth::Constant;
    else if (s == "linear" || s == "1") growth = Growth::Linear;
    else if (s == "exponential" || s == "2") growth = Growth::Exponential;
    else throw TypeError(cx.span(*n), "Retry.BackoffType must be Constant, Linear or Exponential, not '" + n->Scalar() + "'");
    b.growth = written(growth, cx.span(*n));
  }
  b.initial = defaulted(std::optional<Duration>(Duration::s(kDefaultDelayS)), retryKey, kDelaySource);
  if (auto n = getCI(retry, "Delay")) {
    if (auto d = readTimeSpan(cx, *n, "Retry.Delay", anchor + "/Delay")) {
      if (d->nanos < 0 || *d > Duration::s(kMaxDelayDays * 86400))
        cx.problem(cx.span(*n), "Retry.Delay '" + n->Scalar() + "' is " + formatDuration(*d) + ", outside Polly's range of 0 to 1 day: options validation fails at startup" +
                                    (n->Scalar().find(':') == std::string::npos ? " (a bare number is read as days)" : ""),
                   anchor + "/Delay");
      else {
        b.initial = written(std::optional<Duration>(d), cx.span(*n));
        if (d->nanos == 0) b.growth = written(Growth::NoWait, cx.span(*n));
      }
    }
  }
  if (growth == Growth::Exponential) {
    b.multiplier = builtIn(2.0, retryKey, "Polly exponential backoff doubles the delay (RetryHelper.cs)");
    b.cap = defaulted(std::optional<Duration>(), retryKey, kMaxDelaySource);
    auto first = retry.begin();
    const yaml::Mark km = cx.src.path().empty() ? yaml::Mark() : retry.Mark();
    if (retry.size() > 0 && !km.is_null() && first->first.Mark().line > km.line) {
      std::string indent = cx.src.indentOf(first->first.Mark().line);
      b.cap.fix = Fix{"cap the delay with \"MaxDelay\": \"00:00:30\"", {cx.src.insertLineAfter(km.line, indent + "\"MaxDelay\": \"00:00:30\",")}};
    }
  } else {
    b.cap.origin = Origin::NotApplicable;
  }
  if (auto n = getCI(retry, "MaxDelay"); n && !isNull(*n)) {
    auto d = readTimeSpan(cx, *n, "Retry.MaxDelay", anchor + "/MaxDelay");
    if (!d) b.cap.origin = Origin::Unknown; // reported as RL901; the cap it meant is not known
    else b.cap = written(std::optional<Duration>(d), cx.span(*n)); // GetRetryDelay clamps every backoff type
  }
  bool jitter = true;
  b.jitter = defaulted(Jitter::Proportional, retryKey, kJitterSource);
  if (auto n = getCI(retry, "UseJitter")) {
    jitter = readBool(cx, *n, "Retry.UseJitter");
    b.jitter = written(jitter ? Jitter::Proportional : Jitter::None, cx.span(*n));
    if (!jitter) b.jitter.fix = Fix{"set UseJitter to true", {cx.src.replace(cx.span(*n), "true")}};
  }
  if (jitter && growth != Growth::Exponential) {
    b.jitter_upper = kLinearJitterUpper;
    b.jitter_lower = kLinearJitterLower;
  }
  if (jitter && growth == Growth::Exponential) b.jitter_shape = JitterShape::Decorrelated;
  if (jitter && b.cap.written() && b.cap.value) {
    b.jitter_order = builtIn(JitterOrder::BeforeCap, b.cap.where, kOrderSource);
    b.full_jitter_instead = kOrderInstead;
  }
  b.description = "Polly retry delay";

  // Timeouts: only with evidence of the standard handler.
  auto attempt = getCI(section, "AttemptTimeout");
  auto total = getCI(section, "TotalRequestTimeout");
  if (attempt || total) {
    p.per_try_timeout = defaulted(std::optional<Duration>(Duration::s(kAttemptTimeoutS)), retryKey, kAttemptSource);
    p.overall_deadline = defaulted(std::optional<Duration>(Duration::s(kTotalTimeoutS)), retryKey, kTotalSource);
    if (attempt && attempt->IsMap())
      if (auto t = getCI(*attempt, "Timeout"))
        if (auto d = readTimeSpan(cx, *t, "AttemptTimeout.Timeout", "appsettings/" + path + "/AttemptTimeout")) p.per_try_timeout = written(std::optional<Duration>(d), cx.span(*t));
    if (total && total->IsMap())
      if (auto t = getCI(*total, "Timeout"))
        if (auto d = readTimeSpan(cx, *t, "TotalRequestTimeout.Timeout", "appsettings/" + path + "/TotalRequestTimeout")) p.overall_deadline = written(std::optional<Duration>(d), cx.span(*t));
  } else {
    p.per_try_timeout.origin = Origin::Unknown;
    p.overall_deadline.origin = Origin::Unknown;
  }
  (void)sectionKey;
  cx.model.policies.push_back(std::move(p));
}

void walk(ExtractContext &cx, const yaml::Node &n, const std::string &path, Span key, int depth) {
  if (!n.IsMap() || depth > 6) return;
  if (auto r = getCI(n, "Retry"); r && isRetryOptions(*r)) {
    try {
      extractSection(cx, n, path.empty() ? "(root)" : path, key);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
  for (auto it = n.begin(); it != n.end(); ++it)
    if (it->first.IsScalar() && lower(it->first.Scalar()) != "retry")
      walk(cx, it->second, path.empty() ? it->first.Scalar() : path + ":" + it->first.Scalar(), cx.span(it->first), depth + 1);
}

bool recognise(const yaml::Node &doc) { return hasRetrySection(doc, 0); }

void extract(const yaml::Node &doc, ExtractContext &cx) { walk(cx, doc, "", cx.span(doc), 0); }

} // namespace

namespace {
const Extractor &dotnetResilienceExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"MaxRetryAttempts"},
      .priority = 130,
      .prefilter_words = {"retry"},
      .retry_keys = {"Retry"},
  };
  return e;
}
const ExtractorRegistration registered(&dotnetResilienceExtractor);
} // namespace

} // namespace retrylint
