// Rules as functions of the model: tiny "catches / does not catch" cases, including the rules
// no dialect read so far can trigger (jitter, caps, tight loops, unbounded attempts).
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "rules/rule.h"

using namespace retrylint;

namespace {

Span at(int line, int col) { return Span{"x.yaml", line, col, line, col + 1}; }

RetryPolicy basePolicy() {
  RetryPolicy p;
  p.format = "test";
  p.anchor = "p";
  p.where = at(1, 1);
  p.max_attempts = written(std::optional<int>(3), at(2, 3));
  p.backoff.growth = written(Growth::Exponential, at(3, 3));
  p.backoff.initial = written(std::optional<Duration>(Duration::ms(100)), at(4, 3));
  p.backoff.multiplier = written(2.0, at(5, 3));
  p.backoff.cap = written(std::optional<Duration>(Duration::s(2)), at(6, 3));
  p.backoff.jitter = written(Jitter::Full, at(7, 3));
  return p;
}

std::vector<Finding> check(const char *code, const RetryPolicy &p, Settings s = {}) {
  FileModel m;
  m.policies.push_back(p);
  std::vector<Finding> out;
  const Rule *r = findRule(code);
  EXPECT_NE(r, nullptr);
  Reporter rep(*r, r->severity, out);
  r->check(m, s, rep);
  return out;
}

} // namespace

TEST(RL101, CatchesNoJitterAndPointsAtIt) {
  RetryPolicy p = basePolicy();
  p.backoff.jitter = defaulted(Jitter::None, at(7, 5), "Lib default: no jitter (lib docs)");
  auto f = check("RL101", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 7);
  EXPECT_EQ(f[0].where.column, 5);
  EXPECT_NE(f[0].message.find("Lib default: no jitter"), std::string::npos);
  EXPECT_NE(f[0].message.find("2 retries"), std::string::npos);
}

TEST(RL101, QuietWithJitterOrBuiltInJitter) {
  EXPECT_TRUE(check("RL101", basePolicy()).empty());
  RetryPolicy p = basePolicy();
  p.backoff.jitter = builtIn(Jitter::Proportional, at(1, 1), "runtime");
  EXPECT_TRUE(check("RL101", p).empty());
}

TEST(RL103, QuotesOnlyTheWaitsTheConfiguredRetriesReach) {
  RetryPolicy p = basePolicy(); // 3 retries from 100 ms, x2: waits of 0.1, 0.2, 0.4 s
  p.backoff.cap = defaulted(std::optional<Duration>(), at(1, 1), "no MaxDelaySeconds");
  EXPECT_TRUE(check("RL103", p).empty()) << "uncapped, but the last wait is 0.4 s";
  p.max_attempts = written(std::optional<int>(11), at(2, 1)); // 10 retries: the last waits 51.2 s
  auto f = check("RL103", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("with 10 retries the last waits up to 51.2 s, more than 20 s"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].message.find("15th"), std::string::npos) << f[0].message;
  EXPECT_TRUE(check("RL103", basePolicy()).empty());
}

