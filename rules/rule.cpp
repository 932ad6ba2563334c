#include <algorithm>
#include "rules/rule.h"

#include <cstdio>

#include <llvm/Support/xxhash.h>

namespace retrylint {

std::string fingerprintOf(std::string_view rule, std::string_view path, std::string_view anchor) {
  std::string key;
  key.reserve(rule.size() + path.size() + anchor.size() + 2);
  key.append(rule).push_back('\0');
  key.append(path).push_back('\0');
  key.append(anchor);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(llvm::xxHash64(key)));
  return buf;
}

void Reporter::report(const RetryPolicy &policy, const Span &where, std::string_view field, std::string message,
                      const std::optional<Fix> &fix) {
  if (policy.implicit && !rule_.checks_implicit) return;
  const bool alone = (rule_.needs_a_crowd && policy.crowd == Crowd::Alone) ||
                     (rule_.needs_a_crowd_shown && (policy.crowd == Crowd::Alone || policy.crowd == Crowd::NotShown ||
                                                     policy.crowd == Crowd::OutOfStep));
  if (policy.advisory || alone) {
    Reporter advice = *this;
    advice.capSeverity(Severity::Note);
    advice.report(where, policy.format, policy.anchor + (field.empty() ? "" : "/" + std::string(field)),
                  message + (policy.used_by.empty() ? "" : " (" + policy.used_by + ")") +
                      (alone ? " (" + policy.crowd_why + ")" : "") +
                      (policy.consumer.empty() ? "" : " [" + policy.consumer + "]"),
                  fix);
    sink_.back().reads = policyReads(policy, where);
    return;
  }
  if (!policy.used_by.empty()) message += " (" + policy.used_by + ")";
  if (rule_.needs_a_crowd_shown && policy.crowd == Crowd::Shown) message += " (" + policy.crowd_why + ")";
  if (!policy.consumer.empty()) message += " [as read by " + policy.consumer + "]";
  report(where, policy.format, policy.anchor + (field.empty() ? "" : "/" + std::string(field)), std::move(message), fix);
  sink_.back().reads = policyReads(policy, where);
}

std::vector<std::pair<int, int>> policyReads(const RetryPolicy &p, const Span &where) {
  std::vector<std::pair<int, int>> out;
  auto add = [&](const Span &s) {
    if (s.known() && s.path == where.path) out.emplace_back(s.line, std::max(s.line, s.end_line));
  };
  add(p.max_attempts.where);
  add(p.per_try_timeout.where);
  add(p.overall_deadline.where);
  add(p.budget.where);
  add(p.adaptive_rate_limit.where);
  const Backoff &b = p.backoff;
  for (const Span *s : {&b.growth.where, &b.initial.where, &b.multiplier.where, &b.cap.where, &b.jitter.where}) add(*s);
  for (const Condition &c : p.retry_on) add(c.where);
  for (const auto &m : p.methods) add(m.where);
  // Merged, so a finding costs a few integers whatever the policy (a file may hold 100,000).
  std::sort(out.begin(), out.end());
  std::vector<std::pair<int, int>> merged;
  for (auto r : out) {
    if (!merged.empty() && r.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  }
  return merged;
}

void Reporter::report(const Span &where, std::string format, std::string anchor, std::string message,
                      const std::optional<Fix> &fix) {
  Finding f;
  f.rule = std::string(rule_.code);
  f.name = std::string(rule_.name);
  f.severity = severity_;
  f.where = where;
  f.message = std::move(message);
  f.format = std::move(format);
  f.anchor = std::move(anchor);
  f.fingerprint = fingerprintOf(f.rule, where.path.str(), f.anchor);
  if (fix && !fix->edits.empty()) f.fixes.push_back(*fix);
  sink_.push_back(std::move(f));
}

std::string explainRule(const Rule &r) {
  std::string out;
  out += std::string(r.code) + " " + std::string(r.name) + " (default severity: " + std::string(severityName(r.severity)) + ")\n";
  out += std::string(r.summary) + "\n";
  auto section = [&](std::string_view heading, std::string_view body) {
    if (body.empty()) return;
    out += "\n" + std::string(heading) + "\n";
    out += std::string(body);
    if (body.back() != '\n') out += "\n";
  };
  section("What it finds", r.doc.what);
  section("Why it matters", r.doc.why);
  section("Example", r.doc.example);
  section("Instead", r.doc.instead);
  section("Options", r.doc.options);
  section("References", r.doc.references);
  return out;
}

std::vector<const Rule *> selectRules(std::string_view sel, int *specificity) {
  std::vector<const Rule *> out;
  if (const Rule *r = findRule(sel)) {
    if (specificity) *specificity = 100;
    return {r};
  }
  if (sel == "ALL" || sel == "all") {
    if (specificity) *specificity = 0;
    return allRules();
  }
  std::string upper(sel);
  for (char &c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.size() >= 2 && upper.compare(0, 2, "RL") == 0)
    for (const Rule *r : allRules())
      if (r->code.substr(0, upper.size()) == upper) out.push_back(r);
  if (specificity) *specificity = static_cast<int>(upper.size());
  return out;
}

std::string ruleHelpUri(const Rule &r) {
  std::string anchor = std::string(r.code) + "-" + std::string(r.name);
  for (char &c : anchor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::string(RETRYLINT_HOMEPAGE) + "/blob/v" + RETRYLINT_VERSION + "/docs/rules.md#" + anchor;
}

std::string rulesMarkdown() {
  std::string out = "# retrylint rules\n\nThe text `retrylint --explain RULE` prints, for every rule. Generated: "
                    "`retrylint --explain all > docs/rules.md` (a test checks it is current).\n";
  for (const Rule *r : allRules()) {
    out += "\n## " + std::string(r->code) + " " + std::string(r->name) + "\n\n```text\n" + explainRule(*r) + "```\n";
  }
  return out;
}

} // namespace retrylint
