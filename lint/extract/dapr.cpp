// Dapr Resiliency: spec.policies.retries.<name>, referenced from spec.targets.
//
// Field facts: dapr/docs daprdocs/content/en/operations/resiliency/policies/retries/retries-overview.md;
// defaults: dapr/kit retry/retry.go DefaultConfig() (decoded onto by dapr/dapr
// pkg/resiliency/resiliency.go decodePolicies); backoff: cenkalti/backoff v4. See docs/formats.md §10.
//
// One policy per named retry policy, reported where it is defined, whether or not a target names
// it: the Default*RetryPolicy names apply without a target; any other policy no target names runs
// nowhere as written, and its findings are advice (notes).
// Target timeouts are not read into the model: whether a target's timeout bounds each attempt or
// the whole retried call is not confirmed (docs/formats.md §13), so the deadline rules stay quiet.
#include <cctype>
#include <cstdio>
#include <map>

#include "lint/extract/cenkalti_backoff.h"
#include <algorithm>

#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "dapr-resiliency";

// dapr/kit retry/retry.go DefaultConfig(): Policy constant, Duration 5s, MaxRetries -1.
constexpr double kDefaultDurationS = 5;
constexpr const char *kDefaultPolicySource =
    "Dapr's default policy is constant (dapr/kit retry/retry.go DefaultConfig)";
constexpr const char *kDefaultDurationSource =
    "Dapr's default duration: 5s (dapr/kit retry/retry.go DefaultConfig)";
constexpr const char *kDefaultMaxRetriesSource =
    "Dapr's default maxRetries is -1, retry forever (dapr/kit retry/retry.go DefaultConfig)";
// Exponential: cenkalti/backoff v4 defaults kept by dapr/kit (DefaultInitialInterval 500ms,
// DefaultMultiplier 1.5, DefaultRandomizationFactor 0.5, DefaultMaxElapsedTime 15m); maxInterval
// default DefaultMaxInterval 60s. Only maxInterval is settable from the Resiliency YAML.
constexpr double kExpInitialMs = 500;
constexpr double kExpMultiplier = 1.5;
constexpr double kExpMaxIntervalS = 60;
constexpr double kExpMaxElapsedS = 15 * 60;
constexpr const char *kExpSource =
    "Dapr's exponential backoff: 500 ms initial, x1.5, ±50 % random, stops after 15 min "
    "(dapr/kit retry/retry.go; cenkalti/backoff v4 defaults)";
constexpr const char *kExpMaxIntervalSource =
    "Dapr's default maxInterval: 60s (dapr/kit retry/retry.go; cenkalti/backoff DefaultMaxInterval)";
// Built-in policies that a Resiliency may override; fewer than 3 retries is reset to 3
// (dapr/dapr pkg/resiliency/resiliency.go decodePolicies, isBuiltInPolicy).
constexpr int kBuiltInMinRetries = 3;


// "429,500-599" → [lo, hi] pairs with the token's span; malformed tokens become problems.
struct CodeRange {
  int lo, hi;
  std::string text;
  Span where;
};

std::vector<CodeRange> parseCodes(ExtractContext &cx, const yaml::Node &node, std::string_view field, int min, int max,
                                  const std::string &anchor) {
  std::vector<CodeRange> out;
  std::string value = requireString(cx, node, field);
  for (const ListEntry &entry : commaList(value)) {
    const std::string &tok = entry.text;
    Span where = entrySpan(cx, node, entry);
    if (tok.empty()) continue;
    int lo = -1, hi = -1;
    char tail = 0;
    int n = std::sscanf(tok.c_str(), "%d-%d%c", &lo, &hi, &tail);
    if (n == 1 && tok.find('-') == std::string::npos) hi = lo;
    bool digitsOnly = tok.find_first_not_of("0123456789-") == std::string::npos;
    if (!digitsOnly || (n != 1 && n != 2) || (n == 1 && hi != lo) || lo < min || hi > max || lo > hi) {
      cx.problem(where, std::string(field) + " entry '" + tok + "' is not a code or range within " + std::to_string(min) + "-" +
                            std::to_string(max) + ": Dapr rejects the Resiliency resource and loads none of its policies",
                 anchor + "/" + std::string(field) + "/" + tok);
      continue;
    }
    out.push_back({lo, hi, tok, where});
  }
  return out;
}

