// What a rule is: code, name, default severity, documentation, and a check of the model.
// Rules never read files, flags or output formats: they see a FileModel and report.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/finding.h"
#include "lint/model/policy.h"
#include "lint/suppress/suppressions.h"

namespace retrylint {

// The documentation every rule carries, under the same headings every time.
// `--explain` prints it; the README's rule table is generated from `summary`.
struct RuleDoc {
  std::string_view what;       // What it finds
  std::string_view why;        // Why it matters
  std::string_view example;    // Example (a config or code that fires)
  std::string_view instead;    // Instead (the same, fixed)
  std::string_view options;    // Options (settings that change the rule)
  std::string_view references; // References
};

// Where the file being checked sits in the project's declared call chains (.retrylint.yaml `layers`).
struct LayerContext {
  bool configured = false;   // the project config declares layers
  std::string layer;         // the layer this file belongs to; "" = none
  bool owns_retries = false; // that layer is the one that should retry
  std::string owner;         // the layer that owns retries, "" = none declared
};

// Thresholds that depend on the workload (docs: README, "Workloads and thresholds").
struct WorkloadLimits {
  int max_attempts;           // RL203: most attempts, the first included
  Duration max_wait;          // RL103: longest single wait an uncapped backoff may reach
};

struct Settings {
  // A request path: 5 attempts (AWS SDKs' standard mode uses 3, gRPC clamps at 5); 20 s, the cap the
  // AWS SDKs put on their own backoff (AWS SDKs and Tools Reference Guide, "Retry behavior").
  WorkloadLimits request{5, Duration::s(20)};
  // A background workload: 11 attempts, i.e. 10 retries (Argo's and Step Functions' own examples
  // use limit/MaxAttempts 10; the Step Functions guidance for Lambda tasks retries 6 times); up to
  // a quarter above it RL203 says so as a note (docs/accuracy.md: reviewers took 12 and 13 attempts
  // for threshold cases, 16 and more for defects). 15 min, beyond which a workflow step waiting on
  // one retry is rather a schedule (reviewers took 8 to 18 min waits, and 24.3 min with full jitter,
  // for threshold cases, 25.6 min and more for defects; RL103 makes a last wait up to two-thirds
  // above it, 25 min, a note).
  WorkloadLimits background{11, Duration::s(900)};
  int max_amplification = 10; // RL204 ceiling (settings.max-amplification)
  const WorkloadLimits &limitsFor(Workload w) const { return w == Workload::Background ? background : request; }
  LayerContext layer;         // per file: filled by the engine before the rules run
};

struct Chain; // lint/model/chain.h: one declared call chain with every layer's policies

class Reporter;

struct Rule {
  std::string_view code;     // "RL101"
  std::string_view name;     // "backoff-missing-jitter"
  Severity severity;         // default severity
  std::string_view summary;  // one line, for --list-rules and the README
  RuleDoc doc;
  void (*check)(const FileModel &model, const Settings &settings, Reporter &out); // nullptr: none
  // Cross-file rules: called once per call chain after every file was checked (nullptr: none).
  void (*checkChain)(const Chain &chain, const Settings &settings, Reporter &out) = nullptr;
  // Also reports on implicit policies: objects with no retry block, where only the platform's
  // defaults apply. Off for every rule but RL202: a default the author never wrote is reported
  // only where the project says it is harmful (a layer that does not own retries).
  bool checks_implicit = false;
  // At note severity, its findings are advice that holds for most objects of a kind: a run
  // reports them as one note with the count (aggregateNotes), not one per object.
  bool aggregate_notes = false;
  // Its harm comes from many callers retrying together (a storm of attempts, waits that hold many
  // jobs): on a policy the files show one caller at a time for (Crowd::Alone) its findings are notes.
  bool needs_a_crowd = false;
  // Its harm exists only with a crowd (a herd retrying in step): its findings are notes unless a
  // crowd is assumed (a request path) or shown (RetryPolicy::crowd).
  bool needs_a_crowd_shown = false;
  // Rules on the suppression comments themselves (RL902): called after the file's findings were
  // suppressed, with the comments that silenced nothing or name no rule, and the file's format
  // (its first recognised dialect, "" for none). What it reports is not suppressed in turn.
  void (*checkSuppressions)(const std::vector<Suppression> &unused, const std::string &format, Reporter &out) = nullptr;
};

// Collects findings for one rule on one file.
class Reporter {
public:
  Reporter(const Rule &rule, Severity severity, std::vector<Finding> &sink)
      : rule_(rule), severity_(severity), sink_(sink) {}
  // A finding about `policy`, at `where`; `field` names the construct for the fingerprint.
  void report(const RetryPolicy &policy, const Span &where, std::string_view field, std::string message,
              const std::optional<Fix> &fix = std::nullopt);
  // Report below the rule's severity (RL202 without layer information reports at note).
  void capSeverity(Severity most) { severity_ = std::min(severity_, most); }
  // A finding about a construct that is not a policy (RL901 problems).
  void report(const Span &where, std::string format, std::string anchor, std::string message,
              const std::optional<Fix> &fix = std::nullopt);

private:
  const Rule &rule_;
  Severity severity_;
  std::vector<Finding> &sink_;
};

// Every rule, in code order. The one place rules are listed (rules/registry.cpp).
const std::vector<const Rule *> &allRules();
// By code ("RL101") or name ("backoff-missing-jitter"); nullptr if none.
const Rule *findRule(std::string_view codeOrName);
// A rule selector, as --enable/--disable/--severity and the config's `rules` take it: a code or
// name (one rule), a code prefix ("RL1": the backoff rules, "RL40"), or ALL. Empty when it selects
// nothing. `specificity` orders selectors so the more specific wins whatever order they come in
// (ALL < shorter prefix < longer prefix < one rule), as ruff does.
std::vector<const Rule *> selectRules(std::string_view selector, int *specificity = nullptr);

// "RL101 backoff-missing-jitter (warning)\n\nWhat it finds\n…" — what --explain prints.
std::string explainRule(const Rule &rule);
// The rule's page for this version: docs/rules.md (every --explain text, checked by a test) at
// the release tag, anchored at the rule (SARIF helpUri, --list-rules --format json).
std::string ruleHelpUri(const Rule &rule);
// docs/rules.md: a heading per rule and its --explain text.
std::string rulesMarkdown();

// The lines of the fields a finding on policy `p` at `where` is computed from (same file only),
// as merged inclusive ranges.
std::vector<std::pair<int, int>> policyReads(const RetryPolicy &p, const Span &where);

// A fingerprint of the offending construct: rule, path and logical anchor — not the line.
std::string fingerprintOf(std::string_view rule, std::string_view path, std::string_view anchor);

} // namespace retrylint
