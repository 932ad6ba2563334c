// Clang on a stranger's C++ file and compile database: nothing the file or the database says can
// make retrylint write a file, print into its report, load code, crash, hang or run out of
// memory; a file that breaks a limit is an error naming it, and every other file's findings
// are still reported. Hostile files (FIFOs, bombs) are made here at run time.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "lint/cpp/isolation.h"
#include "tests/hostile_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// A loop Clang must see: three attempts with no wait (RL104 at column 11 of its second line).
std::string retryLoop() {
  return "int call();\nint f() { for (int attempt = 0; attempt < 3; ++attempt) { if (call() == 0) return 0; } return 1; }\n";
}

// The names of every file below `dir`.
std::set<std::string> filesIn(const fs::path &dir) {
  std::set<std::string> out;
  for (const auto &e : fs::recursive_directory_iterator(dir)) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

TEST(HostileCpp, CompileDatabaseCannotLoadPlugins) {
  TempDir dir;
  std::string marker = (dir.path / "plugin-was-loaded").string();
  ::setenv("RETRYLINT_EVIL_MARKER", marker.c_str(), 1);
  // The plugin really does leave its mark when loaded, so the check below means something.
  {
    TempDir probe;
    std::string probeMarker = (probe.path / "probe").string();
    ::setenv("RETRYLINT_EVIL_MARKER", probeMarker.c_str(), 1);
    void *h = ::dlopen(RETRYLINT_EVIL_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << ::dlerror();
    EXPECT_TRUE(fs::exists(probeMarker));
    ::setenv("RETRYLINT_EVIL_MARKER", marker.c_str(), 1);
  }
  dir.write("retry.cpp", "int call();\nint f() {\n  for (int attempt = 0; attempt < 3; ++attempt) {\n"
                         "    if (call() == 0) return 0;\n  }\n  return 1;\n}\n");
  std::string plugin = RETRYLINT_EVIL_PLUGIN;
  dir.write("compile_commands.json",
            "[{\"directory\": \"" + dir.path.string() + "\", \"file\": \"retry.cpp\", \"arguments\": [\"clang++\", "
            "\"-fplugin=" + plugin + "\", \"-Xclang\", \"-load\", \"-Xclang\", \"" + plugin + "\", "
            "\"-fpass-plugin=" + plugin + "\", \"-Xclang\", \"-add-plugin\", \"-Xclang\", \"x\", "
            "\"-c\", \"retry.cpp\"]}]");
  auto r = runIn(dir.path, "-p . retry.cpp", 120);
  expectSurvived(r);
  EXPECT_FALSE(fs::exists(marker)) << "a plugin named by compile_commands.json was loaded";
  ::unsetenv("RETRYLINT_EVIL_MARKER");
}

TEST(HostileCpp, TimeGuardAbandonsAFileWithAnError) {
  // Each macro level doubles the tokens: 2^26 tokens take far longer than the 1 s limit.
  TempDir dir;
  std::string code = "#define L0 x,\n";
  for (int i = 1; i <= 26; ++i)
    code += "#define L" + std::to_string(i) + " L" + std::to_string(i - 1) + " L" + std::to_string(i - 1) + "\n";
  code += "int x;\nint a[] = { L26 };\nint f() { for (;;) { retry(); } }\n"; // a loop that reaches Clang
  dir.write("slow.cpp", code);
  auto start = std::chrono::steady_clock::now();
  auto r = runIn(dir.path, "--cpp-timeout 1 slow.cpp", 120);
  auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expectErrorFor(r, "slow.cpp");
  EXPECT_NE(r.err.find("--cpp-timeout"), std::string::npos) << r.err;
  EXPECT_LT(took, kAsan ? 60 : 20);
}

TEST(HostileCpp, DebugPragmasCannotKillTheRun) {
  TempDir dir;
  std::vector<std::string> names;
  for (const char *p : {"crash", "parser_crash", "llvm_fatal_error", "llvm_unreachable", "overflow_stack", "assert"}) {
    names.push_back(std::string(p) + ".cpp");
    dir.write(names.back(), std::string("#pragma clang __debug ") + p + "\n" + retryLoop());
  }
  std::string args;
  for (const auto &n : names) args += n + " ";
  auto start = std::chrono::steady_clock::now();
  auto r = runIn(dir.path, args, 120);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  for (const auto &n : names) EXPECT_NE(r.out.find(n + ":3:11: warning"), std::string::npos) << n << "\n" << r.out << r.err;
  EXPECT_LT(secondsSince(start), kAsan ? 60 : 20);
}

// Names and macros a megabyte long: the analyses match names and macro heads with std::regex,
// which recurses per character; such names are no names, such macros are not read, and the run
// (and the other files' findings) goes on.
TEST(HostileCpp, MegabyteNamesAndMacrosCannotOverflowTheStack) {
  TempDir dir;
  const std::string big(1 << 20, 'a');
  dir.write("name.cpp", "bool Send();\nvoid f() {\n  for (int attempt = 0; attempt < 3; ++attempt) {\n"
                        "    auto r = Send();\n    if (r.IsX" + big + "Error()) return;\n  }\n}\n");
  dir.write("define.cpp", "#define M(" + big + "\n#define N(x) (" + big + ")\n");
  std::string body;
  for (int i = 0; i < 20000; ++i) body += "  int v" + std::to_string(i) + " = 0; \\\n";
  dir.write("body.cpp", "#define R(x) \\\n" + body + "  for (;;) { if ((x) >= 0) break; usleep(1); }\n");
  dir.write("retry.cpp", retryLoop());
  auto r = runIn(dir.path, "name.cpp define.cpp body.cpp retry.cpp", 120);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("retry.cpp:2:11: warning"), std::string::npos) << r.out << r.err;
}

TEST(HostileCpp, IncludesOfFifosAndDevicesAreSkippedNotWaitedOn) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir.path / "fifo.h").c_str(), 0600), 0);
  dir.write("fifo.cpp", "#include \"fifo.h\"\n" + retryLoop());
  dir.write("stdin.cpp", "#include \"/dev/stdin\"\n" + retryLoop());
  dir.write("zero.cpp", "#include \"/dev/zero\"\n" + retryLoop());
  dir.write("random.cpp", "#include </dev/urandom>\n" + retryLoop());
  auto start = std::chrono::steady_clock::now();
  auto r = runIn(dir.path, "fifo.cpp stdin.cpp zero.cpp random.cpp", 60);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  for (const char *n : {"fifo.cpp", "stdin.cpp", "zero.cpp", "random.cpp"})
    EXPECT_NE(r.out.find(std::string(n) + ":3:11: warning"), std::string::npos) << n << "\n" << r.out << r.err;
  EXPECT_LT(secondsSince(start), kAsan ? 50 : 20);
}

