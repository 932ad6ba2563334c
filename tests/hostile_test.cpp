// Hostile and broken inputs: whatever a repository holds, retrylint must not crash, hang or run
// away with memory; what it cannot analyse is an error (exit 2) naming the file (and line when
// known); the other files' findings are still reported; nothing outside the given paths is read.
// Big inputs are generated here into a temporary directory, never committed.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "lint/report/report.h"
#include "tests/cli_support.h"
#include "tests/hostile_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {


struct Hostile : ::testing::Test {
  TempDir dir;
  void SetUp() override { dir.write("good.yaml", kIstioTooMany); }
  CliRun lint(const std::string &hostileArgs, int seconds = 60) { return runIn(dir.path, "good.yaml " + hostileArgs, seconds); }
};

} // namespace

TEST_F(Hostile, TruncatedAndInvalidSyntaxIsAnErrorWithItsLine) {
  std::string vs = kIstioTooMany;
  dir.write("truncated.yaml", vs.substr(0, vs.find("perTryTimeout")) + "perTryTimeout: [1s\n");
  dir.write("bad.json", "{\n  \"methodConfig\": [{\n    \"retryPolicy\": {\"maxAttempts\": 3,,}\n  }]\n}\n");
  dir.write("bad.ini", "[profile dev]\nretry_mode = standard\nthis line is not ini\n");
  auto r = lint("truncated.yaml bad.json bad.ini");
  expectErrorFor(r, "truncated.yaml", 12);
  expectErrorFor(r, "bad.json", 3);
  expectErrorFor(r, "bad.ini", 3);
  expectGoodFileReported(r);
}

