// Small POSIX pieces the careful readers and writers share (--fix, the cache, the worker): whole
// reads and writes on a descriptor that retry on EINTR, and random bytes from the kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/ADT/StringRef.h>

namespace retrylint::io {

// Reads up to `size` bytes (fewer when the file ends first) into `out`; false on a read error.
bool readFd(int fd, size_t size, std::string &out);

// The text of a regular file `name` (a name, or "../name") relative to the directory of `path`:
// never through a symbolic link as the last component, never a FIFO or device (O_NONBLOCK, then
// fstat), at most `maxBytes`. Empty, and *found false, when any of that fails. For the few files
// an extractor consults besides the one it reads (a BUILD.bazel, a SAM template).
std::string readSibling(const std::string &path, const std::string &name, size_t maxBytes, bool *found);
// The names of the regular files (no links) beside `path` whose names end with `ending`, `path`'s
// own excluded, sorted; at most `maxFiles` (the first ones by name). For a Terraform module, whose
// directory is one unit.
std::vector<std::string> siblingNames(const std::string &path, const std::string &ending, size_t maxFiles);
// Writes all of `data`; false (errno set) on an error.
bool writeFd(int fd, std::string_view data);
// Fills `out` from getrandom(); false when the kernel gives none.
bool randomBytes(uint8_t *out, size_t n);
// A hidden temporary name beside `name`: "." + name + `tail`, with `name` cut so the whole fits in
// one file-name component (NAME_MAX, 255 bytes): a 250-byte name still gets a temporary.
std::string temporaryNameBeside(llvm::StringRef name, llvm::StringRef tail);

// `bytes` random bytes in hex, for unguessable temporary names (O_EXCL keeps them safe anyway).
std::string randomHex(size_t bytes);

} // namespace retrylint::io
