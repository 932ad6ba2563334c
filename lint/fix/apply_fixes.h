// --fix: apply the findings' mechanical fixes to the files, as minimal text edits.
#pragma once
#include <string>
#include <vector>

#include "lint/model/finding.h"

namespace retrylint {

struct FixSummary {
  size_t fixes_applied = 0;
  size_t files_changed = 0;
  std::vector<Diagnostic> errors;
};

// Applies each finding's first fix; overlapping edits are skipped (the next run applies them).
// Offsets are those of the analysed text (a byte-order mark, if any, is accounted for).
FixSummary applyFixes(const std::vector<Finding> &findings);

// Applies edits to a text (exposed for tests). Edits must not overlap; returns false if they do.
bool applyEdits(std::string &text, std::vector<TextEdit> edits);

} // namespace retrylint
