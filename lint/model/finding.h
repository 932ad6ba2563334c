// What the linter reports: findings (rule hits) and errors (inputs it could not analyse).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lint/model/span.h"

namespace retrylint {

enum class Severity { Note = 0, Warning = 1, Error = 2 };
std::string_view severityName(Severity s);
std::optional<Severity> parseSeverity(std::string_view s);

struct Finding {
  std::string rule;     // "RL101"
  std::string name;     // "backoff-missing-jitter"
  Severity severity = Severity::Warning;
  Span where;
  std::string message;
  std::string format;   // dialect of the input
  std::string anchor;   // logical location of the construct (not a line number)
  std::string fingerprint;
  std::vector<Fix> fixes; // mechanical fixes (--fix, SARIF `fixes`)
  // The lines of the fields the finding was computed from (attempts, timeouts, backoff, conditions
  // …), as merged inclusive ranges in its own file: --diff counts the finding as touched when any
  // of them changed, not only its own line.
  std::vector<std::pair<int, int>> reads;
};

// An input that could not be analysed (exit code 2). line/column 0 when unknown.
struct Diagnostic {
  std::string path;
  int line = 0, column = 0;
  std::string message;
};

// Stable order: path, line, column, rule — so output is identical whatever -j is.
bool findingLess(const Finding &a, const Finding &b);
bool diagnosticLess(const Diagnostic &a, const Diagnostic &b);

} // namespace retrylint