void readMatching(ExtractContext &cx, const yaml::Node &policy, Span policyKey, const std::string &anchor, RetryPolicy &p) {
  auto matching = get(policy, "matching");
  std::optional<yaml::Node> http, grpc;
  if (matching && !isNull(*matching)) {
    requireMap(cx, *matching, "matching");
    http = get(*matching, "httpStatusCodes");
    grpc = get(*matching, "gRPCStatusCodes");
    if (http && isNull(*http)) http.reset();
    if (grpc && isNull(*grpc)) grpc.reset();
  }
  if (!http && !grpc) {
    // No matching: every error is retried (retries-overview.md, "Retry status codes"). That is
    // Dapr's default, and `matching` applies only where Dapr makes status-code errors (service
    // invocation, pub/sub and binding deliveries), not to a state store: not reported as a
    // catch-all (RL402), which is for a retry condition the author wrote.
    Condition c;
    c.kind = Condition::Kind::ErrorName;
    c.text = "no matching: every HTTP and gRPC error";
    c.catch_all = false;
    c.origin = Origin::Defaulted;
    c.where = matching ? cx.keySpan(policy, "matching") : policyKey;
    p.retry_on.push_back(std::move(c));
    return;
  }
  if (http) {
    for (auto &r : parseCodes(cx, *http, "httpStatusCodes", 100, 599, anchor)) {
      Condition c;
      c.kind = Condition::Kind::HttpStatus;
      c.text = r.text;
      c.http_lo = r.lo;
      c.http_hi = r.hi;
      for (int code = r.lo; code <= r.hi; ++code) c.may_have_been_processed |= httpCodeMayHaveBeenProcessed(code);
      if (c.may_have_been_processed) c.why_processed = r.text + " includes statuses returned after the request was processed";
      c.where = r.where;
      p.retry_on.push_back(std::move(c));
    }
  }
  if (grpc) {
    for (auto &r : parseCodes(cx, *grpc, "gRPCStatusCodes", 0, 16, anchor)) {
      for (int code = r.lo; code <= r.hi; ++code) {
        Condition c;
        c.kind = Condition::Kind::GrpcStatus;
        c.text = r.lo == r.hi ? r.text : std::to_string(code) + " in " + r.text;
        c.grpc_code = code;
        c.may_have_been_processed = grpcCodeMayHaveBeenProcessed(code);
        c.where = r.where;
        p.retry_on.push_back(std::move(c));
      }
    }
  }
}

// Durations as the runtime reads them.
const DurationSyntax kDurations{parseGoDuration, "Dapr rejects the Resiliency resource and loads none of its policies", true};

bool isBuiltInPolicyName(const std::string &name) {
  // dapr/dapr pkg/resiliency: BuiltInServiceRetries, BuiltInActorRetries, BuiltInActorReminderRetries,
  // BuiltInInitializationRetries (overridable; BuiltInActorNotFoundRetries is protected).
  return name == "DaprBuiltInServiceRetries" || name == "DaprBuiltInActorRetries" ||
         name == "DaprBuiltInActorReminderRetries" || name == "DaprBuiltInInitializationRetries";
}

