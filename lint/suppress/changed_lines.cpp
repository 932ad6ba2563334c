#include "lint/suppress/changed_lines.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <sstream>

namespace retrylint {

std::string absolutePath(const std::string &path) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  return abs.str().str();
}

ChangedLines parseUnifiedDiff(const std::string &diff, const std::string &baseDir) {
  ChangedLines out;
  std::istringstream in(diff);
  std::string line, current;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("+++ ", 0) == 0) {
      std::string p = line.substr(4);
      size_t tab = p.find('\t');
      if (tab != std::string::npos) p.resize(tab);
      if (p == "/dev/null") {
        current.clear();
        continue;
      }
      if (p.size() > 1 && p[0] == '"' && p.back() == '"') p = p.substr(1, p.size() - 2);
      if (p.rfind("b/", 0) == 0) p = p.substr(2);
      llvm::SmallString<256> full(baseDir);
      llvm::sys::path::append(full, p);
      current = absolutePath(full.str().str());
      out[current]; // a changed file, even if only lines were removed
      continue;
    }
    if (line.rfind("@@ ", 0) == 0 && !current.empty()) {
      size_t plus = line.find(" +");
      if (plus == std::string::npos) continue;
      int start = 0, count = 1;
      if (std::sscanf(line.c_str() + plus + 2, "%d,%d", &start, &count) < 1) continue;
      if (count > 0) out[current].push_back({start, start + count - 1});
    }
  }
  return out;
}

std::optional<ChangedLines> gitChangedLines(const std::string &rev, std::string &error) {
  auto git = llvm::sys::findProgramByName("git");
  if (!git) {
    error = "--diff needs git on PATH";
    return std::nullopt;
  }
  llvm::SmallString<128> outFile, errFile;
  llvm::sys::fs::createTemporaryFile("retrylint-diff", "txt", outFile);
  llvm::sys::fs::createTemporaryFile("retrylint-diff", "err", errFile);
  auto run = [&](std::vector<llvm::StringRef> args) {
    llvm::Optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), outFile.str(), errFile.str()};
    return llvm::sys::ExecuteAndWait(*git, args, llvm::None, redirects);
  };
  auto slurp = [](llvm::StringRef f) {
    auto b = llvm::MemoryBuffer::getFile(f);
    return b ? (*b)->getBuffer().str() : std::string();
  };
  std::optional<ChangedLines> result;
  if (run({"git", "rev-parse", "--show-toplevel"}) != 0) {
    error = "--diff: not inside a git repository: " + slurp(errFile);
  } else {
    std::string top = slurp(outFile);
    while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
    if (run({"git", "-c", "core.fsmonitor=false", "-c", "core.quotepath=off", "diff", "--no-ext-diff", "--no-textconv",
             "--no-color", "--unified=0", rev, "--"}) != 0)
      error = "--diff " + rev + ": git diff failed: " + slurp(errFile);
    else
      result = parseUnifiedDiff(slurp(outFile), top);
  }
  llvm::sys::fs::remove(outFile);
  llvm::sys::fs::remove(errFile);
  return result;
}

bool onChangedLine(const ChangedLines &changed, const std::string &path, int line) {
  auto it = changed.find(absolutePath(path));
  if (it == changed.end()) return false;
  for (auto [a, b] : it->second)
    if (line >= a && line <= b) return true;
  return false;
}

} // namespace retrylint
