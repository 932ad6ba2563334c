#include "lint/discover/read.h"

#include <algorithm>
#include <cerrno>

#include <llvm/Support/Errno.h>
#include <llvm/Support/FileSystem.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace retrylint {

bool readCandidate(const Candidate &c, uint64_t maxBytes, const std::function<bool(std::string_view head)> &looksLikeRetryConfig,
                   std::string &text, std::vector<Diagnostic> &errors, std::vector<Diagnostic> *warnings) {
  auto fail = [&](std::string msg) {
    errors.push_back(Diagnostic{c.path, 0, 0, std::move(msg)});
    return false;
  };
  // Never open what is not a regular file: a FIFO would block the run, a device never end. A
  // file found while walking is already known regular from its directory entry; a named one is
  // checked before it is opened.
  if (c.named) {
    llvm::sys::fs::file_status st;
    if (std::error_code ec = llvm::sys::fs::status(c.path, st)) return fail("cannot read: " + ec.message());
    if (st.type() != llvm::sys::fs::file_type::regular_file) return fail("not a regular file (a FIFO, socket or device); not read");
  }
  // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer;
  // O_NOFOLLOW for walked files: links met while walking are never followed. Plain POSIX calls:
  // this runs once per file, and LLVM's close blocks and unblocks signals around each close.
  const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (c.named ? 0 : O_NOFOLLOW);
  int fd = ::open(c.path.c_str(), flags);
  if (fd < 0) {
    if (!c.named && errno == ELOOP) return false; // swapped for a link since the walk
    return fail("cannot read: " + llvm::sys::StrError(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  // The file read is the file checked (it may have been swapped for a FIFO since the status).
  struct stat opened;
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) return c.named ? fail("not a regular file; not read") : false;
  const auto size = static_cast<uint64_t>(opened.st_size);
  if (size > maxBytes) {
    std::string msg = std::to_string(size) + " bytes, more than the limit of " +
                      std::to_string(maxBytes) + " (--max-file-size); not analysed";
    if (c.named) return fail(msg);
    // Found while walking: an error when its start looks like a retry config; otherwise (a data
    // dump, a lock file) a warning, so that no file is skipped without a word, but no failed run.
    std::string head(std::min<uint64_t>(size, 64 * 1024), '\0');
    ssize_t got = ::pread(fd, head.data(), head.size(), 0);
    head.resize(got > 0 ? static_cast<size_t>(got) : 0);
    if (looksLikeRetryConfig(head)) return fail(msg);
    if (warnings)
      warnings->push_back(Diagnostic{c.path, 0, 0, std::to_string(size) + " bytes, more than the limit of " +
                                                       std::to_string(maxBytes) +
                                                       " (--max-file-size); skipped: its first 64 KiB hold no retry settings"});
    return false;
  }
  // The size fstat gave (a file that grows meanwhile is read as it was; one that shrinks, to its end).
  text.resize(static_cast<size_t>(size));
  size_t have = 0;
  while (have < text.size()) {
    ssize_t got = ::read(fd, text.data() + have, text.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail("cannot read: " + llvm::sys::StrError(errno));
    if (got == 0) break;
    have += static_cast<size_t>(got);
  }
  text.resize(have);
  return true;
}

} // namespace retrylint
