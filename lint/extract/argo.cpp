// Argo Workflows: retryStrategy on spec (workflow-wide) and on spec.templates[], for Workflow,
// WorkflowTemplate, ClusterWorkflowTemplate and CronWorkflow (spec.workflowSpec).
//
// Field facts: argoproj/argo-workflows pkg/apis/workflow/v1alpha1/workflow_types.go (RetryStrategy,
// Backoff), argoproj/argo-workflows docs/retries.md; duration syntax: workflow/controller/operator.go. See docs/formats.md §11.3.
//
// `limit` counts retries (API doc: "the maximum number of total attempts will be limit + 1").
// Without `limit` Argo retries until the node succeeds (RL201), unless backoff.maxDuration ends it.
// Argo's backoff has no jitter field: a backoff is never jittered, and no fix can add one.
//
// Precedence (workflow/controller/operator.go): spec.templateDefaults is merged into every template
// before it runs (mergedTemplateDefaultsInto, a strategic merge: the template's own retryStrategy
// fields win, the ones it leaves out come from the defaults); then a template without a
// retryStrategy takes spec.retryStrategy (wfOperationCtx.retryStrategy). So templateDefaults'
// retryStrategy is one policy for every template, reported once at the defaults, and it shadows
// spec.retryStrategy entirely.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "argo-workflows";

constexpr const char *kNoBackoffSource =
    "Argo retries at once when retryStrategy has no backoff (argoproj/argo-workflows docs/retries.md)";
constexpr const char *kNoFactorSource =
    "Argo: without backoff.factor every retry waits backoff.duration (workflow_types.go Backoff)";
constexpr const char *kNoCapSource =
    "Argo: backoff.cap is unset, and maxDuration bounds the total time, not each wait (workflow_types.go Backoff)";
// pkg/apis/workflow/v1alpha1/workflow_types.go Backoff: Duration, Factor, MaxDuration, Cap; nothing random.
constexpr const char *kNoJitterSource =
    "Argo has no jitter setting: retryStrategy.backoff takes only duration, factor, cap and maxDuration "
    "(pkg/apis/workflow/v1alpha1/workflow_types.go Backoff)";
// workflow/controller/operator.go processNodeRetries: "No more retries left" is decided only
// `if retryStrategy.Limit != nil && ...`, and the backoff requeue also needs `retryStrategy.Limit != nil`.
constexpr const char *kNoLimitSource =
    "Argo retries a node until it succeeds when retryStrategy sets no limit, and without a limit it does not "
    "wait out the backoff either (workflow/controller/operator.go processNodeRetries)";
constexpr const char *kNoLimitNoWaitSource =
    "without retryStrategy.limit Argo does not wait out the backoff: the requeue in "
    "workflow/controller/operator.go processNodeRetries needs retryStrategy.Limit != nil, so the node is retried at once";
constexpr const char *kMaxDurationBoundSource =
    "Argo: no limit, so the retries end only when backoff.maxDuration is exceeded, and they are not spaced by the "
    "backoff (workflow/controller/operator.go processNodeRetries)";
constexpr const char *kInheritedSource =
    "taken from spec.templateDefaults.retryStrategy, which is reported there";
constexpr const char *kDefaultRetryPolicySource =
    "Argo's default retryPolicy: OnFailure (workflow_types.go RetryStrategy)";


// IntOrString: 2, "2", or an Argo expression ("{{inputs.parameters.retries}}") known only at run time.
std::optional<long long> readIntOrString(ExtractContext &cx, const yaml::Node &n, std::string_view field) {
  if (cx.templated(n)) return std::nullopt;
  return requireInt(cx, n, field, true);
}

// Durations as the runtime reads them.
const DurationSyntax kDurations{parseArgoDuration, "Argo fails the node when it computes the backoff", true};

std::optional<Duration> readArgoDuration(ExtractContext &cx, const yaml::Node &n, std::string_view field, const std::string &anchor) {
  if (cx.templated(n)) return std::nullopt; // {{inputs.parameters.…}}: known when it runs
  return readDuration(cx, n, field, anchor, kDurations);
}

Condition policyCondition(const std::string &name, bool catchAll, Origin origin, Span where) {
  Condition c;
  c.kind = Condition::Kind::ErrorName;
  c.text = "retryPolicy: " + name;
  c.catch_all = catchAll;
  c.origin = origin;
  c.where = std::move(where);
  return c;
}

