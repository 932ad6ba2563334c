// RL902 is reported by the suppression pass (lint/suppress/), not from the model: the check
// here is empty; the rule is in the catalogue so it can be explained, configured and disabled.
#include "rules/rule.h"

namespace retrylint {
namespace {
void check(const FileModel &, const Settings &, Reporter &) {}
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
    check,
};

} // namespace retrylint
