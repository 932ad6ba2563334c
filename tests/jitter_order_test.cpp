// RL105 jitter-clipped-by-cap: the numbers in its messages (from which retry draws are cut to the
// cap, the share cut at the retry reported), the jitter order each dialect records, and the
// Resilience4j cap that its Spring properties silently drop.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "rules/rl105_jitter_clipped_by_cap.h"
#include "test_support.h"

using namespace retrylint;
using namespace retrylint::testing;

namespace {

// Resilience4j-like: base x multiplier^(n-1), uniform on [1 - f, 1 + f], capped after the draw.
RetryPolicy clipped(double baseS, double mult, double factor, double capS, std::optional<int> attempts) {
  RetryPolicy p;
  p.max_attempts = written(attempts, Span{});
  Backoff &b = p.backoff;
  b.growth = written(Growth::Exponential, Span{});
  b.initial = written(std::optional<Duration>(Duration::s(baseS)), Span{});
  b.multiplier = written(mult, Span{});
  b.cap = written(std::optional<Duration>(Duration::s(capS)), Span{});
  b.jitter = written(Jitter::Proportional, Span{});
  b.jitter_lower = 1 - factor;
  b.jitter_upper = 1 + factor;
  b.jitter_order = builtIn(JitterOrder::BeforeCap, Span{}, "test");
  return p;
}

std::vector<Finding> rl105(const std::string &path, const std::string &text) {
  std::vector<Finding> out;
  for (const Finding &f : analyseText(path, text, true, RunOptions{}).findings)
    if (f.rule == "RL105") out.push_back(f);
  return out;
}

} // namespace

TEST(JitterOrder, FirstClippedRetryAndShareAtTheLastRetry) {
  // 500 ms doubling, ±50 %, 2 s cap. Retry 3 draws 1 s..3 s: half above 2 s. Retry 4 draws 2 s..6 s.
  auto c = clippedJitter(clipped(0.5, 2, 0.5, 2, 4)); // 3 retries
  ASSERT_TRUE(c);
  EXPECT_EQ(*c->from, 3);
  EXPECT_EQ(c->at, 3);
  EXPECT_DOUBLE_EQ(*c->share, 0.5);
  c = clippedJitter(clipped(0.5, 2, 0.5, 2, 8)); // 7 retries: all of them from retry 4 on
  ASSERT_TRUE(c);
  EXPECT_EQ(*c->from, 3);
  EXPECT_EQ(c->at, 7);
  EXPECT_DOUBLE_EQ(*c->share, 1.0);
  // 1 s x1.5, ±20 %, 4 s cap: retry 4 grows to 3.375 s, draws 2.7 s..4.05 s: 0.05/1.35 above.
  c = clippedJitter(clipped(1, 1.5, 0.2, 4, 5));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c->from, 4);
  EXPECT_NEAR(*c->share, 0.05 / 1.35, 1e-9);
}

TEST(JitterOrder, QuietWhenTheCapIsNeverReachedOrNothingIsClipped) {
  // 3 retries from 200 ms doubling, ±50 %: at most 1.2 s against a 5 s cap.
  EXPECT_FALSE(clippedJitter(clipped(0.2, 2, 0.5, 5, 4)));
  // Reaching the cap exactly is not above it: 1 s doubling with no spread, retry 2 waits exactly 2 s.
  EXPECT_FALSE(clippedJitter(clipped(1, 2, 0, 2, 3)));
  RetryPolicy after = clipped(0.5, 2, 0.5, 2, 8);
  after.backoff.jitter_order = builtIn(JitterOrder::AfterCap, Span{}, "full jitter");
  EXPECT_FALSE(clippedJitter(after));
  RetryPolicy none = clipped(0.5, 2, 0.5, 2, 8);
  none.backoff.jitter = written(Jitter::None, Span{}); // RL101's, not RL105's
  EXPECT_FALSE(clippedJitter(none));
  RetryPolicy single = clipped(0.5, 2, 0.5, 2, 1); // no retry at all
  EXPECT_FALSE(clippedJitter(single));
}

TEST(JitterOrder, UnboundedRetriesReportWhereEveryDrawIsCut) {
  auto c = clippedJitter(clipped(0.1, 2, 0.5, 2, std::nullopt));
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->bounded);
  EXPECT_EQ(*c->from, 5);  // 1.6 s grown: 0.8 s..2.4 s
  EXPECT_EQ(c->at, 7);     // 6.4 s grown: 3.2 s..9.6 s, all above 2 s
  EXPECT_DOUBLE_EQ(*c->share, 1.0);
}