// A present, non-null field.
std::optional<yaml::Node> field(const yaml::Node &map, std::string_view name) {
  auto n = get(map, name);
  if (!n || isNull(*n)) return std::nullopt;
  return n;
}

// `defaults` is spec.templateDefaults.retryStrategy when a template's own retryStrategy is merged
// with it: a field the template leaves out comes from there, and what it decides is left Unknown
// here (the defaults' own policy reports it, once).
void extractStrategy(ExtractContext &cx, const yaml::Node &owner, const yaml::Node &rs, const std::string &anchor,
                     const std::string &component, const yaml::Node *defaults = nullptr, std::string usedBy = {}) {
  requireMap(cx, rs, "retryStrategy");
  auto inherits = [&](std::string_view name) { return defaults && defaults->IsMap() && field(rs, name) == std::nullopt && field(*defaults, name); };
  Span key = cx.keySpan(owner, "retryStrategy");
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.workload = Workload::Background; // workflow steps: nobody holds a request open on them
  p.anchor = anchor;
  p.component = component;
  p.where = key;
  p.used_by = std::move(usedBy);
  p.attempts_field = "limit";
  p.attempts_count_retries = true;
  p.budget.origin = Origin::NotApplicable;     // no retry budget in Argo
  p.per_try_timeout.origin = Origin::Unknown;  // activeDeadlineSeconds lives on the template, not read here
  p.overall_deadline.origin = Origin::NotApplicable;
  p.deadline_name = "backoff.maxDuration";

  if (auto limit = get(rs, "limit"); limit && !isNull(*limit)) {
    auto n = readIntOrString(cx, *limit, "retryStrategy.limit");
    if (n && *n < 0) {
      cx.problem(cx.span(*limit), "limit " + std::to_string(*n) + " is negative: Argo does not retry the node", anchor + "/limit");
      return;
    }
    // IntOrString holds an int32 (k8s.io/apimachinery intstr): a larger number fails to unmarshal
    // and the workflow is rejected.
    if (n && *n > std::numeric_limits<int32_t>::max()) {
      cx.problem(cx.span(*limit), "limit " + std::to_string(*n) + " does not fit the 32-bit integer of retryStrategy.limit (IntOrString): Argo rejects the workflow",
                 anchor + "/limit");
      return;
    }
    if (n && *n == 0) return; // no retries
    if (n) p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(*n, std::numeric_limits<int>::max() - 1)) + 1), cx.span(*limit));
    else p.max_attempts = {std::nullopt, Origin::Unknown, cx.span(*limit), {}, {}};
  } else if (inherits("limit")) {
    p.max_attempts = {std::nullopt, Origin::Unknown, key, kInheritedSource, {}};
  } else if (auto bo = field(rs, "backoff"); bo && bo->IsMap() && field(*bo, "maxDuration")) {
    p.max_attempts = {std::nullopt, Origin::Unknown, key, kMaxDurationBoundSource, {}};
  } else {
    p.max_attempts = defaulted(std::optional<int>(), key, kNoLimitSource);
  }

  // Conditions: retryPolicy, narrowed by an expression when one is given.
  auto expression = get(rs, "expression");
  bool hasExpression = expression && !isNull(*expression);
  if (auto rp = get(rs, "retryPolicy"); rp && !isNull(*rp)) {
    std::string v = requireString(cx, *rp, "retryStrategy.retryPolicy");
    if (v != "Always" && v != "OnFailure" && v != "OnError" && v != "OnTransientError") {
      cx.problem(cx.span(*rp), "retryPolicy '" + v + "' is not one of Always, OnFailure, OnError, OnTransientError: Argo rejects the workflow",
                 anchor + "/retryPolicy");
    } else {
      // Always retries every failed or errored node; an expression narrows it to what it tests.
      // Not a catch-all (RL402): the default, OnFailure, already retries every non-zero exit, where
      // bad input and bugs show up; Always adds only Argo errors (a pod deleted or evicted), which
      // are mostly transient (workflow_types.go RetryPolicyActual, operator.go processNodeRetries).
      p.retry_on.push_back(policyCondition(v, false, Origin::Written, cx.span(*rp)));
    }
  } else if (!hasExpression && !inherits("retryPolicy") && !inherits("expression")) {
    p.retry_on.push_back(policyCondition("OnFailure", false, Origin::Defaulted, key));
  }

  Backoff &b = p.backoff;
  auto backoff = get(rs, "backoff");
  bool mergedBackoff = false; // a backoff field comes from templateDefaults
  if (inherits("backoff")) {
    mergedBackoff = true;
  } else if (defaults && backoff && backoff->IsMap()) {
    if (auto db = field(*defaults, "backoff"); db && db->IsMap())
      for (auto f : {"duration", "factor", "cap", "maxDuration"}) mergedBackoff |= !field(*backoff, f) && field(*db, f);
  }
  if (mergedBackoff) {
    b.growth.origin = Origin::Unknown;
    b.jitter.origin = Origin::Unknown;
  } else if (!backoff || isNull(*backoff)) {
    b.growth = defaulted(Growth::NoWait, key, kNoBackoffSource);
    b.jitter = {Jitter::None, Origin::NotApplicable, key, {}, {}};
  } else {
    requireMap(cx, *backoff, "retryStrategy.backoff");
    Span bkey = cx.keySpan(rs, "backoff");
    auto duration = get(*backoff, "duration");
    std::optional<Duration> base;
    if (duration && !isNull(*duration)) base = readArgoDuration(cx, *duration, "backoff.duration", anchor);
    if (auto md = get(*backoff, "maxDuration"); md && !isNull(*md)) {
      if (auto d = readArgoDuration(cx, *md, "backoff.maxDuration", anchor)) p.overall_deadline = written(std::optional<Duration>(d), cx.span(*md));
    }
    if (!base) {
      b.growth.origin = Origin::Unknown; // no usable duration: the wait is not known
    } else {
      b.initial = written(std::optional<Duration>(base), cx.span(*duration));
      double factor = 1;
      auto f = get(*backoff, "factor");
      bool factorKnown = true;
      if (f && !isNull(*f)) {
        if (cx.templated(*f)) factorKnown = false;
        else factor = requireNumber(cx, *f, "backoff.factor", true);
      }
      if (!factorKnown) {
        b.growth.origin = Origin::Unknown;
      } else if (base->nanos == 0) {
        b.growth = written(Growth::NoWait, cx.span(*duration));
      } else if (factor <= 1) {
        b.growth = f && !isNull(*f) ? written(Growth::Constant, cx.span(*f)) : defaulted(Growth::Constant, bkey, kNoFactorSource);
        b.multiplier = f && !isNull(*f) ? written(factor, cx.span(*f)) : defaulted(1.0, bkey, kNoFactorSource);
      } else {
        b.growth = written(Growth::Exponential, cx.span(*f));
        b.multiplier = written(factor, cx.span(*f));
        if (auto cap = get(*backoff, "cap"); cap && !isNull(*cap)) {
          auto d = readArgoDuration(cx, *cap, "backoff.cap", anchor);
          if (d) b.cap = written(std::optional<Duration>(d), cx.span(*cap));
          else b.cap.origin = Origin::Unknown;
        } else {
          b.cap = defaulted(std::optional<Duration>(), bkey, kNoCapSource);
          int line0 = cx.span(*f).line - 1;
          std::string_view line = cx.src.line(line0);
          std::string indent = cx.src.indentOf(line0);
          if (line.substr(indent.size()).rfind("factor:", 0) == 0) // block style: one key per line
            b.cap.fix = Fix{"add backoff.cap", {cx.src.insertLineAfter(line0, indent + "cap: \"5m\"")}};
        }
      }
      b.jitter = defaulted(Jitter::None, bkey, kNoJitterSource); // Defaulted so RL101 names it; no fix exists
      b.jitter_configurable = false;
    }
  }
  // Without a limit the controller never waits out the backoff (the requeue needs
  // retryStrategy.Limit != nil): the node is retried at once, whatever backoff says. With nothing
  // else to end the retries, RL201's message says so (kNoLimitSource) and the wait rules stay out,
  // so the one cause is one finding; bounded by maxDuration only, it is a tight loop (RL104).
  if (!p.max_attempts.value && p.max_attempts.origin == Origin::Defaulted) {
    b.growth = {Growth::NoWait, Origin::NotApplicable, b.growth.where, kNoLimitNoWaitSource, {}};
  } else if (!p.max_attempts.value && p.max_attempts.source == kMaxDurationBoundSource) {
    b.growth = builtIn(Growth::NoWait, backoff && !isNull(*backoff) ? cx.keySpan(rs, "backoff") : key, kNoLimitNoWaitSource);
  }
  if (!p.max_attempts.value && b.growth.value == Growth::NoWait && b.growth.source == kNoLimitNoWaitSource) {
    b.jitter.origin = Origin::NotApplicable;
    b.cap.origin = Origin::NotApplicable;
  }
  cx.model.policies.push_back(std::move(p));
}

