#include "lint/fix/apply_fixes.h"
#include "lint/io/posix.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Support/Errno.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>

namespace retrylint {

bool applyEdits(std::string &text, std::vector<TextEdit> edits) {
  // From the end of the text backwards, so earlier offsets stay valid. Insertions at one offset
  // are applied in the given order, each landing before the text inserted before it.
  std::vector<size_t> order(edits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // A replacement starting where an insertion goes is applied first: the insertion lands before it.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (edits[a].offset != edits[b].offset) return edits[a].offset > edits[b].offset;
    if ((edits[a].length == 0) != (edits[b].length == 0)) return edits[a].length > 0;
    return a < b;
  });
  size_t limit = text.size();
  for (size_t i : order) {
    const TextEdit &e = edits[i];
    if (e.offset > limit || e.length > limit - e.offset) return false; // overlaps a later edit, or past the end
    limit = e.offset;
  }
  for (size_t i : order) text.replace(edits[i].offset, edits[i].length, edits[i].replacement);
  return true;
}

std::string textDigest(std::string_view text) {
  auto bytes = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return llvm::toHex(bytes, /*LowerCase=*/true);
}

void stampFixes(std::vector<Finding> &findings, std::string_view text) {
  std::string digest;
  for (Finding &f : findings)
    for (Fix &fix : f.fixes) {
      if (digest.empty()) digest = textDigest(text);
      fix.source_sha256 = digest;
    }
}

bool sameEdits(const Fix &a, const Fix &b) {
  if (a.edits.size() != b.edits.size()) return false;
  for (size_t i = 0; i < a.edits.size(); ++i)
    if (a.edits[i].offset != b.edits[i].offset || a.edits[i].length != b.edits[i].length ||
        a.edits[i].replacement != b.edits[i].replacement)
      return false;
  return true;
}

std::vector<TextEdit> combineFixes(const std::string &text, size_t bom, const std::vector<const Fix *> &fixes, size_t *taken) {
  std::vector<TextEdit> accepted;
  std::vector<const Fix *> kept;
  for (const Fix *fix : fixes) {
    if (std::any_of(kept.begin(), kept.end(), [&](const Fix *t) { return sameEdits(*t, *fix); })) continue;
    std::vector<TextEdit> candidate = accepted;
    for (TextEdit e : fix->edits) {
      e.offset += bom;
      candidate.push_back(e);
    }
    std::string probe = text;
    if (!applyEdits(probe, candidate)) continue; // overlaps an accepted fix
    accepted = std::move(candidate);
    kept.push_back(fix);
  }
  if (taken) *taken = kept.size();
  return accepted;
}