TEST(JitterOrder, SharesAreFlooredNeverOverstated) {
  EXPECT_EQ(describeShare(1.0), "every client waits");
  EXPECT_EQ(describeShare(0.71875), "71 % of clients wait");
  EXPECT_EQ(describeShare(0.9999), "99 % of clients wait");
  EXPECT_EQ(describeShare(0.004), "under 1 % of clients wait");
}

TEST(JitterOrder, PollyDecorrelatedShareMatchesASimulation) {
  // Polly's DecorrelatedJitterBackoffV2 with MaxDelay, simulated the way RetryHelper.cs runs it.
  auto simulate = [](double baseS, double capS, int retry) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(0, 1);
    auto next = [](double t) { return t <= 0 ? 0.0 : std::pow(2, t) * std::tanh(std::sqrt(4 * t)); };
    int above = 0, n = 200000;
    for (int k = 0; k < n; ++k) {
      double prev = 0, d = 0;
      for (int a = 0; a < retry; ++a) {
        double v = next(a + u(rng));
        d = (v - prev) / 1.4 * baseS;
        prev = v;
      }
      above += d > capS;
    }
    return static_cast<double>(above) / n;
  };
  Backoff b;
  b.growth = written(Growth::Exponential, Span{});
  b.multiplier = builtIn(2.0, Span{}, "");
  b.jitter_shape = JitterShape::Decorrelated;
  for (auto [base, cap, retry] : {std::tuple{2.0, 4.0, 3}, std::tuple{1.0, 4.0, 3}, std::tuple{2.0, 5.0, 7}, std::tuple{2.0, 3.0, 1}}) {
    b.initial = written(std::optional<Duration>(Duration::s(base)), Span{});
    auto s = shareAbove(b, retry, Duration::s(cap));
    ASSERT_TRUE(s);
    EXPECT_NEAR(*s, simulate(base, cap, retry), 0.01) << base << " s base, " << cap << " s cap, retry " << retry;
  }
  // The first retry draws below next(1) / 1.4 x base = 1.377 x base: a 3 s cap on a 2 s base is crossed.
  b.initial = written(std::optional<Duration>(Duration::s(2)), Span{});
  EXPECT_NEAR(drawRange(b, 1)->hi->seconds(), 2 * 2 * std::tanh(2.0) / 1.4, 1e-6);
}

TEST(JitterOrder, Resilience4jMessageGivesTheRetryAndTheShare) {
  auto f = rl105("application.yml", R"(resilience4j.retry:
  instances:
    backend:
      maxAttempts: 4
      waitDuration: 500ms
      enableExponentialBackoff: true
      exponentialBackoffMultiplier: 2
      enableRandomizedWait: true
      randomizedWaitFactor: 0.5
      exponentialMaxWaitDuration: 2s
      retryExceptions: [java.io.IOException]
)");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 10);
  EXPECT_NE(f[0].message.find("from retry 3 on, draws are cut to the cap; at that retry, the last, 50 % of clients wait exactly 2 s"),
            std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("IntervalFunction in code"), std::string::npos) << f[0].message;
  EXPECT_TRUE(f[0].fixes.empty()); // the properties cannot express the right order
}

TEST(JitterOrder, Resilience4jDropsTheCapWithoutMultiplierAndFactor) {
  // CommonRetryConfigurationProperties passes exponentialMaxWaitDuration to IntervalFunction only
  // with exponentialBackoffMultiplier and randomizedWaitFactor set: here the wait is uncapped.
  FileResult r = analyseText("application.yml", R"(resilience4j.retry:
  instances:
    backend:
      maxAttempts: 12
      waitDuration: 500ms
      enableExponentialBackoff: true
      enableRandomizedWait: true
      exponentialMaxWaitDuration: 2s
      retryExceptions: [java.io.IOException]
)", true, RunOptions{});
  bool ignored = false, uncapped = false;
  for (const Finding &f : r.findings) {
    EXPECT_NE(f.rule, "RL105") << f.message;
    ignored |= f.rule == "RL901" && f.where.line == 8 && f.message.find("is ignored") != std::string::npos;
    uncapped |= f.rule == "RL103" && f.where.line == 3;
  }
  EXPECT_TRUE(ignored);
  EXPECT_TRUE(uncapped);
  // With exponential backoff alone, the multiplier is what makes the cap count.
  FileModel m = extract("application.yml", R"(resilience4j.retry:
  instances:
    a:
      waitDuration: 1s
      enableExponentialBackoff: true
      exponentialMaxWaitDuration: 2s
    b:
      waitDuration: 1s
      enableExponentialBackoff: true
      exponentialBackoffMultiplier: 2
      exponentialMaxWaitDuration: 2s
)");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_FALSE(m.policies[0].backoff.cap.value);
  ASSERT_TRUE(m.policies[1].backoff.cap.value);
  EXPECT_EQ(*m.policies[1].backoff.cap.value, Duration::s(2));
  EXPECT_FALSE(m.policies[1].backoff.jitter_order.known()); // no jitter: no order to speak of
}

