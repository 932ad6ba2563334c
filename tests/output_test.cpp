// What a person at a terminal or a CI log sees around the findings: colour (NO_COLOR, --color),
// the summary line, --statistics, --show-source, --list-rules --format json, and the SARIF
// details code scanning reads (informationUri, helpUri, columnKind).
#include <filesystem>
#include <regex>

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "cli_support.h"

namespace fs = std::filesystem;
using namespace retrylint::testing;

namespace {

const char *kRoute = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: café}
spec:
  hosts: [a]
  http:
  - name: «paiement»
    retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: a}}]
)";

} // namespace

TEST(Output, ColourFollowsNoColorAndTheFlag) {
  TempDir t;
  t.write("vs.yaml", kRoute);
  std::string dir = t.path.string();
  // Not a terminal: no colour unless asked; asked, colour even with NO_COLOR set.
  EXPECT_EQ(runRetrylintIn(dir, "", "--no-cache vs.yaml").out.find("\x1b["), std::string::npos);
  CliRun always = runRetrylintIn(dir, "NO_COLOR=1 ", "--no-cache --color=always vs.yaml");
  EXPECT_NE(always.out.find("\x1b["), std::string::npos) << always.out;
  EXPECT_EQ(runRetrylintIn(dir, "", "--no-cache --color=never vs.yaml").out.find("\x1b["), std::string::npos);
  CliRun bad = runRetrylintIn(dir, "", "--color=sometimes vs.yaml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--color must be auto, always or never"), std::string::npos) << bad.err;
  // On a terminal (script(1) gives one), NO_COLOR turns auto off.
  if (std::system("command -v script > /dev/null 2>&1") == 0) {
    CliRun tty = runShellIn(dir, "export RL; script -qec '\"$RL\" --no-cache vs.yaml' /dev/null");
    EXPECT_NE(tty.out.find("\x1b["), std::string::npos) << tty.out;
    CliRun noColor = runShellIn(dir, "export RL; NO_COLOR=1 script -qec '\"$RL\" --no-cache vs.yaml' /dev/null");
    EXPECT_EQ(noColor.out.find("\x1b["), std::string::npos) << noColor.out;
  }
}

TEST(Output, SummaryCountsAndWarnsWhenNothingIsRecognised) {
  TempDir t;
  t.write("deploy/vs.yaml", kRoute);
  t.write("deploy/other.yaml", "name: x\n");
  CliRun r = runRetrylintIn(t.path.string(), "", "--no-cache deploy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("retrylint: 0 errors, 1 warning, 0 notes in 1 file; 1 file with retry settings of 2 read\n"),
            std::string::npos)
      << r.err;
  CliRun none = runRetrylintIn(t.path.string(), "", "--no-cache deploy/other.yaml");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.err.find("warning: none of the 1 file read holds retry settings"), std::string::npos) << none.err;
  fs::create_directories(t.path / "empty");
  CliRun empty = runRetrylintIn(t.path.string(), "", "--no-cache empty");
  EXPECT_NE(empty.err.find("warning: no file to read in empty"), std::string::npos) << empty.err;
  // Machine formats keep standard error for errors only.
  EXPECT_EQ(runRetrylintIn(t.path.string(), "", "--no-cache --format json deploy").err, "");
}

