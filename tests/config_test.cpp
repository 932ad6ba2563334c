// .retrylint.yaml: discovery, strict validation with line numbers, rule settings, excludes,
// per-path overrides and their precedence with the command line.
#include <gtest/gtest.h>

#include "cli_support.h"
#include "lint/config/config.h"
#include "lint/engine.h"

using namespace retrylint;
using namespace retrylint::testing;

namespace {
std::optional<ProjectConfig> load(const TempDir &t, const std::string &text, std::vector<Diagnostic> &errors) {
  return loadProjectConfig(t.write(".retrylint.yaml", text), errors);
}

const char *kWarn = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: w}
spec:
  http:
  - retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: w}}]
)";
} // namespace

TEST(Config, ReadsEverySection) {
  TempDir t;
  std::vector<Diagnostic> errors;
  auto c = load(t, R"(rules:
  RL303: off
  backoff-missing-jitter: error
settings:
  max-attempts: 4
  max-amplification: 20
exclude:
  - third_party/**
overrides:
  - paths: [legacy/**]
    rules: {RL203: note}
layers:
  - name: gateway
    paths: [deploy/istio/**]
  - name: db
    paths: [src/db/**]
    owns-retries: true
)", errors);
  ASSERT_TRUE(c) << errors.front().message;
  EXPECT_EQ(c->rules.at("RL303").enabled, false);
  EXPECT_EQ(c->rules.at("RL101").severity, Severity::Error);
  EXPECT_EQ(c->settings.request.max_attempts, 4);
  EXPECT_EQ(c->settings.max_amplification, 20);
  EXPECT_EQ(c->exclude, std::vector<std::string>{"third_party/**"});
  ASSERT_EQ(c->overrides.size(), 1u);
  EXPECT_EQ(c->overrides[0].rules.at("RL203").severity, Severity::Note);
  ASSERT_EQ(c->layers.size(), 2u);
  EXPECT_TRUE(c->layers[1].owns_retries);
}

TEST(Config, ErrorsNameTheLine) {
  struct Case {
    const char *text;
    int line;
    const char *words;
  } cases[] = {
      {"rules:\n  RL303: off\nsetings:\n  max-attempts: 3\n", 3, "unknown key 'setings'"},
      {"rules:\n  RL999: off\n", 2, "'RL999' selects no rule"},
      {"rules:\n  RL101: loud\n", 2, "'loud' is not on, off, error, warning or note"},
      {"settings:\n  max-attempts: zero\n", 2, "positive whole number"},
      {"settings:\n  max-tries: 3\n", 2, "unknown key 'max-tries' in settings"},
      {"layers:\n  - name: a\n    paths: [x/**]\n    owns-retries: true\n  - name: b\n    paths: [y/**]\n    owns-retries: true\n", 7,
       "both own retries"},
      {"layers:\n  - name: a\n    paths: [x/**]\n  - name: a\n    paths: [y/**]\n", 4, "declared twice"},
      {"exclude: [\"[z-a]\"]\n", 1, "not a valid glob"},
      {"rules: [RL101\n", 2, "invalid YAML"},
  };
  for (const auto &c : cases) {
    TempDir t;
    std::vector<Diagnostic> errors;
    EXPECT_FALSE(load(t, c.text, errors)) << c.text;
    ASSERT_EQ(errors.size(), 1u) << c.text;
    EXPECT_EQ(errors[0].line, c.line) << c.text << errors[0].message;
    EXPECT_NE(errors[0].message.find(c.words), std::string::npos) << errors[0].message;
  }
}

TEST(Config, FoundWalkingUp) {
  TempDir t;
  t.write(".retrylint.yaml", "rules: {RL203: off}\n");
  t.write("a/b/c/keep.txt", "");
  EXPECT_EQ(findProjectConfig((t.path / "a/b/c").string()), (t.path / ".retrylint.yaml").string());
  TempDir none;
  EXPECT_EQ(findProjectConfig(none.path.string()), findProjectConfig(none.path.parent_path().string()));
}

TEST(Globs, GitignoreLike) {
  EXPECT_TRUE(globMatches("third_party/**", "third_party/x/y.yaml"));
  EXPECT_FALSE(globMatches("third_party/**", "src/third_party.yaml"));
  EXPECT_TRUE(globMatches("vendor", "a/vendor/b.yaml"));
  EXPECT_TRUE(globMatches("*.json", "deep/dir/x.json"));
  EXPECT_TRUE(globMatches("/top.yaml", "top.yaml"));
  EXPECT_FALSE(globMatches("/top.yaml", "sub/top.yaml"));
  EXPECT_TRUE(globMatches("deploy/", "deploy/istio/vs.yaml"));
}

TEST(ConfigCli, RulesExcludesAndOverridesApply) {
  TempDir t;
  t.write("proj/.retrylint.yaml", "exclude: [vendor]\noverrides:\n  - paths: [legacy/**]\n    rules: {attempts-excessive: off}\n");
  t.write("proj/vendor/vs.yaml", kWarn);
  t.write("proj/legacy/vs.yaml", kWarn);
  t.write("proj/new/vs.yaml", kWarn);
  std::string dir = (t.path / "proj").string();
  CliRun r = runRetrylint("--config '" + dir + "/.retrylint.yaml' '" + dir + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("new/vs.yaml:6:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("vendor/vs.yaml"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("legacy/vs.yaml"), std::string::npos) << r.out;
  // The command line wins over the config.
  CliRun cli = runRetrylint("--config '" + dir + "/.retrylint.yaml' --enable RL203 '" + dir + "/legacy/vs.yaml'");
  EXPECT_NE(cli.out.find("legacy/vs.yaml:6:"), std::string::npos) << cli.out;
}

TEST(ConfigCli, FoundFromTheWorkingDirectoryAndBadConfigIsExit2) {
  TempDir t;
  t.write(".retrylint.yaml", "settings:\n  max-attempts: 20\n");
  t.write("vs.yaml", kWarn);
  // Run from the temp dir: the config there raises the ceiling above 10 attempts.
  std::string cmd = "cd '" + t.path.string() + "' && '" + std::string(RETRYLINT_BINARY) + "' vs.yaml > out.txt 2> err.txt";
  int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(t.path / "out.txt") << slurp(t.path / "err.txt");
  t.write(".retrylint.yaml", "settings:\n  max-attempts: 20\n  colour: blue\n");
  status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(slurp(t.path / "err.txt").find(".retrylint.yaml:3:3: error: unknown key 'colour' in settings"), std::string::npos)
      << slurp(t.path / "err.txt");
}

// Every mistake in a config is reported in one run, in line order, not only the first.
TEST(Config, EveryErrorInOneRun) {
  std::vector<Diagnostic> errors;
  auto c = parseProjectConfig(".retrylint.yaml",
                              "rules:\n  RL77: off\n  RL301: sometimes\nsettings:\n  max-attempts: zero\n  colour: red\n"
                              "overrides:\n  - {paths: [a], rules: {RL88: off}}\nunknown: 1\n",
                              errors);
  EXPECT_FALSE(c);
  std::vector<int> lines;
  for (const Diagnostic &d : errors) lines.push_back(d.line);
  EXPECT_EQ(lines, (std::vector<int>{2, 3, 5, 6, 8, 9}));
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_NE(errors[1].message.find("'sometimes' is not on, off"), std::string::npos) << errors[1].message;
  EXPECT_NE(errors[4].message.find("'RL88' selects no rule"), std::string::npos) << errors[4].message;
}
