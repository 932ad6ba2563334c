#include "lint/config/severities.h"

namespace retrylint {

int ruleIndex(std::string_view code) {
  const auto &rules = allRules();
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i]->code == code) return static_cast<int>(i);
  return -1;
}

namespace {

void apply(const RuleSettings &settings, RuleSeverities &out) {
  for (const auto &[code, setting] : settings) {
    int i = ruleIndex(code);
    if (i < 0) continue; // the config loader reports unknown codes
    auto &slot = out[static_cast<size_t>(i)];
    if (setting.enabled && !*setting.enabled) {
      slot.reset();
      continue;
    }
    if (setting.severity) slot = setting.severity;
    else if (setting.enabled && !slot) slot = allRules()[static_cast<size_t>(i)]->severity;
  }
}

} // namespace

RuleSeverities resolveRuleSeverities(const ProjectConfig *config, const RuleSettings &commandLine, const std::string &path) {
  RuleSeverities out;
  out.reserve(allRules().size());
  for (const Rule *r : allRules()) out.push_back(r->severity);
  // The configs it extends first, then the config itself: each its rules, then its overrides.
  std::vector<const ProjectConfig *> levels;
  for (const ProjectConfig *c = config; c; c = c->base.get()) levels.insert(levels.begin(), c);
  for (const ProjectConfig *c : levels) {
    apply(c->rules, out);
    if (c->overrides.empty()) continue;
    std::string rel = relativeTo(c->root, path);
    for (const PathOverride &o : c->overrides)
      for (const std::string &glob : o.paths)
        if (!rel.empty() && globMatches(glob, rel)) {
          apply(o.rules, out);
          break;
        }
  }
  apply(commandLine, out);
  return out;
}

} // namespace retrylint
