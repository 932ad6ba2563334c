#include "lint/io/posix.h"

#include <algorithm>
#include <cerrno>
#include <vector>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>

namespace retrylint::io {

bool readFd(int fd, size_t size, std::string &out) {
  out.resize(size);
  size_t have = 0;
  while (have < size) {
    ssize_t n = ::read(fd, out.data() + have, size - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  out.resize(have);
  return true;
}

bool writeFd(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool randomBytes(uint8_t *out, size_t n) {
  while (n > 0) {
    ssize_t got = ::getrandom(out, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

std::string randomHex(size_t bytes) {
  std::vector<uint8_t> b(bytes);
  if (!randomBytes(b.data(), b.size())) return std::to_string(llvm::sys::Process::GetRandomNumber());
  return llvm::toHex(b, /*LowerCase=*/true);
}

std::string readSibling(const std::string &path, const std::string &name, size_t maxBytes, bool *found) {
  *found = false;
  llvm::SmallString<256> sibling(llvm::sys::path::parent_path(path));
  if (sibling.empty()) sibling = ".";
  llvm::sys::path::append(sibling, name);
  int fd = ::open(sibling.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return {};
  std::string text;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 && static_cast<uint64_t>(st.st_size) <= maxBytes &&
      readFd(fd, static_cast<size_t>(st.st_size), text))
    *found = true;
  else
    text.clear();
  ::close(fd);
  return text;
}

std::vector<std::string> siblingNames(const std::string &path, const std::string &ending, size_t maxFiles) {
  std::vector<std::string> names;
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(path));
  if (dir.empty()) dir = ".";
  const llvm::StringRef own = llvm::sys::path::filename(path);
  std::error_code ec;
  // Not recursive, links not followed; a directory this cannot read gives no names.
  for (llvm::sys::fs::directory_iterator it(dir, ec, /*follow_symlinks=*/false), end; !ec && it != end; it.increment(ec)) {
    const llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name == own || !name.endswith(ending) || it->type() != llvm::sys::fs::file_type::regular_file) continue;
    names.push_back(name.str());
    if (names.size() > 4 * maxFiles) break; // a directory of thousands: enough to choose from
  }
  std::sort(names.begin(), names.end());
  if (names.size() > maxFiles) names.resize(maxFiles);
  return names;
}

std::string temporaryNameBeside(llvm::StringRef name, llvm::StringRef tail) {
  constexpr size_t kNameMax = 255; // NAME_MAX on Linux
  const size_t room = kNameMax > tail.size() + 1 ? kNameMax - tail.size() - 1 : 0;
  return "." + name.take_front(room).str() + tail.str();
}

} // namespace retrylint::io
