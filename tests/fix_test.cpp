// --fix is safe by default: it applies only fixes that keep the intended behaviour and, analysed
// again, remove their finding without raising another; behaviour-changing fixes and fixes offered
// on notes need --unsafe-fixes; a second --fix applies nothing; --show-diff previews.
// (The write itself against hostile checkouts: hostile_fix_test.cpp.)
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "cli_support.h"

namespace fs = std::filesystem;
using namespace retrylint::testing;

namespace {

// rule + path + fingerprint (line-independent) -> how many.
std::map<std::string, int> findingCounts(const std::string &json) {
  std::map<std::string, int> out;
  auto v = llvm::json::parse(json);
  if (!v) {
    llvm::consumeError(v.takeError());
    ADD_FAILURE() << "not JSON: " << json.substr(0, 200);
    return out;
  }
  for (const auto &f : *v->getAsObject()->getArray("findings")) {
    const auto *o = f.getAsObject();
    // A note reported once for many policies sits at the first of them, which fixes elsewhere
    // can change: it is one finding whatever its path (its fingerprint has none).
    const bool once = o->getString("message")->contains("(reported once;");
    ++out[o->getString("rule")->str() + " " + (once ? std::string("*") : o->getString("path")->str()) + " " +
          o->getString("fingerprint")->str()];
  }
  return out;
}

size_t total(const std::map<std::string, int> &m) {
  size_t n = 0;
  for (const auto &[k, v] : m) n += v;
  return n;
}

void fixEveryFixture(const std::string &fixFlags) {
  TempDir t;
  fs::copy(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures", t.path / "fixtures", fs::copy_options::recursive);
  std::string dir = (t.path / "fixtures").string();
  auto before = findingCounts(runRetrylintIn(dir, "", "--no-cache --format json .").out);
  CliRun first = runRetrylintIn(dir, "", "--no-cache " + fixFlags + " .");
  EXPECT_NE(first.err.find("retrylint: applied "), std::string::npos) << "no fix applied at all: " << first.err;
  auto after = findingCounts(runRetrylintIn(dir, "", "--no-cache --format json .").out);
  for (const auto &[key, n] : after) {
    auto it = before.find(key);
    EXPECT_LE(n, it == before.end() ? 0 : it->second) << fixFlags << " raised a finding: " << key;
  }
  EXPECT_LT(total(after), total(before));
  CliRun second = runRetrylintIn(dir, "", "--no-cache " + fixFlags + " .");
  EXPECT_EQ(second.err.find("retrylint: applied "), std::string::npos) << "a second " << fixFlags << " changed files:\n"
                                                                      << second.err;
}

const char *kDapr = R"(apiVersion: dapr.io/v1alpha1
kind: Resiliency
metadata: {name: r}
spec:
  policies:
    retries:
      steady:
        policy: constant
        duration: 1s
        maxRetries: 5
  targets:
    apps:
      checkout: {retry: steady}
)";

} // namespace

TEST(FixSafety, EveryFixtureFixedRaisesNothingAndASecondRunIsANoOp) { fixEveryFixture("--fix"); }
TEST(FixSafety, UnsafeFixesToo) { fixEveryFixture("--fix --unsafe-fixes"); }

// Switching a Dapr constant policy to exponential drops the written duration: behaviour changes.
TEST(FixSafety, BehaviourChangingFixesNeedUnsafeFixes) {
  TempDir t;
  std::string file = t.write("resiliency.yaml", kDapr);
  CliRun safe = runRetrylintIn(t.path.string(), "", "--no-cache --fix resiliency.yaml");
  EXPECT_EQ(slurp(file), kDapr) << "--fix changed behaviour without --unsafe-fixes";
  EXPECT_NE(safe.err.find("--unsafe-fixes applies"), std::string::npos) << safe.err;
  EXPECT_NE(safe.out.find("RL102"), std::string::npos) << safe.out;

  CliRun unsafe = runRetrylintIn(t.path.string(), "", "--no-cache --fix --unsafe-fixes resiliency.yaml");
  EXPECT_NE(slurp(file).find("policy: exponential"), std::string::npos) << slurp(file);
  EXPECT_NE(unsafe.err.find("applied 1 fix"), std::string::npos) << unsafe.err;

  EXPECT_EQ(runRetrylint("--show-diff fixtures/demo").exit_code, 2) << "--show-diff without --fix is a usage error";
  EXPECT_EQ(runRetrylint("--unsafe-fixes fixtures/demo").exit_code, 2);
}