TEST(RL103, UnboundedNamesTheFirstRetryPastTheLimit) {
  RetryPolicy p = basePolicy();
  p.backoff.cap = defaulted(std::optional<Duration>(), at(1, 1), "no MaxDelaySeconds");
  p.max_attempts = written(std::optional<int>(), at(2, 1)); // unbounded
  auto f = check("RL103", p);
  ASSERT_EQ(f.size(), 1u);
  // 100 ms x 2^8 = 25.6 s is the first wait above 20 s: the 9th retry.
  EXPECT_NE(f[0].message.find("from the 9th retry on, each waits more than 20 s"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("25.6 s"), std::string::npos) << f[0].message;
}

TEST(RL103, TheLimitIsPerWorkloadAndConfigurable) {
  RetryPolicy p = basePolicy();
  p.backoff.cap = defaulted(std::optional<Duration>(), at(1, 1), "no MaxDelaySeconds");
  p.max_attempts = written(std::optional<int>(11), at(2, 1)); // the last wait: 51.2 s
  p.workload = Workload::Background;
  EXPECT_TRUE(check("RL103", p).empty()) << "51.2 s is within the background limit of 5 min";
  Settings s;
  s.background.max_wait = Duration::s(30);
  auto f = check("RL103", p, s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("settings.background.max-wait for a background workload"), std::string::npos) << f[0].message;
}

TEST(RL104, CatchesNoWaitOnlyWhenRetrying) {
  RetryPolicy p = basePolicy();
  p.backoff.growth = written(Growth::NoWait, at(3, 3));
  ASSERT_EQ(check("RL104", p).size(), 1u);
  p.max_attempts = written(std::optional<int>(1), at(2, 3));
  EXPECT_TRUE(check("RL104", p).empty());
}

TEST(RL201, CatchesUnboundedAttempts) {
  RetryPolicy p = basePolicy();
  p.max_attempts = written(std::optional<int>(), at(2, 3));
  auto f = check("RL201", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_TRUE(check("RL201", basePolicy()).empty());
}

TEST(RL203, CeilingComesFromSettings) {
  RetryPolicy p = basePolicy();
  p.max_attempts = written(std::optional<int>(6), at(2, 3));
  EXPECT_EQ(check("RL203", p).size(), 1u);
  Settings s;
  s.request.max_attempts = 6;
  EXPECT_TRUE(check("RL203", p, s).empty());
}

TEST(RL301, ShowsTheArithmetic) {
  FileModel m;
  std::vector<Diagnostic> errors;
  ASSERT_TRUE(extractText("vs.yaml", R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: r}
spec:
  http:
  - timeout: 3s
    retries: {attempts: 2, perTryTimeout: 1.5s}
)", true, m, errors));
  std::vector<Finding> out;
  const Rule *r = findRule("deadline-exceeded-by-retries");
  Reporter rep(*r, r->severity, out);
  r->check(m, Settings{}, rep);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("3 attempts x 1.5 s per try + 0.1 s backoff = 4.6 s > route timeout 3 s"), std::string::npos)
      << out[0].message;
  // Istio's default retryOn (connect-failure, …, retriable-status-codes) does not retry a try cut off
  // by perTryTimeout: only a failure that comes late in a try (a slow 503) is followed by a retry.
  EXPECT_NE(out[0].message.find("when attempts run long before they fail, only the first fits: a retry after such a try is cut off"),
            std::string::npos)
      << out[0].message;
}

TEST(RL304, CatchesAdaptiveMode) {
  RetryPolicy p = basePolicy();
  EXPECT_TRUE(check("RL304", p).empty());
  p.adaptive_rate_limit = written(true, at(9, 14));
  auto f = check("RL304", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 9);
  p.adaptive_rate_limit = written(false, at(9, 14));
  EXPECT_TRUE(check("RL304", p).empty());
}

TEST(RL402, CatchesCatchAllConditionsOnly) {
  RetryPolicy p = basePolicy();
  Condition specific;
  specific.kind = Condition::Kind::ErrorName;
  specific.text = "Lambda.ServiceException";
  specific.where = at(10, 5);
  p.retry_on.push_back(specific);
  EXPECT_TRUE(check("RL402", p).empty());
  Condition all = specific;
  all.text = "States.ALL";
  all.catch_all = true;
  all.where = at(11, 5);
  p.retry_on.push_back(all);
  auto f = check("RL402", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 11);
  EXPECT_NE(f[0].message.find("States.ALL"), std::string::npos);
}

TEST(RL404, ReportsEachKeyMadePerAttempt) {
  RetryPolicy p = basePolicy();
  EXPECT_TRUE(check("RL404", p).empty());
  p.keys_made_per_attempt.push_back(at(12, 9));
  ASSERT_EQ(check("RL404", p).size(), 1u);
}

TEST(RL501, OnlyLogsWithoutTheAttempt) {
  RetryPolicy p = basePolicy();
  p.attempt_variable = "attempt";
  p.logs.push_back(LogSite{at(13, 7), "LOG(WARNING)", true});
  EXPECT_TRUE(check("RL501", p).empty());
  p.logs.push_back(LogSite{at(14, 7), "spdlog::warn", false});
  auto f = check("RL501", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 14);
  EXPECT_NE(f[0].message.find("spdlog::warn"), std::string::npos);
  EXPECT_NE(f[0].message.find("'attempt'"), std::string::npos);
}

TEST(RL601, NeedsRetryOutsideAndRejectionRetried) {
  RetryPolicy p = basePolicy();
  p.breaker = BreakerComposition{true, false, at(15, 3), "Resilience4j default aspect order"};
  EXPECT_TRUE(check("RL601", p).empty());
  p.breaker->retries_open_circuit = true;
  ASSERT_EQ(check("RL601", p).size(), 1u);
  p.breaker->retry_outside_breaker = false;
  EXPECT_TRUE(check("RL601", p).empty());
}

TEST(Registry, CodesAndNamesAreUniqueAndDocumented) {
  std::set<std::string_view> codes, names;
  for (const Rule *r : allRules()) {
    EXPECT_TRUE(codes.insert(r->code).second) << r->code;
    EXPECT_TRUE(names.insert(r->name).second) << r->name;
    EXPECT_FALSE(r->doc.what.empty()) << r->code;
    EXPECT_FALSE(r->doc.why.empty()) << r->code;
    EXPECT_FALSE(r->doc.example.empty()) << r->code;
    EXPECT_FALSE(r->doc.instead.empty()) << r->code;
    EXPECT_FALSE(r->doc.references.empty()) << r->code;
    EXPECT_EQ(findRule(r->name), r);
    EXPECT_EQ(findRule(r->code), r);
  }
  EXPECT_EQ(findRule("rl101"), findRule("RL101"));
  EXPECT_EQ(findRule("RL999"), nullptr);
}

TEST(Fingerprint, IgnoresLinesButNotTheConstruct) {
  auto a = fingerprintOf("RL101", "a.yaml", "VirtualService/ns/r/http[0]/jitter");
  EXPECT_EQ(a, fingerprintOf("RL101", "a.yaml", "VirtualService/ns/r/http[0]/jitter"));
  EXPECT_NE(a, fingerprintOf("RL101", "a.yaml", "VirtualService/ns/r/http[1]/jitter"));
  EXPECT_NE(a, fingerprintOf("RL102", "a.yaml", "VirtualService/ns/r/http[0]/jitter"));
  EXPECT_EQ(a.size(), 16u);
}

// The README's rule table is the catalogue: one row per rule with its code, name, default
// severity and summary exactly as --list-rules prints them.
TEST(Registry, ReadmeTableMatchesTheCatalogue) {
  std::ifstream in(std::string(RETRYLINT_SOURCE_DIR) + "/README.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  for (const Rule *r : allRules()) {
    std::string row = "| " + std::string(r->code) + " | " + std::string(r->name) + " | " +
                      std::string(severityName(r->severity)) + " | " + std::string(r->summary) + " |";
    EXPECT_NE(readme.find(row), std::string::npos) << "README lacks the row: " << row;
  }
}

namespace retrylint {
namespace {

// Messages count only the retries that can happen: an overall deadline ends those whose waits
// alone do not fit before it (an Express workflow's 5 minutes against 20, 200, 2000 s waits).
TEST(ReachableRetries, AnOverallDeadlineEndsTheRetriesWhoseWaitsDoNotFit) {
  RetryPolicy p = basePolicy();
  p.max_attempts = written(std::optional<int>(6), at(2, 3)); // 5 retries
  p.backoff.initial = written(std::optional<Duration>(Duration::s(20)), at(4, 3));
  p.backoff.multiplier = written(10.0, at(5, 3));
  p.backoff.cap = written(std::optional<Duration>(), at(6, 3));
  p.backoff.jitter = written(Jitter::None, at(7, 3));
  EXPECT_EQ(p.boundedRetries(), std::optional<int>(5));
  p.overall_deadline = builtIn(std::optional<Duration>(Duration::s(300)), at(1, 1), "Express");
  EXPECT_EQ(p.boundedRetries(), std::optional<int>(2)); // 20 + 200 s fit, 20 + 200 + 2000 s do not
  auto f = check("RL101", p);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("so 2 retries arrive"), std::string::npos) << f[0].message;
}

} // namespace
} // namespace retrylint