// Work Clang does where the token watcher cannot see it: an exponential macro in `#if` and a
// template instantiation bomb. The worker is stopped by time or by memory, whichever comes first.
struct Bombs : ::testing::Test {
  TempDir dir;
  void SetUp() override {
    std::string ifBomb = "#define A0 1\n";
    for (int i = 1; i <= 40; ++i) ifBomb += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + "+A" + std::to_string(i - 1) + "\n";
    dir.write("ifbomb.cpp", ifBomb + "#if A40\n#endif\n" + retryLoop());
    dir.write("tbomb.cpp", "template <int N, unsigned M> struct G { static const unsigned v = G<N - 1, M * 2>::v + G<N - 1, M * 2 + 1>::v; };\n"
                           "template <unsigned M> struct G<0, M> { static const unsigned v = M; };\n"
                           "unsigned x = G<40, 1>::v;\n" + retryLoop());
    dir.write("good.cpp", retryLoop());
  }
};

TEST_F(Bombs, StoppedByTheTimeLimit) {
  auto start = std::chrono::steady_clock::now();
  auto r = runIn(dir.path, "--cpp-timeout 3 --cpp-memory 16G ifbomb.cpp tbomb.cpp good.cpp", 120);
  expectErrorFor(r, "ifbomb.cpp");
  expectErrorFor(r, "tbomb.cpp");
  EXPECT_NE(r.err.find("ifbomb.cpp: error: the C++ front end gave up after 3 s (--cpp-timeout)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("good.cpp:2:11: warning"), std::string::npos) << r.out;
  EXPECT_LT(secondsSince(start), 30);
}

TEST_F(Bombs, StoppedByTheMemoryLimit) {
  auto start = std::chrono::steady_clock::now();
  auto r = runIn(dir.path, "--cpp-timeout 100 --cpp-memory 256M ifbomb.cpp tbomb.cpp good.cpp", 150);
  expectErrorFor(r, "ifbomb.cpp");
  expectErrorFor(r, "tbomb.cpp");
  EXPECT_NE(r.err.find("ifbomb.cpp: error: the C++ front end needed more than 256 MiB of memory (--cpp-memory)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tbomb.cpp: error: the C++ front end needed more than 256 MiB"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("good.cpp:2:11: warning"), std::string::npos) << r.out;
  EXPECT_LT(secondsSince(start), 100);
}

// Flags that make Clang write files, print, or drop the file: none of them has any effect.
TEST(HostileCpp, CompileDatabaseFlagsCannotWriteOrPrint) {
  TempDir dir;
  dir.write("retry.cpp", retryLoop());
  dir.write("pre.h", "");
  const std::vector<std::string> hostile = {
      "-Xclang", "-dependency-file", "-Xclang", "dep.d", "-MT", "$(touch pwned)", "-MD", "-MF", "mf.d", "-MJ", "mj.json",
      "--serialize-diagnostics", "diag.dia", "-Wp,-MD,wp.d", "-Xclang", "-stats-file=stats.txt", "-H", "-Xclang",
      "-header-include-file", "-Xclang", "hdr.txt", "-fmodules", "-fmodules-cache-path=modcache", "-ftime-trace",
      "--version", "--help", "-print-search-dirs", "-print-resource-dir", "-###", "-ccc-print-phases",
      "-include-pch", "x.pch", "-Xclang", "-remap-file", "-Xclang", "retry.cpp;pre.h", "-save-temps", "-o", "out.o"};
  std::string args;
  for (const auto &a : hostile) args += ", " + llvm::formatv("{0}", llvm::json::Value(a)).str();
  dir.write("compile_commands.json", "[{\"directory\": \"" + dir.path.string() + "\", \"file\": \"retry.cpp\", "
                                     "\"arguments\": [\"clang++\"" + args + ", \"-c\", \"retry.cpp\"]}]");
  const std::set<std::string> before = filesIn(dir.path);
  auto r = runIn(dir.path, "-p . --format json retry.cpp", 120);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto parsed = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(parsed)) << "the report is not JSON:\n" << r.out;
  EXPECT_NE(r.out.find("\"RL104\""), std::string::npos) << "retry.cpp was not analysed:\n" << r.out << r.err;
  EXPECT_EQ(filesIn(dir.path), before) << "a file was written";
  EXPECT_EQ(r.err.find("clang version"), std::string::npos) << r.err;
}

// The parent's side of the worker: a worker that crashes, hangs or answers nonsense costs that
// file only, with a message that says what happened.
TEST(HostileCpp, AWorkerThatCrashesHangsOrBabblesIsAnErrorForItsFile) {
  TempDir dir;
  auto script = [&](const std::string &name, const std::string &body) {
    std::string p = dir.write(name, "#!/bin/sh\n" + body + "\n");
    ::chmod(p.c_str(), 0755);
    return p;
  };
  cpp::ParseRequest req;
  req.args = {"retrylint-cpp", "-fsyntax-only", "x.cpp"};
  req.abs_path = "/nonexistent/x.cpp";
  req.code = retryLoop();
  req.timeout_seconds = 1;
  req.memory_bytes = 1ull << 30;
  auto crashed = cpp::parseInWorker(script("crash.sh", "kill -SEGV $$"), req);
  EXPECT_NE(crashed.failure.find("crashed on this file (signal 11"), std::string::npos) << crashed.failure;
  auto babble = cpp::parseInWorker(script("babble.sh", "head -c 100 /dev/zero | tr '\\0' x"), req);
  EXPECT_NE(babble.failure.find("stopped without an answer"), std::string::npos) << babble.failure;
  auto start = std::chrono::steady_clock::now();
  auto hung = cpp::parseInWorker(script("hang.sh", "exec sleep 1000"), req);
  EXPECT_NE(hung.failure.find("gave up after 1 s"), std::string::npos) << hung.failure;
  EXPECT_LT(secondsSince(start), 10);
  auto missing = cpp::parseInWorker((dir.path / "no-such-worker").string(), req);
  EXPECT_FALSE(missing.failure.empty());
}

TEST(HostileCpp, WireFormatRoundTripsAndRejectsTruncation) {
  cpp::ParseRequest req;
  req.args = {"a", "", "-DX=\"y z\""};
  req.abs_path = "/p/x.cpp";
  req.code = std::string("int\0x;", 6);
  req.workdir = "/p";
  req.timeout_seconds = 7;
  req.memory_bytes = 123;
  std::string bytes = cpp::encodeRequest(req);
  cpp::ParseRequest back;
  ASSERT_TRUE(cpp::decodeRequest(bytes, back));
  EXPECT_EQ(back.args, req.args);
  EXPECT_EQ(back.code, req.code);
  EXPECT_EQ(back.timeout_seconds, 7u);
  EXPECT_EQ(back.memory_bytes, 123u);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    cpp::ParseRequest partial;
    EXPECT_FALSE(cpp::decodeRequest(bytes.substr(0, cut), partial)) << cut;
  }
  cpp::ParseOutcome out;
  out.facts.loops.push_back(cpp::LoopSite{10, 2, 40});
  out.facts.constants["kTries"] = -5;
  std::string answer = cpp::encodeOutcome(out);
  cpp::ParseOutcome got;
  ASSERT_TRUE(cpp::decodeOutcome(answer, got));
  ASSERT_EQ(got.facts.loops.size(), 1u);
  EXPECT_EQ(got.facts.loops[0].fn_end, 40u);
  EXPECT_EQ(got.facts.constants["kTries"], -5);
  // A count far larger than the bytes that follow is refused before anything is allocated.
  std::string huge = std::string(8, '\0') + std::string("\xff\xff\xff\xff\xff\xff\xff\x0f", 8);
  cpp::ParseOutcome none;
  EXPECT_FALSE(cpp::decodeOutcome(huge, none));
}
