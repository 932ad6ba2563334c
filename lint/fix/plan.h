// Which fixes --fix applies. A fix is applied only when
//  - it is safe (Fix::safe) and its finding is a warning or an error, or --unsafe-fixes asked for
//    behaviour-changing fixes and fixes offered on notes;
//  - applied in memory together with the fixes already chosen for its file, and the file analysed
//    again, its finding is gone and no finding appears that was not there before.
// So --fix never raises a finding, and a second --fix applies nothing.
#pragma once
#include <string>
#include <vector>

#include "lint/engine.h"

namespace retrylint {

struct FixPlan {
  std::vector<Finding> chosen;  // the findings whose first fix is to be applied (nothing else)
  size_t needs_unsafe = 0;      // fixes left for --unsafe-fixes (behaviour-changing, or on a note)
  size_t rejected = 0;          // fixes re-analysis refused (finding kept, or another one raised)
};

FixPlan planFixes(const std::vector<Finding> &findings, const RunOptions &options, bool unsafe);

// For the reports that carry fixes (JSON, SARIF): each finding keeps its fix only if the check
// above passes for that fix alone, so no report offers an edit --fix --unsafe-fixes would refuse.
void dropFixesThatFail(std::vector<Finding> &findings, const RunOptions &options);

// `--fix --show-diff`: the chosen fixes as a unified diff (`--- a/PATH`, `+++ b/PATH`, three lines
// of context), nothing written. Files that changed since they were analysed are left out.
std::string fixDiff(const std::vector<Finding> &chosen);

} // namespace retrylint
