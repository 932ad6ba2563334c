// Every real configuration in tests/data/corpus analyses without an error or a crash, and the
// Istio and gRPC ones are recognised and yield their policies.
#include <filesystem>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {
} // namespace

TEST(Corpus, EveryFileAnalysesWithoutError) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunOptions o;
  o.paths = {corpusDir().string()};
  RunResult r = run(o);
  for (const Diagnostic &d : r.errors) ADD_FAILURE() << d.path << ":" << d.line << ": " << d.message;
  EXPECT_GE(r.stats.files_seen, 20u);
}

TEST(Corpus, IstioAndGrpcConfigsAreRecognised) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunOptions o;
  o.paths = {(corpusDir() / "istio-virtualservice").string(), (corpusDir() / "grpc-service-config").string()};
  RunResult r = run(o);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.files_analysed, 7u);
  // 2 Istio policies (one written, one implicit; attempts: 0 disables the other three) and
  // 12 gRPC retry policies (Bigtable 3, Pub/Sub 8, grpc-java 1) plus one hedging policy.
  EXPECT_EQ(r.stats.policies, 15u);
  bool clamp = false;
  for (const Finding &f : r.findings)
    clamp |= f.rule == "RL203" && f.where.path.find("bigtableadmin") != std::string::npos && f.where.line == 106;
  EXPECT_TRUE(clamp) << "Bigtable's maxAttempts 100 must be reported where it is written";
}
