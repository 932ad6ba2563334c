// The base revision's files, read from git's objects (never checked out: no filter, hook or
// attribute of the repository runs) and written under a fresh temporary directory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "lint/io/git.h"
#include "lint/io/posix.h"
#include "lint/review/review.h"

namespace retrylint {

bool unsafeTreePath(const std::string &path) {
  if (path.empty() || path[0] == '/') return true;
  llvm::SmallVector<llvm::StringRef, 16> parts;
  llvm::StringRef(path).split(parts, '/', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef p : parts)
    if (p.empty() || p == "." || p == ".." || p.equals_insensitive(".git")) return true;
  return false;
}

namespace {

// Creates `root/rel`'s directories one by one, refusing any that exists as something other than a
// directory made here (a name the tree holds twice as file and folder).
bool writeUnder(const std::string &root, const std::string &rel, llvm::StringRef data, std::string &why) {
  llvm::SmallString<256> dir(root);
  llvm::SmallVector<llvm::StringRef, 16> parts;
  llvm::StringRef(rel).split(parts, '/');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    llvm::sys::path::append(dir, parts[i]);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      why = "cannot create " + dir.str().str();
      return false;
    }
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      why = "a file and a folder of the same name";
      return false;
    }
  }
  llvm::SmallString<256> file(dir);
  llvm::sys::path::append(file, parts.back());
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot create " + file.str().str();
    return false;
  }
  bool ok = io::writeFd(fd, data);
  ok = ::close(fd) == 0 && ok;
  if (!ok) why = "cannot write " + file.str().str();
  return ok;
}

} // namespace

bool materialiseBase(const std::string &commit, const std::function<bool(const std::string &)> &want, uint64_t maxBytes,
                     BaseTree &tree, std::string &error) {
  // The commit's regular files, listed once per tree (without `-l`: sizing every blob of a large
  // tree costs more than the rest of the review).
  if (!tree.listed) {
    io::GitRun ls = io::runGit({"ls-tree", "-r", "-z", "--full-tree", commit});
    if (ls.status != 0) {
      error = "git ls-tree " + commit + " failed" + (ls.err.empty() ? std::string() : ": " + ls.err);
      return false;
    }
    llvm::SmallVector<llvm::StringRef, 0> records;
    llvm::StringRef(ls.out).split(records, '\0', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef rec : records) {
      // "<mode> SP <type> SP <oid> TAB <path>"
      auto [meta, path] = rec.split('\t');
      llvm::SmallVector<llvm::StringRef, 3> f;
      meta.split(f, ' ', -1, /*KeepEmpty=*/false);
      if (f.size() != 3 || path.empty()) continue;
      if (f[1] != "blob" || (f[0] != "100644" && f[0] != "100755")) continue; // links, submodules
      tree.listing.push_back({path.str(), f[2].str()});
    }
    tree.listed = true;
  }
  std::vector<BaseTree::Entry> entries;
  for (const BaseTree::Entry &e : tree.listing) {
    if (!want(e.path) || std::binary_search(tree.files.begin(), tree.files.end(), e.path)) continue;
    if (unsafeTreePath(e.path)) tree.skipped.push_back(e.path + ": a name that cannot be written safely");
    else entries.push_back(e);
  }
  if (!entries.empty()) {
    // Sizes first, so that a large blob is skipped before it is read.
    std::string input;
    for (const BaseTree::Entry &e : entries) input += e.oid + "\n";
    io::GitRun check = io::runGit({"cat-file", "--batch-check"}, input);
    llvm::SmallVector<llvm::StringRef, 0> lines;
    llvm::StringRef(check.out).split(lines, '\n', -1, /*KeepEmpty=*/false);
    if (check.status != 0 || lines.size() != entries.size()) {
      error = "git cat-file --batch-check failed" + (check.err.empty() ? std::string() : ": " + check.err);
      return false;
    }
    std::vector<BaseTree::Entry> small;
    for (size_t i = 0; i < entries.size(); ++i) {
      llvm::SmallVector<llvm::StringRef, 3> h;
      lines[i].split(h, ' ');
      uint64_t size = 0;
      if (h.size() != 3 || h[0] != entries[i].oid || h[2].getAsInteger(10, size)) {
        error = "git cat-file gave an unexpected answer for " + entries[i].path;
        return false;
      }
      if (size > maxBytes) tree.skipped.push_back(entries[i].path + ": larger than --max-file-size");
      else small.push_back(entries[i]);
    }
    entries = std::move(small);
  }
  if (tree.root.empty()) {
    llvm::SmallString<128> root;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("retrylint-review", root)) {
      error = "cannot create a temporary directory: " + ec.message();
      return false;
    }
    tree.root = root.str().str();
    // The walk for configs stops at a repository root: the temporary directory is one.
    llvm::SmallString<128> git(root);
    llvm::sys::path::append(git, ".git");
    ::mkdir(git.c_str(), 0700);
  }
  if (entries.empty()) return true;
  std::string input;
  for (const BaseTree::Entry &e : entries) input += e.oid + "\n";
  io::GitRun cat = io::runGit({"cat-file", "--batch"}, input);
  if (cat.status != 0) {
    error = "git cat-file failed" + (cat.err.empty() ? std::string() : ": " + cat.err);
    return false;
  }
  // "<oid> SP <type> SP <size> LF <contents> LF", in the order asked.
  llvm::StringRef rest(cat.out);
  for (const BaseTree::Entry &e : entries) {
    auto [header, after] = rest.split('\n');
    llvm::SmallVector<llvm::StringRef, 3> h;
    header.split(h, ' ');
    uint64_t size = 0;
    if (h.size() != 3 || h[0] != e.oid || h[2].getAsInteger(10, size) || size > after.size()) {
      error = "git cat-file gave an unexpected answer for " + e.path;
      return false;
    }
    std::string why;
    if (!writeUnder(tree.root, e.path, after.take_front(size), why)) tree.skipped.push_back(e.path + ": " + why);
    else tree.files.push_back(e.path);
    rest = after.drop_front(size);
    rest.consume_front("\n");
  }
  std::sort(tree.files.begin(), tree.files.end());
  return true;
}

void removeBaseTree(const BaseTree &tree) {
  if (!tree.root.empty()) llvm::sys::fs::remove_directories(tree.root, /*IgnoreErrors=*/true);
}

} // namespace retrylint