TEST(JitterOrder, DialectsThatDrawAfterTheCapRecordItAndStayQuiet) {
  FileModel g = extract("service-config.json", R"({"methodConfig": [{"name": [{"service": "a.B"}],
  "retryPolicy": {"maxAttempts": 5, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2,
                  "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
  ASSERT_EQ(g.policies.size(), 1u);
  EXPECT_EQ(g.policies[0].backoff.jitter_order.value, JitterOrder::AfterCap);
  EXPECT_EQ(g.policies[0].backoff.jitter_order.origin, Origin::BuiltIn);
  EXPECT_TRUE(rl105("service-config.json", R"({"methodConfig": [{"name": [{"service": "a.B"}],
  "retryPolicy": {"maxAttempts": 5, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2,
                  "retryableStatusCodes": ["UNAVAILABLE"]}}]})").empty());
  FileModel sf = extract("sm.asl.json", R"({"StartAt": "A", "States": {"A": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:f",
  "End": true, "Retry": [{"ErrorEquals": ["Lambda.ServiceException"], "MaxAttempts": 6, "IntervalSeconds": 1, "BackoffRate": 2,
  "MaxDelaySeconds": 4, "JitterStrategy": "FULL"}]}}})");
  ASSERT_EQ(sf.policies.size(), 1u);
  EXPECT_EQ(sf.policies[0].backoff.jitter_order.value, JitterOrder::AfterCap);
}

TEST(JitterOrder, CppClippedAndFullJitter) {
  const char *clippedCode = R"(#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
bool Send();
bool Call() {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  auto delay = std::chrono::milliseconds(200);
  const auto max_delay = std::chrono::seconds(5);
  for (int attempt = 0; attempt < 7; ++attempt) {
    if (Send()) return true;
    std::this_thread::sleep_for(std::min(std::chrono::duration_cast<std::chrono::milliseconds>(delay * dist(rng)), max_delay));
    delay *= 2;
  }
  return false;
}
)";
  FileModel m = extract("retry.cpp", clippedCode);
  ASSERT_EQ(m.policies.size(), 1u);
  const Backoff &b = m.policies[0].backoff;
  EXPECT_EQ(b.jitter_order.value, JitterOrder::BeforeCap);
  ASSERT_TRUE(b.cap.value);
  EXPECT_EQ(*b.cap.value, Duration::s(5));
  ASSERT_TRUE(b.initial.value);
  EXPECT_EQ(*b.initial.value, Duration::ms(200));
  EXPECT_DOUBLE_EQ(b.jitter_lower, 0.5);
  EXPECT_DOUBLE_EQ(b.jitter_upper, 1.5);
  auto f = rl105("retry.cpp", clippedCode);
  ASSERT_EQ(f.size(), 1u);
  // Retry 6 grows to 6.4 s and draws 3.2 s..9.6 s: (9.6 - 5) / 6.4 = 71.875 % at exactly 5 s.
  EXPECT_NE(f[0].message.find("from retry 6 on, draws are cut to the cap; at that retry, the last, 71 % of clients wait exactly 5 s"),
            std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("std::min(cap, base << attempt)"), std::string::npos) << f[0].message;

  FileModel full = extract("retry.cpp", R"(#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
bool Send();
bool Call() {
  std::mt19937 rng(std::random_device{}());
  const auto base = std::chrono::milliseconds(100);
  const auto cap = std::chrono::milliseconds(2000);
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (Send()) return true;
    std::uniform_int_distribution<long> pick(0, std::min(cap, base * (1 << attempt)).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(pick(rng)));
  }
  return false;
}
)");
  ASSERT_EQ(full.policies.size(), 1u);
  EXPECT_EQ(full.policies[0].backoff.jitter_order.value, JitterOrder::AfterCap);
  EXPECT_TRUE(full.policies[0].backoff.jitter_order.written());
}
