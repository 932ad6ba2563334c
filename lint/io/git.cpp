#include "lint/io/git.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>

namespace retrylint::io {
namespace {

std::string slurp(llvm::StringRef file) {
  auto b = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  return b ? (*b)->getBuffer().str() : std::string();
}

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

} // namespace

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
  std::vector<llvm::StringRef> argv = {"git", "-c", "core.fsmonitor=false", "-c", "core.quotepath=off"};
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
  return chomp(r.out);
}

} // namespace retrylint::io
