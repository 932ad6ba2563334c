// Linkerd 2.16+ retries and timeouts as annotations on a Service, an HTTPRoute or a GRPCRoute:
// retry.linkerd.io/http, retry.linkerd.io/grpc, retry.linkerd.io/limit, retry.linkerd.io/timeout,
// timeout.linkerd.io/request (and .../response, .../idle, read for their syntax only).
//
// Field facts: linkerd/website linkerd.io/content/2.18/reference/retries.md and reference/timeouts
// (linkerd.io/2/reference/retries, /timeouts); how the policy controller reads them:
// linkerd/linkerd2 policy-controller/k8s/index/src/outbound/index/http.rs parse_http_retry() and
// grpc.rs parse_grpc_retry(). See docs/formats.md §9c.
//
// - The annotations are read only when at least one of limit, timeout or the conditions is present
//   (parse_*_retry returns None otherwise): then the limit defaults to 1 retry (`unwrap_or(1)`), and
//   a limit of 0 counts as absent (`.filter(|v| *v != 0)`), so it does not turn retries off.
// - The conditions are split on ',' with no trimming: " 504" is no status code, and a value the
//   controller cannot read fails the whole retry configuration of the object.
// - retry.linkerd.io/http is not read on a GRPCRoute, retry.linkerd.io/grpc not on an HTTPRoute.
// - A route's retry annotations replace all of its parent Service's; a ServiceProfile for the
//   Service replaces both. Neither is visible from one object: each object is its own policy.
// - No backoff, jitter or retry budget is configurable here. The controller hands the proxy a fixed
//   backoff with every counted retry: ExponentialBackoff{min 25 ms, max 250 ms, jitter_ratio 1.0}
//   (linkerd2 policy-controller/grpc/src/outbound/http.rs convert_retry(), grpc.rs alike; checked
//   at b24cd40, 2026-08-21): built in, so RL101-RL104 have nothing to report; how the proxy applies
//   it (linkerd2-proxy exp-backoff) loses the random term from the fifth retry on (RL105). Budgets exist only for
//   ServiceProfiles (gateway-api GEP-3388, "Linkerd's budgeted retries"): unknown here.
//
// This dialect reads the annotations alongside the Gateway API dialect, which reads an HTTPRoute's
// spec (GEP-1731 retry, GEP-1742 timeouts).
#include <algorithm>
#include <cctype>

#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "linkerd-retry-annotations";
constexpr std::string_view kRetry = "retry.linkerd.io/", kTimeout = "timeout.linkerd.io/";

// parse_http_retry()/parse_grpc_retry(): `limit: limit.unwrap_or(1)`.
constexpr int kDefaultRetries = 1;
constexpr const char *kLimitSource =
    "retry.linkerd.io/limit unset: 1 retry (linkerd.io reference/retries: \"If unspecified, the default is 1\"; "
    "linkerd2 policy-controller parse_http_retry limit.unwrap_or(1))";
constexpr const char *kNoRetryTimeoutSource =
    "retry.linkerd.io/timeout unset: \"no retry timeout is applied\" (linkerd.io reference/retries)";
// The policy controller's parse_duration() (policy-controller/k8s/index/src/outbound/index.rs): blanks
// trimmed, one whole number and one unit of ms, s, m, h or d ("1h30m" and "0.5s" are refused), a bare
// "0" allowed.
std::optional<Duration> parseLinkerdDuration(std::string_view text, std::string *error) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string_view unit = text.substr(digits);
  if (digits == 0 || digits > 15 || (unit.empty() && text.substr(0, digits).find_first_not_of('0') != std::string_view::npos) ||
      (!unit.empty() && unit != "ms" && unit != "s" && unit != "m" && unit != "h" && unit != "d")) {
    if (error) *error = "'" + std::string(text) + "' is not a Linkerd duration (one whole number and a unit: ms, s, m, h or d)";
    return std::nullopt;
  }
  const double n = std::stod(std::string(text.substr(0, digits)));
  const double ms = unit == "s" ? 1e3 : unit == "m" ? 6e4 : unit == "h" ? 3.6e6 : unit == "d" ? 8.64e7 : 1;
  return Duration::ms(n * ms);
}
const DurationSyntax kDurations{parseLinkerdDuration, "Linkerd's policy controller rejects the annotation", true};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool isAnnotated(const yaml::Node &doc) {
  auto meta = get(doc, "metadata");
  auto ann = meta ? get(*meta, "annotations") : std::nullopt;
  if (!ann || !ann->IsMap()) return false;
  for (const auto &kv : *ann) {
    if (!kv.first.IsScalar()) continue;
    std::string_view k = kv.first.Scalar();
    if (k.substr(0, kRetry.size()) == kRetry || k.substr(0, kTimeout.size()) == kTimeout) return true;
  }
  return false;
}

