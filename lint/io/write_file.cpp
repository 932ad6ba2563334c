#include "lint/io/write_file.h"
#include "lint/io/posix.h"

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace retrylint {

namespace {

std::error_code lastError() { return std::error_code(errno, std::generic_category()); }

// Runs `write` into `os` and reports the first error of the writes, the flush, the optional
// fsync and the close. The stream's error is cleared: a stream destroyed with an error aborts.
bool finish(llvm::raw_fd_ostream &os, int fd, bool sync, bool close, llvm::function_ref<void(llvm::raw_ostream &)> write,
            std::string &error) {
  write(os);
  os.flush();
  std::error_code synced;
  if (!os.has_error() && sync && ::fsync(fd) != 0 && errno != EINVAL) synced = lastError();
  if (close) os.close();
  std::error_code ec = os.has_error() ? os.error() : synced;
  os.clear_error();
  if (ec) error = ec.message();
  return !ec;
}

// The descriptor that `-`, /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N name, or -1.
int callerDescriptor(llvm::StringRef path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  unsigned n = 0;
  if ((path.consume_front("/dev/fd/") || path.consume_front("/proc/self/fd/")) && !path.getAsInteger(10, n) &&
      n < 1u << 20)
    return static_cast<int>(n);
  return -1;
}

} // namespace

bool writeFileAtomically(const std::string &path, llvm::function_ref<void(llvm::raw_ostream &)> write,
                         std::string &error) {
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  llvm::StringRef name = llvm::sys::path::filename(path);
  if (name.empty() || name == "." || name == "..") {
    error = "not a file name";
    return false;
  }
  // Hidden, next to the target (a rename does not cross file systems), unguessable, never an
  // existing file or link: createUniqueFile opens with O_CREAT | O_EXCL.
  llvm::SmallString<256> model(dir.empty() ? "." : dir);
  llvm::sys::path::append(model, io::temporaryNameBeside(name, ".retrylint-%%%%%%%%%%%%.tmp"));
  int fd = -1;
  llvm::SmallString<256> tmp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tmp, llvm::sys::fs::OF_None, 0666)) {
    error = "cannot create a temporary file in " + (dir.empty() ? std::string(".") : dir.str()) + ": " + ec.message();
    return false;
  }
  // A file replaced keeps its permission bits (a link replaced is not followed to find them).
  struct stat old;
  if (::lstat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) (void)::fchmod(fd, old.st_mode & 0777);
  bool ok;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    ok = finish(os, fd, /*sync=*/true, /*close=*/true, write, error);
  }
  if (ok) {
    if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
      error = "cannot replace it: " + ec.message();
      ok = false;
    }
  }
  if (!ok) llvm::sys::fs::remove(tmp);
  return ok;
}

bool writeFileAtomically(const std::string &path, llvm::StringRef contents, std::string &error) {
  return writeFileAtomically(path, [&](llvm::raw_ostream &os) { os << contents; }, error);
}

bool writeOutputFile(const std::string &path, llvm::function_ref<void(llvm::raw_ostream &)> write, std::string &error) {
  if (int fd = callerDescriptor(path); fd >= 0) {
    if (fd == STDOUT_FILENO) {
      write(llvm::outs());
      std::error_code ec = finishStdout();
      if (ec) error = ec.message();
      return !ec;
    }
    if (fd == STDERR_FILENO) llvm::errs().flush();
    if (::fcntl(fd, F_GETFD) < 0) {
      error = lastError().message();
      return false;
    }
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
    return finish(os, fd, false, false, write, error);
  }
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      error = "is a directory";
      return false;
    }
    if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
      error = "not a regular file, FIFO or character device";
      return false;
    }
    // A FIFO or a device such as /dev/null: nothing to replace, written as a stream.
    int fd;
    do fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      error = lastError().message();
      return false;
    }
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    return finish(os, fd, false, true, write, error);
  }
  return writeFileAtomically(path, write, error);
}

std::error_code finishStdout() {
  llvm::outs().flush();
  std::error_code ec = llvm::outs().error();
  llvm::outs().clear_error();
  return ec;
}

} // namespace retrylint
