// The C++ front end: compile-database use, dropped plugin flags, missing headers, positions.
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "lint/cpp/driver.h"
#include "lint/engine.h"

namespace fs = std::filesystem;
using namespace retrylint;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("retrylint-cpp-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string &name, const std::string &text) const { std::ofstream(path / name) << text; }
};

FileModel extract(const std::string &path, const std::string &text, const ExtractOptions &o = {},
                  std::vector<Diagnostic> *errs = nullptr) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText(path, text, true, m, errors, o);
  if (errs) *errs = errors;
  return m;
}

const std::string kBounded = R"(#include "missing/config.h"
constexpr int kTries = RETRY_TRIES;
bool Send();
void Run() {
  for (int attempt = 0; attempt < kTries; ++attempt) {
    if (Send()) return;
  }
}
)";

} // namespace

TEST(CppFrontend, OnlyFlagsThatShapeTheParseReachClang) {
  std::vector<std::string> in = {"-DX=1", "-fplugin=/tmp/evil.so", "-fpass-plugin=/tmp/evil2.so", "-Xclang", "-load",
                                 "-Xclang", "/tmp/evil3.so", "-Xclang", "-plugin", "-Xclang", "evil", "-Xclang",
                                 "-add-plugin", "-Xclang", "evil", "-mllvm", "-load=/tmp/e5.so",
                                 "-Xclang", "-fno-color-diagnostics", "-Iinclude", "-isystem", "/opt/x",
                                 "-std=c++20", "-std=c11", "-UNDEBUG", "-m64", "-O2", "-fno-exceptions",
                                 "-include", "pre.h", "--target=aarch64-linux-gnu", "-o", "out.o", "-c", "x.cpp",
                                 "-MD", "-MF", "dep.d", "-MJ", "cdb.json", "--serialize-diagnostics", "d.dia",
                                 "-Wp,-MD,w.d", "-ftime-trace", "-fmodules-cache-path=/tmp/m", "-include-pch", "p.pch",
                                 "--version", "-###", "-print-search-dirs", "-ccc-print-phases", "-H", "@rsp.txt",
                                 "-Wall", "-Werror"};
  auto out = cpp::allowedCompileFlags(in);
  // Rendered as Clang's option table spells them (a value may come apart from its flag).
  EXPECT_EQ(out, (std::vector<std::string>{"-D", "X=1", "-I", "include", "-isystem", "/opt/x", "-std=c++20", "-U", "NDEBUG",
                                           "-m64", "-O2", "-fno-exceptions", "-include", "pre.h", "--target=aarch64-linux-gnu"}));
}

TEST(CppFrontend, UsesTheCompileDatabaseWithoutItsPlugins) {
  TempDir dir;
  dir.write("retry.cpp", kBounded);
  const std::string file = (dir.path / "retry.cpp").string();
  dir.write("compile_commands.json",
            "[{\"directory\": \"" + dir.path.string() + "\", \"file\": \"retry.cpp\", \"command\": "
            "\"/usr/bin/c++ -DRETRY_TRIES=3 -fplugin=/nonexistent/evil.so -Xclang -load -Xclang /nonexistent/evil2.so "
            "-fpass-plugin=/nonexistent/p.so -Xclang -plugin -Xclang evil -std=c++17 -c retry.cpp -o retry.o\"}]");
  ExtractOptions o;
  o.compile_commands_dir = dir.path.string();
  std::string workdir, error;
  auto args = cpp::clangArgs(file, o, workdir, error);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(workdir, dir.path.string());
  bool define = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto &a = args[i];
    EXPECT_EQ(a.find("plugin"), std::string::npos) << a;
    EXPECT_EQ(a.find("-load"), std::string::npos) << a;
    EXPECT_EQ(a.find("evil"), std::string::npos) << a;
    define |= a == "-D" && i + 1 < args.size() && args[i + 1] == "RETRY_TRIES=3";
  }
  EXPECT_TRUE(define);

  // The database's -D makes the bound known: 3 attempts.
  std::vector<Diagnostic> errs;
  FileModel m = extract(file, kBounded, o, &errs);
  EXPECT_TRUE(errs.empty());
  ASSERT_EQ(m.policies.size(), 1u);
  ASSERT_TRUE(m.policies[0].max_attempts.written());
  EXPECT_EQ(*m.policies[0].max_attempts.value, 3);
  EXPECT_EQ(m.policies[0].attempt_variable, "attempt");

  // Without -p the macro is unknown: bounded, count unknown, nothing reported about attempts.
  FileModel plain = extract(file, kBounded);
  ASSERT_EQ(plain.policies.size(), 1u);
  EXPECT_EQ(plain.policies[0].max_attempts.origin, Origin::Unknown);
}

