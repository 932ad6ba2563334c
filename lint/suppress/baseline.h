// Baselines: record today's findings, report only new ones later. Entries are keyed by rule,
// path and the fingerprint of the offending construct (never the line), with a count, so
// unrelated edits that move lines do not resurrect old findings and a new finding of the same
// rule in the same file is still reported.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lint/model/finding.h"

namespace retrylint {

struct Baseline {
  std::map<std::tuple<std::string, std::string, std::string>, int> entries; // (rule, path, fingerprint) -> count
};

std::optional<Baseline> loadBaseline(const std::string &path, std::vector<Diagnostic> &errors);
// Paths are written and matched as identities relative to `root` (lint/discover/identity.h).
bool writeBaseline(const std::string &path, const std::vector<Finding> &findings, const std::string &root, std::string &error);
// Removes the findings the baseline records; returns how many were removed.
size_t applyBaseline(const Baseline &baseline, std::vector<Finding> &findings, const std::string &root);

} // namespace retrylint