// Background (no caller waits on the retries) only where the file says so; a request path otherwise.
// Inbound component operations are deliveries from the sidecar to the app: pub/sub subscriptions
// and input bindings (docs.dapr.io resiliency targets, "Inbound"); default policies for them are
// named Default[Pubsub|Bindings]ComponentInboundRetryPolicy (docs.dapr.io default-policies);
// DaprBuiltInActorReminderRetries retries actor reminders. Everything else (service invocation,
// actor calls, outbound component calls such as a state read or a publish) may be on a request.
bool isBackgroundUser(const std::string &user) {
  return user.rfind("components/", 0) == 0 && user.size() > 8 && user.compare(user.size() - 8, 8, "/inbound") == 0;
}
bool isBackgroundPolicyName(const std::string &name) {
  static const std::string kSuffix = "ComponentInboundRetryPolicy";
  if (name == "DaprBuiltInActorReminderRetries") return true;
  if (name.rfind("Default", 0) != 0 || name.size() < kSuffix.size() + 7 ||
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
    return false;
  std::string kind = name.substr(7, name.size() - 7 - kSuffix.size());
  return kind.empty() || kind == "Pubsub" || kind == "Bindings";
}
Workload workloadOf(const std::string &name, const std::vector<std::string> &users) {
  if (users.empty() && !isBackgroundPolicyName(name)) return Workload::Request;
  for (const std::string &u : users)
    if (!isBackgroundUser(u)) return Workload::Request;
  return Workload::Background;
}

void extractPolicy(ExtractContext &cx, const yaml::Node &retries, const yaml::Node &keyNode, const yaml::Node &policy,
                   const std::string &resAnchor, const std::string &resName, const std::vector<std::string> &users,
                   const std::vector<std::string> &breakers) {
  std::string name = requireString(cx, keyNode, "spec.policies.retries key");
  std::string anchor = resAnchor + "/retries/" + name;
  Span key = cx.span(keyNode);
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = anchor;
  p.where = key;
  p.component = "Resiliency " + resName + " retry policy " + name;
  if (users.empty()) {
    p.component += " (no target names it)";
    // Dapr applies a policy only where a target of the same Resiliency names it, or by a default
    // name (Default…RetryPolicy, DaprBuiltIn…): any other policy no target names runs nowhere as
    // written, so what it would do is advice (first contact: its findings were judged arguable).
    const bool defaultName = isBuiltInPolicyName(name) ||
                             (name.rfind("Default", 0) == 0 && name.size() >= 18 && name.compare(name.size() - 11, 11, "RetryPolicy") == 0);
    if (!defaultName) {
      p.advisory = true;
      p.consumer = "advice: no target of this Resiliency names it, so it runs nowhere as written";
    }
  }
  else {
    p.component += " (used by ";
    for (size_t i = 0; i < users.size(); ++i) p.component += (i ? ", " : "") + users[i];
    p.component += ")";
  }
  p.attempts_field = "maxRetries";
  p.attempts_count_retries = true;
  p.workload = workloadOf(name, users);
  // The sidecar's start-up retries: it asks its own app for subscriptions and component specs
  // (dapr/dapr pkg/resiliency BuiltInInitializationRetries). No shared service takes them: advice.
  if (name == "DaprBuiltInInitializationRetries") {
    p.workload = Workload::Background;
    p.advisory = true;
    p.used_by = "Dapr's start-up calls to its own app: no shared service takes the retries";
  }
  p.budget.origin = Origin::NotApplicable; // Dapr has no retry budget to set
  p.per_try_timeout.origin = Origin::Unknown;
  p.overall_deadline.origin = Origin::Unknown;
  (void)retries;
  if (isNull(policy)) {
    // An empty policy is all defaults.
  } else {
    requireMap(cx, policy, "spec.policies.retries." + name);
  }

  // policy
  bool exponential = false;
  Span growthWhere = key;
  auto kind = get(policy, "policy");
  if (kind && !isNull(*kind)) {
    std::string k = requireString(cx, *kind, "policy");
    std::string lower;
    for (char c : k) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower != "constant" && lower != "exponential") {
      cx.problem(cx.span(*kind), "policy '" + k + "' is neither constant nor exponential: Dapr rejects the Resiliency resource and loads none of its policies",
                 anchor + "/policy");
      return;
    }
    exponential = lower == "exponential";
    growthWhere = cx.span(*kind);
  }

  // maxRetries
  auto maxRetries = get(policy, "maxRetries");
  long long n = -1;
  Span attemptsWhere = key;
  if (maxRetries && !isNull(*maxRetries)) {
    n = requireInt(cx, *maxRetries, "maxRetries", false);
    attemptsWhere = cx.span(*maxRetries);
    if (n > 1'000'000) n = 1'000'000;
  }
  if (isBuiltInPolicyName(name) && n < kBuiltInMinRetries) {
    cx.problem(attemptsWhere, "maxRetries " + std::to_string(n) + " on the built-in policy " + name + " is below Dapr's minimum: Dapr resets it to " +
                                  std::to_string(kBuiltInMinRetries) + " retries (dapr/dapr pkg/resiliency/resiliency.go)",
               anchor + "/maxRetries");
    n = kBuiltInMinRetries;
  }
  if (n == 0) return; // retries off

  Backoff &b = p.backoff;
  if (exponential) {
    std::optional<Duration> cap = Duration::s(kExpMaxIntervalS);
    if (auto mi = get(policy, "maxInterval"); mi && !isNull(*mi)) {
      if (auto d = readDuration(cx, *mi, "maxInterval", anchor, kDurations)) {
        cap = *d;
        b.cap = written(cap, cx.span(*mi));
      } else {
        b.cap = defaulted(cap, key, kExpMaxIntervalSource);
      }
    } else {
      b.cap = defaulted(cap, key, kExpMaxIntervalSource);
    }
    if (auto du = get(policy, "duration"); du && !isNull(*du))
      cx.problem(cx.keySpan(policy, "duration"), "duration is ignored by an exponential policy: Dapr's exponential backoff always starts at 500 ms (dapr/kit retry/retry.go)",
                 anchor + "/duration");
    b.growth = written(Growth::Exponential, growthWhere);
    b.initial = builtIn(std::optional<Duration>(Duration::ms(kExpInitialMs)), key, kExpSource);
    b.multiplier = builtIn(kExpMultiplier, key, kExpSource);
    b.jitter = builtIn(Jitter::Proportional, key, kExpSource);
    b.jitter_upper = 1.5;
    b.jitter_lower = 0.5;
    // RL105: after the cap. cenkalti/backoff v4 exponential.go NextBackOff: the draw
    // getRandomValueFromInterval(RandomizationFactor, rand, currentInterval) is around
    // currentInterval, which incrementCurrentInterval has already capped at MaxInterval; a draw
    // may exceed MaxInterval by the factor, but none is cut to it.
    b.jitter_order = builtIn(JitterOrder::AfterCap, key, "cenkalti/backoff randomizes around the interval already capped at MaxInterval");
    b.description = "Dapr's exponential backoff (500 ms, x1.5, ±50 %, capped at " + formatDuration(*cap) + ")";
    if (n < 0) {
      // Not forever: cenkalti's MaxElapsedTime (15 min, not settable from YAML) stops the retries.
      // The count depends on how long attempts take; keep the nominal estimate for messages only.
      auto est = cenkaltiNominalAttempts(Duration::ms(kExpInitialMs), kExpMultiplier, *cap, Duration::s(kExpMaxElapsedS));
      p.max_attempts = Setting<std::optional<int>>{est, Origin::Unknown, attemptsWhere,
                                                   "Dapr stops exponential retries after 15 min (cenkalti/backoff DefaultMaxElapsedTime)", {}};
    }
  } else {
    b.growth = kind && !isNull(*kind) ? written(Growth::Constant, growthWhere) : defaulted(Growth::Constant, key, kDefaultPolicySource);
    std::optional<Duration> interval = Duration::s(kDefaultDurationS);
    if (auto du = get(policy, "duration"); du && !isNull(*du)) {
      if (auto d = readDuration(cx, *du, "duration", anchor, kDurations)) {
        interval = *d;
        b.initial = written(interval, cx.span(*du));
      } else {
        b.initial = defaulted(interval, key, kDefaultDurationSource);
      }
    } else {
      b.initial = defaulted(interval, key, kDefaultDurationSource);
    }
    if (interval && interval->nanos == 0) b.growth = written(Growth::NoWait, b.initial.where); // duration: 0s
    b.multiplier = builtIn(1.0, key, "constant policy");
    b.cap = {std::optional<Duration>(), Origin::NotApplicable, key, {}, {}};
    // A constant policy cannot be jittered: the only way to jitter is policy: exponential, which is
    // RL102's fix, so the missing jitter is not a second finding for the same cause.
    b.jitter = {Jitter::None, Origin::NotApplicable, growthWhere, "Dapr's constant policy waits exactly `duration` (cenkalti/backoff ConstantBackOff)", {}};
    if (auto mi = get(policy, "maxInterval"); mi && !isNull(*mi))
      cx.problem(cx.keySpan(policy, "maxInterval"), "maxInterval is ignored by a constant policy: Dapr waits `duration` between every retry",
                 anchor + "/maxInterval");
    // The mechanical fix for a fixed, unjittered wait: an exponential policy (jittered, capped at
    // 60 s). Unsafe: the waits change, and the written `duration`, which an exponential policy
    // ignores (it starts at 500 ms), goes with it; offered only where `duration` is a line of its own.
    if (kind && !isNull(*kind)) {
      Fix f{"set policy: exponential (jittered, capped at maxInterval, 60 s by default) and remove duration",
            {cx.src.replace(growthWhere, "exponential")}, /*safe=*/false};
      auto du = get(policy, "duration");
      Span ds = du ? cx.keySpan(policy, "duration") : Span{};
      bool ownLine = !du || (ds.known() && policy.Style() != yaml::EmitterStyle::Flow &&
                             cx.src.line(ds.line - 1).find_first_not_of(' ') == static_cast<size_t>(ds.column - 1));
      if (du && ownLine) f.edits.push_back(cx.src.removeLine(ds.line - 1));
      if (!du) f.description = "set policy: exponential (jittered, capped at maxInterval, 60 s by default)";
      if (ownLine) b.growth.fix = f;
    }
    if (n < 0) {
      p.max_attempts = maxRetries && !isNull(*maxRetries) ? written(std::optional<int>(), attemptsWhere)
                                                          : defaulted(std::optional<int>(), key, kDefaultMaxRetriesSource);
      // Every target pairs it with a circuit breaker: Dapr ends the retry loop once the breaker
      // opens (dapr/dapr pkg/resiliency/policy.go: an open-state error is backoff.Permanent), so
      // the retries are bounded by the breaker's trip, not endless. The count is then not known.
      const bool allBroken = !breakers.empty() &&
                             std::all_of(breakers.begin(), breakers.end(), [](const std::string &b) { return !b.empty(); });
      if (allBroken)
        p.max_attempts = {std::nullopt, Origin::Unknown, p.max_attempts.where,
                          "maxRetries -1, but each target's circuit breaker (" + breakers.front() +
                              ") ends the retries when it opens (dapr/dapr pkg/resiliency/policy.go)",
                          {}};
    }
  }
  if (n > 0) {
    std::optional<int> attempts = static_cast<int>(n) + 1;
    p.max_attempts = maxRetries && !isNull(*maxRetries) ? written(attempts, attemptsWhere) : defaulted(attempts, key, kDefaultMaxRetriesSource);
  }

  readMatching(cx, policy, key, anchor, p);
  cx.model.policies.push_back(std::move(p));
}

