// Dapr Resiliency, Argo Workflows, OpenTelemetry Collector and Kong: duration syntax, attempts
// normalised to total tries, defaults with their sources, and the real configs in the corpus.
#include <filesystem>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"
#include "lint/extract/cenkalti_backoff.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {
bool hasFinding(const RunResult &r, std::string_view rule, std::string_view file, int line) {
  for (const Finding &f : r.findings)
    if (f.rule == rule && f.where.path.find(file) != std::string::npos && f.where.line == line) return true;
  return false;
}
} // namespace

TEST(ArgoDuration, BareNumbersAreSecondsElseGoSyntax) {
  std::string err;
  EXPECT_EQ(parseArgoDuration("10", &err)->nanos, 10'000'000'000);
  EXPECT_EQ(parseArgoDuration("0", &err)->nanos, 0);
  EXPECT_EQ(parseArgoDuration("-1", &err)->nanos, -1'000'000'000);
  EXPECT_EQ(parseArgoDuration("2m", &err)->nanos, 120'000'000'000);
  EXPECT_EQ(parseArgoDuration("1h30m", &err)->nanos, 5'400'000'000'000);
  EXPECT_EQ(parseArgoDuration("300ms", &err)->nanos, 300'000'000);
  EXPECT_FALSE(parseArgoDuration("1.5", &err)); // not an integer, and Go needs a unit
  EXPECT_NE(err.find("whole number of seconds"), std::string::npos) << err;
  EXPECT_FALSE(parseArgoDuration("", &err));
  EXPECT_FALSE(parseArgoDuration("ten", &err));
  EXPECT_FALSE(parseArgoDuration("5 m", &err));
}

TEST(CenkaltiBackoff, NominalAttemptsWithinElapsedTime) {
  // OTel defaults: waits 5, 7.5, 11.25, 16.875, 25.3125, then 30 s each, within 5 min.
  EXPECT_EQ(*cenkaltiNominalAttempts(Duration::s(5), 1.5, Duration::s(30), Duration::s(300)), 13);
  // Constant 5 s waits over one minute: 12 retries + the first try.
  EXPECT_EQ(*cenkaltiNominalAttempts(Duration::s(5), 1, Duration::s(30), Duration::s(60)), 13);
  EXPECT_FALSE(cenkaltiNominalAttempts(Duration::s(5), 1.5, Duration::s(30), Duration{0})); // forever
  EXPECT_FALSE(cenkaltiNominalAttempts(Duration{0}, 1.5, Duration::s(30), Duration::s(300)));
}

TEST(Attempts, DaprMaxRetriesCountsRetries) {
  FileModel m = extract("res.yaml", R"(apiVersion: dapr.io/v1alpha1
kind: Resiliency
metadata: {name: r}
spec:
  policies:
    retries:
      three: {policy: constant, duration: 1s, maxRetries: 3}
      implicitForever: {policy: constant}
      expForever: {policy: exponential, maxRetries: -1}
      off: {maxRetries: 0}
  targets:
    apps:
      a: {retry: three}
)");
  ASSERT_EQ(m.policies.size(), 3u); // maxRetries 0: no retries, no policy
  const RetryPolicy &three = m.policies[0];
  EXPECT_EQ(*three.max_attempts.value, 4);
  EXPECT_EQ(three.max_attempts.origin, Origin::Written);
  EXPECT_EQ(three.describeAttempts(), "maxRetries: 3 = 3 retries + the first try = 4 attempts");
  EXPECT_NE(three.component.find("used by apps/a"), std::string::npos) << three.component;
  EXPECT_EQ(three.backoff.growth.value, Growth::Constant);
  EXPECT_EQ(three.backoff.jitter.value, Jitter::None);
  // Switching to exponential must drop `duration` (an exponential policy ignores it), which in a
  // flow map is not a line to remove: no fix. Without a duration there is nothing to remove.
  EXPECT_FALSE(three.backoff.growth.fix);

  const RetryPolicy &forever = m.policies[1];
  ASSERT_TRUE(forever.backoff.growth.fix);
  EXPECT_FALSE(forever.backoff.growth.fix->safe);
  EXPECT_EQ(forever.max_attempts.origin, Origin::Defaulted);
  EXPECT_FALSE(forever.max_attempts.value);
  EXPECT_NE(forever.max_attempts.source.find("-1"), std::string::npos);
  EXPECT_NE(forever.component.find("no target names it"), std::string::npos);
  EXPECT_EQ(*forever.backoff.initial.value, Duration::s(5));
  EXPECT_EQ(forever.backoff.initial.origin, Origin::Defaulted);

  const RetryPolicy &exp = m.policies[2];
  EXPECT_EQ(exp.max_attempts.origin, Origin::Unknown); // 15 min MaxElapsedTime, not a count
  EXPECT_EQ(exp.backoff.growth.value, Growth::Exponential);
  EXPECT_EQ(*exp.backoff.cap.value, Duration::s(60));
  EXPECT_EQ(exp.backoff.cap.origin, Origin::Defaulted);
  EXPECT_EQ(exp.backoff.jitter.value, Jitter::Proportional);
}

TEST(Attempts, ArgoLimitCountsRetries) {
  FileModel m = extract("wf.yaml", R"(apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: w}
spec:
  retryStrategy: {limit: "3"}
  templates:
  - name: t
    retryStrategy:
      limit: 2
      backoff: {duration: "1", factor: 2}
  - name: u
    retryStrategy: {retryPolicy: Always}
)");
  ASSERT_EQ(m.policies.size(), 3u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 4);
  EXPECT_EQ(m.policies[0].describeAttempts(), "limit: 3 = 3 retries + the first try = 4 attempts");
  EXPECT_EQ(m.policies[0].backoff.growth.value, Growth::NoWait);
  const RetryPolicy &t = m.policies[1];
  EXPECT_EQ(*t.max_attempts.value, 3);
  EXPECT_EQ(t.max_attempts.where.line, 9);
  EXPECT_EQ(*t.backoff.initial.value, Duration::s(1));
  EXPECT_EQ(t.backoff.growth.value, Growth::Exponential);
  EXPECT_EQ(t.backoff.cap.origin, Origin::Defaulted);
  EXPECT_FALSE(t.backoff.cap.value);
  const RetryPolicy &u = m.policies[2];
  EXPECT_EQ(u.max_attempts.origin, Origin::Defaulted); // unset limit: retried until success (operator.go)
  EXPECT_FALSE(u.max_attempts.value);
  ASSERT_EQ(u.retry_on.size(), 1u);
  // Always is no catch-all: OnFailure already retries every non-zero exit; Always adds Argo errors.
  EXPECT_FALSE(u.retry_on[0].catch_all);
}

TEST(Attempts, OtelIsBoundedByTimeNotByCount) {
  FileModel m = extract("otel.yaml", R"(receivers: {otlp: {}}
exporters:
  otlp: {endpoint: x}
  otlp/forever:
    retry_on_failure: {max_elapsed_time: 0}
  logging: {}
service: {pipelines: {traces: {receivers: [otlp], exporters: [otlp]}}}
)");
  ASSERT_EQ(m.policies.size(), 2u); // logging has no exporterhelper retries
  const RetryPolicy &d = m.policies[0];
  EXPECT_TRUE(d.implicit);
  EXPECT_EQ(d.max_attempts.origin, Origin::Unknown);
  EXPECT_EQ(*d.max_attempts.value, 13); // the nominal estimate, for messages only
  EXPECT_EQ(*d.per_try_timeout.value, Duration::s(5));
  EXPECT_EQ(d.per_try_timeout.origin, Origin::Defaulted);
  EXPECT_EQ(*d.backoff.cap.value, Duration::s(30));
  EXPECT_EQ(d.backoff.jitter.value, Jitter::Proportional);
  const RetryPolicy &f = m.policies[1];
  EXPECT_EQ(f.max_attempts.origin, Origin::Written);
  EXPECT_FALSE(f.max_attempts.value);
}

TEST(Attempts, KongRetriesCountRetriesAndDefaultToFive) {
  FileModel m = extract("kong.yml", R"(_format_version: "3.0"
services:
- name: a
  url: http://a
- name: b
  url: http://b
  retries: 1
  read_timeout: 2500
)");
  ASSERT_EQ(m.policies.size(), 2u);
  const RetryPolicy &a = m.policies[0];
  EXPECT_TRUE(a.implicit);
  EXPECT_EQ(*a.max_attempts.value, 6);
  EXPECT_EQ(a.max_attempts.origin, Origin::Defaulted);
  EXPECT_NE(a.max_attempts.source.find("services.lua"), std::string::npos);
  EXPECT_EQ(*a.per_try_timeout.value, Duration::s(60));
  const RetryPolicy &b = m.policies[1];
  EXPECT_EQ(*b.max_attempts.value, 2);
  EXPECT_EQ(b.describeAttempts(), "retries: 1 = 1 retry + the first try = 2 attempts");
  EXPECT_EQ(*b.per_try_timeout.value, Duration::ms(2500));
  EXPECT_EQ(b.backoff.growth.value, Growth::NoWait);
}

TEST(Corpus, DaprArgoOtelConfigsAreRecognised) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunOptions o;
  o.paths = {(corpusDir() / "dapr-resiliency").string(), (corpusDir() / "argo-workflows").string(),
             (corpusDir() / "otel-collector-exporter").string()};
  RunResult r = run(o);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.files_analysed, 5u);
  // Dapr: fiveRetries, pubsubRetry, retryForever, retry5xxOnly; Argo: 2 templates; OTel: 1 exporter.
  EXPECT_EQ(r.stats.policies, 7u);
  EXPECT_TRUE(hasFinding(r, "RL102", "dapr-e2e-resiliency", 14)) << "constant 10ms policy";
  EXPECT_TRUE(hasFinding(r, "RL401", "docs-retry-policies", 25)) << "gRPC 1-4 includes INVALID_ARGUMENT";
  EXPECT_FALSE(hasFinding(r, "RL402", "retry-on-error", 15)) << "retryPolicy: Always adds only Argo errors";
  EXPECT_TRUE(hasFinding(r, "RL101", "retry-backoff", 15)) << "Argo backoff has no jitter";
  EXPECT_FALSE(hasFinding(r, "RL103", "retry-backoff", 15)) << "cap: \"5\" caps the wait";
  EXPECT_FALSE(hasFinding(r, "RL201", "docs-retry-policies", 13)) << "exponential stops after 15 min";
}

// One duration reader for the YAML dialects (yaml_util readDuration): a text the runtime cannot
// read, or a negative one where the runtime refuses them, is an RL901 saying what the runtime does.
TEST(Durations, BadAndNegativeDurationsSayWhatTheRuntimeDoes) {
  struct Case {
    const char *path, *text, *says;
  } cases[] = {
      {"dapr.yaml",
       "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata: {name: r}\nspec:\n  policies:\n    retries:\n"
       "      r:\n        policy: constant\n        duration: -5s\n        maxRetries: 3\n",
       "duration -5s is negative: Dapr rejects the Resiliency resource and loads none of its policies"},
      {"argo.yaml",
       "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: w}\nspec:\n  templates:\n  - name: t\n"
       "    retryStrategy:\n      limit: 3\n      backoff: {duration: \"-1\", factor: 2}\n    container: {image: x}\n",
       "backoff.duration -1 is negative: Argo fails the node when it computes the backoff"},
      {"istio.yaml",
       "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: v}\nspec:\n  http:\n  - retries:\n"
       "      attempts: 2\n      perTryTimeout: 2 seconds\n",
       "Istio rejects the VirtualService"},
  };
  for (const Case &c : cases) {
    FileResult r = analyseText(c.path, c.text, true, RunOptions{});
    bool found = false;
    for (const Finding &f : r.findings) found |= f.rule == "RL901" && f.message.find(c.says) != std::string::npos;
    EXPECT_TRUE(found) << c.path << ": no RL901 saying '" << c.says << "'";
  }
}
