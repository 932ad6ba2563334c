// Writing the files retrylint produces (reports, baselines, fixed sources) so that a full disk,
// a quota or a stranger's symbolic link never leaves a half-written or misplaced file behind.
#pragma once
#include <string>
#include <system_error>

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/raw_ostream.h>

namespace retrylint {

// Writes `path` as `write` produces it, all or nothing: into a new file created exclusively
// (O_EXCL, random name) in the same directory, flushed to disk, closed, then renamed over `path`.
// A symbolic link at `path` is replaced by the new file, never written through; an existing
// regular file keeps its permission bits. On any failure returns false with `error` set to what
// failed and the system's reason (the caller names the file); the temporary file is removed and
// `path` is left as it was.
bool writeFileAtomically(const std::string &path, llvm::function_ref<void(llvm::raw_ostream &)> write,
                         std::string &error);
bool writeFileAtomically(const std::string &path, llvm::StringRef contents, std::string &error);

// Where `-o FILE` and `--write-baseline FILE` write: `-`, /dev/stdout, /dev/stderr and the
// caller's own descriptors (/dev/fd/N, /proc/self/fd/N: process substitution) are written in place;
// so is an existing FIFO or character device that is not a link (/dev/null, /dev/tty). A block
// device or a directory is refused. Everything else goes through writeFileAtomically. Every
// write error is returned as above, never left to abort the process.
bool writeOutputFile(const std::string &path, llvm::function_ref<void(llvm::raw_ostream &)> write, std::string &error);

// Flushes standard output and returns the first error writing it had (a full disk, a closed
// pipe), clearing it so that the stream does not abort the process at exit.
std::error_code finishStdout();

} // namespace retrylint
