#include "lint/discover/identity.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "lint/config/config.h"

namespace retrylint {

std::string projectRoot(const std::string &configRoot) {
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) return configRoot;
  llvm::sys::path::remove_dots(cwd, /*remove_dot_dot=*/true);
  for (llvm::StringRef dir = cwd; !dir.empty(); dir = llvm::sys::path::parent_path(dir)) {
    llvm::SmallString<256> git(dir);
    llvm::sys::path::append(git, ".git");
    if (llvm::sys::fs::exists(git)) return dir.str();
    if (dir == llvm::sys::path::root_path(dir)) break;
  }
  return configRoot.empty() ? cwd.str().str() : configRoot;
}

std::string identityPath(const std::string &root, const std::string &path) {
  if (path.empty()) return path;
  std::string rel = root.empty() ? "" : relativeTo(root, path);
  if (!rel.empty()) return rel;
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  return abs.str().str();
}

} // namespace retrylint
