// Parsing one C++ file in a process of its own. Clang runs on a stranger's file: a file that
// crashes it, makes it spin or makes it allocate without end must cost that file only, never the
// run and the other files' findings. The worker is this same executable started as
// `retrylint --cpp-worker`; it reads one request on its standard input (a socket), parses with a
// memory limit, and answers on the same socket. Its standard output and error are /dev/null, so
// nothing Clang prints can reach the report, and it writes no core file. The parent kills it
// when the time limit has passed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {

struct ParseRequest {
  std::vector<std::string> args; // the Clang command line (clangArgs)
  std::string abs_path, code, workdir;
  unsigned timeout_seconds = 0;  // 0: none
  uint64_t memory_bytes = 0;     // 0: none
};

struct ParseOutcome {
  FileFacts facts;
  std::string failure; // why the file could not be parsed ("" when it was)
};

// Parses in this process (lint/cpp/driver.cpp): Clang, then again with the qualifiers of dropped
// member definitions blanked. Honours the request's time limit through the token watcher.
ParseOutcome parseFile(const ParseRequest &req);
// The same in a worker process started from `worker`, bounded in time and memory.
ParseOutcome parseInWorker(const std::string &worker, const ParseRequest &req);
// The worker's main: `retrylint --cpp-worker`.
int cppWorkerMain();

// Request and answer on the wire (exposed for tests): length-prefixed, and decoding checks
// every length against what is left.
std::string encodeRequest(const ParseRequest &req);
bool decodeRequest(const std::string &bytes, ParseRequest &req);
std::string encodeOutcome(const ParseOutcome &out);
bool decodeOutcome(const std::string &bytes, ParseOutcome &out);

} // namespace retrylint::cpp
