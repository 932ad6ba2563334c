// Linkerd ServiceProfile (linkerd.io/v1alpha2): spec.routes[].isRetryable, .condition (method),
// .responseClasses, .timeout, and spec.retryBudget.
//
// Field facts: linkerd/website reference/service-profiles.md and the "Retries and Timeouts" feature
// page; defaults: linkerd/linkerd2 controller/api/destination/profile_translator.go
// (defaultRetryBudget()). See docs/formats.md §9b. Also reads the bare `spec:` fragments the Linkerd docs
// show (no apiVersion/kind) when they hold ServiceProfile-only keys.
//
// Attempts: a retryable route has no per-request limit; retries run "until the timeout or the budget
// is exceeded". The model records the lower bound of one retry with an Unknown origin: RL403/RL401
// can report what is retried, RL201 (unbounded) stays quiet because the budget and the route timeout
// bound the retries in aggregate and per request.
#include <algorithm>
#include <cctype>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "linkerd-serviceprofile";

constexpr int kAtLeastAttempts = 2;
constexpr const char *kAttemptsSource =
    "Linkerd: no per-request retry limit on a retryable route; retries stop at the route timeout or when the "
    "retry budget is spent (linkerd.io Retries and Timeouts)";
// profile_translator.go defaultRetryBudget(): RetryRatio 0.2, MinRetriesPerSecond 10, Ttl 10s.
constexpr const char *kDefaultBudgetSource =
    "Linkerd's default retry budget: retryRatio 0.2, minRetriesPerSecond 10, ttl 10s "
    "(linkerd/linkerd2 controller/api/destination/profile_translator.go defaultRetryBudget())";
// Route timeout: default 10 s, including retries (linkerd.io Retries and Timeouts).
constexpr double kDefaultRouteTimeoutS = 10;
constexpr const char *kDefaultTimeoutSource =
    "Linkerd's default route timeout of 10 s, retries included (linkerd.io service-profiles reference, Retries and Timeouts)";

// Durations as the runtime reads them.
const DurationSyntax kDurations{parseGoDuration, "Linkerd rejects the ServiceProfile", false};

// A path of a gRPC method, `/package.Service/Method` (dots as written or escaped, anchors allowed), as
// `linkerd profile --proto` writes them with `method: POST`. Every gRPC call is an HTTP/2 POST with a
// body (linkerd.io blog, "How Linkerd retries HTTP requests with bodies", 2021-10-26), so on such a
// route the POST says nothing about whether the call may be repeated: the RPC's own meaning does,
// which the file does not show, as in a gRPC service config.
bool grpcMethodPath(const yaml::Node &cond, int depth) {
  if (!cond.IsMap() || depth > 8) return false;
  if (auto r = get(cond, "pathRegex"); r && r->IsScalar()) {
    const llvm::Regex kGrpcPath("^\\^?/([A-Za-z_][A-Za-z0-9_]*(\\\\)?\\.)+[A-Za-z_][A-Za-z0-9_]*/[A-Za-z_][A-Za-z0-9_]*\\$?$");
    if (kGrpcPath.match(r->Scalar())) return true;
  }
  if (auto list = get(cond, "all"); list && list->IsSequence())
    for (const auto &c : *list)
      if (grpcMethodPath(c, depth + 1)) return true;
  return false;
}

void collectMethods(ExtractContext &cx, const yaml::Node &cond, RetryPolicy &p, int depth) {
  if (!cond.IsMap() || depth > 8) return;
  if (auto m = get(cond, "method"); m && m->IsScalar()) {
    std::string v = m->Scalar();
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::toupper(c); });
    p.methods.push_back(written(v, cx.span(*m)));
  }
  for (auto key : {"all", "any"}) // `not` names methods that do NOT match: skipped
    if (auto list = get(cond, key); list && list->IsSequence())
      for (const auto &c : *list) collectMethods(cx, c, p, depth + 1);
}

