// The command line end to end: exit codes, formats, rule catalogue, bad input.
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "cli_support.h"

using namespace retrylint::testing;

namespace {
const char *kCleanVs = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ok}
spec:
  http:
  - timeout: 3s
    retries: {attempts: 1, perTryTimeout: 1s, retryOn: connect-failure}
    route: [{destination: {host: ok}}]
)";
const char *kWarningOnlyVs = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: warn}
spec:
  http:
  - timeout: 30s
    retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: warn}}]
)";
const char *kNoteOnlyGrpc = R"({"methodConfig": [{"name": [{"service": "a.B"}], "timeout": "10s",
  "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                  "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]})";
} // namespace

TEST(ExitCode, ZeroWhenClean) {
  TempDir t;
  auto f = t.write("vs.yaml", kCleanVs);
  CliRun r = runRetrylint("'" + f + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ExitCode, OneOnFindingsAtOrAboveFailOn) {
  TempDir t;
  auto f = t.write("vs.yaml", kWarningOnlyVs);
  EXPECT_EQ(runRetrylint("'" + f + "'").exit_code, 1);
  EXPECT_EQ(runRetrylint("--fail-on error '" + f + "'").exit_code, 0);
  EXPECT_EQ(runRetrylint("--fail-on=note '" + f + "'").exit_code, 1);
  auto g = t.write("sc.json", kNoteOnlyGrpc);
  CliRun notes = runRetrylint("'" + g + "'");
  EXPECT_EQ(notes.exit_code, 0) << notes.out; // a note does not fail the default --fail-on warning
  EXPECT_NE(notes.out.find(": note: "), std::string::npos) << notes.out;
  EXPECT_EQ(runRetrylint("--fail-on note '" + g + "'").exit_code, 1);
}

TEST(ExitCode, TwoOnBadInputButOtherFilesStillReported) {
  TempDir t;
  // A retry key as well as the dialect's marker: found while walking, an unparseable file is an
  // error only then (tests/yaml_recognition_test.cpp).
  t.write("a/broken.json", "{\n  \"methodConfig\": [\n    {\"retryPolicy\": [}\n  ]\n}\n");
  t.write("a/warn.yaml", kWarningOnlyVs);
  t.write("a/types.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  http: nope\n");
  CliRun r = runRetrylint("'" + (t.path / "a").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("warn.yaml:7:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[RL203 attempts-excessive]"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("broken.json:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("types.yaml:4:9: error: spec.http must be a list"), std::string::npos) << r.err;
}

TEST(ExitCode, TwoOnUsageErrors) {
  EXPECT_EQ(runRetrylint("--no-such-flag fixtures/demo").exit_code, 2);
  EXPECT_EQ(runRetrylint("--fail-on bogus fixtures/demo").exit_code, 2);
  EXPECT_EQ(runRetrylint("--format xml fixtures/demo").exit_code, 2);
  EXPECT_EQ(runRetrylint("--explain RL999").exit_code, 2);
  EXPECT_EQ(runRetrylint("--disable RL999 fixtures/demo").exit_code, 2);
  CliRun missing = runRetrylint("does/not/exist.yaml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("does/not/exist.yaml"), std::string::npos) << missing.err;
}

TEST(ExitCode, SameWhateverTheFormat) {
  for (const char *fmt : {"text", "json"}) EXPECT_EQ(runRetrylint(std::string("--format ") + fmt + " fixtures/demo").exit_code, 1) << fmt;
}

TEST(TextOutput, CompilerStyleLines) {
  CliRun r = runRetrylint("fixtures/demo");
  EXPECT_NE(r.out.find("fixtures/demo/gateway-routes.yaml:17:17: error: 3 attempts x 1.5 s per try + 0.1 s backoff = 4.6 s > route timeout 3 s"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[RL301 deadline-exceeded-by-retries]\n"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "no colour when not on a terminal";
}

TEST(JsonOutput, Version1SortedAndComplete) {
  CliRun r = runRetrylint("--format json fixtures/demo");
  auto parsed = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(*root->getInteger("version"), 1);
  EXPECT_EQ(*root->getObject("tool")->getString("name"), "retrylint");
  const llvm::json::Array *findings = root->getArray("findings");
  ASSERT_NE(findings, nullptr);
  ASSERT_GE(findings->size(), 10u);
  std::tuple<std::string, int64_t, int64_t, std::string> prev;
  for (const auto &v : *findings) {
    const llvm::json::Object *f = v.getAsObject();
    for (const char *key : {"rule", "name", "severity", "path", "message", "format", "fingerprint"})
      EXPECT_TRUE(f->getString(key).hasValue()) << key;
    for (const char *key : {"line", "column", "end_line", "end_column"}) EXPECT_GE(*f->getInteger(key), 1) << key;
    EXPECT_NE(f->getArray("fixes"), nullptr);
    std::tuple<std::string, int64_t, int64_t, std::string> cur{f->getString("path")->str(), *f->getInteger("line"),
                                                               *f->getInteger("column"), f->getString("rule")->str()};
    EXPECT_LE(prev, cur);
    prev = cur;
  }
  EXPECT_EQ(root->getArray("errors")->size(), 0u);
  const llvm::json::Object *stats = root->getObject("stats");
  EXPECT_EQ(*stats->getInteger("files_seen"), 2);
  EXPECT_EQ(*stats->getInteger("files_analysed"), 2);
  EXPECT_EQ(*stats->getInteger("policies"), 5);
}

TEST(JsonOutput, ErrorsCarryPathAndLine) {
  CliRun r = runRetrylint("--format json fixtures/grpc-service-config/broken.json");
  EXPECT_EQ(r.exit_code, 2);
  auto parsed = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(parsed));
  const llvm::json::Array *errors = parsed->getAsObject()->getArray("errors");
  ASSERT_EQ(errors->size(), 1u);
  const llvm::json::Object *e = (*errors)[0].getAsObject();
  EXPECT_EQ(*e->getString("path"), "fixtures/grpc-service-config/broken.json");
  EXPECT_EQ(*e->getInteger("line"), 7);
}

TEST(Output, IdenticalWhateverTheJobCount) {
  CliRun one = runRetrylint("--format json -j 1 fixtures");
  CliRun two = runRetrylint("--format json -j 2 fixtures");
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.exit_code, two.exit_code);
}

TEST(Output, WritesToFileWithTheSameExitCode) {
  TempDir t;
  std::string file = (t.path / "report.json").string();
  CliRun r = runRetrylint("--format json -o '" + file + "' fixtures/demo");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(slurp(file).find("\"version\": 1"), std::string::npos);
}

TEST(RuleSelection, DisableAndSeverity) {
  TempDir t;
  auto g = t.write("sc.json", kNoteOnlyGrpc);
  EXPECT_EQ(runRetrylint("--severity RL303=error '" + g + "'").exit_code, 1);
  EXPECT_EQ(runRetrylint("--severity retry-budget-missing=warning '" + g + "'").exit_code, 1);
  CliRun off = runRetrylint("--disable retry-budget-missing '" + g + "'");
  EXPECT_EQ(off.exit_code, 0);
  EXPECT_EQ(off.out, "");
  EXPECT_EQ(runRetrylint("--severity RL303=loud '" + g + "'").exit_code, 2);
}

TEST(Catalogue, ListRulesExplainVersionHelp) {
  CliRun list = runRetrylint("--list-rules");
  EXPECT_EQ(list.exit_code, 0);
  for (const char *code : {"RL101", "RL102", "RL103", "RL104", "RL201", "RL203", "RL301", "RL302", "RL303", "RL401", "RL403", "RL901"})
    EXPECT_NE(list.out.find(code), std::string::npos) << code;
  CliRun ex = runRetrylint("--explain backoff-missing-jitter");
  EXPECT_EQ(ex.exit_code, 0);
  for (const char *h : {"What it finds", "Why it matters", "Example", "Instead", "Options", "References"})
    EXPECT_NE(ex.out.find(std::string("\n") + h + "\n"), std::string::npos) << h;
  CliRun v = runRetrylint("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("retrylint 0.1.0"), std::string::npos) << v.out;
  CliRun h = runRetrylint("--help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--fail-on"), std::string::npos) << h.out;
  EXPECT_EQ(h.out.find("--x86-asm-syntax"), std::string::npos) << "LLVM's own options leak into --help";
}

TEST(Discovery, RecognisesByContentAndSkipsOthers) {
  TempDir t;
  t.write("d/routes.yaml", kWarningOnlyVs);                      // not named like Istio
  t.write("d/tsconfig.json", "{ // comments are fine here\n}\n"); // not JSON, not ours: skipped
  t.write("d/chart/templates/x.yaml", "{{ .Values.x }}: [\n");  // a template, not ours: skipped
  t.write("d/.git/vs.yaml", kWarningOnlyVs);                    // never walked
  t.write("d/build/CMakeCache.txt", "");
  t.write("d/build/vs.yaml", kWarningOnlyVs);                   // a build tree: skipped,
  t.write("d/build/a/deeper/vs.yaml", kWarningOnlyVs);          // however deep
  CliRun r = runRetrylint("--format json '" + (t.path / "d").string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto parsed = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(parsed));
  const llvm::json::Array *findings = parsed->getAsObject()->getArray("findings");
  ASSERT_EQ(findings->size(), 1u) << r.out;
  EXPECT_NE((*findings)[0].getAsObject()->getString("path")->find("routes.yaml"), llvm::StringRef::npos);
  EXPECT_EQ(*parsed->getAsObject()->getObject("stats")->getInteger("files_seen"), 3);
}
