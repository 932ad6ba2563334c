#include "lint/discover/discover.h"
#include "lint/extract/extractors.h"
#include "lint/parallel.h"
#include "lint/yaml/templates.h"

#include <set>
#include <algorithm>
#include <cerrno>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Errno.h>
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

bool hasKnownNonYamlExtension(std::string_view path) { return isFileKindOfADialect(path, /*byExtension=*/true); }

bool hasConfigExtension(std::string_view path) {
  return extensionIn(path, {".yaml", ".yml", ".json"}) || yaml::isJsonTemplatePath(path) || yaml::isYamlTemplatePath(path) ||
         yaml::isBareTemplatePath(path) || isFileKindOfADialect(path);
}

bool isSkippedDirectory(std::string_view dirPath) {
  llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(dirPath.data(), dirPath.size()));
  if (name == ".git" || name == ".hg" || name == ".svn" || name == "node_modules" || name == "__pycache__" ||
      name == ".cache" || name.startswith("cmake-build-") || name.startswith("bazel-"))
    return true;
  return false;
}

bool walkable(const std::string &rel) {
  if (!hasConfigExtension(rel)) return false;
  llvm::SmallVector<llvm::StringRef, 16> parts;
  llvm::StringRef(rel).split(parts, '/');
  std::string dir;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    dir += (i ? "/" : "") + parts[i].str();
    if (isSkippedDirectory(dir)) return false;
  }
  return true;
}

