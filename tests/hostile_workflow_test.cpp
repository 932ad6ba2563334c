// A hostile checkout and a hostile machine around the workflow: a full disk or a file-size limit
// while writing the report or the baseline, a stranger's symbolic link where the report goes,
// diffs with odd file names and odd lines, build trees and links named on the command line,
// unreadable directories, oversized and negative baselines, old-Mac line endings.
// Everything hostile is made here at run time in a temporary directory.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "lint/sanitizers.h"
#include "lint/source.h"
#include "lint/suppress/changed_lines.h"
#include "tests/cli_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// One RL203 finding (attempts: 9) on line 8, column 25.
constexpr const char *kVs = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: shop}
spec:
  hosts: [shop]
  http:
  - name: a
    retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: a}}]
  - name: b
    retries: {attempts: 1, perTryTimeout: 1s}
    route: [{destination: {host: b}}]
)";

CliRun sh(const fs::path &dir, const std::string &cmd) { return runShellIn(dir.string(), cmd); }

std::set<std::string> entries(const fs::path &dir) {
  std::set<std::string> out;
  for (const auto &e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// Exit 2 with a message, never LLVM's "IO failure" abort.
void expectWriteError(const CliRun &r, const std::string &message) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.find("LLVM ERROR"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
}

// The findings' "path:line:col:" starts, with `prefix` dropped from each path.
std::set<std::string> findingPlaces(const std::string &out, const std::string &prefix = "") {
  std::set<std::string> places;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, std::regex(R"(^(.*?:\d+:\d+): )"))) continue;
    std::string p = m[1];
    if (!prefix.empty() && p.rfind(prefix, 0) == 0) p = p.substr(prefix.size());
    places.insert(p);
  }
  return places;
}

