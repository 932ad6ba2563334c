// Adopting retrylint on an existing repository and in review pipelines: baselines, inline
// suppressions, changed-lines mode, --fix, SARIF (checked by Microsoft's SARIF validator),
// GitHub annotations and the real pre-commit tool.
#include <filesystem>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "cli_support.h"
#include "rules/rule.h"

namespace fs = std::filesystem;
using namespace retrylint::testing;

namespace {

const char *kTwoRoutes = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: shop}
spec:
  http:
  - name: a
    retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: a}}]
  - name: b
    retries: {attempts: 1, perTryTimeout: 1s}
    route: [{destination: {host: b}}]
)";

int sh(const std::string &cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string bin() { return std::string(RETRYLINT_BINARY); }

} // namespace

TEST(Baseline, OldFindingsStayQuietThroughLineShiftsNewOnesAreReported) {
  TempDir t;
  std::string vs = t.write("vs.yaml", kTwoRoutes);
  std::string base = (t.path / "baseline.json").string();
  CliRun w = runRetrylint("--write-baseline '" + base + "' '" + vs + "'");
  EXPECT_EQ(w.exit_code, 0) << w.err;
  EXPECT_NE(slurp(base).find("\"fingerprint\""), std::string::npos);
  EXPECT_EQ(runRetrylint("--baseline '" + base + "' '" + vs + "'").exit_code, 0);

  // Unrelated edit: five comment lines on top shift every line.
  t.write("vs.yaml", std::string("# one\n# two\n# three\n# four\n# five\n") + kTwoRoutes);
  CliRun shifted = runRetrylint("--baseline '" + base + "' '" + vs + "'");
  EXPECT_EQ(shifted.exit_code, 0) << shifted.out;
  EXPECT_EQ(shifted.out, "");

  // A new finding of the same rule in the same file is still reported.
  std::string more = kTwoRoutes;
  more.replace(more.find("attempts: 1"), 11, "attempts: 8");
  t.write("vs.yaml", more);
  CliRun fresh = runRetrylint("--baseline '" + base + "' '" + vs + "'");
  EXPECT_EQ(fresh.exit_code, 1);
  EXPECT_NE(fresh.out.find("vs.yaml:10:"), std::string::npos) << fresh.out;
  EXPECT_EQ(fresh.out.find("vs.yaml:7:"), std::string::npos) << fresh.out;
}

TEST(Baseline, BrokenBaselineIsExit2WithItsLine) {
  TempDir t;
  std::string base = t.write("b.json", "{\n  \"version\": 1,\n  \"findings\": [\n}\n");
  CliRun r = runRetrylint("--baseline '" + base + "' fixtures/demo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("b.json:4:"), std::string::npos) << r.err;
}

TEST(Suppressions, ReasonedSuppressionSilencesStaleOneIsANote) {
  CliRun r = runRetrylint("--format json fixtures/suppressions/inline.yaml");
  auto parsed = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(parsed));
  int rl203 = 0, rl902 = 0;
  for (const auto &v : *parsed->getAsObject()->getArray("findings")) {
    auto rule = v.getAsObject()->getString("rule");
    rl203 += *rule == "RL203";
    rl902 += *rule == "RL902";
  }
  EXPECT_EQ(rl203, 2); // the unsuppressed route and the one with a misspelt rule name
  EXPECT_EQ(rl902, 2); // the stale suppression and the misspelt one
  EXPECT_EQ(runRetrylint("--disable RL902 --format json fixtures/suppressions/inline.yaml").out.find("RL902"), std::string::npos);
}