TEST_F(Hostile, WrongValueTypesAndAbsurdNumbers) {
  std::string vs = kIstioTooMany;
  auto with = [&](const std::string &attempts) { return std::regex_replace(vs, std::regex("attempts: 9"), "attempts: " + attempts); };
  dir.write("three.yaml", with("three"));
  dir.write("list.yaml", with("[1, 2]"));
  int i = 0;
  for (std::string n : {"1e308", "-0", "9223372036854775808", "-9223372036854775809", "99999999999999999999999",
                        "2147483648", ".nan", "-.inf", "0x7fffffffffffffff", "1e-308"})
    dir.write("n" + std::to_string(i++) + ".yaml", with(n));
  dir.write("grpc.json", R"({"methodConfig": [{"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 1e308,
    "initialBackoff": "99999999999999999999.5s", "maxBackoff": "-0s", "backoffMultiplier": 1e308,
    "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
  dir.write("aws/config", "[default]\nmax_attempts = 9223372036854775808\nretry_mode = standard\n");
  dir.write("app.properties", "resilience4j.retry.instances.a.maxAttempts=99999999999999999999\n"
                              "resilience4j.retry.instances.a.waitDuration=9223372036854775807d\n"
                              "resilience4j.retry.instances.a.exponentialBackoffMultiplier=1e308\n");
  auto r = lint(".");
  expectSurvived(r);
  expectErrorFor(r, "three.yaml", 10);
  expectErrorFor(r, "list.yaml", 10);
  expectGoodFileReported(r);
}

TEST_F(Hostile, DeepNestingIsRefusedWithTheLimitNamed) {
  dir.write("brackets.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec: " + std::string(200000, '[') + "\n");
  std::string indent;
  for (int i = 0; i < 3000; ++i) indent += std::string(i, ' ') + "k" + std::to_string(i) + ":\n";
  dir.write("indent.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n" + indent);
  std::string dashes = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n";
  for (int i = 0; i < 100000; ++i) dashes += "- ";
  dir.write("dashes.yaml", dashes + "x\n");
  // Named files are judged only when they mention a dialect (pre-commit names every staged file).
  dir.write("deep.json", "{\"methodConfig\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  auto r = lint("brackets.yaml indent.yaml dashes.yaml deep.json");
  for (const char *f : {"brackets.yaml", "indent.yaml", "dashes.yaml", "deep.json"}) {
    expectErrorFor(r, f);
    EXPECT_NE(r.err.find(std::string(f) + ": error: nested"), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find("--max-nesting"), std::string::npos);
  expectGoodFileReported(r);

  // Found while walking and not a retry config: skipped quietly.
  TempDir walk;
  walk.write("data.json", std::string(100000, '[') + std::string(100000, ']'));
  walk.write("good.yaml", kIstioTooMany);
  auto w = runIn(walk.path, ".");
  expectSurvived(w);
  EXPECT_EQ(w.exit_code, 1) << w.err;
  EXPECT_EQ(withoutSummary(w.err), "");

  // The limit is a flag.
  auto low = runIn(dir.path, "--max-nesting 3 good.yaml");
  expectErrorFor(low, "good.yaml");
  EXPECT_NE(low.err.find("more than the limit of 3"), std::string::npos) << low.err;
}

TEST_F(Hostile, AliasExpansionDoesNotExplode) {
  // "Billion laughs": 2^40 nodes if expanded; yaml-cpp shares aliased nodes, and so must we.
  std::string y = "a0: &a0 [x, x]\n";
  for (int i = 1; i <= 40; ++i)
    y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
  dir.write("laughs.yaml", y);
  // The same inside a retry config's fields.
  std::string vs = std::regex_replace(std::string(kIstioTooMany), std::regex("  hosts: \\[ratings\\]"),
                                      "  hosts: *a40\n  x: " + std::string("&top ") + "[*a40, *a40]");
  dir.write("laughs-vs.yaml", y + "---\n" + vs);
  std::string chain = "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: c}\nspec:\n  hosts: [c]\n  http:\n";
  chain += "  - &r0\n    name: r0\n    retries: {attempts: 2, perTryTimeout: 1s}\n    route: [{destination: {host: c}}]\n";
  for (int i = 1; i < 2000; ++i) chain += "  - *r0\n";
  dir.write("chain.yaml", chain);
  auto r = lint("laughs.yaml laughs-vs.yaml chain.yaml", 60);
  expectSurvived(r);
  expectGoodFileReported(r);
}

// A map with a few hundred thousand entries (about 7 MB, well under the size limit) once took
// minutes in the Spring dialects: every lookup scanned the map. Now it takes a second or two.
TEST_F(Hostile, WideSpringMapsDoNotTakeQuadraticTime) {
  std::string configs = "resilience4j.retry:\n  configs:\n", instances = "resilience4j.retry:\n  instances:\n";
  for (int i = 0; i < 200000; ++i) {
    configs += "    c" + std::to_string(i) + ":\n      maxAttempts: 3\n";
    instances += "    i" + std::to_string(i) + ":\n      maxAttempts: 3\n";
  }
  dir.write("configs.yml", configs);
  dir.write("instances.yml", instances);
  auto r = lint("configs.yml instances.yml", 120);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expectGoodFileReported(r);
}

TEST_F(Hostile, LargeFilesAndLongLines) {
  // Over the size limit: a sparse file, so the test writes nothing big.
  auto big = dir.path / "big.yaml";
  std::ofstream(big) << "kind: VirtualService\n";
  fs::resize_file(big, (64u << 20));
  // A 4 MiB line inside a retry config.
  std::string vs = kIstioTooMany;
  dir.write("longline.yaml", std::regex_replace(vs, std::regex("name: ratings"), "name: r" + std::string(4u << 20, 'x')));
  dir.write("longkey.ini", "[profile " + std::string(1u << 20, 'p') + "]\nretry_mode = standard\nmax_attempts = 3\n");
  auto r = lint("big.yaml longline.yaml longkey.ini");
  expectErrorFor(r, "big.yaml");
  EXPECT_NE(r.err.find("more than the limit of 33554432 (--max-file-size)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("longline.yaml"), std::string::npos) << r.err;
  expectGoodFileReported(r);
  // Configurable.
  auto small = runIn(dir.path, "--max-file-size 100 good.yaml");
  expectErrorFor(small, "good.yaml");
  auto bad = runIn(dir.path, "--max-file-size lots good.yaml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-file-size"), std::string::npos);
}

TEST_F(Hostile, BinaryAndInvalidUtf8) {
  std::string bin;
  for (int i = 0; i < 4096; ++i) bin += static_cast<char>((i * 7919) & 0xff);
  dir.write("blob.yaml", bin);
  dir.write("walked/blob.json", bin);
  dir.write("walked/good.yaml", kIstioTooMany);
  // An ESC sequence (YAML's "\e") in a value that a message quotes, and raw invalid UTF-8.
  std::string vs = std::regex_replace(std::string(kIstioTooMany), std::regex("      perTryTimeout: 1s\n"),
                                      "      perTryTimeout: 1s\n      retryOn: \"5xx,\\e[31mred\"\n");
  dir.write("esc.yaml", vs);
  dir.write("raw.yaml", std::regex_replace(vs, std::regex("\\\\e\\[31mred"), "bad\xff\xfe\xc3"));
  auto r = lint("blob.yaml esc.yaml raw.yaml walked");
  expectErrorFor(r, "blob.yaml");
  EXPECT_NE(r.err.find("binary"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("walked/blob.json"), std::string::npos) << "a binary file found while walking is skipped:\n" << r.err;
  EXPECT_NE(r.out.find("walked/good.yaml:10:"), std::string::npos) << r.out;
  // Text output: no raw ESC, the byte shown as \x1b; invalid UTF-8 shown as \xNN.
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1b[31mred"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\xff'), std::string::npos) << r.out;
  EXPECT_EQ(validUtf8(r.out + r.err), r.out + r.err);
  // GitHub annotations too.
  auto gh = runIn(dir.path, "--format github esc.yaml raw.yaml");
  EXPECT_EQ(gh.out.find('\x1b'), std::string::npos);
  EXPECT_NE(gh.out.find("\\x1b"), std::string::npos) << gh.out;
  EXPECT_EQ(validUtf8(gh.out), gh.out);
  // JSON and SARIF: valid UTF-8 (invalid bytes replaced), the ESC escaped by JSON.
  for (const char *format : {"json", "sarif"}) {
    auto js = runIn(dir.path, std::string("--format ") + format + " esc.yaml raw.yaml");
    expectSurvived(js);
    EXPECT_EQ(js.out.find('\x1b'), std::string::npos);
    EXPECT_NE(js.out.find("\\u001b"), std::string::npos) << js.out;
    EXPECT_EQ(validUtf8(js.out), js.out) << format;
  }
}

TEST(HostileText, EscapeControls) {
  EXPECT_EQ(escapeControls("a\x1b[0mb\tc\x7f"), "a\\x1b[0mb\tc\\x7f");
  EXPECT_EQ(escapeControls("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93"); // UTF-8 kept
  EXPECT_EQ(escapeControls("\xc2\x9b" "31m"), "\\xc2\\x9b31m");                        // C1 CSI escaped
  EXPECT_EQ(escapeControls("\xff\xc3"), "\\xff\\xc3");                                 // invalid, truncated
  EXPECT_EQ(validUtf8("ok\xff"), "ok\xef\xbf\xbd");
}

TEST_F(Hostile, ByteOrderMarkAndCrlfKeepPositions) {
  std::string crlf = std::regex_replace(std::string(kIstioTooMany), std::regex("\n"), "\r\n");
  dir.write("bom.yaml", "\xEF\xBB\xBF" + std::string(kIstioTooMany));
  dir.write("crlf.yaml", crlf);
  dir.write("both.yaml", "\xEF\xBB\xBF" + crlf);
  // The same findings (rule, line, columns) in each variant as in the plain LF file.
  auto spans = [&](const std::string &file) {
    auto r = runIn(dir.path, "--format json " + file);
    expectSurvived(r);
    std::vector<std::string> out;
    std::regex re("\"rule\": \"(RL\\d+)\"[^{]*?\"line\": (\\d+),\\s*\"column\": (\\d+),\\s*\"end_line\": (\\d+),\\s*\"end_column\": (\\d+)");
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), re), end; it != end; ++it)
      out.push_back((*it)[1].str() + "@" + (*it)[2].str() + ":" + (*it)[3].str() + "-" + (*it)[4].str() + ":" + (*it)[5].str());
    return out;
  };
  auto want = spans("good.yaml");
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(spans("bom.yaml"), want);
  EXPECT_EQ(spans("crlf.yaml"), want);
  EXPECT_EQ(spans("both.yaml"), want);
}

TEST_F(Hostile, EmptyFilesAndDocuments) {
  dir.write("empty.yaml", "");
  dir.write("empty.json", "");
  dir.write("docs.yaml", "---\n---\n...\n");
  dir.write("blank.ini", "\n\n");
  dir.write("config", "");
  dir.write("ws.properties", "   \n\t\n");
  auto r = lint("empty.yaml docs.yaml blank.ini config ws.properties");
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expectGoodFileReported(r);
  auto j = lint("empty.json");
  expectSurvived(j);
}

TEST_F(Hostile, SpecialFilesNeverHangTheWalkOrTheRead) {
  fs::create_directories(dir.path / "tree");
  dir.write("tree/good.yaml", kIstioTooMany);
  ASSERT_EQ(::mkfifo((dir.path / "tree/fifo.yaml").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((dir.path / "named-fifo.yaml").c_str(), 0644), 0);
  // A socket with a config's name.
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock = (dir.path / "tree/sock.yaml").string();
  if (sock.size() < sizeof addr.sun_path) {
    std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
  }
  auto walk = lint("tree", 30);
  expectSurvived(walk);
  EXPECT_EQ(walk.exit_code, 1) << walk.err; // special files met while walking are skipped
  EXPECT_NE(walk.out.find("tree/good.yaml:10:"), std::string::npos);
  auto named = lint("named-fifo.yaml /dev/null", 30);
  expectErrorFor(named, "named-fifo.yaml");
  expectErrorFor(named, "/dev/null");
  EXPECT_NE(named.err.find("not a regular file"), std::string::npos) << named.err;
  expectGoodFileReported(named);
  ::close(s);
}

TEST_F(Hostile, SymlinksNeverLeaveTheTreeOrLoop) {
  TempDir outside;
  outside.write("secret.yaml", kIstioTooMany);
  fs::create_directories(dir.path / "tree/sub");
  dir.write("tree/good.yaml", kIstioTooMany);
  fs::create_directory_symlink(outside.path, dir.path / "tree/out-dir");
  fs::create_symlink(outside.path / "secret.yaml", dir.path / "tree/out-file.yaml");
  fs::create_directory_symlink(dir.path / "tree", dir.path / "tree/sub/loop");
  fs::create_directory_symlink(".", dir.path / "tree/self");
  fs::create_symlink(dir.path / "tree/dangling-target.yaml", dir.path / "tree/dangling.yaml");
  fs::create_symlink("a.yaml", dir.path / "tree/b.yaml");
  fs::create_symlink("b.yaml", dir.path / "tree/a.yaml");
  auto r = lint("tree", 30);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.find("secret"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("out-"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("loop"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("self"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tree/good.yaml:10:"), std::string::npos) << r.out;
  // Every finding is under the given paths.
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);)
    EXPECT_TRUE(l.rfind("good.yaml:", 0) == 0 || l.rfind("tree/good.yaml:", 0) == 0) << l;
}

TEST_F(Hostile, UnreadableAndMissingPaths) {
  auto r = lint("missing.yaml no/such/dir");
  expectErrorFor(r, "missing.yaml");
  expectErrorFor(r, "no/such/dir");
  expectGoodFileReported(r);
  if (::geteuid() == 0) GTEST_SKIP() << "running as root, which reads any file whatever its mode: chmod 000 cannot be tested";
  dir.write("locked.yaml", kIstioTooMany);
  fs::permissions(dir.path / "locked.yaml", fs::perms::none);
  auto u = lint("locked.yaml");
  expectErrorFor(u, "locked.yaml");
  EXPECT_NE(u.err.find("cannot read"), std::string::npos) << u.err;
  expectGoodFileReported(u);
  fs::permissions(dir.path / "locked.yaml", fs::perms::owner_all);
}

// A directory that cannot be opened (here: the process may hold only a few files open, so the
// walk runs out of descriptors deep in the tree) is an error, and the rest of the tree is still
// walked and analysed. Works as root, unlike chmod.
TEST_F(Hostile, ADirectoryThatCannotBeOpenedDoesNotEndTheWalk) {
  std::string deep = "deep";
  for (int i = 0; i < 40; ++i) deep += "/" + std::to_string(i);
  dir.write(deep + "/lost.yaml", kIstioTooMany);
  dir.write("side/other.yaml", kIstioTooMany);
  auto r = runRetrylintIn(dir.path.string(), "ulimit -n 24; ", "-j1 .");
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot walk the directory"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("side/other.yaml:10:"), std::string::npos) << r.out << r.err;
  expectGoodFileReported(r);
}

// The same inputs give byte-identical output whatever -j is, run after run.
TEST(Determinism, SameOutputAcrossRunsAndJobCounts) {
  std::string paths = "fixtures tests/data/corpus";
  for (const char *format : {"json", "text"}) {
    std::string first;
    for (const char *j : {"-j1", "-j2", "-j8"}) {
      auto r = runIn(RETRYLINT_SOURCE_DIR, std::string("--format ") + format + " " + j + " " + paths, 300);
      expectSurvived(r);
      std::string all = r.out + "\n--stderr--\n" + r.err;
      if (first.empty()) first = all;
      else EXPECT_TRUE(all == first) << format << " output differs with " << j;
    }
  }
}
