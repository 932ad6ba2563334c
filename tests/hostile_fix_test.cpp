// --fix on a hostile checkout, and on ordinary files it must not damage: it writes the fixed
// file and nothing else, never through a link planted by the checkout, keeps the file's mode and
// owner, leaves links and hard links alone, writes nothing when the file changed since it was
// analysed, and fixes a file once however it was named.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "lint/fix/apply_fixes.h"
#include "tests/cli_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// A gRPC service config whose retryableStatusCodes holds a permanent code: the fix removes it.
std::string fixable() {
  return slurp(fs::path(RETRYLINT_SOURCE_DIR) / "tests" / "data" / "fix" / "grpc-codes.json");
}
std::string fixedText() {
  return slurp(fs::path(RETRYLINT_SOURCE_DIR) / "tests" / "data" / "fix" / "grpc-codes.json.fixed");
}

CliRun fixIn(const fs::path &dir, const std::string &args) { return runRetrylintIn(dir.string(), "", "--fix " + args); }

// What a directory holds besides `keep`: --fix must leave no temporary file behind.
std::vector<std::string> strayFiles(const fs::path &dir, const std::set<std::string> &keep) {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(dir))
    if (!keep.count(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

} // namespace

TEST(HostileFix, ALinkPlantedAtTheOldTemporaryNameIsNeverWrittenThrough) {
  TempDir t;
  fs::create_directories(t.path / "repo");
  t.write("victim.rc", "echo safe\n");
  t.write("repo/svc.json", fixable());
  // The name the old --fix wrote its temporary file to, as a link out of the repository.
  fs::create_symlink("../victim.rc", t.path / "repo" / "svc.json.retrylint-fix");
  CliRun r = fixIn(t.path / "repo", "svc.json");
  EXPECT_NE(r.err.find("applied"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(t.path / "victim.rc"), "echo safe\n");
  EXPECT_TRUE(fs::is_symlink(t.path / "repo" / "svc.json.retrylint-fix"));
  EXPECT_EQ(slurp(t.path / "repo" / "svc.json"), fixedText());
  EXPECT_EQ(strayFiles(t.path / "repo", {"svc.json", "svc.json.retrylint-fix"}), std::vector<std::string>{});
}

TEST(HostileFix, ASymlinkedFileIsRefusedAndItsTargetUntouched) {
  TempDir t;
  fs::create_directories(t.path / "repo");
  t.write("outside.json", fixable());
  fs::create_symlink("../outside.json", t.path / "repo" / "svc.json");
  CliRun r = fixIn(t.path / "repo", "svc.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("svc.json: error: --fix: is a symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(t.path / "outside.json"), fixable());
  EXPECT_TRUE(fs::is_symlink(t.path / "repo" / "svc.json"));
}

TEST(HostileFix, AHardLinkedFileIsRefusedSoTheLinksStayOneFile) {
  TempDir t;
  std::string a = t.write("a.json", fixable());
  fs::create_hard_link(a, t.path / "b.json");
  CliRun r = fixIn(t.path, "a.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("a.json: error: --fix: has 2 hard links"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(t.path / "b.json"), fixable());
  EXPECT_EQ(fs::hard_link_count(t.path / "a.json"), 2u);
}

TEST(HostileFix, ModeAndOwnerAreKept) {
  TempDir t;
  std::string p = t.write("svc.json", fixable());
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  // As root, a file owned by someone else must stay theirs.
  const bool root = ::geteuid() == 0;
  if (root) ASSERT_EQ(::chown(p.c_str(), 4242, 4343), 0);
  CliRun r = fixIn(t.path, "svc.json");
  EXPECT_NE(r.err.find("applied"), std::string::npos) << r.err;
  ASSERT_EQ(slurp(p), fixedText());
  struct stat st;
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  if (root) {
    EXPECT_EQ(st.st_uid, 4242u);
    EXPECT_EQ(st.st_gid, 4343u);
  }
  EXPECT_EQ(strayFiles(t.path, {"svc.json"}), std::vector<std::string>{});
}

TEST(HostileFix, AFileNamedTwiceIsFixedOnce) {
  TempDir t;
  std::string p = t.write("svc.json", fixable());
  const CliRun once = fixIn(t.path, "svc.json");
  ASSERT_NE(once.err.find("applied 2 fixes in 1 file"), std::string::npos) << once.err;
  for (const std::string &args : {std::string("svc.json svc.json"), ". '" + p + "'", "./svc.json '" + p + "' ."}) {
    t.write("svc.json", fixable());
    CliRun r = fixIn(t.path, args);
    EXPECT_EQ(r.err, once.err) << args; // the summary too: one file, counted once
    EXPECT_EQ(slurp(p), fixedText()) << args;
  }
}

TEST(HostileFix, AFileChangedSinceItWasAnalysedIsNotWritten) {
  TempDir t;
  std::string p = t.write("svc.json", fixable());
  RunOptions options;
  options.paths = {p};
  RunResult result = run(options);
  size_t withFixes = 0;
  for (const Finding &f : result.findings) withFixes += !f.fixes.empty();
  ASSERT_GT(withFixes, 0u);
  // Edited between the analysis and the write: the offsets no longer point where they did.
  const std::string edited = "\n\n" + fixable();
  t.write("svc.json", edited);
  FixSummary s = applyFixes(result.findings);
  EXPECT_EQ(s.fixes_applied, 0u);
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].message.find("changed since it was analysed"), std::string::npos) << s.errors[0].message;
  EXPECT_EQ(slurp(p), edited);
}

TEST(HostileFix, EditsOutsideTheTextOrOverlappingAreRefusedAndInsertionsKeepTheirOrder) {
  std::string text = "abcdef";
  TextEdit past;
  past.offset = 4;
  past.length = 5;
  EXPECT_FALSE(applyEdits(text, {past}));
  TextEdit huge;
  huge.offset = SIZE_MAX - 1;
  huge.length = 4;
  EXPECT_FALSE(applyEdits(text, {huge}));
  TextEdit insA, insB;
  insA.offset = insB.offset = 2;
  insA.replacement = "X";
  insB.replacement = "Y";
  EXPECT_EQ(text, "abcdef");
  // Insertions at one offset: each lands before the one applied before it, always the same way.
  EXPECT_TRUE(applyEdits(text, {insA, insB}));
  EXPECT_EQ(text, "abYXcdef");
  text = "abcdef";
  TextEdit rep;
  rep.offset = 2;
  rep.length = 1;
  rep.replacement = "C";
  EXPECT_TRUE(applyEdits(text, {insA, rep}));
  EXPECT_EQ(text, "abXCdef");
  TextEdit overlap;
  overlap.offset = 1;
  overlap.length = 2;
  text = "abcdef";
  EXPECT_FALSE(applyEdits(text, {overlap, rep}));
  EXPECT_EQ(text, "abcdef");
}

TEST(HostileFix, AFailedWriteLeavesTheFileAsItWas) {
  // A full disk, simulated with the file-size limit: every write fails (EFBIG, SIGXFSZ ignored).
  TempDir t;
  std::string p = t.write("svc.json", fixable());
  CliRun r = runRetrylintIn(t.path.string(), "trap '' XFSZ; ulimit -f 0; ", "--fix svc.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(slurp(p), fixable());
  EXPECT_EQ(strayFiles(t.path, {"svc.json"}), std::vector<std::string>{});
}
