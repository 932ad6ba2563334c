// Which rules are on for a file, and at what severity: the rules' defaults, then each config the
// file's config extends and the config itself (its `rules`, then its `overrides` matching the
// path), then the command line's --enable/--disable/--severity.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/config/config.h"

namespace retrylint {

// By rule, in allRules() order (computed for every file: no strings, one allocation); nullopt: off.
using RuleSeverities = std::vector<std::optional<Severity>>;
RuleSeverities resolveRuleSeverities(const ProjectConfig *config, const RuleSettings &commandLine, const std::string &path);

// The index of a rule in allRules() (and so in RuleSeverities), or -1.
int ruleIndex(std::string_view code);

} // namespace retrylint