TEST(ChangedLines, OnlyFindingsOnChangedLines) {
  TempDir t;
  std::string repo = t.path.string();
  std::string git = "cd '" + repo + "' && git -c init.defaultBranch=main";
  ASSERT_EQ(sh(git + " init -q . && git config user.email t@example.com && git config user.name t"), 0);
  t.write("vs.yaml", kTwoRoutes);
  ASSERT_EQ(sh("cd '" + repo + "' && git add vs.yaml && git commit -qm base"), 0);
  std::string more = kTwoRoutes;
  more.replace(more.find("attempts: 1"), 11, "attempts: 8");
  t.write("vs.yaml", more);
  std::string run = "cd '" + repo + "' && '" + bin() + "' ";
  EXPECT_EQ(sh(run + "vs.yaml > all.txt"), 1);
  EXPECT_NE(slurp(t.path / "all.txt").find("vs.yaml:7:"), std::string::npos);
  EXPECT_EQ(sh(run + "--diff HEAD vs.yaml > diff.txt"), 1);
  std::string diff = slurp(t.path / "diff.txt");
  EXPECT_NE(diff.find("vs.yaml:10:"), std::string::npos) << diff;
  EXPECT_EQ(diff.find("vs.yaml:7:"), std::string::npos) << diff;
  // Without paths, --diff lints the changed files; a unified diff can also come on stdin.
  EXPECT_EQ(sh(run + "--diff HEAD > nopaths.txt"), 1);
  EXPECT_EQ(slurp(t.path / "nopaths.txt"), diff);
  EXPECT_EQ(sh("cd '" + repo + "' && git diff -U0 | '" + bin() + "' --diff - vs.yaml > stdin.txt"), 1);
  EXPECT_EQ(slurp(t.path / "stdin.txt"), diff);
  // Nothing changed: nothing reported.
  ASSERT_EQ(sh("cd '" + repo + "' && git commit -qam second"), 0);
  EXPECT_EQ(sh(run + "--diff HEAD vs.yaml > none.txt"), 0);
  EXPECT_EQ(slurp(t.path / "none.txt"), "");
}