bool recognise(const yaml::Node &doc) {
  auto t = typeMeta(doc);
  if (!t) return false;
  const bool route = (t->kind == "HTTPRoute" || t->kind == "GRPCRoute") &&
                     (t->inGroup("gateway.networking.k8s.io") || t->inGroup("policy.linkerd.io"));
  const bool service = t->kind == "Service" && t->api_version == "v1";
  return (route || service) && isAnnotated(doc);
}

// The backoff the policy controller sends with every counted retry (convert_retry()): exponential
// from 25 ms, capped at 250 ms, plus a random term of up to the grown wait (jitter_ratio 1.0).
constexpr double kBackoffMinMs = 25, kBackoffMaxMs = 250;
constexpr const char *kBackoffSource =
    "Linkerd's built-in retry backoff: exponential from 25 ms, capped at 250 ms, jitter_ratio 1.0 (linkerd2 "
    "policy-controller/grpc/src/outbound/http.rs convert_retry ExponentialBackoff)";

void setBuiltInBackoff(Backoff &b, const Span &where) {
  b.growth = builtIn(Growth::Exponential, where, kBackoffSource);
  b.initial = builtIn(std::optional<Duration>(Duration::ms(kBackoffMinMs)), where, kBackoffSource);
  b.multiplier = builtIn(2.0, where, kBackoffSource);
  b.cap = builtIn(std::optional<Duration>(Duration::ms(kBackoffMaxMs)), where, kBackoffSource);
  b.jitter = builtIn(Jitter::Proportional, where, kBackoffSource);
  b.jitter_lower = 1.0; // the grown wait plus up to as much again
  b.jitter_upper = 2.0;
  b.jitter_configurable = false;
  // The proxy caps the sum: base = min(min * 2^n, max), wait = base + min(random(0, base), max - base)
  // (linkerd/linkerd2-proxy linkerd/exp-backoff ExponentialBackoff::base() and jitter()), so once the
  // base reaches 250 ms every retry waits exactly 250 ms.
  b.jitter_order = builtIn(JitterOrder::BeforeCap, where,
                           "linkerd2-proxy exp-backoff: the random term is cut to max - base, so a wait never passes 250 ms "
                           "and has no random part once the base reaches it");
  b.description = "Linkerd's built-in backoff (25 ms base, 250 ms cap, jittered)";
}

bool hasBlanks(std::string_view s) { return s.find_first_of(" \t") != std::string_view::npos; }

void readHttpConditions(ExtractContext &cx, const yaml::Node &n, RetryPolicy &p, const std::string &anchor, bool &bad) {
  for (const ListEntry &e : commaList(n.Scalar(), "")) {
    const std::string c = lower(e.raw);
    Span where = entrySpan(cx, n, e);
    auto code = [](std::string_view s) -> std::optional<int> {
      if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isdigit(ch); })) return std::nullopt;
      int v = std::stoi(std::string(s));
      return v >= 100 && v < 600 ? std::optional<int>(v) : std::nullopt;
    };
    if (c == "5xx") {
      p.retry_on.push_back(httpStatusRange("5xx", 500, 599, Origin::Written, where));
    } else if (c == "gateway-error") {
      p.retry_on.push_back(httpStatusRange("gateway-error", 502, 504, Origin::Written, where));
    } else if (auto one = code(c)) {
      p.retry_on.push_back(httpStatusCondition(*one, Origin::Written, where));
    } else if (size_t dash = c.find('-'); dash != std::string::npos && code(c.substr(0, dash)) && code(c.substr(dash + 1)) &&
                                          *code(c.substr(0, dash)) <= *code(c.substr(dash + 1))) {
      p.retry_on.push_back(httpStatusRange(e.raw, *code(c.substr(0, dash)), *code(c.substr(dash + 1)), Origin::Written, where));
    } else {
      std::string why = hasBlanks(e.raw) ? " (Linkerd splits the list on ',' and does not trim blanks)" : "";
      cx.problem(where,
                 "retry.linkerd.io/http entry '" + e.raw + "' is no status code, range, 5xx or gateway-error" + why +
                     ": Linkerd's policy controller rejects the annotation, and none of this object's retry settings apply",
                 anchor + "/http/" + e.raw);
      bad = true;
    }
  }
}