TEST(CppFrontend, DefaultFlagsWithoutADatabase) {
  std::string workdir, error;
  auto args = cpp::clangArgs("/tmp/x.cpp", ExtractOptions{}, workdir, error);
  EXPECT_NE(std::find(args.begin(), args.end(), "-std=c++17"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "-fsyntax-only"), args.end());
  EXPECT_EQ(args.back(), "/tmp/x.cpp");
  if (fs::exists("/usr/lib/llvm-14/lib/clang/14.0.6/include"))
    EXPECT_NE(std::find(args.begin(), args.end(), "-resource-dir"), args.end());
}

TEST(CppFrontend, MemberFunctionOfAMissingClassIsAnalysedAtExactPositions) {
  const std::string text = "#include \"absent/client.h\"\n"
                           "namespace app {\n"
                           "absl::Status Client::Send(const Request &req) {\n"
                           "  for (int attempt = 1; attempt <= 3; ++attempt) {\n"
                           "    auto st = stub_->Call(req);\n"
                           "    if (st.ok()) return st;\n"
                           "    LOG(WARNING) << \"failed: \" << st;\n"
                           "  }\n"
                           "  return absl::UnavailableError(\"x\");\n"
                           "}\n"
                           "}\n";
  RunOptions o;
  FileResult r = analyseText("/tmp/retrylint-member.cpp", text, true, o);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.policies, 1u);
  std::map<std::string, Span> at;
  for (const Finding &f : r.findings) at[f.rule] = f.where;
  ASSERT_TRUE(at.count("RL104"));
  EXPECT_EQ(at["RL104"].line, 4);
  EXPECT_EQ(at["RL104"].column, 3);
  ASSERT_TRUE(at.count("RL501"));
  EXPECT_EQ(at["RL501"].line, 7);
  EXPECT_EQ(at["RL501"].column, 5);
  for (const Finding &f : r.findings) EXPECT_EQ(f.format, "cpp");
}

TEST(CppFrontend, AttemptsAreNormalisedToTotalTries) {
  auto attempts = [](const std::string &loop) -> std::optional<int> {
    FileModel m = extract("/tmp/retrylint-attempts.cpp", "bool Send();\nvoid f() {\n int attempt = 0;\n" + loop + "\n}\n");
    if (m.policies.size() != 1 || !m.policies[0].max_attempts.written()) return -1;
    return m.policies[0].max_attempts.value;
  };
  EXPECT_EQ(attempts("for (int attempt = 0; attempt < 3; ++attempt) { if (Send()) return; }"), 3);
  EXPECT_EQ(attempts("for (int attempt = 1; attempt <= 3; ++attempt) { if (Send()) return; }"), 3);
  EXPECT_EQ(attempts("for (int attempt = 1; attempt < 3; ++attempt) { if (Send()) return; }"), 2);
  EXPECT_EQ(attempts("while (attempt < 4) { if (Send()) return; ++attempt; }"), 4);
  EXPECT_EQ(attempts("do { if (Send()) return; } while (++attempt < 3);"), 3);
  EXPECT_EQ(attempts("while (true) { if (Send()) return; if (++attempt >= 5) return; }"), 5);
  EXPECT_EQ(attempts("while (true) { if (Send()) return; sleep(1); }"), std::nullopt);
}

TEST(CppFrontend, HeadersOfTheUserAreAnalysedButIncludedOnesAreNot) {
  TempDir dir;
  dir.write("helper.h", "bool Send();\ninline void Helper() { for (int attempt = 0; attempt < 3; ++attempt) { if (Send()) return; } }\n");
  const std::string main = "#include \"helper.h\"\nvoid f() { Helper(); }\n";
  FileModel m = extract((dir.path / "main.cpp").string(), main);
  EXPECT_TRUE(m.policies.empty());
  FileModel h = extract((dir.path / "helper.h").string(), "bool Send();\ninline void Helper() { for (int attempt = 0; attempt < 3; ++attempt) { if (Send()) return; } }\n");
  EXPECT_EQ(h.policies.size(), 1u);
}