// --show-diff writes nothing, prints a diff that `git apply` takes, and the result is what --fix
// writes.
TEST(FixSafety, ShowDiffPreviewsExactlyWhatFixWrites) {
  TempDir t;
  const std::string sfn = "{\n  \"StartAt\": \"Pay\",\n  \"States\": {\n    \"Pay\": {\n      \"Type\": \"Task\",\n"
                          "      \"Resource\": \"arn:aws:lambda:us-east-1:123456789012:function:pay\",\n"
                          "      \"Retry\": [\n        {\n          \"ErrorEquals\": [\"Lambda.ServiceException\", \"Lambda.TooManyRequestsException\"],\n"
                          "          \"MaxDelaySeconds\": 20,\n          \"JitterStrategy\": \"NONE\"\n        }\n      ],\n"
                          "      \"End\": true\n    }\n  }\n}\n";
  // An API event starts an execution per request: a crowd, so the missing jitter is a warning and
  // its fix is applied without --unsafe-fixes.
  const std::string sam = "Resources:\n  Flow:\n    Type: AWS::Serverless::StateMachine\n    Properties:\n"
                          "      DefinitionUri: flow.asl.json\n      Events:\n        Pay:\n          Type: Api\n";
  t.write("a/template.yaml", sam);
  t.write("b/template.yaml", sam);
  std::string preview = t.write("a/flow.asl.json", sfn);
  std::string fixed = t.write("b/flow.asl.json", sfn);
  CliRun diff = runRetrylintIn((t.path / "a").string(), "", "--no-cache --fix --show-diff flow.asl.json");
  EXPECT_EQ(diff.exit_code, 1) << diff.err;
  EXPECT_EQ(slurp(preview), sfn) << "--show-diff wrote the file";
  EXPECT_NE(diff.out.find("--- a/flow.asl.json\n+++ b/flow.asl.json\n@@ -8,7 +8,7 @@\n"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("\n-          \"JitterStrategy\": \"NONE\"\n+          \"JitterStrategy\": \"FULL\"\n"), std::string::npos)
      << diff.out;
  t.write("a/fix.diff", diff.out);
  CliRun apply = runShellIn((t.path / "a").string(), "git apply fix.diff");
  EXPECT_EQ(apply.exit_code, 0) << apply.err;
  runRetrylintIn((t.path / "b").string(), "", "--no-cache --fix flow.asl.json");
  EXPECT_EQ(slurp(preview), slurp(fixed));
  EXPECT_NE(slurp(fixed), sfn);
  // Nothing left to fix: an empty diff and exit 0.
  CliRun none = runRetrylintIn((t.path / "b").string(), "", "--no-cache --fix --show-diff flow.asl.json");
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "");
}

// A numeric code whose name the list already holds: rewriting it would write the code twice.
TEST(FixSafety, NoFixWritesADuplicateStatusCode) {
  TempDir t;
  const std::string config = R"({"methodConfig": [{"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 3,
 "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", 14, 4]}}]}
)";
  std::string file = t.write("service_config.json", config);
  CliRun r = runRetrylintIn(t.path.string(), "", "--no-cache --format json service_config.json");
  EXPECT_NE(r.out.find("entry 14 is a number"), std::string::npos) << r.out;
  runRetrylintIn(t.path.string(), "", "--no-cache --fix service_config.json");
  std::string after = slurp(file);
  EXPECT_NE(after.find("[\"UNAVAILABLE\", 14, \"DEADLINE_EXCEEDED\"]"), std::string::npos) << after;
}

namespace {

// The reports that carry fixes offer only those --fix would apply: applied alone, each removes its
// finding and raises none (the Resilience4j jitter key that raises RL901 is not offered at all).
TEST(FixSafety, ReportsOfferOnlyFixesThatHold) {
  TempDir t;
  fs::copy(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures" / "resilience4j", t.path / "r4j", fs::copy_options::recursive);
  fs::copy(fs::path(RETRYLINT_SOURCE_DIR) / "tests" / "data" / "fix" / "grpc-codes.json", t.path / "r4j" / "grpc-codes.json");
  const std::string dir = (t.path / "r4j").string();
  CliRun json = runRetrylintIn(dir, "", "--no-cache --format json .");
  auto v = llvm::json::parse(json.out);
  ASSERT_TRUE(bool(v)) << json.out;
  int offered = 0;
  for (const auto &f : *v->getAsObject()->getArray("findings")) {
    const auto *o = f.getAsObject();
    if (o->getArray("fixes")->empty()) continue;
    ++offered;
    const std::string path = o->getString("path")->str();
    EXPECT_NE(path, "defaults.yml") << "the refused jitter fix is offered: " << o->getString("message")->str();
  }
  EXPECT_GE(offered, 2) << json.out; // the gRPC code spellings and the Resilience4j fixes that hold
  // --fix --unsafe-fixes refuses none of what was offered.
  CliRun fixed = runRetrylintIn(dir, "", "--no-cache --fix --unsafe-fixes .");
  EXPECT_NE(fixed.err.find("retrylint: applied "), std::string::npos) << fixed.err;
  CliRun after = runRetrylintIn(dir, "", "--no-cache --format json .");
  auto w = llvm::json::parse(after.out);
  ASSERT_TRUE(bool(w));
  for (const auto &f : *w->getAsObject()->getArray("findings"))
    EXPECT_TRUE(f.getAsObject()->getArray("fixes")->empty()) << "still offered after --fix: " << f.getAsObject()->getString("message")->str();
}

} // namespace