void readGrpcConditions(ExtractContext &cx, const yaml::Node &n, RetryPolicy &p, const std::string &anchor, bool &bad) {
  static const std::vector<std::string_view> known = {"cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"};
  for (const ListEntry &e : commaList(n.Scalar(), "")) {
    const std::string c = lower(e.raw);
    Span where = entrySpan(cx, n, e);
    if (std::find(known.begin(), known.end(), c) == known.end()) {
      std::string why = hasBlanks(e.raw) ? " (Linkerd splits the list on ',' and does not trim blanks)" : "";
      cx.problem(where,
                 "retry.linkerd.io/grpc entry '" + e.raw + "' is none of cancelled, deadline-exceeded, internal, resource-exhausted, unavailable" +
                     why + ": Linkerd's policy controller rejects the annotation, and none of this object's retry settings apply",
                 anchor + "/grpc/" + e.raw);
      bad = true;
      continue;
    }
    int codeNo = *grpcCodeFromAnyCase(c);
    Condition cond;
    cond.kind = Condition::Kind::GrpcStatus;
    cond.text = e.raw;
    cond.grpc_code = codeNo;
    cond.may_have_been_processed = grpcCodeMayHaveBeenProcessed(codeNo);
    if (cond.may_have_been_processed) cond.why_processed = grpcCodeName(codeNo) + " can follow a call the server already acted on";
    cond.where = where;
    p.retry_on.push_back(std::move(cond));
  }
}

// The HTTP methods an HTTPRoute is limited to, when every rule matches on a method (else: any).
void readRouteMethods(ExtractContext &cx, const yaml::Node &doc, RetryPolicy &p) {
  auto spec = get(doc, "spec");
  auto rules = spec ? get(*spec, "rules") : std::nullopt;
  if (!rules || !rules->IsSequence()) return;
  std::vector<Setting<std::string>> methods;
  for (const auto &rule : *rules) {
    auto matches = get(rule, "matches");
    if (!matches || !matches->IsSequence() || matches->size() == 0) return;
    for (const auto &m : *matches) {
      auto method = get(m, "method");
      if (!method || !method->IsScalar()) return; // a match on any method
      std::string v = method->Scalar();
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::toupper(c); });
      methods.push_back(written(v, cx.span(*method)));
    }
  }
  p.methods = std::move(methods);
}

