#include "lint/discover/discover.h"
#include "lint/parallel.h"

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

namespace {

// What walking one directory tree found.
struct Walk {
  std::vector<Candidate> found;
  // A CMake build tree (whatever its name) holds generated copies, not sources: its files are
  // dropped once its CMakeCache.txt is met (no probe per directory: one walk, no extra calls).
  std::vector<std::string> buildTrees;
  std::error_code ec;
};

// One entry met under the walked path `given`. Returns whether to descend into it.
bool visit(const std::string &p, llvm::sys::fs::file_type type, const std::string &given,
           const std::function<bool(const std::string &)> &excluded, Walk &w) {
  auto shown = [&](std::string path) {
    if (llvm::StringRef(path).startswith("./") && !llvm::StringRef(given).startswith("./")) return path.substr(2);
    return path;
  };
  if (type == llvm::sys::fs::file_type::directory_file) return !isSkippedDirectory(p) && !(excluded && excluded(p));
  if (type != llvm::sys::fs::file_type::regular_file) return false; // links are never followed
  if (llvm::sys::path::filename(p) == "CMakeCache.txt")
    w.buildTrees.push_back(shown(llvm::sys::path::parent_path(p).str()) + "/");
  else if (hasConfigExtension(p) && !(excluded && excluded(p)))
    w.found.push_back(Candidate{shown(p), false});
  return false;
}

void walkTree(const std::string &dir, const std::string &given, const std::function<bool(const std::string &)> &excluded,
              Walk &w) {
  for (llvm::sys::fs::recursive_directory_iterator it(dir, w.ec, /*follow_symlinks=*/false), end; it != end && !w.ec;
       it.increment(w.ec))
    if (!visit(it->path(), it->type(), given, excluded, w)) it.no_push(); // (no effect on a file)
}

} // namespace

std::vector<Candidate> discover(const std::vector<std::string> &paths, std::vector<Diagnostic> &errors,
                                const std::function<bool(const std::string &)> &excluded, unsigned jobs) {
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
    // The top level here; each subdirectory is walked as a task of its own, so with -j2 the
    // walk (mostly system calls) is shared between the cores like the analysis after it.
    std::vector<Walk> walks(1);
    std::vector<std::string> subdirs;
    for (llvm::sys::fs::directory_iterator it(given, walks[0].ec), end; it != end && !walks[0].ec; it.increment(walks[0].ec))
      if (visit(it->path(), it->type(), given, excluded, walks[0])) subdirs.push_back(it->path());
    walks.resize(subdirs.size() + 1);
    forEachIndex(subdirs.size(), jobs, [&](size_t i) { walkTree(subdirs[i], given, excluded, walks[i + 1]); });
    std::vector<Candidate> found;
    std::vector<std::string> buildTrees;
    std::error_code ec;
    for (Walk &w : walks) {
      std::move(w.found.begin(), w.found.end(), std::back_inserter(found));
      std::move(w.buildTrees.begin(), w.buildTrees.end(), std::back_inserter(buildTrees));
      if (w.ec && !ec) ec = w.ec;
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