// --fix turns each input under tests/data/fix/ into its `.fixed` twin, byte for byte.
TEST(Fix, AppliesMinimalEditsAndMatchesExpectedFiles) {
  fs::path dir = fs::path(RETRYLINT_SOURCE_DIR) / "tests" / "data" / "fix";
  int checked = 0;
  for (const auto &e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".fixed") continue;
    TempDir t;
    std::string work = t.write(e.path().filename().string(), slurp(e.path()));
    CliRun r = runRetrylint("--fix '" + work + "'");
    EXPECT_NE(r.err.find("applied"), std::string::npos) << e.path() << r.err;
    EXPECT_EQ(slurp(work), slurp(e.path().string() + ".fixed")) << e.path();
    // Fixed files do not carry the fixed findings any more, and a second --fix changes nothing.
    CliRun again = runRetrylint("--fix '" + work + "'");
    EXPECT_EQ(again.err.find("applied"), std::string::npos) << again.err;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

// SARIF describes the rules that ran (as Semgrep's does): those on for some file read, and any
// rule a finding names; each result's ruleIndex points into that list.
TEST(Sarif, ListsTheRulesThatRan) {
  auto rulesOf = [](const std::string &args) {
    CliRun r = runRetrylint("--format sarif " + args);
    std::vector<std::string> ids;
    auto parsed = llvm::json::parse(r.out);
    EXPECT_TRUE(bool(parsed)) << r.err;
    if (!parsed) return ids;
    const auto *run = (*parsed->getAsObject()->getArray("runs"))[0].getAsObject();
    const auto *rules = run->getObject("tool")->getObject("driver")->getArray("rules");
    for (const auto &v : *rules) ids.push_back(v.getAsObject()->getString("id")->str());
    for (const auto &v : *run->getArray("results")) {
      const auto *res = v.getAsObject();
      auto index = res->getInteger("ruleIndex");
      EXPECT_TRUE(index && *index >= 0 && static_cast<size_t>(*index) < ids.size() &&
                  ids[static_cast<size_t>(*index)] == res->getString("ruleId")->str())
          << res->getString("ruleId")->str();
    }
    return ids;
  };
  std::vector<std::string> all = rulesOf("fixtures/demo");
  EXPECT_EQ(all.size(), retrylint::allRules().size()); // every rule is on by default
  std::vector<std::string> some = rulesOf("--disable ALL --enable RL1,RL203 fixtures/demo");
  EXPECT_EQ(some, (std::vector<std::string>{"RL101", "RL102", "RL103", "RL104", "RL105", "RL203"}));
  EXPECT_EQ(rulesOf("--disable RL3 fixtures/demo").size(), all.size() - 4); // RL301 … RL304
}

TEST(Sarif, GoldenAndAcceptedByTheSarifValidator) {
  CliRun r = runRetrylint("--format sarif fixtures/demo");
  EXPECT_EQ(r.exit_code, 1);
  auto parsed = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(parsed));
  const auto *run = (*parsed->getAsObject()->getArray("runs"))[0].getAsObject();
  const auto *results = run->getArray("results");
  ASSERT_GE(results->size(), 10u);
  for (const auto &v : *results) {
    const auto *res = v.getAsObject();
    EXPECT_TRUE(res->getString("ruleId").hasValue());
    EXPECT_TRUE(res->getObject("partialFingerprints")->getString("retrylintFingerprint/v1").hasValue());
    const auto *region = (*res->getArray("locations"))[0].getAsObject()->getObject("physicalLocation")->getObject("region");
    EXPECT_GE(*region->getInteger("startLine"), 1);
  }
  // Golden file for the fix-carrying case (cwd-independent parts only: the base URI differs), with
  // only the rule that reports there on, so the rules' metadata in it is RL901's alone: editing
  // another rule's docs leaves the golden as it is.
  TempDir t;
  std::string in = t.write("in.json", slurp(fs::path(RETRYLINT_SOURCE_DIR) / "tests/data/fix/grpc-codes.json"));
  std::string cmd = "cd '" + t.path.string() + "' && '" + bin() +
                    "' --disable ALL --enable RL901 --format sarif in.json | grep -v '\"uri\": \"file://' > out.sarif";
  sh(cmd);
  expectGolden(slurp(t.path / "out.sarif"), "grpc-codes.sarif");

  // The independent validator (npm @microsoft/sarif-multitool, installed by scripts/setup.sh).
  fs::path validator = fs::path(RETRYLINT_SOURCE_DIR) / "build-tools/node_modules/.bin/sarif-multitool";
  if (!fs::exists(validator)) {
    if (std::getenv("CI")) FAIL() << "the SARIF validator is missing: " << validator;
    GTEST_SKIP() << "no SARIF validator at " << validator << " (scripts/setup.sh installs it)";
  }
  std::string sarif = (t.path / "demo.sarif").string();
  ASSERT_EQ(sh("cd '" + std::string(RETRYLINT_SOURCE_DIR) + "' && '" + bin() + "' --format sarif -o '" + sarif + "' fixtures/demo"), 1);
  std::string log = (t.path / "validate.txt").string();
  int rc = sh("'" + validator.string() + "' validate '" + sarif + "' > '" + log + "' 2>&1");
  std::string out = slurp(log);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find(": error "), std::string::npos) << out;
  EXPECT_NE(out.find("Analysis completed successfully"), std::string::npos) << out;
}

TEST(Github, WorkflowCommands) {
  CliRun r = runRetrylint("--format github fixtures/demo/gateway-routes.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("::error file=fixtures/demo/gateway-routes.yaml,line=17,col=17,endLine=17,endColumn=18,"
                       "title=RL301 deadline-exceeded-by-retries::3 attempts x 1.5 s per try"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("::warning file=fixtures/demo/gateway-routes.yaml,line=19,"), std::string::npos) << r.out;
  CliRun notes = runRetrylint("--format github fixtures/grpc-service-config/throttling-missing.json");
  EXPECT_NE(notes.out.find("::notice file="), std::string::npos) << notes.out;
}

