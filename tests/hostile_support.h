// Running retrylint on hostile inputs: within a time limit and, outside AddressSanitizer builds,
// a memory limit; and what every such run must show.
#pragma once
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "lint/sanitizers.h"
#include "tests/cli_support.h"

namespace retrylint::testing {

constexpr bool kAsan = kAddressSanitizer;

// retrylint ARGS in `dir`, killed after `seconds` (exit 124 then) and, outside ASan (which
// reserves terabytes of address space, so `ulimit -v` breaks it), limited to `kib` KiB of memory.
inline CliRun runLimited(const std::filesystem::path &dir, const std::string &args, int seconds = 60, long kib = 2097152) {
  std::string limit = kAsan ? "" : "ulimit -v " + std::to_string(kib) + "; ";
  return runRetrylintIn(dir.string(), limit + "timeout -k 5 " + std::to_string(seconds) + " ", args);
}

// The same with the default limit of 2 GiB.
inline CliRun runIn(const std::filesystem::path &dir, const std::string &args, int seconds = 60) {
  return runLimited(dir, args, seconds);
}

// The run did not crash or hang; the exit code is one retrylint defines.
inline void expectSurvived(const CliRun &r) {
  EXPECT_NE(r.exit_code, 124) << "timed out";
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << "exit " << r.exit_code << "\n" << r.err;
  EXPECT_EQ(r.err.find("AddressSanitizer"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
}

// An Istio VirtualService with one finding at line 10 (RL203: attempts 9): the good file each
// hostile test puts next to its hostile ones, whose finding must survive them.
constexpr const char *kIstioTooMany = R"(apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata:
  name: ratings
spec:
  hosts: [ratings]
  http:
  - name: too-many
    retries:
      attempts: 9
      perTryTimeout: 1s
    route:
    - destination: {host: ratings}
)";

inline void expectGoodFileReported(const CliRun &r) {
  EXPECT_NE(r.out.find("good.yaml:10:17: warning: attempts: 9"), std::string::npos) << "finding of the good file lost:\n"
                                                                                  << r.out << r.err;
}

// `name` cannot be analysed: exit 2, the error names it (and the line when given).
inline void expectErrorFor(const CliRun &r, const std::string &name, int line = 0) {
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  std::string want = name + (line ? ":" + std::to_string(line) + ":" : ":");
  EXPECT_NE(r.err.find(want), std::string::npos) << "no error naming " << want << ":\n" << r.err;
}

} // namespace retrylint::testing