// A condition no request can meet: an `all:` that asks for two different methods (a request has
// one). Where the second is written and what they are, or nullopt. Nested `all`s are read too.
struct Impossible {
  Span where;
  std::string first, second;
};
std::optional<Impossible> impossibleCondition(ExtractContext &cx, const yaml::Node &cond, int depth) {
  if (!cond.IsMap() || depth > 8) return std::nullopt;
  auto list = get(cond, "all");
  if (!list || !list->IsSequence()) return std::nullopt;
  std::optional<std::string> method;
  for (const auto &c : *list) {
    if (auto inner = impossibleCondition(cx, c, depth + 1)) return inner;
    auto m = c.IsMap() ? get(c, "method") : std::nullopt;
    if (!m || !m->IsScalar()) continue;
    std::string v = m->Scalar();
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return std::toupper(ch); });
    if (!method) method = v;
    else if (*method != v) return Impossible{cx.span(*m), *method, v};
  }
  return std::nullopt;
}

void extractRoute(ExtractContext &cx, const yaml::Node &route, size_t index, const std::string &spName, const std::string &spAnchor,
                  const Setting<bool> &budget) {
  requireMap(cx, route, "spec.routes[" + std::to_string(index) + "]");
  std::string name;
  if (auto n = get(route, "name"); n && n->IsScalar()) name = n->Scalar();
  std::string anchor = spAnchor + "/routes[" + (name.empty() ? std::to_string(index) : name) + "]";
  if (get(route, "retryBudget") || get(route, "retries"))
    cx.problem(cx.keySpan(route, get(route, "retryBudget") ? "retryBudget" : "retries"),
               "a route has no retry budget or retries field (only spec.retryBudget exists): the field is dropped, and spec.retryBudget or Linkerd's default budget applies",
               anchor + "/retryBudget");
  auto retryable = get(route, "isRetryable");
  if (!retryable) return;
  std::string v = requireString(cx, *retryable, "isRetryable");
  if (v != "true" && v != "false") throw TypeError(cx.span(*retryable), "isRetryable must be true or false, not '" + v + "'");
  if (v == "false") return;
  if (auto c = get(route, "condition"))
    if (auto dead = impossibleCondition(cx, *c, 0)) {
      // Nothing is retried by this route, so what it would retry is not reported: its
      // responseClasses and methods describe requests that never reach it.
      cx.problem(dead->where,
                 "the route's condition asks for method " + dead->first + " and method " + dead->second +
                     " at once (all:): a request has one method, so no request matches the route and its isRetryable and "
                     "responseClasses never apply; use any: for either method",
                 anchor + "/condition");
      return;
    }

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.component = "ServiceProfile " + spName + " route " + (name.empty() ? std::to_string(index) : "'" + name + "'");
  p.where = cx.keySpan(route, "isRetryable");
  p.max_attempts = {std::optional<int>(kAtLeastAttempts), Origin::Unknown, p.where, kAttemptsSource, {}};
  p.budget = budget;
  p.budget_field = "spec.retryBudget";
  p.deadline_name = "route timeout";
  // No per-try timeout and no backoff knobs exist in a ServiceProfile: left NotApplicable.
  if (auto c = get(route, "condition")) {
    collectMethods(cx, *c, p, 0);
    if (grpcMethodPath(*c, 0))
      p.methods.erase(std::remove_if(p.methods.begin(), p.methods.end(), [](const auto &m) { return m.value == "POST"; }), p.methods.end());
  }

  if (auto t = get(route, "timeout")) {
    auto d = readDuration(cx, *t, "timeout", anchor, kDurations);
    if (d) p.overall_deadline = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t));
  } else {
    p.overall_deadline = defaulted(std::optional<Duration>(Duration::s(kDefaultRouteTimeoutS)), cx.span(route), kDefaultTimeoutSource);
  }

  // What is retried: failures as classified by responseClasses, else 5xx (Linkerd's default classification).
  bool written5xx = false;
  if (auto rcs = get(route, "responseClasses"); rcs && rcs->IsSequence()) {
    for (const auto &rc : *rcs) {
      auto failure = get(rc, "isFailure");
      if (!failure || !failure->IsScalar() || failure->Scalar() != "true") continue;
      auto cond = get(rc, "condition");
      auto status = cond ? get(*cond, "status") : std::nullopt;
      if (!status || !status->IsMap()) continue;
      auto mn = get(*status, "min"), mx = get(*status, "max");
      long long min = mn ? requireInt(cx, *mn, "status.min", false) : 100;
      long long max = mx ? requireInt(cx, *mx, "status.max", false) : 599;
      // Narrowed within HTTP's statuses (and one past them), so a huge or negative bound never wraps.
      int lo = static_cast<int>(std::clamp<long long>(min, 99, 600)), hi = static_cast<int>(std::clamp<long long>(max, 99, 600));
      Span where = mn ? cx.span(*mn) : cx.span(*status);
      p.retry_on.push_back(httpStatusRange("status " + std::to_string(min) + "-" + std::to_string(max), lo, hi, Origin::Written, where));
      written5xx |= lo <= 500 && hi >= 599;
    }
  }
  if (!written5xx) p.retry_on.push_back(httpStatusRange("5xx", 500, 599, Origin::Defaulted, p.where));
  cx.model.policies.push_back(std::move(p));
}