namespace {

using llvm::sys::fs::file_type;

// What walking one directory tree found.
struct Walk {
  std::vector<Candidate> found;
  // A CMake build tree (whatever its name) holds generated copies, not sources: its files are
  // dropped once its CMakeCache.txt is met (no probe per directory: one walk, no extra calls).
  std::vector<std::string> buildTrees;
  std::vector<Diagnostic> errors; // each directory that could not be read
  std::vector<char> buffer;      // getdents64 output, reused for every directory of the walk
};

// A path met under the walked path `given`, as reports show it: `./` dropped unless given so.
std::string shown(const std::string &path, const std::string &given) {
  if (llvm::StringRef(path).startswith("./") && !llvm::StringRef(given).startswith("./")) return path.substr(2);
  return path;
}

// One entry met under the walked path `given`. Returns whether to descend into it. `top`: the
// entry is in `given` itself, which is walked even when it is a build tree (it was asked for).
bool visit(const std::string &p, file_type type, const std::string &given,
           const std::function<bool(const std::string &)> &excluded, Walk &w, bool top = false) {
  if (type == file_type::directory_file) return !isSkippedDirectory(p) && !(excluded && excluded(p));
  if (type != file_type::regular_file) return false; // links are never followed
  if (llvm::sys::path::filename(p) == "CMakeCache.txt") {
    if (!top)
      w.buildTrees.push_back(shown(llvm::sys::path::parent_path(p).str(), given) + "/");
  } else if (hasConfigExtension(p) && !(excluded && excluded(p))) {
    w.found.push_back(Candidate{shown(p, given), false});
  }
  return false;
}

// A directory's entries (without . and ..): names in one buffer, with their types.
struct Listing {
  std::string names; // each name ends with '\0'
  std::vector<std::pair<uint32_t, file_type>> entries; // offset into `names`, type
};

file_type typeOf(unsigned char dtype) {
  switch (dtype) {
  case DT_DIR: return file_type::directory_file;
  case DT_REG: return file_type::regular_file;
  case DT_LNK: return file_type::symlink_file;
  case DT_UNKNOWN: return file_type::type_unknown;
  default: return file_type::fifo_file; // FIFO, socket, device: never read
  }
}

// Reads the open directory `fd` with getdents64 (opendir and readdir would add an fstat and a
// copy per directory). A type the file system does not give is asked of the entry itself,
// without following a link.
std::error_code list(int fd, Walk &w, Listing &out) {
  if (w.buffer.empty()) w.buffer.resize(64 * 1024);
  for (;;) {
    ssize_t n = ::getdents64(fd, w.buffer.data(), w.buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::error_code(errno, std::generic_category());
    if (n == 0) return {};
    for (ssize_t at = 0; at < n;) {
      const auto *d = reinterpret_cast<const struct dirent64 *>(w.buffer.data() + at);
      at += d->d_reclen;
      const char *name = d->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      file_type type = typeOf(d->d_type);
      if (type == file_type::type_unknown) {
        struct stat st;
        if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue; // gone since
        type = S_ISDIR(st.st_mode) ? file_type::directory_file
               : S_ISREG(st.st_mode) ? file_type::regular_file
               : S_ISLNK(st.st_mode) ? file_type::symlink_file
                                     : file_type::fifo_file;
      }
      out.entries.emplace_back(static_cast<uint32_t>(out.names.size()), type);
      out.names.append(name).push_back('\0');
    }
  }
}

std::string joined(const std::string &dir, const char *name) {
  std::string p = dir;
  if (p.empty() || p.back() != '/') p += '/';
  return p += name;
}

// Directories deeper than this are opened by their whole path, so that a walk holds at most this
// many directories open however deep the tree.
constexpr int kMaxOpenDirs = 64;

// `follow`: for a directory named on the command line, which may be a link to one (as git and
// ruff do); links met while walking are never followed.
int openDir(int parentFd, const char *name, const std::string &path, bool follow = false) {
  const int flags = O_RDONLY | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC | O_NONBLOCK;
  for (;;) {
    int fd = parentFd >= 0 ? ::openat(parentFd, name, flags) : ::open(path.c_str(), flags);
    if (fd >= 0 || errno != EINTR) return fd;
  }
}

// A directory that could not be read, under its own path; the walk goes on. The message comes
// from strerror, not std::error_code: the usual cause is running out of file descriptors, and
// std::error_category's virtual call is then what UBSan cannot check (it needs a descriptor).
void walkError(Walk &w, const std::string &dir, const std::string &given, int err) {
  w.errors.push_back(Diagnostic{shown(dir, given), 0, 0, "cannot walk the directory: " + llvm::sys::StrError(err)});
}

// Opens a subdirectory met in a listing; -1 when it cannot be walked (an error, unless it was
// swapped for a link or removed since the listing).

// removed since the listing: not followed, not an error; any other failure is an error of its own.
int openSubdir(int parentFd, const char *name, const std::string &path, const std::string &given, Walk &w) {
  int fd = openDir(parentFd, name, path);
  if (fd < 0 && errno != ELOOP && errno != ENOENT && errno != ENOTDIR)
    walkError(w, path, given, errno);
  return fd;
}

// Walks the directory open as `fd` (closed here), found at `dir`. Subdirectories are opened
// relative to it: one path component to look up, not the whole path.
void walkTree(int fd, const std::string &dir, const std::string &given,
              const std::function<bool(const std::string &)> &excluded, Walk &w, int depth) {
  Listing here;
  if (std::error_code ec = list(fd, w, here)) walkError(w, dir, given, ec.value());
  const bool keepOpen = depth < kMaxOpenDirs;
  if (!keepOpen) {
    ::close(fd);
    fd = -1;
  }
  for (const auto &[offset, type] : here.entries) {
    const char *name = here.names.data() + offset;
    std::string p = joined(dir, name);
    if (!visit(p, type, given, excluded, w)) continue;
    if (int sub = openSubdir(fd, name, p, given, w); sub >= 0) walkTree(sub, p, given, excluded, w, depth + 1);
  }
  if (fd >= 0) ::close(fd);
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
    std::vector<std::pair<std::string, std::string>> subdirs; // name, path
    const int top = openDir(-1, nullptr, given, /*follow=*/true);
    if (top < 0) {
      errors.push_back(Diagnostic{given, 0, 0, "cannot walk the directory: " + llvm::sys::StrError(errno)});
      continue;
    }
    Listing listing;
    if (std::error_code ec = list(top, walks[0], listing)) walkError(walks[0], given, given, ec.value());
    for (const auto &[offset, type] : listing.entries) {
      const char *name = listing.names.data() + offset;
      std::string p = joined(given, name);
      if (visit(p, type, given, excluded, walks[0], /*top=*/true)) subdirs.emplace_back(name, std::move(p));
    }
    walks.resize(subdirs.size() + 1);
    forEachIndex(subdirs.size(), jobs, [&](size_t i) {
      Walk &w = walks[i + 1];
      if (int fd = openSubdir(top, subdirs[i].first.c_str(), subdirs[i].second, given, w); fd >= 0)
        walkTree(fd, subdirs[i].second, given, excluded, w, 1);
    });
    ::close(top);
    std::vector<Candidate> found;
    std::vector<std::string> buildTrees;
    for (Walk &w : walks) {
      std::move(w.found.begin(), w.found.end(), std::back_inserter(found));
      std::move(w.buildTrees.begin(), w.buildTrees.end(), std::back_inserter(buildTrees));
      // Each directory that could not be read is reported; the rest of the tree is still walked.
      std::move(w.errors.begin(), w.errors.end(), std::back_inserter(errors));
    }
    if (!buildTrees.empty())
      llvm::erase_if(found, [&](const Candidate &c) {
        for (const std::string &tree : buildTrees)
          if (llvm::StringRef(c.path).startswith(tree)) return true;
        return false;
      });
    std::sort(found.begin(), found.end(), [](const Candidate &a, const Candidate &b) { return a.path < b.path; });
    out.insert(out.end(), found.begin(), found.end());
  }
  // A file reached twice (`t.yaml ./t.yaml`, `. /abs/dir`) is one input, analysed and counted
  // once under the first way it was reached: by its absolute path without `.` components (`..`
  // is kept: through a symbolic link, `link/../x` need not be `x`).
  std::set<std::string> seen;
  llvm::erase_if(out, [&](const Candidate &c) {
    llvm::SmallString<256> abs(c.path);
    llvm::sys::fs::make_absolute(abs);
    llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/false);
    return !seen.insert(abs.str().str()).second;
  });
  return out;
}

} // namespace retrylint
