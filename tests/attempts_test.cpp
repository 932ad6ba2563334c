// Attempts are normalised to total tries, the first included, for every dialect.
#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"

using namespace retrylint;
using namespace retrylint::testing;

namespace {
const char *kIstio = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: r}
spec:
  http:
  - retries:
      attempts: 2
      perTryTimeout: 1s
    route: [{destination: {host: r}}]
  - route: [{destination: {host: r}}]
  - retries:
      attempts: 0
    route: [{destination: {host: r}}]
)";
} // namespace

TEST(Attempts, IstioCountsRetries) {
  FileModel m = extract("vs.yaml", kIstio);
  ASSERT_EQ(m.policies.size(), 2u); // attempts: 0 turns retries off: no policy
  const RetryPolicy &written = m.policies[0];
  EXPECT_EQ(*written.max_attempts.value, 3);
  EXPECT_EQ(written.max_attempts.origin, Origin::Written);
  EXPECT_EQ(written.max_attempts.where.line, 7);
  EXPECT_EQ(written.max_attempts.where.column, 17);
  EXPECT_EQ(written.retries(), 2);
  EXPECT_EQ(written.describeAttempts(), "attempts: 2 = 2 retries + the first try = 3 attempts");
}

TEST(Attempts, IstioImplicitDefaultIsTwoRetriesAndSaysWhere) {
  FileModel m = extract("vs.yaml", kIstio);
  const RetryPolicy &implicit = m.policies[1];
  EXPECT_TRUE(implicit.implicit);
  EXPECT_EQ(implicit.max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(*implicit.max_attempts.value, 3);
  EXPECT_NE(implicit.max_attempts.source.find("2 retries"), std::string::npos);
  EXPECT_NE(implicit.max_attempts.source.find("retry.go"), std::string::npos);
  EXPECT_EQ(implicit.where.line, 10);
}

TEST(Attempts, GrpcCountsAttemptsAndClampsAtFive) {
  FileModel m = extract("sc.json", R"({"methodConfig": [
 {"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s",
   "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}},
 {"name": [{"service": "a.C"}], "retryPolicy": {"maxAttempts": 100, "initialBackoff": "0.1s",
   "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 3);
  EXPECT_EQ(m.policies[0].retries(), 2);
  EXPECT_EQ(*m.policies[1].max_attempts.value, 100);
  EXPECT_EQ(*m.policies[1].effectiveAttempts(), 5);
  EXPECT_EQ(m.policies[1].retries(), 4);
}

TEST(Attempts, GrpcBackoffIsBuiltInJitteredAndCapped) {
  FileModel m = extract("sc.json", R"({"methodConfig": [
 {"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "1s",
   "maxBackoff": "3s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
  const Backoff &b = m.policies.at(0).backoff;
  EXPECT_EQ(b.jitter.origin, Origin::BuiltIn);
  EXPECT_EQ(b.jitter.value, Jitter::Proportional);
  // 1 s, 2 s, then capped at 3 s; worst case +20 %.
  EXPECT_EQ(worstCaseWait(b, 1)->nanos, 1'200'000'000);
  EXPECT_EQ(worstCaseWait(b, 2)->nanos, 2'400'000'000);
  EXPECT_EQ(worstCaseWait(b, 3)->nanos, 3'600'000'000);
}

TEST(Attempts, EnvoyScheduleUnderIstio) {
  FileModel m = extract("vs.yaml", kIstio);
  const Backoff &b = m.policies.at(0).backoff;
  EXPECT_TRUE(b.envoy_schedule);
  EXPECT_EQ(b.jitter.value, Jitter::Full);
  EXPECT_EQ(worstCaseWait(b, 1)->nanos, 25'000'000);  // (2^1 - 1) x 25 ms
  EXPECT_EQ(worstCaseWait(b, 2)->nanos, 75'000'000);  // (2^2 - 1) x 25 ms
  EXPECT_EQ(worstCaseWait(b, 5)->nanos, 250'000'000); // capped at 10 x base
}