bool recognise(const yaml::Node &doc) {
  return isKubernetesObject(doc, "argoproj.io", {"Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"});
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  std::string kind = get(doc, "kind")->Scalar();
  std::string name = "(unnamed)";
  if (auto md = get(doc, "metadata"); md && md->IsMap()) {
    if (auto n = get(*md, "name"); n && n->IsScalar()) name = n->Scalar();
    else if (auto g = get(*md, "generateName"); g && g->IsScalar()) name = g->Scalar();
  }
  auto spec = mapAt(cx, doc, "spec", "spec");
  if (!spec) return;
  std::string path = "spec";
  if (kind == "CronWorkflow") {
    spec = mapAt(cx, *spec, "workflowSpec", "spec.workflowSpec");
    if (!spec) return;
    path = "spec.workflowSpec";
  }
  std::string anchor = kind + "/" + name;
  // spec.templateDefaults.retryStrategy: merged into every template, so one policy for all of them.
  std::optional<yaml::Node> defaults;
  if (auto td = get(*spec, "templateDefaults"); td && !isNull(*td)) {
    requireMap(cx, *td, path + ".templateDefaults");
    if (auto rs = field(*td, "retryStrategy")) {
      defaults = rs;
      std::vector<std::string> names;
      if (auto templates = get(*spec, "templates"); templates && templates->IsSequence())
        for (const auto &t : *templates)
          if (auto n = get(t, "name"); n && n->IsScalar()) names.push_back(n->Scalar());
      std::string usedBy = "spec.templateDefaults applies to every template";
      if (!names.empty()) {
        usedBy += ": ";
        for (size_t i = 0; i < names.size() && i < 10; ++i) usedBy += (i ? ", " : "") + names[i];
        if (names.size() > 10) usedBy += " and " + std::to_string(names.size() - 10) + " more";
      }
      try {
        extractStrategy(cx, *td, *rs, anchor + "/" + path + ".templateDefaults.retryStrategy",
                        kind + " " + name + " " + path + ".templateDefaults.retryStrategy", nullptr, usedBy);
      } catch (const TypeError &e) {
        cx.error(e);
      }
    }
  }
  // spec.retryStrategy is for templates without one; with templateDefaults' every template has one.
  if (auto rs = get(*spec, "retryStrategy"); rs && !isNull(*rs) && !defaults) {
    try {
      extractStrategy(cx, *spec, *rs, anchor + "/" + path + ".retryStrategy", kind + " " + name + " " + path + ".retryStrategy");
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
  auto templates = sequenceAt(cx, *spec, "templates", path + ".templates");
  if (!templates) return;
  forEachItem(cx, *templates, [&](const yaml::Node &t, size_t i) {
    requireMap(cx, t, path + ".templates[" + std::to_string(i) + "]");
    std::string tname;
    if (auto n = get(t, "name"); n && n->IsScalar()) tname = n->Scalar();
    // A daemon template (`daemon: true`) is a server the workflow keeps running: its retries
    // relaunch the server, they do not call a failing service again, so no retry rule applies.
    bool daemon = false;
    if (auto d = get(t, "daemon"); d && d->IsScalar() && d->Scalar() == "true") daemon = true;
    if (auto rs = get(t, "retryStrategy"); rs && !isNull(*rs) && !daemon) {
      std::string label = tname.empty() ? std::to_string(i) : tname;
      extractStrategy(cx, t, *rs, anchor + "/templates[" + label + "]",
                      kind + " " + name + " template " + (tname.empty() ? "[" + std::to_string(i) + "]" : tname),
                      defaults ? &*defaults : nullptr);
    }
  });
}

} // namespace

namespace {
const Extractor &argoExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"argoproj.io/"},
      .priority = 80,
      .prefilter_words = {"argoproj.io"},
      .retry_keys = {"retryStrategy"},
  };
  return e;
}
const ExtractorRegistration registered(&argoExtractor);
} // namespace

} // namespace retrylint
