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
  using Key = std::tuple<std::string, std::string, std::string>; // (rule, path, fingerprint)
  std::map<Key, int> entries;                                    // -> count
  // What the entry recorded, where it says: the message and the severity (a baseline of an older
  // version may have neither). A finding whose numbers or severity grew past what was recorded is
  // not hidden (applyBaseline).
  std::map<Key, std::string> messages, severities;
};

std::optional<Baseline> loadBaseline(const std::string &path, std::vector<Diagnostic> &errors);
// Paths are written and matched as identities relative to `root` (lint/discover/identity.h).
bool writeBaseline(const std::string &path, const std::vector<Finding> &findings, const std::string &root, std::string &error);
// Removes the findings the baseline records; returns how many were removed. A finding of a recorded
// construct stays when it became worse in kind: its severity rose, or a number of its message moved
// by a factor of 2 or more from the recorded message of the same wording (7 attempts -> 601); its
// message then says "baselined at 7, now 601".
size_t applyBaseline(const Baseline &baseline, std::vector<Finding> &findings, const std::string &root);

} // namespace retrylint
