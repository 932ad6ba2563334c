#include <map>
#include <set>

#include <llvm/ADT/StringRef.h>

#include "lint/report/report.h"
#include "rules/rule.h"

namespace retrylint {

void aggregateNotes(std::vector<Finding> &findings) {
  // Notes that hold for most objects of a kind: a rule's notes when the rule says so (RL303), and
  // any rule's notes on workflow retriers for which nothing shows a crowd (kCrowdNotShown), and on
  // the retriers of one workflow that only schedules start. Each group is reported once, at its
  // first finding, with the count.
  const std::string crowdSuffix = "(" + std::string(kCrowdNotShown) + ")", aloneSuffix = std::string(kCrowdAloneTail) + ")";
  auto keyOf = [&](const Finding &f) -> std::string {
    if (f.severity != Severity::Note) return {};
    const Rule *rule = findRule(f.rule);
    if (rule && rule->aggregate_notes) return f.rule;
    if (llvm::StringRef(f.message).endswith(crowdSuffix)) return f.rule + "/crowd";
    // A workflow only schedules start (crowdFrom): the same holds for each of its retriers.
    if (llvm::StringRef(f.message).endswith(aloneSuffix))
      if (size_t at = f.message.rfind(" (only "); at != std::string::npos) return f.rule + "/alone" + f.message.substr(at);
    return {};
  };
  struct Group { size_t first; size_t count = 0; std::set<std::string> files; };
  std::map<std::string, Group> groups;
  std::vector<std::string> keys(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    keys[i] = keyOf(findings[i]);
    if (keys[i].empty()) continue;
    auto [it, fresh] = groups.try_emplace(keys[i], Group{i, 0, {}});
    ++it->second.count;
    it->second.files.insert(findings[i].where.path.str());
  }
  if (groups.empty()) return;
  std::vector<bool> drop(findings.size());
  for (size_t i = 0; i < findings.size(); ++i)
    if (!keys[i].empty() && groups.at(keys[i]).first != i) drop[i] = true;
  for (auto &[key, g] : groups) {
    if (g.count < 2) continue;
    Finding &f = findings[g.first];
    const bool crowd = llvm::StringRef(key).startswith(f.rule + "/crowd");
    std::string where = std::to_string(g.count) + " retry policies in " + std::to_string(g.files.size()) +
                        (g.files.size() == 1 ? " file" : " files");
    f.message = crowd ? where + " for which " + std::string(kCrowdNotShown) +
                            " (reported once; a template beside a definition that shows what starts it, or a Map running "
                            "iterations at once, makes each its own finding). The first: " +
                            f.message.substr(0, f.message.size() - crowdSuffix.size() - 1)
                      : where + " (reported once; set " + f.rule + " to warning to see each). The first: " + f.message;
    f.anchor += "/aggregate";
    f.fingerprint = fingerprintOf(f.rule, "", crowd ? "aggregate/crowd" : key == f.rule ? "aggregate" : "aggregate/" + key.substr(f.rule.size() + 1));
    f.fixes.clear();
  }
  size_t out = 0;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (drop[i]) continue;
    if (out != i) findings[out] = std::move(findings[i]);
    ++out;
  }
  findings.resize(out);
}

} // namespace retrylint
