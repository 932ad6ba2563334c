// What a rule is: code, name, default severity, documentation, and a check of the model.
// Rules never read files, flags or output formats: they see a FileModel and report.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/finding.h"
#include "lint/model/policy.h"

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

struct Settings {
  int max_attempts = 5;       // RL203 ceiling (settings.max-attempts)
  int max_amplification = 10; // RL204 ceiling (settings.max-amplification)
  LayerContext layer;         // per file: filled by the engine before the rules run
};

struct Chain; // rules/chain.h: one declared call chain with every layer's policies

class Reporter;

struct Rule {
  std::string_view code;     // "RL101"
  std::string_view name;     // "backoff-missing-jitter"
  Severity severity;         // default severity
  std::string_view summary;  // one line, for --list-rules and the README
  RuleDoc doc;
  void (*check)(const FileModel &model, const Settings &settings, Reporter &out);
  // Cross-file rules: called once per call chain after every file was checked (nullptr: none).
  void (*checkChain)(const Chain &chain, const Settings &settings, Reporter &out) = nullptr;
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

// "RL101 backoff-missing-jitter (warning)\n\nWhat it finds\n…" — what --explain prints.
std::string explainRule(const Rule &rule);

// A fingerprint of the offending construct: rule, path and logical anchor — not the line.
std::string fingerprintOf(std::string_view rule, std::string_view path, std::string_view anchor);

} // namespace retrylint
