// Changed-lines mode (`--diff REV`, `--diff -`): keep only findings on lines a change touched,
// as clang-tidy-diff and Semgrep's baseline commit do.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lint/model/finding.h"

namespace retrylint {

// Absolute path -> changed line ranges (new side, inclusive).
using ChangedLines = std::map<std::string, std::vector<std::pair<int, int>>>;

// Parses a unified diff (git's or diff -u's) by its hunk counts: the added lines of each file,
// keyed by its new path resolved against `baseDir` after dropping the b/ prefix. A deleted file
// (+++ /dev/null) has no entry; a renamed one is under its new name; a path that leads out of
// `baseDir` (`../x`, `/etc/x`) has none either.
ChangedLines parseUnifiedDiff(const std::string &diff, const std::string &baseDir);

// The path in a `+++ ` or `rename to ` header field: git's C-style quoted form ("a\"b\tc",
// \ooo for other bytes) unescaped, an unquoted one cut at a TAB (diff -u's date, or git's
// marker after a name with spaces).
std::string diffHeaderPath(std::string_view field);

// `git diff -U0 REV` in the current directory, run so that nothing configured in the repository
// can execute (no external diff, no textconv, no fsmonitor hook) and no attribute hides a hunk.
// `top` is set to the work tree's top, which the paths are resolved against. Errors go to `error`.
std::optional<ChangedLines> gitChangedLines(const std::string &rev, std::string &top, std::string &error);

// The files of `changed` to lint when no paths are named: those still there, reached from
// `baseDir` through no symbolic link (a link a change adds could point anywhere; such files are
// put in `notFollowed`).
std::vector<std::string> changedFilesToLint(const ChangedLines &changed, const std::string &baseDir,
                                            std::vector<std::string> &notFollowed);

// The absolute, normalised form of a path, as used for the keys above.
std::string absolutePath(const std::string &path);

bool onChangedLine(const ChangedLines &changed, const std::string &path, int line);
// A finding is touched by a change when its line or any field it reads (Finding::reads, each span
// from its line to its end line) is on a changed line.
bool touchedBy(const ChangedLines &changed, const Finding &f);

} // namespace retrylint