int shell(const std::string &cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

// ---- Writing the report and the baseline -------------------------------------------------

TEST(HostileOutput, FullStandardOutputIsExit2WithAMessage) {
  TempDir d;
  d.write("vs.yaml", kVs);
  for (const char *args : {"vs.yaml", "--format sarif vs.yaml", "--list-rules", "--explain RL203"}) {
    auto r = sh(d.path, std::string("\"$RL\" ") + args + " > /dev/full");
    expectWriteError(r, "standard output: No space left on device");
  }
}

TEST(HostileOutput, OutputToAFullDeviceIsExit2WithAMessage) {
  TempDir d;
  d.write("vs.yaml", kVs);
  auto r = sh(d.path, "\"$RL\" -o /dev/full vs.yaml");
  expectWriteError(r, "cannot write the report to /dev/full: No space left on device");
  auto b = sh(d.path, "\"$RL\" --write-baseline /dev/full vs.yaml");
  expectWriteError(b, "/dev/full: No space left on device");
  // Nothing was created beside the device.
  for (const auto &e : fs::directory_iterator("/dev"))
    EXPECT_EQ(e.path().filename().string().find("retrylint"), std::string::npos) << e.path();
}

// A write that fails half-way (here: the file-size limit, whose signal is ignored so that the
// write returns EFBIG, as a full disk returns ENOSPC) leaves the old file as it was, and no
// temporary file.
TEST(HostileOutput, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  TempDir d;
  for (int i = 0; i < 40; ++i) d.write("vs" + std::to_string(i) + ".yaml", kVs);
  d.write("report.sarif", "OLD REPORT\n");
  d.write("baseline.json", "OLD BASELINE\n");
  auto before = entries(d.path);
  auto r = sh(d.path, "trap '' XFSZ; ulimit -f 8; \"$RL\" --format sarif -o report.sarif .");
  expectWriteError(r, "cannot write the report to report.sarif: File too large");
  EXPECT_EQ(slurp(d.path / "report.sarif"), "OLD REPORT\n");
  auto b = sh(d.path, "trap '' XFSZ; ulimit -f 8; \"$RL\" --write-baseline baseline.json .");
  expectWriteError(b, "baseline.json: File too large");
  EXPECT_EQ(slurp(d.path / "baseline.json"), "OLD BASELINE\n");
  EXPECT_EQ(entries(d.path), before);

  // A parent that is a file, and a directory as the target: an error naming it, nothing written.
  auto p = sh(d.path, "\"$RL\" -o vs0.yaml/report.txt vs1.yaml");
  expectWriteError(p, "cannot write the report to vs0.yaml/report.txt: ");
  EXPECT_NE(p.err.find("Not a directory"), std::string::npos) << p.err;
  fs::create_directory(d.path / "out");
  auto dir = sh(d.path, "\"$RL\" -o out vs1.yaml");
  expectWriteError(dir, "cannot write the report to out: ");
  EXPECT_TRUE(fs::is_empty(d.path / "out"));
  EXPECT_EQ(slurp(d.path / "vs0.yaml"), kVs);

  // And when it works, the whole report is there, with the old file's permissions.
  fs::permissions(d.path / "report.sarif", fs::perms(0640));
  auto ok = sh(d.path, "\"$RL\" --format sarif -o report.sarif .");
  EXPECT_EQ(ok.exit_code, 1) << ok.err;
  EXPECT_NE(slurp(d.path / "report.sarif").find("\"version\": \"2.1.0\""), std::string::npos);
  EXPECT_EQ(fs::status(d.path / "report.sarif").permissions() & fs::perms::all, fs::perms(0640));
}

// A symbolic link where the report goes is replaced by the report, never written through: a
// checkout cannot make `-o report.sarif` overwrite a file elsewhere.
TEST(HostileOutput, ALinkAtTheOutputPathIsReplacedNotFollowed) {
  TempDir d, elsewhere;
  d.write("vs.yaml", kVs);
  std::string victim = elsewhere.write("victim.txt", "precious\n");
  fs::create_symlink(victim, d.path / "report.txt");
  fs::create_symlink(elsewhere.path / "missing.txt", d.path / "dangling.json");
  auto r = sh(d.path, "\"$RL\" -o report.txt vs.yaml && exit 3; \"$RL\" --write-baseline dangling.json vs.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_FALSE(fs::exists(elsewhere.path / "missing.txt"));
  EXPECT_FALSE(fs::is_symlink(d.path / "report.txt"));
  EXPECT_NE(slurp(d.path / "report.txt").find("vs.yaml:8:25: warning:"), std::string::npos);
  EXPECT_FALSE(fs::is_symlink(d.path / "dangling.json"));
  EXPECT_NE(slurp(d.path / "dangling.json").find("\"RL203\""), std::string::npos);
  // The caller's own streams are still written in place.
  auto out = sh(d.path, "\"$RL\" -o /dev/stdout vs.yaml");
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_NE(out.out.find("vs.yaml:8:25: warning:"), std::string::npos) << out.out << out.err;
  auto dash = sh(d.path, "\"$RL\" -o - vs.yaml");
  EXPECT_EQ(dash.out, out.out);
  EXPECT_TRUE(fs::is_symlink("/dev/stdout") || !fs::exists("/dev/stdout"));
}

// ---- --diff ------------------------------------------------------------------------------

TEST(DiffParser, HeaderPathsAreUnquotedLikeGitWritesThem) {
  EXPECT_EQ(diffHeaderPath("b/plain.yaml"), "b/plain.yaml");
  EXPECT_EQ(diffHeaderPath("b/sp ace.yaml\t"), "b/sp ace.yaml");
  EXPECT_EQ(diffHeaderPath("old.yaml\t2024-01-01 10:00:00.000000000 +0000"), "old.yaml");
  EXPECT_EQ(diffHeaderPath("\"b/we\\\"ird\\tname.yaml\""), "b/we\"ird\tname.yaml");
  EXPECT_EQ(diffHeaderPath("\"b/caf\\303\\251.yaml\""), "b/caf\xc3\xa9.yaml");
  EXPECT_EQ(diffHeaderPath("\"b/back\\\\slash\\nnl\\a\\b\\v\\f\\r.yaml\""), "b/back\\slash\nnl\a\b\v\f\r.yaml");
  EXPECT_EQ(diffHeaderPath("\"b/x\\1y\""), "b/x\001y");
  EXPECT_EQ(diffHeaderPath("\"b/unterminated"), "b/unterminated");
  EXPECT_EQ(diffHeaderPath("/dev/null"), "/dev/null");
}

TEST(DiffParser, HunkCountsDecideWhatIsAHeader) {
  // An added line `++ x` is written `+++ x`: inside a hunk it is an added line, and the file's
  // next hunk still belongs to it.
  std::string diff = "diff --git a/a.yaml b/a.yaml\n"
                     "--- a/a.yaml\n"
                     "+++ b/a.yaml\n"
                     "@@ -0,0 +1,2 @@\n"
                     "+++ note\n"
                     "+--- not a header either\n"
                     "@@ -10 +12 @@\n"
                     "-    retries: {attempts: 1}\n"
                     "+    retries: {attempts: 8}\n"
                     "diff --git a/gone.yaml b/gone.yaml\n"
                     "deleted file mode 100644\n"
                     "--- a/gone.yaml\n"
                     "+++ /dev/null\n"
                     "@@ -1,2 +0,0 @@\n"
                     "-a\n"
                     "-b\n"
                     "diff --git \"a/we\\\"ird\\tname.yaml\" \"b/we\\\"ird\\tname.yaml\"\n"
                     "--- \"a/we\\\"ird\\tname.yaml\"\n"
                     "+++ \"b/we\\\"ird\\tname.yaml\"\n"
                     "@@ -1,4 +1,5 @@\n" // with context: only the added lines count
                     " one\n"
                     "-two\n"
                     "+TWO\n"
                     "+2\n"
                     "\n" // a context line whose space an editor stripped
                     " four\n"
                     "\\ No newline at end of file\n"
                     "diff --git a/old name.yaml b/new name.yaml\n"
                     "similarity index 100%\n"
                     "rename from old name.yaml\n"
                     "rename to new name.yaml\n"
                     "diff --git a/c.yaml b/c.yaml\n"
                     "--- a/c.yaml\t\n"
                     "+++ b/c.yaml\t\n"
                     "@@ -1 +1 @@\r\n"
                     "-x\r\n"
                     "+y\r\n"
                     "@@ garbage @@\n"
                     "+++ b/d.yaml\n";
  ChangedLines c = parseUnifiedDiff(diff, "/repo");
  using Ranges = std::vector<std::pair<int, int>>;
  EXPECT_EQ(c["/repo/a.yaml"], (Ranges{{1, 2}, {12, 12}}));
  EXPECT_EQ(c.count("/repo/gone.yaml"), 0u);
  EXPECT_EQ(c["/repo/we\"ird\tname.yaml"], (Ranges{{2, 3}}));
  EXPECT_TRUE(c.count("/repo/new name.yaml"));
  EXPECT_EQ(c["/repo/c.yaml"], (Ranges{{1, 1}}));
  EXPECT_TRUE(c.count("/repo/d.yaml"));
  EXPECT_EQ(c.count("/repo/note"), 0u);
  EXPECT_EQ(c.count("/repo/b/a.yaml"), 0u);
  EXPECT_EQ(c.size(), 5u) << "entries: a, quoted, new name, c, d, and none else";
  // Hostile counts and headers do not crash or run away.
  EXPECT_TRUE(parseUnifiedDiff("+++ b/x\n@@ -1,99999999999999 +1,99999999999999 @@\n+a\n", "/r").count("/r/x"));
  EXPECT_TRUE(parseUnifiedDiff("@@ -1 +1 @@\n+orphan\n", "/r").empty());
}

// Real git: odd names (quoted by git, octal for non-ASCII bytes unless quotePath is off), names
// with spaces, and an added line starting with `++ `.
TEST(DiffGit, OddNamesAndPlusPlusLinesKeepTheirFindings) {
  TempDir t;
  std::string git = "cd '" + t.path.string() + "' && git -c init.defaultBranch=main ";
  ASSERT_EQ(shell(git + "init -q . && git config user.email t@example.com && git config user.name t"), 0);
  const std::vector<std::string> names = {"we\"ird\tname.yaml", "sp ace.yaml", "caf\xc3\xa9.yaml", "back\\slash.yaml",
                                          "plusplus.yaml"};
  for (const auto &n : names) t.write(n, kVs);
  ASSERT_EQ(shell(git + "add -A && git commit -qm base"), 0);
  std::string changed = kVs;
  changed.replace(changed.find("attempts: 1"), 11, "attempts: 8"); // line 11
  for (const auto &n : names) t.write(n, changed);
  // A first document `++ note` (a plain scalar) two lines up: its diff line reads `+++ note`.
  t.write("plusplus.yaml", "++ note\n---\n" + changed);
  std::set<std::string> want = {"we\"ird\tname.yaml:11:25", "sp ace.yaml:11:25", "caf\xc3\xa9.yaml:11:25",
                                "back\\slash.yaml:11:25", "plusplus.yaml:13:25"};
  auto r = sh(t.path, "\"$RL\" --diff HEAD");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(findingPlaces(r.out), want) << r.out << r.err;
  // The same from a diff on standard input, quoted as git quotes by default (octal escapes).
  auto in = sh(t.path, "git diff -U0 | \"$RL\" --diff - .");
  EXPECT_EQ(findingPlaces(in.out), want) << in.out << in.err;
  auto ctx = sh(t.path, "git diff | \"$RL\" --diff - .");
  EXPECT_EQ(findingPlaces(ctx.out), want) << ctx.out << ctx.err;
  // A renamed file with a change is reported under its new name.
  ASSERT_EQ(shell(git + "add -A && git commit -qm second && git mv 'sp ace.yaml' 'new name.yaml'"), 0);
  changed.replace(changed.find("attempts: 8"), 11, "attempts: 7");
  t.write("new name.yaml", changed);
  auto mv = sh(t.path, "\"$RL\" --diff HEAD");
  EXPECT_EQ(findingPlaces(mv.out), (std::set<std::string>{"new name.yaml:11:25"})) << mv.out << mv.err;
}

// ---- Discovery ---------------------------------------------------------------------------

// A directory named on the command line is walked even when it holds a CMakeCache.txt; build
// trees below it are still skipped; `.`, an absolute path, `dir` and `./dir` find the same.
TEST(HostileWalk, ANamedDirectoryIsWalkedWhateverItsFormAndContents) {
  TempDir t;
  fs::path top = t.path / "proj";
  t.write("proj/CMakeCache.txt", "CMAKE_BUILD_TYPE:STRING=Release\n");
  t.write("proj/vs.yaml", kVs);
  t.write("proj/x/y.yaml", kVs);
  t.write("proj/build/CMakeCache.txt", "");
  t.write("proj/build/generated.yaml", kVs);
  const std::set<std::string> want = {"vs.yaml:8:25", "x/y.yaml:8:25"};
  auto dot = sh(top, "\"$RL\" .");
  EXPECT_EQ(findingPlaces(dot.out), want) << dot.out << dot.err;
  auto dotSlash = sh(top, "\"$RL\" ./");
  EXPECT_EQ(findingPlaces(dotSlash.out, "./"), want) << dotSlash.out << dotSlash.err;
  auto abs = sh(top, "\"$RL\" '" + top.string() + "'");
  EXPECT_EQ(findingPlaces(abs.out, top.string() + "/"), want) << abs.out << abs.err;
  auto rel = sh(t.path, "\"$RL\" proj");
  EXPECT_EQ(findingPlaces(rel.out, "proj/"), want) << rel.out << rel.err;
  auto dotRel = sh(t.path, "\"$RL\" ./proj/");
  EXPECT_EQ(findingPlaces(dotRel.out, "./proj/"), want) << dotRel.out << dotRel.err;
  // The build tree itself, named, is walked too.
  auto build = sh(top, "\"$RL\" build");
  EXPECT_EQ(findingPlaces(build.out), (std::set<std::string>{"build/generated.yaml:8:25"})) << build.out << build.err;
}

// A link to a directory named on the command line is followed (as git and ruff do); links met
// while walking still are not.
TEST(HostileWalk, ALinkToADirectoryNamedOnTheCommandLineIsFollowed) {
  TempDir t, outside;
  t.write("real/vs.yaml", kVs);
  outside.write("secret.yaml", kVs);
  fs::create_directory_symlink(outside.path, t.path / "real/out");
  fs::create_directory_symlink("real", t.path / "link");
  auto r = sh(t.path, "\"$RL\" link");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(findingPlaces(r.out), (std::set<std::string>{"link/vs.yaml:8:25"})) << r.out << r.err;
  EXPECT_EQ(withoutSummary(r.err), "");
}

// Each directory that cannot be opened is an error under its own path (not the top directory's),
// all of them. As root chmod does not stop reads: the process may hold only a few files open, so
// the walk runs out of descriptors deep in each tree.
TEST(HostileWalk, EachUnreadableDirectoryIsReportedByItsOwnPath) {
  TempDir t;
  for (const char *tree : {"a", "b"}) {
    std::string deep = tree;
    for (int i = 0; i < 40; ++i) deep += "/" + std::to_string(i);
    t.write(deep + "/lost.yaml", kVs);
  }
  t.write("vs.yaml", kVs);
  auto r = sh(t.path, "ulimit -n 24; \"$RL\" -j1 .");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("vs.yaml:8:25"), std::string::npos) << r.out;
  std::vector<std::string> errors;
  std::istringstream lines(r.err);
  for (std::string l; std::getline(lines, l);)
    if (l.find("cannot walk the directory") != std::string::npos) errors.push_back(l);
  ASSERT_GE(errors.size(), 2u) << r.err;
  bool inA = false, inB = false;
  for (const std::string &e : errors) {
    EXPECT_EQ(e.find(".:"), std::string::npos) << e;
    inA |= e.rfind("a/0/1/2/", 0) == 0;
    inB |= e.rfind("b/0/1/2/", 0) == 0;
  }
  EXPECT_TRUE(inA && inB) << r.err;
}

// A file over --max-file-size found while walking is never skipped without a word. One whose
// start looks like a retry config is an error, like a named one; any other a warning on
// standard error that leaves the exit code alone (a data dump is no reason to fail the run).
TEST(HostileWalk, AnOversizedFileFoundWhileWalkingIsNamed) {
  TempDir t;
  t.write("vs.yaml", kVs);
  auto big = t.path / "data.json";
  std::ofstream(big) << "[1, 2, 3";
  fs::resize_file(big, 40u << 20); // sparse: nothing big is written
  auto r = sh(t.path, "\"$RL\" .");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("data.json: warning: 41943040 bytes, more than the limit of 33554432 (--max-file-size); skipped"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("vs.yaml:8:25"), std::string::npos);
  auto json = sh(t.path, "\"$RL\" --format json .");
  EXPECT_EQ(json.exit_code, 1) << json.err;
  EXPECT_NE(json.err.find("data.json: warning:"), std::string::npos) << json.err;
}

// ---- Line endings ------------------------------------------------------------------------

TEST(HostileLineEndings, SourceFileSplitsOnEveryLineBreak) {
  SourceFile s("f", "a\rbb\r\nc\nd\r\r");
  ASSERT_EQ(s.lineCount(), 6);
  EXPECT_EQ(s.line(0), "a");
  EXPECT_EQ(s.line(1), "bb");
  EXPECT_EQ(s.line(2), "c");
  EXPECT_EQ(s.line(3), "d");
  EXPECT_EQ(s.line(4), "");
  EXPECT_EQ(s.line(5), "");
  Span c = s.spanAt(6, 1); // "c"
  EXPECT_EQ(c.line, 3);
  EXPECT_EQ(c.column, 1);
  EXPECT_EQ(s.offsetOf(1, 1), 3u);
  // An inserted line ends as the file's lines do.
  EXPECT_EQ(s.insertLineAfter(0, "x").replacement, "x\r");
  EXPECT_EQ(s.insertLineAfter(1, "x").replacement, "x\r\n");
  EXPECT_EQ(SourceFile("g", "a\rb").insertLineAfter(1, "x").replacement, "\rx\r");
  EXPECT_EQ(SourceFile("g", "a\nb").insertLineAfter(1, "x").replacement, "\nx\n");
}

// Files with old-Mac line endings (a lone \r) are analysed, with the same positions as with \n.
TEST(HostileLineEndings, CarriageReturnOnlyFilesAreAnalysed) {
  TempDir t;
  auto cr = [](std::string s) { return std::regex_replace(s, std::regex("\n"), "\r"); };
  t.write("lf/vs.yaml", kVs);
  t.write("cr/vs.yaml", cr(kVs));
  std::string grpc = "{\n  \"methodConfig\": [{\n    \"name\": [{\"service\": \"a.B\"}],\n    \"retryPolicy\": {\n"
                     "      \"maxAttempts\": 9, \"initialBackoff\": \"0.1s\", \"maxBackoff\": \"1s\",\n"
                     "      \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"UNAVAILABLE\"]\n    }\n  }]\n}\n";
  t.write("lf/grpc.json", grpc);
  t.write("cr/grpc.json", cr(grpc));
  std::string ini = "[default]\nretry_mode = standard\nmax_attempts = 9\n";
  t.write("lf/aws/config", ini);
  t.write("cr/aws/config", cr(ini));
  auto lf = sh(t.path / "lf", "\"$RL\" --format json .");
  auto crRun = sh(t.path / "cr", "\"$RL\" --format json .");
  EXPECT_EQ(crRun.err, "");
  ASSERT_NE(lf.out.find("grpc.json"), std::string::npos) << lf.out;
  ASSERT_NE(lf.out.find("aws/config"), std::string::npos) << lf.out;
  EXPECT_EQ(crRun.out, lf.out);
  // Named, too.
  auto named = sh(t.path / "cr", "\"$RL\" vs.yaml");
  EXPECT_EQ(findingPlaces(named.out), (std::set<std::string>{"vs.yaml:8:25"})) << named.out << named.err;
}

// ---- Baselines ---------------------------------------------------------------------------

TEST(HostileBaseline, BadCountsAreRefusedNamingTheEntry) {
  TempDir t;
  t.write("vs.yaml", kVs);
  auto entry = [](const std::string &count) {
    return "{\"version\": 1, \"findings\": [{\"rule\": \"RL101\", \"path\": \"x.yaml\", \"fingerprint\": \"f\"},\n"
           "{\"rule\": \"RL203\", \"path\": \"vs.yaml\", \"fingerprint\": \"abc\", \"count\": " + count + "}]}\n";
  };
  for (std::string count : {"-1", "0", "1.5", "\"2\"", "99999999999", "-9223372036854775808"}) {
    t.write("base.json", entry(count));
    auto r = sh(t.path, "\"$RL\" --baseline base.json vs.yaml");
    EXPECT_EQ(r.exit_code, 2) << count << r.out << r.err;
    EXPECT_NE(r.err.find("base.json: error: baseline entry 2 (RL203 in vs.yaml): count must be a whole number"),
              std::string::npos)
        << count << "\n" << r.err;
    EXPECT_EQ(r.out, "");
  }
  t.write("base.json", entry("3"));
  EXPECT_EQ(sh(t.path, "\"$RL\" --baseline base.json vs.yaml").exit_code, 1);
}

TEST(HostileBaseline, AnOversizedOrEndlessBaselineIsRefused) {
  TempDir t;
  t.write("vs.yaml", kVs);
  auto big = t.path / "big.json";
  std::ofstream(big) << "{\"version\": 1, \"findings\": [";
  fs::resize_file(big, 700u << 20); // sparse
  // Memory bounded (outside ASan, whose shadow memory `ulimit -v` breaks).
  const std::string limit = kAddressSanitizer ? "" : "ulimit -v 2097152; ";
  auto r = sh(t.path, limit + "timeout 60 \"$RL\" --baseline big.json vs.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("big.json: error: the baseline is larger than 64 MiB"), std::string::npos) << r.err;
  auto zero = sh(t.path, limit + "timeout 60 \"$RL\" --baseline /dev/zero vs.yaml");
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_NE(zero.err.find("/dev/zero: error: the baseline is larger than 64 MiB"), std::string::npos) << zero.err;
  auto dir = sh(t.path, "\"$RL\" --baseline . vs.yaml");
  EXPECT_EQ(dir.exit_code, 2) << dir.err;
  EXPECT_NE(dir.err.find("cannot read the baseline"), std::string::npos) << dir.err;
}
