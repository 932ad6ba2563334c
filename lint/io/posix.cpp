#include "lint/io/posix.h"

#include <cerrno>
#include <vector>

#include <sys/random.h>
#include <unistd.h>

#include <llvm/ADT/StringExtras.h>
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

} // namespace retrylint::io