// The real pre-commit tool, with this repository as the hook source: a commit with a bad retry
// config is refused and the finding shown; a clean one passes.
TEST(PreCommit, RefusesABadRetryConfigAndPassesACleanOne) {
  if (sh("command -v pre-commit > /dev/null") != 0) {
    if (std::getenv("CI")) FAIL() << "pre-commit is not installed (scripts/setup.sh installs it)";
    GTEST_SKIP() << "pre-commit is not installed";
  }
  // The hook source must be a git repository with the hooks file committed: use a snapshot.
  TempDir src;
  std::string hooks = src.path.string();
  ASSERT_EQ(sh("cd '" + hooks + "' && git -c init.defaultBranch=main init -q . && cp '" + std::string(RETRYLINT_SOURCE_DIR) +
               "/.pre-commit-hooks.yaml' . && git add . && git -c user.email=t@e -c user.name=t commit -qm hooks"),
            0);
  TempDir t;
  std::string repo = t.path.string();
  std::string env = "export PATH='" + fs::path(RETRYLINT_BINARY).parent_path().string() + "':$PATH PRE_COMMIT_HOME='" +
                    (t.path / ".cache").string() + "' && cd '" + repo + "' && ";
  ASSERT_EQ(sh(env + "git -c init.defaultBranch=main init -q . && git config user.email t@e && git config user.name t"), 0);
  t.write(".pre-commit-config.yaml", "repos:\n  - repo: " + hooks + "\n    rev: HEAD\n    hooks:\n      - id: retrylint\n");
  ASSERT_EQ(sh(env + "rev=$(git -C '" + hooks + "' rev-parse HEAD) && sed -i \"s/rev: HEAD/rev: $rev/\" .pre-commit-config.yaml"), 0);
  ASSERT_EQ(sh(env + "git add .pre-commit-config.yaml && pre-commit install > /dev/null"), 0);

  t.write("deploy/vs.yaml", kTwoRoutes);
  int bad = sh(env + "git add deploy/vs.yaml && git commit -qm bad > bad.txt 2>&1");
  std::string badOut = slurp(t.path / "bad.txt");
  EXPECT_NE(bad, 0) << badOut;
  EXPECT_NE(badOut.find("deploy/vs.yaml:7:"), std::string::npos) << badOut;
  EXPECT_NE(badOut.find("RL203 attempts-excessive"), std::string::npos) << badOut;

  std::string clean = kTwoRoutes;
  clean.replace(clean.find("attempts: 9"), 11, "attempts: 2");
  t.write("deploy/vs.yaml", clean);
  int good = sh(env + "git add deploy/vs.yaml && git commit -qm good > good.txt 2>&1");
  EXPECT_EQ(good, 0) << slurp(t.path / "good.txt");
}

// The CI snippets in the README are the files under docs/ci/, verbatim.
TEST(Docs, ReadmeShowsTheCiSnippetsVerbatim) {
  std::string readme = slurp(fs::path(RETRYLINT_SOURCE_DIR) / "README.md");
  int seen = 0;
  for (const auto &e : fs::directory_iterator(fs::path(RETRYLINT_SOURCE_DIR) / "docs" / "ci")) {
    EXPECT_NE(readme.find(slurp(e.path())), std::string::npos) << e.path() << " is not in the README as it is";
    ++seen;
  }
  EXPECT_GE(seen, 3);
  // The sample `--report layers` is the golden file the layers suite checks the tool against.
  EXPECT_NE(readme.find(slurp(fs::path(RETRYLINT_SOURCE_DIR) / "tests/golden/layers_amplified.txt")), std::string::npos)
      << "the README's layers report is not tests/golden/layers_amplified.txt";
}

