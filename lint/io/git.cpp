#include "lint/io/git.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <cstdlib>
#include <iterator>

namespace retrylint::io {
namespace {

std::string slurp(llvm::StringRef file) {
  auto b = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  return b ? (*b)->getBuffer().str() : std::string();
}

// Before every command: nothing the checkout configures may run or reshape the output. A bare
// repository is used only when named (GIT_DIR): one a pull request commits as plain files (`HEAD`,
// `config`, `objects/`) is never used, so its `config` (filters, aliases) is never read (runGit
// names the work tree's own `.git` to git; this is for where there is none).
// No fsmonitor hook, no hooks, no pager, no optional index writes; paths unquoted; diff prefixes
// and paths as git's defaults say, whatever the user's config (`diff.mnemonicPrefix`,
// `diff.noprefix`, `diff.relative`).
const char *const kGitSafety[] = {"-c", "safe.bareRepository=explicit", "-c", "core.fsmonitor=false",
                                  "-c", "core.hooksPath=/dev/null",      "-c", "core.quotepath=off",
                                  "-c", "diff.mnemonicPrefix=false",     "-c", "diff.noprefix=false",
                                  "-c", "diff.relative=false",           "--no-pager",
                                  "--no-optional-locks"};

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

} // namespace

std::string ownWorkTree(llvm::StringRef start) {
  llvm::SmallString<256> dir(start);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
  while (!dir.empty()) {
    llvm::SmallString<256> dotGit(dir);
    llvm::sys::path::append(dotGit, ".git");
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(dotGit, st, /*follow=*/false) &&
        (st.type() == llvm::sys::fs::file_type::directory_file || st.type() == llvm::sys::fs::file_type::regular_file))
      return dir.str().str();
    llvm::StringRef parent = llvm::sys::path::parent_path(dir);
    if (parent == dir) break;
    dir = parent;
  }
  return "";
}

GitRun runGit(const std::vector<std::string> &args, const std::string &input) {
  GitRun r;
  auto git = llvm::sys::findProgramByName("git");
  if (!git) {
    r.err = "git is not on PATH";
    return r;
  }
  llvm::SmallString<128> inFile, outFile, errFile;
  if (llvm::sys::fs::createTemporaryFile("retrylint-git", "in", inFile) ||
      llvm::sys::fs::createTemporaryFile("retrylint-git", "out", outFile) ||
      llvm::sys::fs::createTemporaryFile("retrylint-git", "err", errFile)) {
    r.err = "cannot create a temporary file for git's output";
    return r;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream in(inFile, ec);
    if (!ec) in << input;
  }
  std::vector<llvm::StringRef> argv(std::begin(kGitSafety), std::end(kGitSafety));
  argv.insert(argv.begin(), "git");
  // The repository is the one whose `.git` the directory git runs in (`-C DIR`, else here) sits
  // below, named to git explicitly, so that git discovers nothing on its own.
  std::string gitDir, workTree;
  if (!std::getenv("GIT_DIR")) {
    llvm::SmallString<256> start;
    if (args.size() >= 2 && args[0] == "-C") start = args[1];
    else llvm::sys::fs::current_path(start);
    if (std::string top = ownWorkTree(start.str()); !top.empty()) {
      gitDir = "--git-dir=" + top + "/.git";
      workTree = "--work-tree=" + top;
      argv.push_back(gitDir);
      argv.push_back(workTree);
    }
  }
  for (const std::string &a : args) argv.push_back(a);
  llvm::Optional<llvm::StringRef> redirects[] = {inFile.str(), outFile.str(), errFile.str()};
  r.status = llvm::sys::ExecuteAndWait(*git, argv, llvm::None, redirects);
  r.out = slurp(outFile);
  r.err = chomp(slurp(errFile));
  llvm::sys::fs::remove(inFile);
  llvm::sys::fs::remove(outFile);
  llvm::sys::fs::remove(errFile);
  return r;
}

bool plausibleRevision(const std::string &rev) { return !rev.empty() && rev[0] != '-'; }

std::string comparisonBase(const std::string &rev, std::string &error) {
  if (!plausibleRevision(rev)) {
    error = "'" + rev + "': a git revision cannot start with '-'";
    return "";
  }
  GitRun mb = runGit({"merge-base", rev, "HEAD"});
  std::string base = mb.status == 0 ? chomp(mb.out) : std::string();
  if (base.empty()) base = rev;
  // `--end-of-options` is git 2.24's; `--verify` with `^{commit}` already refuses an option.
  GitRun v = runGit({"rev-parse", "--verify", "--quiet", base + "^{commit}"});
  if (v.status != 0) {
    error = "'" + rev + "' names no commit" + (v.err.empty() ? std::string() : ": " + v.err);
    return "";
  }
  return chomp(v.out);
}

std::string gitTopLevel(std::string &error) {
  GitRun r = runGit({"rev-parse", "--show-toplevel"});
  if (r.status != 0) {
    error = r.status == -1 ? r.err : "not inside a git repository" + (r.err.empty() ? std::string() : ": " + r.err);
    return "";
  }
  std::string top = chomp(r.out);
  // runGit named the repository (ownWorkTree); without one git found none it may use.
  if (!std::getenv("GIT_DIR") && ownWorkTree(top).empty()) {
    error = "no work tree with a .git of its own holds " + top;
    return "";
  }
  return top;
}

} // namespace retrylint::io