namespace {

std::string errnoText(int e) { return llvm::sys::StrError(e); }

// Closes a descriptor on every path out.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

bool sameVersion(const struct stat &a, const struct stat &b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

// Fixes one file. Returns "" on success (or nothing to do), else why the file was not written.
std::string fixFile(const std::string &path, const std::vector<const Fix *> &fixes, size_t &applied) {
  llvm::SmallString<256> dir = llvm::sys::path::parent_path(path);
  if (dir.empty()) dir = ".";
  const std::string base = llvm::sys::path::filename(path).str();
  // Everything below is relative to the directory opened here, so no path component can be
  // swapped for a link between the checks and the write.
  Fd dirFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dirFd.fd < 0) return "cannot open its directory: " + errnoText(errno);
  struct stat link;
  if (::fstatat(dirFd.fd, base.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0) return "cannot read: " + errnoText(errno);
  if (S_ISLNK(link.st_mode))
    return "is a symbolic link; --fix does not write through links (name the file it points to)";
  if (!S_ISREG(link.st_mode)) return "not a regular file";
  if (link.st_nlink > 1)
    return "has " + std::to_string(link.st_nlink) + " hard links; --fix would split them, so it is left alone";
  Fd in(::openat(dirFd.fd, base.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (in.fd < 0) return "cannot read: " + errnoText(errno);
  struct stat before;
  if (::fstat(in.fd, &before) != 0) return "cannot read: " + errnoText(errno);
  if (before.st_dev != link.st_dev || before.st_ino != link.st_ino || !S_ISREG(before.st_mode) || before.st_nlink > 1)
    return "changed while being fixed; run again";
  std::string text;
  if (!io::readFd(in.fd, static_cast<size_t>(before.st_size), text)) return "cannot read: " + errnoText(errno);

  const size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  const std::string digest = textDigest(std::string_view(text).substr(bom));
  for (const Fix *fix : fixes)
    if (fix->source_sha256 != digest) return "changed since it was analysed; not fixed (run again)";

  size_t taken = 0;
  std::vector<TextEdit> accepted = combineFixes(text, bom, fixes, &taken);
  if (accepted.empty()) return "";
  applyEdits(text, accepted);

  std::string tmp;
  Fd out;
  for (int tries = 0; tries < 100 && out.fd < 0; ++tries) {
    tmp = io::temporaryNameBeside(base, ".retrylint-" + io::randomHex(8));
    out.fd = ::openat(dirFd.fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out.fd < 0 && errno != EEXIST) return "cannot create a temporary file beside it: " + errnoText(errno);
  }
  if (out.fd < 0) return "cannot create a temporary file beside it";
  auto fail = [&](const std::string &what) {
    int e = errno;
    ::unlinkat(dirFd.fd, tmp.c_str(), 0);
    return what + (e ? ": " + errnoText(e) : std::string());
  };
  errno = 0;
  if (!io::writeFd(out.fd, text)) return fail("cannot write the fixed file");
  // The same owner and mode as the file it replaces; a file we cannot give its owner back is
  // not replaced.
  if (::fchown(out.fd, before.st_uid, before.st_gid) != 0 && (before.st_uid != ::geteuid() || before.st_gid != ::getegid()))
    return fail("cannot keep its owner");
  if (::fchmod(out.fd, before.st_mode & 07777) != 0) return fail("cannot keep its mode");
  if (::fsync(out.fd) != 0) return fail("cannot write the fixed file");
  if (::close(out.release()) != 0) return fail("cannot write the fixed file");
  // The file must still be the one read, unchanged, before it is replaced.
  struct stat now, nowByName;
  errno = 0;
  if (::fstat(in.fd, &now) != 0 || !sameVersion(before, now) ||
      ::fstatat(dirFd.fd, base.c_str(), &nowByName, AT_SYMLINK_NOFOLLOW) != 0 || !sameVersion(before, nowByName))
    return fail("changed while being fixed; not fixed (run again)");
  if (::renameat(dirFd.fd, tmp.c_str(), dirFd.fd, base.c_str()) != 0) return fail("cannot replace it");
  applied += taken;
  return "";
}

} // namespace

FixSummary applyFixes(const std::vector<Finding> &findings) {
  FixSummary summary;
  std::map<std::string, std::vector<const Fix *>> byPath;
  for (const Finding &f : findings)
    if (!f.fixes.empty()) byPath[f.where.path].push_back(&f.fixes.front());
  // One file named twice (`t.yaml t.yaml`, `. /abs/dir`) is fixed once: by its identity, taken
  // before anything is written (a fixed file is a new inode).
  std::set<std::pair<dev_t, ino_t>> seen;
  std::vector<std::pair<const std::string *, std::vector<const Fix *> *>> once;
  for (auto &[path, fixes] : byPath) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && !seen.insert({st.st_dev, st.st_ino}).second) continue;
    once.emplace_back(&path, &fixes);
  }
  for (auto [pathPtr, fixesPtr] : once) {
    const std::string &path = *pathPtr;
    const std::vector<const Fix *> &fixes = *fixesPtr;
    size_t applied = 0;
    std::string why = fixFile(path, fixes, applied);
    if (!why.empty()) {
      summary.errors.push_back(Diagnostic{path, 0, 0, "--fix: " + why});
      continue;
    }
    if (applied == 0) continue;
    summary.fixes_applied += applied;
    ++summary.files_changed;
  }
  return summary;
}

} // namespace retrylint
