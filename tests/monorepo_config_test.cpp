// Monorepo configs: the nearest .retrylint.yaml to each file applies, `extend` builds on another,
// and the nested configs are input from a stranger like any other (errors named, links refused).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "lint/config/config.h"
#include "cli_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// Istio attempts 3: 4 attempts. Above a ceiling of 2, under the default ceiling of 5.
const char *kRoute =
    "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: r}\nspec:\n  hosts: [r]\n"
    "  http:\n  - retries:\n      attempts: 3\n      perTryTimeout: 1s\n    route:\n    - destination: {host: r}\n";

// A repository: the root config lowers the ceiling to 2 attempts; svc-a extends it and makes
// RL203 an error; svc-b has a config of its own (default ceiling) that excludes gen/; svc-c has
// none, so the root config applies there.
struct Monorepo {
  TempDir t;
  std::string root;
  Monorepo() {
    root = (t.path / "repo").string();
    fs::create_directories(t.path / "repo" / ".git");
    t.write("repo/.retrylint.yaml", "settings:\n  max-attempts: 2\n");
    t.write("repo/svc-a/.retrylint.yaml", "extend: ../.retrylint.yaml\nrules:\n  RL203: error\n");
    t.write("repo/svc-b/.retrylint.yaml", "exclude: [gen/**]\n");
    for (const char *f : {"repo/vs.yaml", "repo/svc-a/vs.yaml", "repo/svc-b/vs.yaml", "repo/svc-b/gen/vs.yaml", "repo/svc-c/vs.yaml"})
      t.write(f, kRoute);
  }
  std::string config(const std::string &rel, const std::string &text) const { return t.write("repo/" + rel, text); }
};

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(Monorepo, TheNearestConfigAppliesToEachFile) {
  Monorepo m;
  CliRun r = runRetrylintIn(m.root, "", "--no-cache .");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has("\n" + r.out, "\nvs.yaml:8:17: warning:")) << r.out;     // the root config's ceiling of 2
  EXPECT_TRUE(has(r.out, "svc-a/vs.yaml:8:17: error:")) << r.out;           // extended: ceiling 2, RL203 an error
  EXPECT_FALSE(has(r.out, "svc-b/vs.yaml")) << r.out;                        // its own config: the default ceiling of 5
  EXPECT_FALSE(has(r.out, "gen/vs.yaml")) << r.out;                          // excluded by svc-b's config
  EXPECT_TRUE(has(r.out, "svc-c/vs.yaml:8:17: warning:")) << r.out;         // no config of its own: the root's
  // The same answer for a file wherever the command runs (pre-commit runs from the root, people
  // from the service).
  CliRun inA = runRetrylintIn(m.root + "/svc-a", "", "--no-cache vs.yaml");
  EXPECT_TRUE(has(inA.out, "vs.yaml:8:17: error:")) << inA.out;
  CliRun inB = runRetrylintIn(m.root + "/svc-b", "", "--no-cache . ../svc-a/vs.yaml");
  EXPECT_FALSE(has(inB.out, "gen/vs.yaml")) << inB.out;
  EXPECT_TRUE(has(inB.out, "svc-a/vs.yaml:8:17: error:")) << inB.out;
  // Standard input is looked up by the name it is given.
  CliRun piped = runShellIn(m.root, "\"$RL\" --no-cache --stdin-filename svc-a/x.yaml - < svc-a/vs.yaml");
  EXPECT_TRUE(has(piped.out, "svc-a/x.yaml:8:17: error:")) << piped.out << piped.err;
}

TEST(Monorepo, AnExplicitConfigIsTheOneForEveryFile) {
  Monorepo m;
  CliRun r = runRetrylintIn(m.root, "", "--no-cache --config .retrylint.yaml .");
  EXPECT_TRUE(has(r.out, "svc-b/vs.yaml:8:17: warning:")) << r.out;
  EXPECT_TRUE(has(r.out, "svc-b/gen/vs.yaml:8:17: warning:")) << r.out;
  EXPECT_TRUE(has(r.out, "svc-a/vs.yaml:8:17: warning:")) << r.out;
}

TEST(Monorepo, TheCacheKnowsWhichConfigAFileHad) {
  Monorepo m;
  // The key that signs the entries is made in the scratch directory, not in the user's ~/.config.
  const std::string env = "XDG_CONFIG_HOME='" + (m.t.path / "config").string() + "' ";
  const std::string cache = "--verbose --cache-dir '" + (m.t.path / "cache").string() + "' ";
  EXPECT_TRUE(has(runRetrylintIn(m.root, env, cache + ".").out, "svc-a/vs.yaml:8:17: error:"));
  CliRun hit = runRetrylintIn(m.root, env, cache + ".");
  EXPECT_TRUE(has(hit.out, "svc-a/vs.yaml:8:17: error:")) << hit.out;
  EXPECT_TRUE(has(hit.err, "misses: 0,")) << hit.err; // unchanged files and configs: every result from the cache
  m.config("svc-a/.retrylint.yaml", "extend: ../.retrylint.yaml\n");
  CliRun again = runRetrylintIn(m.root, env, cache + ".");
  EXPECT_TRUE(has(again.out, "svc-a/vs.yaml:8:17: warning:")) << again.out;
  m.config("svc-a/.retrylint.yaml", "settings:\n  max-attempts: 10\n");
  EXPECT_FALSE(has(runRetrylintIn(m.root, env, cache + ".").out, "svc-a/vs.yaml"));
}

