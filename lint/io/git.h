// Running git on a checkout written by a stranger: never through anything the repository
// configures that could execute (external diff, textconv, fsmonitor hook), never with an argument
// a revision could turn into an option. Used by `--diff REV` and `retrylint review`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>

namespace retrylint::io {

struct GitRun {
  int status = -1;     // git's exit status; -1 when it could not be started
  std::string out, err;
};

// `git ARGS...` in the current directory (or ARGS' leading `-C DIR`), with `input` on its standard
// input, in the repository of ownWorkTree (unless GIT_DIR names one), under settings that
// nothing in the checkout can override (git.cpp's kGitSafety: no implicitly found bare repository,
// no fsmonitor, hooks or pager, git's default diff prefixes). `err` says why git could not be
// started (not on PATH).
GitRun runGit(const std::vector<std::string> &args, const std::string &input = "");

// The nearest directory at or above `start` that holds a `.git` directory (or the `.git` file of
// a linked work tree or submodule): no commit can hold a path named `.git`, so a pull request
// cannot plant one. "" when there is none.
std::string ownWorkTree(llvm::StringRef start);

// Whether `rev` may be handed to git as a revision: not empty, not an option.
bool plausibleRevision(const std::string &rev);

// The commit `--diff REV` and `retrylint review --base REV` compare with: the merge base of REV
// and HEAD (`git diff REV...`), so commits made on REV since the branch left it are not blamed on
// the branch; REV itself without a HEAD or a common ancestor. "" with `error` set when REV names
// no commit.
std::string comparisonBase(const std::string &rev, std::string &error);

// `git rev-parse --show-toplevel`, or "" with `error` set outside a repository, or where the
// repository is not the work tree's own `.git` (nor named by GIT_DIR).
std::string gitTopLevel(std::string &error);

} // namespace retrylint::io