bool isFragment(const yaml::Node &doc) {
  if (get(doc, "apiVersion") || get(doc, "kind")) return false;
  auto spec = get(doc, "spec");
  if (!spec || !spec->IsMap()) return false;
  if (auto b = get(*spec, "retryBudget"); b && b->IsMap() && (get(*b, "retryRatio") || get(*b, "minRetriesPerSecond"))) return true;
  if (auto routes = get(*spec, "routes"); routes && routes->IsSequence())
    for (const auto &r : *routes)
      if (get(r, "isRetryable") || (get(r, "condition") && (get(r, "responseClasses") || get(r, "name")))) return true;
  return false;
}

bool recognise(const yaml::Node &doc) {
  if (auto t = typeMeta(doc)) return t->inGroup("linkerd.io") && t->kind == "ServiceProfile";
  return isFragment(doc);
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  std::string name = meta.name, ns = meta.ns;
  auto spec = mapAt(cx, doc, "spec", "spec");
  if (!spec) return;
  std::string anchor = "ServiceProfile/" + ns + "/" + name;

  Setting<bool> budget = defaulted(true, cx.keySpan(doc, "spec"), kDefaultBudgetSource);
  if (auto b = get(*spec, "retryBudget"); b && !isNull(*b)) {
    requireMap(cx, *b, "spec.retryBudget");
    budget = written(true, cx.keySpan(*spec, "retryBudget"));
    if (auto r = get(*b, "retryRatio")) {
      double ratio = requireNumber(cx, *r, "retryBudget.retryRatio", false);
      if (ratio < 0) cx.problem(cx.span(*r), "retryRatio " + r->Scalar() + " is negative: Linkerd rejects the ServiceProfile", anchor + "/retryRatio");
    }
    if (auto m = get(*b, "minRetriesPerSecond")) {
      long long n = requireInt(cx, *m, "retryBudget.minRetriesPerSecond", false);
      if (n < 0) cx.problem(cx.span(*m), "minRetriesPerSecond " + m->Scalar() + " is negative: Linkerd rejects the ServiceProfile", anchor + "/minRetriesPerSecond");
    }
    if (auto t = get(*b, "ttl")) readDuration(cx, *t, "retryBudget.ttl", anchor, kDurations);
  }

  auto routes = sequenceAt(cx, *spec, "routes", "spec.routes");
  if (!routes) return;
  forEachItem(cx, *routes, [&](const yaml::Node &route, size_t i) { extractRoute(cx, route, i, name, anchor, budget); });
}

} // namespace

namespace {
const Extractor &linkerdExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"linkerd.io/v1alpha2", "isRetryable", "retryBudget"},
      .priority = 60,
      .prefilter_words = {"linkerd.io", "retrybudget", "isretryable", "condition"},
      .retry_keys = {"isRetryable", "retryBudget", "retries"},
  };
  return e;
}
const ExtractorRegistration registered(&linkerdExtractor);
} // namespace

} // namespace retrylint