// --diff REV reviews what the branch did: against the merge base with REV, and a finding counts
// as touched when any field it is computed from changed, not only the line it is reported at.
TEST(ChangedLines, MergeBaseAndTheFieldsAFindingReads) {
  TempDir t;
  std::string repo = t.path.string();
  auto git = [&](const std::string &cmd) {
    return sh("cd '" + repo + "' && git -c user.email=t@e -c user.name=t " + cmd + " > /dev/null 2>&1");
  };
  const std::string route = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: r}\nspec:\n"
                            "  hosts: [r]\n  http:\n  - route: [{destination: {host: r}}]\n"
                            "    timeout: 10s\n"
                            "    retries:\n      attempts: 2\n      perTryTimeout: 1.5s\n      retryOn: 5xx\n";
  const std::string old = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: o}\nspec:\n"
                          "  hosts: [o]\n  http:\n  - route: [{destination: {host: o}}]\n"
                          "    retries: {attempts: 9, perTryTimeout: 1s}\n";
  t.write("route.yaml", route);
  t.write("old.yaml", old);
  ASSERT_EQ(sh("cd '" + repo + "' && git -c init.defaultBranch=main init -q ."), 0);
  ASSERT_EQ(git("add . && git -c user.email=t@e -c user.name=t commit -qm base"), 0);
  ASSERT_EQ(git("checkout -q -b feature"), 0);
  // The branch lowers the route timeout: 3 attempts x 1.5 s no longer fit. RL301 is reported at
  // `attempts`, a line the branch did not touch.
  std::string lowered = route;
  lowered.replace(lowered.find("timeout: 10s"), 12, "timeout: 3s");
  t.write("route.yaml", lowered);
  ASSERT_EQ(git("commit -qam lower"), 0);
  // Meanwhile main fixed old.yaml; the branch still has the old text, which it did not change.
  ASSERT_EQ(git("checkout -q main"), 0);
  std::string fixed = old;
  fixed.replace(fixed.find("attempts: 9"), 11, "attempts: 2");
  t.write("old.yaml", fixed);
  ASSERT_EQ(git("commit -qam fix-old"), 0);
  ASSERT_EQ(git("checkout -q feature"), 0);

  CliRun r = runRetrylintIn(repo, "", "--no-cache --diff main route.yaml old.yaml");
  EXPECT_NE(r.out.find("route.yaml:10:17: error:"), std::string::npos) << "the lowered timeout's RL301:\n" << r.out << r.err;
  EXPECT_EQ(r.out.find("old.yaml"), std::string::npos) << "main's change blamed on the branch:\n" << r.out;
  // Against main's tip, old.yaml's line would differ; without --diff the finding is there.
  EXPECT_NE(runRetrylintIn(repo, "", "--no-cache old.yaml").out.find("old.yaml:8:"), std::string::npos);

  // A revision is never an option for git.
  CliRun opt = runRetrylintIn(repo, "", "--no-cache --diff=--output=pwned route.yaml");
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_NE(opt.err.find("cannot start with '-'"), std::string::npos) << opt.err;
  EXPECT_FALSE(fs::exists(t.path / "pwned"));
}

