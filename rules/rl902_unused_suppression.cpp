// RL902 judges the suppression comments, not the model: it runs after the file's findings were
// suppressed (lint/suppress/), on the comments that silenced nothing.
#include "rules/rule.h"

namespace retrylint {
namespace {
void checkSuppressions(const std::vector<Suppression> &unused, const std::string &format, Reporter &out) {
  for (const Suppression &s : unused) {
    std::string anchor = "suppression/" + std::to_string(s.target_line) + "/" + s.reason;
    for (const std::string &name : s.unknown)
      out.report(s.where, format, anchor + "/" + name, "suppression names '" + name + "', which is no retrylint rule (see --list-rules)");
    const bool onlyUnknownNames = s.codes.empty() && !s.unknown.empty();
    if (!s.used && !onlyUnknownNames) out.report(s.where, format, anchor, "this suppression silences no finding; remove it");
  }
}
} // namespace

extern const Rule kRL902 = {
    "RL902", "unused-suppression", Severity::Note,
    "a suppression comment that silences nothing, or names no rule",
    {
        "A `retrylint: ignore[…]`, `ignore-file[…]` or `NOLINT(retrylint-…)` comment that matched no finding "
        "in this run, or that names a rule that does not exist.",
        "Stale suppressions hide the next real finding on that line, and a misspelt rule name silences nothing "
        "while looking as if it did. Reporting them keeps suppressions few and meaningful.",
        "    retries:   # retrylint: ignore[RL302] the mesh default applies here\n"
        "      attempts: 2\n"
        "      perTryTimeout: 1s     (nothing left to silence)",
        "Remove the comment, or fix the rule name.",
        "None.",
        "ruff RUF100 (unused-noqa); clang-tidy NOLINT.",
    },
    /*check=*/nullptr,
    /*checkChain=*/nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/false,
    /*needs_a_crowd=*/false,
    /*needs_a_crowd_shown=*/false,
    checkSuppressions,
};

} // namespace retrylint
