// A hostile checkout must not steer retrylint through its config lookup: a .retrylint.yaml
// above the repository (or across a file-system boundary) never applies to it.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "lint/config/config.h"
#include "lint/engine.h"
#include "tests/cli_support.h"
#include "tests/fixture_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// One RL203 finding on line 6.
const char *kWarn = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: w}
spec:
  http:
  - retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: w}}]
)";
} // namespace

namespace {
// Whether `dir` or a directory above it holds .git or .retrylint.yaml (the tests below assume
// the temporary directory is in no repository).
bool inRepositoryOrConfigured(fs::path dir) {
  for (;; dir = dir.parent_path()) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir / ".git", ec)) || fs::exists(dir / ".retrylint.yaml", ec)) return true;
    if (dir == dir.parent_path()) return false;
  }
}
const char *kSilence = "rules: {RL203: off}\n";
} // namespace

// A config in the directory above the repository (the checkout's parent, which a stranger's
// repository does not own) is not applied; with .git a directory or a file (worktrees, submodules).
TEST(HostileConfig, ConfigAboveTheRepositoryIsNotApplied) {
  for (bool gitFile : {false, true}) {
    TempDir t;
    t.write(".retrylint.yaml", kSilence);
    fs::path repo = fs::canonical(t.path) / "repo";
    if (gitFile) t.write("repo/.git", "gitdir: /elsewhere/.git/worktrees/repo\n");
    else fs::create_directories(repo / ".git");
    t.write("repo/deploy/vs.yaml", kWarn);
    for (fs::path cwd : {repo, repo / "deploy"}) {
      CliRun r = runRetrylintIn(cwd.string(), "", "--verbose .");
      EXPECT_EQ(r.exit_code, 1) << cwd << r.out << r.err;
      EXPECT_NE(r.out.find("vs.yaml:6:25: warning"), std::string::npos) << r.out;
      EXPECT_NE(r.err.find("retrylint: no config: no .retrylint.yaml from " + cwd.string() + " up to " + repo.string() +
                           " (the repository root)"),
                std::string::npos)
          << r.err;
    }
  }
}

TEST(HostileConfig, ConfigAtTheRepositoryRootIsAppliedAndNamed) {
  TempDir t;
  fs::path repo = fs::canonical(t.path) / "repo";
  fs::create_directories(repo / ".git");
  t.write("repo/.retrylint.yaml", kSilence);
  t.write("repo/deploy/vs.yaml", kWarn);
  CliRun r = runRetrylintIn((repo / "deploy").string(), "", "--verbose .");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("retrylint: using config " + (repo / ".retrylint.yaml").string() + "\n"), std::string::npos) << r.err;
  // --config names the file given (absolute), and /dev/null says there is none.
  CliRun given = runRetrylintIn(repo.string(), "", "--verbose --config .retrylint.yaml deploy");
  EXPECT_NE(given.err.find("retrylint: using config " + (repo / ".retrylint.yaml").string() + "\n"), std::string::npos)
      << given.err;
  CliRun none = runRetrylintIn(repo.string(), "", "--verbose --config /dev/null deploy");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("retrylint: no config: --config /dev/null"), std::string::npos) << none.err;
  // Without --verbose, nothing is said.
  EXPECT_EQ(runRetrylintIn((repo / "deploy").string(), "", ".").err, "");
}

// Outside any repository the search still goes up (to the top of the file system).
TEST(HostileConfig, OutsideAnyRepositoryTheParentsConfigIsFound) {
  TempDir t;
  if (inRepositoryOrConfigured(fs::canonical(t.path).parent_path()))
    GTEST_SKIP() << "the temporary directory is inside a repository or under a .retrylint.yaml";
  t.write(".retrylint.yaml", kSilence);
  t.write("sub/vs.yaml", kWarn);
  CliRun r = runRetrylintIn((t.path / "sub").string(), "", "--verbose vs.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("retrylint: using config " + (fs::canonical(t.path) / ".retrylint.yaml").string()), std::string::npos)
      << r.err;
  std::string stoppedAt;
  EXPECT_EQ(findProjectConfig(fs::canonical(t.path / "sub").string(), &stoppedAt), (fs::canonical(t.path) / ".retrylint.yaml").string());
}

// /proc is a file system of its own: a search starting inside it ends at /proc, not at /.
TEST(HostileConfig, SearchStopsAtTheEdgeOfTheFileSystem) {
  struct stat root, proc;
  if (::stat("/", &root) != 0 || ::stat("/proc/sys", &proc) != 0 || root.st_dev == proc.st_dev)
    GTEST_SKIP() << "no /proc mounted apart from /";
  std::string stoppedAt;
  EXPECT_EQ(findProjectConfig("/proc/sys", &stoppedAt), "");
  EXPECT_EQ(stoppedAt, "/proc (the top of its file system)");
  EXPECT_EQ(findProjectConfig("/no/such/dir", &stoppedAt), "");
  EXPECT_EQ(stoppedAt, "/no/such/dir (cannot be read)");
}