namespace {
const RetryPolicy *policyAt(const FileModel &m, int line) {
  for (const RetryPolicy &p : m.policies)
    if (p.where.line == line) return &p;
  return nullptr;
}
} // namespace

// A macro bound is evaluated by Clang where the compile database defines it; the loop itself is
// read from tokens, so only Clang's value for that operand can make it known.
TEST(CppFrontend, MacroBoundIsEvaluatedWithTheCompileDatabase) {
  TempDir dir;
  const std::string code = "bool Send();\nvoid Run() {\n  for (int attempt = 0; attempt < MAX_TRIES; ++attempt) {\n"
                           "    if (Send()) return;\n  }\n}\n";
  dir.write("retry.cpp", code);
  const std::string file = (dir.path / "retry.cpp").string();
  dir.write("compile_commands.json", "[{\"directory\": \"" + dir.path.string() +
                                         "\", \"file\": \"retry.cpp\", \"command\": \"c++ -DMAX_TRIES=7 -c retry.cpp\"}]");
  ExtractOptions o;
  o.compile_commands_dir = dir.path.string();
  FileModel m = extract(file, code, o);
  ASSERT_EQ(m.policies.size(), 1u);
  ASSERT_TRUE(m.policies[0].max_attempts.written());
  EXPECT_EQ(*m.policies[0].max_attempts.value, 7);
  FileModel plain = extract(file, code);
  ASSERT_EQ(plain.policies.size(), 1u);
  EXPECT_EQ(plain.policies[0].max_attempts.origin, Origin::Unknown);
}

// The first wait is what the wait's variables hold before the loop, in the unit they are slept
// in; a cap assigned inside the loop is never taken for the start (fixtures/cpp/waits.cpp).
TEST(CppFrontend, FirstWaitIsTheValueBeforeTheLoop) {
  std::ifstream in(std::string(RETRYLINT_SOURCE_DIR) + "/fixtures/cpp/waits.cpp");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  FileModel m = extract("/tmp/retrylint-waits.cpp", text);
  struct Want { int line; long long ms; Growth growth; bool capped; };
  for (Want w : {Want{16, 100, Growth::Exponential, true}, Want{27, 100, Growth::Exponential, false},
                 Want{38, 50, Growth::Exponential, false}, Want{58, 10, Growth::Exponential, true}}) {
    const RetryPolicy *p = policyAt(m, w.line);
    ASSERT_NE(p, nullptr) << "no retry loop at line " << w.line;
    ASSERT_TRUE(p->backoff.initial.value.has_value()) << w.line;
    EXPECT_EQ(p->backoff.initial.value->millis(), static_cast<double>(w.ms)) << w.line;
    EXPECT_EQ(p->backoff.growth.value, w.growth) << w.line;
    EXPECT_EQ(p->backoff.cap.origin == Origin::Unknown || p->backoff.cap.value.has_value(), w.capped) << w.line;
  }
  // The helper that takes the delay is a wait, so the loop is not "no wait".
  const RetryPolicy *helper = policyAt(m, 48);
  ASSERT_NE(helper, nullptr);
  EXPECT_NE(helper->backoff.growth.value, Growth::NoWait);
}

// Types are matched by what they are, not by their bare name: a messaging client's own
// ClientConfiguration (Clang resolves it to pulsar::ClientConfiguration) is no AWS SDK client, so
// no AWS default strategy is modelled for it (fixtures/cpp/own_client_configuration.cpp).
TEST(CppFrontend, OwnClientConfigurationIsNotTheAwsSdks) {
  std::ifstream in(std::string(RETRYLINT_SOURCE_DIR) + "/fixtures/cpp/own_client_configuration.cpp");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(extract("/tmp/retrylint-own-config.cpp", text).policies.empty());
  // The SDK's own type, named through its namespace, still is.
  FileModel aws = extract("/tmp/retrylint-aws-config.cpp",
                          "#include <aws/core/client/ClientConfiguration.h>\nvoid f() {\n"
                          "  Aws::Client::ClientConfiguration cfg;\n  cfg.requestTimeoutMs = 1000;\n}\n");
  ASSERT_EQ(aws.policies.size(), 1u);
  EXPECT_EQ(*aws.policies[0].max_attempts.value, 11);
}