// `helm template … | retrylint --stdin-filename chart.yaml -`: many documents in one stream,
// named for recognition, suppressions and reports; what cannot go with standard input is refused.
TEST(Stdin, RenderedHelmOutputIsLintedAsTheNamedFile) {
  TempDir t;
  t.write("rendered.yaml", std::string("---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n"
                                       "---\n# Source: shop/templates/vs.yaml\n") + kTwoRoutes);
  std::string dir = t.path.string();
  CliRun r = runRetrylintIn(dir, "", "--no-cache --stdin-filename chart.yaml - < rendered.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("chart.yaml:15:"), std::string::npos) << r.out; // attempts: 9, in the second document
  EXPECT_NE(r.out.find("RL203 attempts-excessive"), std::string::npos) << r.out;
  // A suppression in the stream applies; JSON is recognised by the name.
  t.write("quiet.yaml", std::string("# retrylint: ignore-file[RL203] rendered defaults\n") + kTwoRoutes);
  EXPECT_EQ(runRetrylintIn(dir, "", "--no-cache --stdin-filename chart.yaml - < quiet.yaml").out.find("RL203"), std::string::npos);
  fs::copy_file(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures/demo/inventory_grpc_service_config.json", t.path / "svc.json");
  CliRun json = runRetrylintIn(dir, "", "--no-cache --stdin-filename svc.json - < svc.json");
  EXPECT_NE(json.out.find("svc.json:10:24: warning: maxAttempts 8"), std::string::npos) << json.out << json.err;
  // Refused, with the reason: other paths, --fix, --diff -, a name without '-', too much input.
  for (const std::string &args : {std::string("- quiet.yaml"), std::string("--fix -"), std::string("--diff - -"),
                                  std::string("--stdin-filename x.yaml quiet.yaml"), std::string("--max-file-size 100 -")}) {
    CliRun bad = runRetrylintIn(dir, "", args + " < rendered.yaml");
    EXPECT_EQ(bad.exit_code, 2) << args << ": " << bad.out;
    EXPECT_NE(bad.err.find("retrylint: error:"), std::string::npos) << args << ": " << bad.err;
  }
}

// One identity per file: a baseline, a fingerprint and a SARIF URI do not depend on how the path
// was typed or where the command ran; inside git they count from the repository root.
TEST(PathIdentity, SameFindingHoweverThePathIsTypedAndWhereverItRuns) {
  TempDir t;
  std::string repo = t.path.string();
  ASSERT_EQ(sh("cd '" + repo + "' && git -c init.defaultBranch=main init -q ."), 0);
  std::string vs = t.write("deploy/istio/vs.yaml", kTwoRoutes);
  std::string base = (t.path / "baseline.json").string();
  ASSERT_EQ(runRetrylintIn(repo, "", "--no-cache --write-baseline baseline.json .").exit_code, 0);
  EXPECT_NE(slurp(base).find("\"path\": \"deploy/istio/vs.yaml\""), std::string::npos) << slurp(base);
  std::string sub = (t.path / "deploy").string();
  for (const std::string &args : {std::string("istio/vs.yaml"), std::string("./istio/vs.yaml"), "'" + vs + "'", std::string("."),
                                  std::string("istio/../istio/vs.yaml")}) {
    CliRun r = runRetrylintIn(sub, "", "--no-cache --baseline ../baseline.json " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ":\n" << r.out;
  }
  auto sarifOf = [&](const std::string &dir, const std::string &args) {
    return runRetrylintIn(dir, "", "--no-cache --format sarif " + args).out;
  };
  auto field = [](const std::string &sarif, const std::string &key) {
    std::smatch m;
    std::regex_search(sarif, m, std::regex("\"" + key + "\": \"([^\"]+)\""));
    return m.size() > 1 ? m[1].str() : std::string();
  };
  std::string fromRoot = sarifOf(repo, "deploy/istio/vs.yaml"), fromSub = sarifOf(sub, "./istio/vs.yaml"),
              absolute = sarifOf(sub, "'" + vs + "'");
  for (const std::string *s : {&fromRoot, &fromSub, &absolute}) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(*s, m, std::regex("\"uri\": \"([^\"]+)\",\\s*\"uriBaseId\": \"%SRCROOT%\"")));
    EXPECT_EQ(m[1].str(), "deploy/istio/vs.yaml");
    EXPECT_EQ(field(*s, "retrylintFingerprint/v1"), field(fromRoot, "retrylintFingerprint/v1"));
  }
  EXPECT_NE(fromSub.find("\"%SRCROOT%\": {\n          \"uri\": \"file://" + repo + "/\""), std::string::npos)
      << fromSub.substr(fromSub.find("originalUriBaseIds"), 200);
}

// Rules are selected by code, name, code prefix or ALL, on the command line and in the config;
// the more specific selector wins whatever the order.
TEST(RuleSelection, PrefixesAndAllWithTheMostSpecificWinning) {
  auto rulesIn = [](const CliRun &r) {
    std::set<std::string> out;
    std::regex code(R"(\[(RL\d+) )");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), code); it != std::sregex_iterator(); ++it) out.insert((*it)[1]);
    return out;
  };
  EXPECT_EQ(rulesIn(runRetrylint("--no-cache --config /dev/null --enable RL301 --disable ALL fixtures/demo")),
            (std::set<std::string>{"RL301"}));
  EXPECT_EQ(rulesIn(runRetrylint("--no-cache --config /dev/null --disable RL4,RL9 --enable RL401 fixtures/demo")),
            (std::set<std::string>{"RL102", "RL203", "RL301", "RL302", "RL303", "RL401"}));
  CliRun none = runRetrylint("--no-cache --disable RL7 fixtures/demo");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("'RL7' selects no rule"), std::string::npos) << none.err;

  TempDir t;
  t.write("vs.yaml", kTwoRoutes);
  t.write(".retrylint.yaml", "rules:\n  RL203: note\n  ALL: off\n  RL2: warning\n");
  CliRun r = runRetrylintIn(t.path.string(), "", "--no-cache --format json vs.yaml");
  EXPECT_NE(r.out.find("\"rule\": \"RL203\",\n      \"name\": \"attempts-excessive\",\n      \"severity\": \"note\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"rule\": \"RL3"), std::string::npos) << r.out;
  t.write(".retrylint.yaml", "rules:\n  RL77: off\n");
  CliRun bad = runRetrylintIn(t.path.string(), "", "--no-cache vs.yaml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'RL77' selects no rule"), std::string::npos) << bad.err;
}

