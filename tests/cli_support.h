// Running the built retrylint binary the way users and CI do.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>

namespace retrylint::testing {

inline std::string slurp(const std::filesystem::path &p);

// Compares `actual` with the golden file tests/golden/NAME. With RETRYLINT_UPDATE_GOLDEN=1 in the
// environment it writes `actual` there instead, for a change that means to alter the output:
// review the diff before committing it.
inline void expectGolden(const std::string &actual, const std::string &name) {
  const std::filesystem::path golden = std::filesystem::path(RETRYLINT_SOURCE_DIR) / "tests/golden" / name;
  if (const char *update = std::getenv("RETRYLINT_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, slurp(golden)) << "tests/golden/" << name
                                   << " differs; if the change is meant, rerun with RETRYLINT_UPDATE_GOLDEN=1 and review the diff";
}

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh scratch directory per call, removed by the caller's TempDir.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("retrylint-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string &name, const std::string &text) const {
    auto p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

// Runs the shell command CMD in `dir` as `{ CMD; } > stdout 2> stderr < /dev/null`, with $RL the
// retrylint binary: CMD may set limits (ulimit, trap) and redirect standard output itself.
inline CliRun runShellIn(const std::string &dir, const std::string &cmd) {
  TempDir t;
  auto out = t.path / "stdout", err = t.path / "stderr";
  std::string full = "cd '" + dir + "' && RL='" + std::string(RETRYLINT_BINARY) + "' && { " + cmd + "; } > '" +
                     out.string() + "' 2> '" + err.string() + "' < /dev/null";
  int status = std::system(full.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Standard error without the text-mode summary line (`retrylint: 1 error, … read`, or its warning
// that nothing was read or recognised), for tests about what else goes there.
inline std::string withoutSummary(const std::string &err) {
  static const std::regex summary(R"((^|\n)retrylint: (\d+ errors?, \d+ warnings?, \d+ notes?[^\n]* read[^\n]*|warning: (no file to read|none of the \d+ files? read)[^\n]*)\n)");
  return std::regex_replace(err, summary, "$1");
}

// Runs `PREFIX retrylint ARGS` in `dir` through the shell (PREFIX: limits such as `ulimit`, `timeout`).
inline CliRun runRetrylintIn(const std::string &dir, const std::string &prefix, const std::string &args) {
  return runShellIn(dir, prefix + "\"$RL\" " + args);
}

// Runs `retrylint ARGS` in the source directory (so fixture paths are relative).
inline CliRun runRetrylint(const std::string &args) { return runRetrylintIn(RETRYLINT_SOURCE_DIR, "", args); }

} // namespace retrylint::testing