// policy name → targets naming it ("apps/orders", "components/statestore/outbound"); `breakers`
// (when given): policy name → the circuit breaker each of those targets names ("" for none).
std::map<std::string, std::vector<std::string>> retryUsers(const yaml::Node &spec,
                                                           std::map<std::string, std::vector<std::string>> *breakers = nullptr) {
  std::map<std::string, std::vector<std::string>> users;
  // `targets` (apps, actors, components); Dapr's first resiliency API called them `buildingBlocks`
  // (services, actors, components), which files written for it still use.
  auto targets = get(spec, "targets");
  if (!targets || !targets->IsMap()) targets = get(spec, "buildingBlocks");
  if (!targets || !targets->IsMap()) return users;
  auto note = [&](const yaml::Node &t, const std::string &where) {
    auto r = get(t, "retry");
    if (!r || !r->IsScalar()) return;
    users[r->Scalar()].push_back(where);
    if (breakers) {
      auto cb = get(t, "circuitBreaker");
      (*breakers)[r->Scalar()].push_back(cb && cb->IsScalar() ? cb->Scalar() : "");
    }
  };
  for (auto group : {"apps", "services", "actors", "components"}) {
    auto g = get(*targets, group);
    if (!g || !g->IsMap()) continue;
    for (auto it = g->begin(); it != g->end(); ++it) {
      if (!it->first.IsScalar() || !it->second.IsMap()) continue;
      std::string where = std::string(group) + "/" + it->first.Scalar();
      note(it->second, where);
      for (auto dir : {"inbound", "outbound"})
        if (auto d = get(it->second, dir); d && d->IsMap()) note(*d, where + "/" + dir);
    }
  }
  return users;
}

