// Pieces of the C++ driver that tests check directly.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {

// The compile-database flags (without the compiler) that may reach Clang: only those on the
// allow-list in compile_flags.cpp, which change how a file parses and never write, print, load
// code or substitute files. Linting an untrusted tree must never run or write anything.
std::vector<std::string> allowedCompileFlags(const std::vector<std::string> &args);
// The Clang command line for a file: from compile_commands.json under options.compile_commands_dir
// when it has the file (sets `workdir`), else the defaults; `error` says why a database failed.
std::vector<std::string> clangArgs(const std::string &absPath, const ExtractOptions &options, std::string &workdir,
                                   std::string &error);
// The C++ pre-filter: whether the file has a loop analyseLoops could take for a retry loop.
bool mayHoldRetryLoop(const Tokens &t);
std::string blankDroppedQualifiers(const std::string &text, const Tokens &t, const std::set<size_t> &bodies);

} // namespace retrylint::cpp
