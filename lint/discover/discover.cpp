#include "lint/discover/discover.h"

#include <algorithm>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace retrylint {

namespace {
bool extensionIn(std::string_view path, std::initializer_list<llvm::StringRef> exts) {
  llvm::StringRef ext = llvm::sys::path::extension(llvm::StringRef(path.data(), path.size()));
  for (llvm::StringRef e : exts)
    if (ext.equals_insensitive(e)) return true;
  return false;
}
} // namespace

bool hasKnownNonYamlExtension(std::string_view path) {
  return extensionIn(path, {".ini", ".properties", ".cfg", ".conf", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hh",
                            ".hpp", ".hxx", ".ipp", ".inl"});
}

bool hasConfigExtension(std::string_view path) {
  llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(path.data(), path.size()));
  if (name == "config" || name == "credentials") return true; // ~/.aws/config, by AWS's naming
  return extensionIn(path, {".yaml", ".yml", ".json"}) || hasKnownNonYamlExtension(path);
}

bool isSkippedDirectory(std::string_view dirPath) {
  llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(dirPath.data(), dirPath.size()));
  if (name == ".git" || name == ".hg" || name == ".svn" || name == "node_modules" || name == "__pycache__" ||
      name == ".cache" || name.startswith("cmake-build-") || name.startswith("bazel-"))
    return true;
  return false;
}

std::vector<Candidate> discover(const std::vector<std::string> &paths, std::vector<Diagnostic> &errors,
                                const std::function<bool(const std::string &)> &excluded) {
  std::vector<Candidate> out;
  for (const std::string &given : paths) {
    llvm::sys::fs::file_status st;
    if (std::error_code ec = llvm::sys::fs::status(given, st)) {
      errors.push_back(Diagnostic{given, 0, 0, "cannot read: " + ec.message()});
      continue;
    }
    if (excluded && excluded(given)) continue;
    if (!llvm::sys::fs::is_directory(st)) {
      out.push_back(Candidate{given, true});
      continue;
    }
    std::vector<Candidate> found;
    // A CMake build tree (whatever its name) holds generated copies, not sources: its files are
    // dropped once its CMakeCache.txt is met (no probe per directory: one walk, no extra calls).
    std::vector<std::string> buildTrees;
    auto shownPath = [&](const std::string &p) {
      if (llvm::StringRef(p).startswith("./") && !llvm::StringRef(given).startswith("./")) return p.substr(2);
      return p;
    };
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(given, ec, /*follow_symlinks=*/false), end; it != end && !ec;
         it.increment(ec)) {
      const std::string &p = it->path();
      llvm::sys::fs::file_type type = it->type();
      if (type == llvm::sys::fs::file_type::directory_file) {
        if (isSkippedDirectory(p) || (excluded && excluded(p))) it.no_push();
        continue;
      }
      if (type != llvm::sys::fs::file_type::regular_file) continue;
      if (llvm::sys::path::filename(p) == "CMakeCache.txt")
        buildTrees.push_back(shownPath(llvm::sys::path::parent_path(p).str()) + "/");
      else if (hasConfigExtension(p) && !(excluded && excluded(p)))
        found.push_back(Candidate{shownPath(p), false});
    }
    if (!buildTrees.empty())
      llvm::erase_if(found, [&](const Candidate &c) {
        for (const std::string &tree : buildTrees)
          if (llvm::StringRef(c.path).startswith(tree)) return true;
        return false;
      });
    if (ec) errors.push_back(Diagnostic{given, 0, 0, "cannot walk the directory: " + ec.message()});
    std::sort(found.begin(), found.end(), [](const Candidate &a, const Candidate &b) { return a.path < b.path; });
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

} // namespace retrylint