// GEP-1742 timeouts.request on every rule of an HTTPRoute: "If the request timeout field is set on
// an HTTPRoute resource, it will be used as the timeout.linkerd.io/request timeout" (reference/timeouts).
std::optional<std::pair<Duration, Span>> ruleRequestTimeout(ExtractContext &cx, const yaml::Node &doc) {
  auto spec = get(doc, "spec");
  auto rules = spec ? get(*spec, "rules") : std::nullopt;
  if (!rules || !rules->IsSequence() || rules->size() == 0) return std::nullopt;
  std::optional<std::pair<Duration, Span>> longest;
  for (const auto &rule : *rules) {
    auto t = get(rule, "timeouts");
    auto r = t && t->IsMap() ? get(*t, "request") : std::nullopt;
    if (!r || !r->IsScalar()) return std::nullopt;
    std::string err;
    auto d = parseGatewayDuration(r->Scalar(), &err); // a Gateway API field: the Gateway API syntax
    if (!d || d->nanos == 0) return std::nullopt;
    if (!longest || *d > longest->first) longest = std::make_pair(*d, cx.span(*r));
  }
  return longest;
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const TypeMeta t = *typeMeta(doc);
  const ObjectMeta meta = objectMeta(doc);
  const std::string anchor = t.kind + "/" + meta.ns + "/" + meta.name + "/annotations";
  const yaml::Node ann = *get(*get(doc, "metadata"), "annotations");
  const bool isHttpRoute = t.kind == "HTTPRoute", isGrpcRoute = t.kind == "GRPCRoute";

  // Timeouts first: their syntax is checked whether or not retries are configured.
  std::optional<Duration> requestTimeout;
  Span requestTimeoutAt;
  for (std::string_view k : {"timeout.linkerd.io/request", "timeout.linkerd.io/response", "timeout.linkerd.io/idle"}) {
    auto v = get(ann, k);
    if (!v || isNull(*v)) continue;
    if (!v->IsScalar()) throw TypeError(cx.span(*v), std::string(k) + " must be a string");
    auto d = readDuration(cx, *v, k, anchor, kDurations);
    if (k == "timeout.linkerd.io/request" && d && d->nanos != 0) requestTimeout = d, requestTimeoutAt = cx.span(*v);
  }

  auto http = get(ann, "retry.linkerd.io/http"), grpc = get(ann, "retry.linkerd.io/grpc");
  auto limit = get(ann, "retry.linkerd.io/limit"), timeout = get(ann, "retry.linkerd.io/timeout");
  // The one the object's kind does not read is dropped, with a word.
  if (isGrpcRoute && http) {
    cx.problem(cx.keySpan(ann, "retry.linkerd.io/http"),
               "retry.linkerd.io/http is not read on a GRPCRoute (use retry.linkerd.io/grpc): these HTTP conditions are ignored",
               anchor + "/http");
    http.reset();
  }
  if (isHttpRoute && grpc) {
    cx.problem(cx.keySpan(ann, "retry.linkerd.io/grpc"),
               "retry.linkerd.io/grpc is not read on an HTTPRoute (use a GRPCRoute, or retry.linkerd.io/http): these gRPC conditions are ignored",
               anchor + "/grpc");
    grpc.reset();
  }
  for (auto *n : {&http, &grpc, &limit, &timeout})
    if (*n && isNull(**n)) n->reset();
  if (!http && !grpc && !timeout && !limit) return;
  for (auto *n : {&http, &grpc, &limit, &timeout})
    if (*n && !(*n)->IsScalar()) throw TypeError(cx.span(**n), "a retry.linkerd.io annotation must be a string");

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.component = t.kind + " " + meta.ns + "/" + meta.name + " (Linkerd retry annotations)";
  std::string firstKey = http ? "retry.linkerd.io/http" : grpc ? "retry.linkerd.io/grpc" : limit ? "retry.linkerd.io/limit" : "retry.linkerd.io/timeout";
  p.where = cx.keySpan(ann, firstKey);
  p.attempts_field = "retry.linkerd.io/limit";
  p.attempts_count_retries = true;
  p.per_try_field = "retry.linkerd.io/timeout";
  p.deadline_name = "request timeout";
  setBuiltInBackoff(p.backoff, p.where);
  p.budget.origin = Origin::Unknown;

  bool bad = false;
  if (http) readHttpConditions(cx, *http, p, anchor, bad);
  if (grpc) readGrpcConditions(cx, *grpc, p, anchor, bad);

  int retries = kDefaultRetries;
  bool limitWritten = false;
  if (limit) {
    const std::string v = limit->Scalar();
    const bool digits = !v.empty() && v.size() <= 5 && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
    const long n = digits ? std::stol(v) : -1;
    if (!digits || n > 65535) {
      cx.problem(cx.span(*limit),
                 "retry.linkerd.io/limit '" + v + "' is not a whole number 0-65535: Linkerd's policy controller rejects the annotation, and none of this object's retry settings apply",
                 anchor + "/limit");
      bad = true;
    } else if (n == 0) {
      if (!http && !grpc && !timeout) return; // nothing else: no retry configuration at all
      cx.problem(cx.span(*limit),
                 "retry.linkerd.io/limit \"0\" is read as unset: with the other retry annotations here Linkerd still retries once (the default limit); remove the retry annotations to turn retries off",
                 anchor + "/limit");
    } else {
      retries = static_cast<int>(n);
      limitWritten = true;
    }
  }
  if (bad) return; // the controller reads none of the object's retry settings

  if (limitWritten)
    p.max_attempts = written(std::optional<int>(retries + 1), cx.span(*limit));
  else
    p.max_attempts = defaulted(std::optional<int>(kDefaultRetries + 1), limit ? cx.span(*limit) : p.where, kLimitSource);

  if (timeout) {
    auto d = readDuration(cx, *timeout, "retry.linkerd.io/timeout", anchor, kDurations);
    if (d && d->nanos != 0) p.per_try_timeout = written(std::optional<Duration>(d), cx.span(*timeout));
    else if (d) p.per_try_timeout = defaulted(std::optional<Duration>(), cx.span(*timeout), kNoRetryTimeoutSource);
    p.timed_out_try_retried = true; // "a retry timeout after which a request is cancelled and retried"
  } else {
    p.per_try_timeout = defaulted(std::optional<Duration>(), p.where, kNoRetryTimeoutSource);
  }

  if (requestTimeout) {
    p.overall_deadline = written(requestTimeout, requestTimeoutAt);
  } else if (auto r = isHttpRoute ? ruleRequestTimeout(cx, doc) : std::nullopt) {
    p.overall_deadline = written(std::optional<Duration>(r->first), r->second);
    p.deadline_name = "timeouts.request";
  } else {
    p.overall_deadline.origin = Origin::Unknown; // a parent Service or the caller may set one
  }
  if (isHttpRoute) readRouteMethods(cx, doc, p);
  cx.model.policies.push_back(std::move(p));
}

} // namespace

namespace {
const Extractor &linkerdAnnotationsExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"retry.linkerd.io/", "timeout.linkerd.io/"},
      .priority = 40,
      .alongside = true,
      .prefilter_words = {"retry.linkerd.io", "timeout.linkerd.io"},
      .retry_keys = {"retry.linkerd.io/"},
  };
  return e;
}
const ExtractorRegistration registered(&linkerdAnnotationsExtractor);
} // namespace

} // namespace retrylint