TEST(Output, StatisticsCountFindingsPerRule) {
  CliRun text = runRetrylint("--no-cache --statistics fixtures/demo");
  EXPECT_EQ(text.exit_code, 1);
  // One row per rule and severity: RL401's two errors and its note (a 409 retried) apart.
  EXPECT_NE(text.out.find("     2  RL401  retry-on-permanent-error                 error"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("     1  RL401  retry-on-permanent-error                 note"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("gateway-routes.yaml"), std::string::npos) << "statistics replace the findings";
  CliRun json = runRetrylint("--no-cache --statistics --format json fixtures/demo");
  auto v = llvm::json::parse(json.out);
  ASSERT_TRUE(bool(v)) << json.out;
  // Most frequent first; ties by rule code.
  const auto *first = (*v->getAsArray())[0].getAsObject();
  EXPECT_EQ(first->getString("rule")->str(), "RL203");
  EXPECT_EQ(*first->getInteger("count"), 2);
  const auto *third = (*v->getAsArray())[2].getAsObject();
  EXPECT_EQ(third->getString("rule")->str(), "RL401");
  EXPECT_EQ(third->getString("severity")->str(), "error");
  EXPECT_EQ(runRetrylint("--statistics --format sarif fixtures/demo").exit_code, 2);
}

TEST(Output, ShowSourcePutsACaretUnderTheColumn) {
  TempDir t;
  t.write("vs.yaml", kRoute);
  CliRun r = runRetrylintIn(t.path.string(), "", "--no-cache --show-source vs.yaml");
  // "attempts: 9" on line 8: the caret under the 9 (column 25), one tilde-less character.
  EXPECT_NE(r.out.find("vs.yaml:8:25: warning:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n    retries: {attempts: 9, perTryTimeout: 1s}\n                        ^\n"), std::string::npos) << r.out;
  // Not a terminal, not asked: no excerpt.
  EXPECT_EQ(runRetrylintIn(t.path.string(), "", "--no-cache vs.yaml").out.find("^"), std::string::npos);
  EXPECT_EQ(runRetrylintIn(t.path.string(), "", "--no-cache --show-source --no-show-source vs.yaml").out.find("^"), std::string::npos);
}

TEST(Output, ListRulesAsJsonWithHelpUris) {
  CliRun r = runRetrylint("--list-rules --format json");
  auto v = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(v)) << r.out;
  const auto &rules = *v->getAsArray();
  EXPECT_GE(rules.size(), 20u);
  const auto *rl301 = std::find_if(rules.begin(), rules.end(), [](const llvm::json::Value &x) {
                        return x.getAsObject()->getString("code")->str() == "RL301";
                      })->getAsObject();
  EXPECT_EQ(rl301->getString("name")->str(), "deadline-exceeded-by-retries");
  EXPECT_EQ(rl301->getString("severity")->str(), "error");
  EXPECT_EQ(rl301->getString("help_uri")->str(),
            "https://github.com/OWNER/retrylint/blob/v" RETRYLINT_VERSION "/docs/rules.md#rl301-deadline-exceeded-by-retries");
  // The page the URIs point to is in the repository and current.
  EXPECT_EQ(slurp(fs::path(RETRYLINT_SOURCE_DIR) / "docs/rules.md"), runRetrylint("--explain all").out)
      << "docs/rules.md is stale: retrylint --explain all > docs/rules.md";
  EXPECT_NE(slurp(fs::path(RETRYLINT_SOURCE_DIR) / "docs/rules.md").find("\n## RL301 deadline-exceeded-by-retries\n"),
            std::string::npos);
}

// Columns in SARIF count code points (columnKind), not UTF-8 bytes as the text output does.
TEST(Output, SarifColumnsCountCodePoints) {
  TempDir t;
  t.write("vs.yaml", std::string(kRoute).replace(std::string(kRoute).find("    retries: {attempts: 9"), 25,
                                                  "    retries: {é: 1, attempts: 9"));
  CliRun text = runRetrylintIn(t.path.string(), "", "--no-cache vs.yaml");
  EXPECT_NE(text.out.find("vs.yaml:8:32:"), std::string::npos) << text.out; // bytes: é is two
  CliRun sarif = runRetrylintIn(t.path.string(), "", "--no-cache --format sarif vs.yaml");
  EXPECT_NE(sarif.out.find("\"columnKind\": \"unicodeCodePoints\""), std::string::npos);
  EXPECT_NE(sarif.out.find("\"startColumn\": 31"), std::string::npos) << sarif.out;
  EXPECT_NE(sarif.out.find("\"informationUri\": \"https://github.com/OWNER/retrylint\""), std::string::npos);
  EXPECT_NE(sarif.out.find("\"helpUri\": \"https://github.com/OWNER/retrylint/blob/v"), std::string::npos);
}
