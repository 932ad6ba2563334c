// Inline suppressions: `# retrylint: ignore[RL101] reason` (YAML, INI, .properties),
// `// retrylint: ignore[RL501] reason` (C++), on the offending line or alone on the line above;
// `retrylint: ignore-file[RL303]` anywhere for the whole file; and clang-tidy's
// `NOLINT(retrylint-RL501)` / `NOLINTNEXTLINE(retrylint-log-missing-attempt)`. Rules are named by
// code or name; no list (`ignore` alone, `retrylint-*`) means every rule. JSON has no comments: a
// member the runtime tolerates carries it, `"//retrylint": "ignore[RL203] reason"` (gRPC service
// configs) or `"Comment": "retrylint: ignore[RL101] reason"` (Step Functions; also `$comment`,
// `_comment`), and silences the object that holds it.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "lint/model/finding.h"
#include "lint/source.h"

namespace retrylint {

struct Suppression {
  Span where;                 // the comment
  int target_line = 0;        // the line it silences (0 for file-wide)
  int target_end_line = 0;    // a JSON member's: the last line of the object holding it (else 0)
  bool file_wide = false;
  std::set<std::string> codes;   // rule codes; empty = every rule
  std::vector<std::string> unknown; // names that are no rule
  std::string reason;
  bool used = false;
};

std::vector<Suppression> parseSuppressions(const SourceFile &src);

// Removes suppressed findings; returns the suppressions that silenced nothing, for RL902.
std::vector<Suppression> applySuppressions(std::vector<Finding> &findings, std::vector<Suppression> &suppressions);

} // namespace retrylint