bool isResiliency(const yaml::Node &doc) {
  return isKubernetesObject(doc, "dapr.io", {"Resiliency"});
}

// A Resiliency spec without its header, as the Dapr docs show them: no apiVersion/kind,
// spec.policies.retries a map of named policies.
bool isSpecFragment(const yaml::Node &doc) {
  if (get(doc, "apiVersion") || get(doc, "kind")) return false;
  auto spec = get(doc, "spec");
  if (!spec || !spec->IsMap()) return false;
  auto policies = get(*spec, "policies");
  if (!policies || !policies->IsMap()) return false;
  auto retries = get(*policies, "retries");
  if (!retries || !retries->IsMap() || retries->size() == 0) return false;
  for (auto it = retries->begin(); it != retries->end(); ++it) {
    if (!it->second.IsMap()) return false;
    if (!get(it->second, "policy") && !get(it->second, "maxRetries")) return false;
  }
  return true;
}

bool recognise(const yaml::Node &doc) { return isResiliency(doc) || isSpecFragment(doc); }

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  std::string name = meta.name, ns = meta.ns;
  auto spec = mapAt(cx, doc, "spec", "spec");
  if (!spec) return;
  auto policies = mapAt(cx, *spec, "policies", "spec.policies");
  if (!policies) return;
  auto retries = mapAt(cx, *policies, "retries", "spec.policies.retries");
  if (!retries) return;
  std::map<std::string, std::vector<std::string>> breakers;
  auto users = retryUsers(*spec, &breakers);
  std::string anchor = "Resiliency/" + ns + "/" + name;
  for (auto it = retries->begin(); it != retries->end(); ++it) {
    try {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      extractPolicy(cx, *retries, it->first, it->second, anchor, name, users[key], breakers[key]);
      // A spec without apiVersion/kind is a documentation fragment: Dapr loads only kind: Resiliency.
      if (!isResiliency(doc) && !cx.model.policies.empty() && cx.model.policies.back().anchor.rfind(anchor, 0) == 0) {
        cx.model.policies.back().advisory = true;
        cx.model.policies.back().consumer = "advice: not loaded as written, Dapr loads only a document with kind: Resiliency";
      }
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

} // namespace

namespace {
const Extractor &daprExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"dapr.io/"},
      .priority = 70,
      .prefilter_words = {"dapr.io", "retries"},
      .retry_keys = {"retries", "retry"},
  };
  return e;
}
const ExtractorRegistration registered(&daprExtractor);
} // namespace

} // namespace retrylint