TEST(Monorepo, ABrokenNestedConfigIsExit2WithItsLineAndTheOtherFilesStillReported) {
  Monorepo m;
  m.config("svc-c/.retrylint.yaml", "rules:\n  RL999: off\n");
  CliRun r = runRetrylintIn(m.root, "", "--no-cache .");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "svc-c/.retrylint.yaml:2:3: error: 'RL999' selects no rule")) << r.err;
  EXPECT_TRUE(has(r.out, "svc-a/vs.yaml:8:17: error:")) << r.out;
  // Its files fall back to the config above it.
  EXPECT_TRUE(has(r.out, "svc-c/vs.yaml:8:17: warning:")) << r.out;
}

TEST(Monorepo, ANestedConfigWithLayersIsAScopeOfItsOwn) {
  // svc-c declares two layers that each retry 4 times: 16 calls, above its ceiling of 10. The
  // same chain is found from the repository root and from inside svc-c.
  Monorepo m;
  m.config("svc-c/.retrylint.yaml",
           "layers:\n  - name: edge\n    paths: [edge/**]\n  - name: api\n    paths: [api/**]\n");
  m.t.write("repo/svc-c/edge/vs.yaml", kRoute);
  m.t.write("repo/svc-c/api/vs.yaml", kRoute);
  CliRun fromRoot = runRetrylintIn(m.root, "", "--no-cache .");
  EXPECT_TRUE(has(fromRoot.out, "svc-c/api/vs.yaml:8:17: error: retries multiply along the chain edge > api")) << fromRoot.out;
  EXPECT_TRUE(has(fromRoot.out, "= up to 16 calls from 'api'")) << fromRoot.out;
  CliRun inside = runRetrylintIn(m.root + "/svc-c", "", "--no-cache .");
  EXPECT_TRUE(has(inside.out, "api/vs.yaml:8:17: error: retries multiply along the chain edge > api")) << inside.out;
  // The root config declares no layers: the files beside it are in no chain.
  EXPECT_FALSE(has(fromRoot.out, "svc-a/vs.yaml:8:17: error: retries multiply")) << fromRoot.out;
}

TEST(Monorepo, ExtendIsCheckedLikeAnyInput) {
  Monorepo m;
  auto errorsOf = [&](const std::string &text) {
    m.config("svc-c/.retrylint.yaml", text);
    CliRun r = runRetrylintIn(m.root, "", "--no-cache svc-c");
    EXPECT_EQ(r.exit_code, 2) << text << r.err;
    return r.err;
  };
  EXPECT_TRUE(has(errorsOf("extend: .retrylint.yaml\n"), "svc-c/.retrylint.yaml:1:9: error: extend names this file itself"));
  m.config("svc-a/.retrylint.yaml", "extend: ../svc-c/.retrylint.yaml\n");
  EXPECT_TRUE(has(errorsOf("extend: ../svc-a/.retrylint.yaml\n"), ": a cycle"));
  EXPECT_TRUE(has(errorsOf("extend: missing.yaml\n"), "which is not a readable file"));
  EXPECT_TRUE(has(errorsOf("extend: [a, b]\n"), "extend must be the path of another .retrylint.yaml"));
  // Outside the checkout, directly or through a link inside it.
  m.t.write("elsewhere.yaml", "rules:\n  RL203: off\n");
  EXPECT_TRUE(has(errorsOf("extend: ../../elsewhere.yaml\n"), "outside the repository"));
  fs::create_symlink(m.t.path / "elsewhere.yaml", m.t.path / "repo" / "svc-c" / "link.yaml");
  EXPECT_TRUE(has(errorsOf("extend: link.yaml\n"), "outside the repository"));
}

TEST(Monorepo, ANestedConfigThatIsALinkIsRefused) {
  Monorepo m;
  m.t.write("elsewhere.yaml", "rules:\n  RL203: off\n");
  fs::create_symlink(m.t.path / "elsewhere.yaml", m.t.path / "repo" / "svc-c" / ".retrylint.yaml");
  CliRun r = runRetrylintIn(m.root, "", "--no-cache svc-c");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "must be a regular file, not a symbolic link")) << r.err;
  EXPECT_TRUE(has(r.out, "svc-c/vs.yaml:8:17: warning:")) << r.out; // the root config, not the link's
}

TEST(Monorepo, ResolverStopsAtTheRepositoryRoot) {
  Monorepo m;
  // A config above the repository never applies to its files.
  m.t.write(".retrylint.yaml", "rules:\n  RL203: off\n");
  ConfigResolver resolver(nullptr);
  const ProjectConfig *c = resolver.forFile(m.root + "/svc-c/vs.yaml");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(fs::path(c->path), fs::path(m.root) / ".retrylint.yaml");
  const ProjectConfig *a = resolver.forFile(m.root + "/svc-a/deep/er/vs.yaml");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(fs::path(a->path), fs::path(m.root) / "svc-a" / ".retrylint.yaml");
  ASSERT_NE(a->base, nullptr);
  EXPECT_EQ(a->settings.request.max_attempts, 2); // from the config it extends
  EXPECT_TRUE(resolver.errors().empty());
}

} // namespace