// Retries whose load lands on nothing remote (an in-process queue) or that fail over to a newly
// picked node are advice: their findings are notes, and say why (fixtures/cpp/retry_shapes.cpp).
TEST(CppFrontend, LocalAndFailoverRetriesAreAdvice) {
  std::ifstream in(std::string(RETRYLINT_SOURCE_DIR) + "/fixtures/cpp/retry_shapes.cpp");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  FileModel m = extract("/tmp/retrylint-shapes.cpp", text);
  int local = 0, failover = 0, plain = 0;
  for (const RetryPolicy &p : m.policies) {
    if (p.used_by.find("local resource") != std::string::npos) ++local;
    else if (p.used_by.find("newly chosen") != std::string::npos) ++failover;
    else if (!p.advisory) ++plain;
    if (!p.used_by.empty()) EXPECT_TRUE(p.advisory) << p.component;
  }
  EXPECT_EQ(local, 4); // the in-process queue; the profiler run after its script was rewritten; the semaphore poll;
                       // the device node opened with ::open(path, O_RDWR)
  // (the supervisor that relaunches its process after it exits is no retry at all: a failed fork leaves)
  EXPECT_EQ(failover, 1);
  // A random wait before a fixed-interval loop: callers out of step, so RL101/RL102 are notes.
  int outOfStep = 0;
  for (const RetryPolicy &p : m.policies)
    if (p.crowd == Crowd::OutOfStep) {
      ++outOfStep;
      EXPECT_EQ(p.component, "retry loop in RegisterUntilDone()");
      EXPECT_FALSE(p.advisory); // RL104 or RL203 would still be warnings
    }
  EXPECT_EQ(outOfStep, 1);
  // A try_lock loop waits for a lock: its RL201 and RL102 are notes, RL101 stays a warning.
  int locks = 0;
  for (const RetryPolicy &p : m.policies)
    if (p.waits_for_lock) {
      ++locks;
      EXPECT_EQ(p.component, "retry loop in LockForever()");
    }
  EXPECT_EQ(locks, 1);
  EXPECT_GE(plain, 8);
  // The nested bound makes the reconnect loop bounded (no RL201), the count unknown.
  bool sawReplica = false;
  for (const RetryPolicy &p : m.policies)
    if (p.component.find("ReplicaOf") != std::string::npos) {
      sawReplica = true;
      EXPECT_EQ(p.max_attempts.origin, Origin::Unknown);
    }
  EXPECT_TRUE(sawReplica);
}

// Recursion retries (fixtures/cpp/recursion.cpp): the lease retried once through its flag, the
// connection retried on any exception forever, the countdown bounded; the tree walk is no retry.
TEST(CppFrontend, RetriesByRecursion) {
  std::ifstream in(std::string(RETRYLINT_SOURCE_DIR) + "/fixtures/cpp/recursion.cpp");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  FileModel m = extract("/tmp/retrylint-recursion.cpp", text);
  std::map<std::string, const RetryPolicy *> by;
  for (const RetryPolicy &p : m.policies) by[p.component] = &p;
  ASSERT_EQ(by.size(), 4u);
  // A directory made again once its parent exists: only mkdir is tested, a local resource.
  ASSERT_TRUE(by.count("retry by recursion in MakeDir()"));
  EXPECT_TRUE(by["retry by recursion in MakeDir()"]->advisory);
  EXPECT_EQ(*by["retry by recursion in MakeDir()"]->max_attempts.value, 2);
  for (const char *remote : {"retry by recursion in Connect()", "retry by recursion in Send()"})
    if (by.count(remote)) EXPECT_FALSE(by[remote]->advisory) << remote;
  ASSERT_TRUE(by.count("retry by recursion in AcquireLease()"));
  EXPECT_EQ(*by["retry by recursion in AcquireLease()"]->max_attempts.value, 2);
  EXPECT_EQ(by["retry by recursion in AcquireLease()"]->backoff.growth.origin, Origin::Unknown); // it waits first
  ASSERT_TRUE(by.count("retry by recursion in Connect()"));
  EXPECT_TRUE(by["retry by recursion in Connect()"]->max_attempts.written());
  EXPECT_FALSE(by["retry by recursion in Connect()"]->max_attempts.value.has_value()); // unbounded
  ASSERT_TRUE(by.count("retry by recursion in Send()"));
  EXPECT_EQ(by["retry by recursion in Send()"]->max_attempts.origin, Origin::Unknown);
  EXPECT_FALSE(by.count("retry by recursion in Count()"));
}