// JSON has no comments: a member the runtime tolerates carries the suppression.
TEST(JsonSuppression, MembersTheRuntimeToleratesCarryIt) {
  TempDir t;
  const std::string grpc = "{\n  \"methodConfig\": [{\n    \"name\": [{\"service\": \"a.B\"}],\n    \"retryPolicy\": {\n"
                           "      \"//retrylint\": \"ignore[RL203] the gateway in front caps it at 3\",\n"
                           "      \"maxAttempts\": 5,\n      \"initialBackoff\": \"0.1s\", \"maxBackoff\": \"1s\", \"backoffMultiplier\": 2,\n"
                           "      \"retryableStatusCodes\": [\"UNAVAILABLE\"]\n    }\n  }]\n}\n";
  t.write("svc.json", grpc);
  CliRun quiet = runRetrylintIn(t.path.string(), "", "--no-cache --max-attempts 3 svc.json");
  EXPECT_EQ(quiet.out.find("RL203"), std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.find("RL902"), std::string::npos) << quiet.out;
  std::string other = grpc;
  other.replace(other.find("ignore[RL203]"), 13, "ignore[RL401]");
  t.write("svc.json", other);
  CliRun loud = runRetrylintIn(t.path.string(), "", "--no-cache --max-attempts 3 svc.json");
  EXPECT_NE(loud.out.find("svc.json:6:22: warning: maxAttempts 5 exceeds"), std::string::npos) << loud.out;
  EXPECT_NE(loud.out.find("svc.json:5:7: note: this suppression silences no finding"), std::string::npos) << loud.out;

  // Step Functions: a retrier's Comment (Step Functions accepts it there).
  const std::string asl = "{\"StartAt\": \"Pay\", \"States\": {\"Pay\": {\"Type\": \"Task\",\n"
                          " \"Resource\": \"arn:aws:lambda:us-east-1:123456789012:function:pay\",\n"
                          " \"Retry\": [{\"ErrorEquals\": [\"States.ALL\"], \"MaxAttempts\": 2, \"JitterStrategy\": \"FULL\",\n"
                          "   \"Comment\": \"retrylint: ignore[RL402] idempotent by design\"}],\n"
                          " \"End\": true}}}\n";
  t.write("flow.asl.json", asl);
  CliRun sfn = runRetrylintIn(t.path.string(), "", "--no-cache flow.asl.json");
  std::string plain = asl;
  plain.replace(plain.find("retrylint: ignore[RL402] idempotent by design"), 45, "idempotent by design");
  t.write("plain.asl.json", plain);
  CliRun plainRun = runRetrylintIn(t.path.string(), "", "--no-cache plain.asl.json");
  EXPECT_NE(plainRun.out.find("RL402"), std::string::npos) << plainRun.out;
  EXPECT_EQ(sfn.out.find("RL402"), std::string::npos) << sfn.out;
  EXPECT_EQ(sfn.out.find("RL902"), std::string::npos) << sfn.out;
}
