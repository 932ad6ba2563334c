// Resilience4j, Spring Cloud Gateway and .NET resilience: duration syntaxes, the .properties
// reader, attempts normalisation, and the corpus files of these dialects.
#include <filesystem>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"
#include "lint/extract/properties.h"
#include "lint/model/duration.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {
} // namespace

TEST(SpringDuration, AcceptsSpringSpellings) {
  std::string err;
  EXPECT_EQ(parseSpringDuration("500ms", &err)->nanos, 500'000'000);
  EXPECT_EQ(parseSpringDuration("2s", &err)->nanos, 2'000'000'000);
  EXPECT_EQ(parseSpringDuration("2S", &err)->nanos, 2'000'000'000);
  EXPECT_EQ(parseSpringDuration("100", &err)->nanos, 100'000'000); // bare number = milliseconds
  EXPECT_EQ(parseSpringDuration("1m", &err)->nanos, 60'000'000'000);
  EXPECT_EQ(parseSpringDuration("1d", &err)->nanos, 86'400'000'000'000);
  EXPECT_EQ(parseSpringDuration("250us", &err)->nanos, 250'000);
  EXPECT_EQ(parseSpringDuration("PT2S", &err)->nanos, 2'000'000'000);
  EXPECT_EQ(parseSpringDuration("PT0.5S", &err)->nanos, 500'000'000);
  EXPECT_EQ(parseSpringDuration("pt1m30s", &err)->nanos, 90'000'000'000);
  EXPECT_EQ(parseSpringDuration("P1DT1H", &err)->nanos, 90'000'000'000'000);
  EXPECT_EQ(parseSpringDuration("-1s", &err)->nanos, -1'000'000'000);
}

TEST(SpringDuration, RejectsMalformedWithAReason) {
  std::string err;
  EXPECT_FALSE(parseSpringDuration("1.5s", &err));
  EXPECT_NE(err.find("decimals"), std::string::npos) << err;
  EXPECT_FALSE(parseSpringDuration("2 seconds", &err));
  EXPECT_FALSE(parseSpringDuration("5x", &err));
  EXPECT_NE(err.find("unknown unit"), std::string::npos) << err;
  EXPECT_FALSE(parseSpringDuration("", &err));
  EXPECT_FALSE(parseSpringDuration("PT", &err));
  EXPECT_FALSE(parseSpringDuration("P2H", &err)); // hours need the T
  EXPECT_FALSE(parseSpringDuration("PT1.5M", &err)); // fractions only on seconds
  EXPECT_FALSE(parseSpringDuration("s", &err));
}

TEST(TimeSpan, AcceptsDotNetForms) {
  std::string err;
  EXPECT_EQ(parseTimeSpan("00:00:02", &err)->nanos, 2'000'000'000);
  EXPECT_EQ(parseTimeSpan("00:00:00.500", &err)->nanos, 500'000'000);
  EXPECT_EQ(parseTimeSpan("00:00:00.0000001", &err)->nanos, 100);
  EXPECT_EQ(parseTimeSpan("01:30", &err)->nanos, 5'400'000'000'000); // hh:mm
  EXPECT_EQ(parseTimeSpan("1.02:00:00", &err)->nanos, 93'600'000'000'000);
  EXPECT_EQ(parseTimeSpan("2", &err)->nanos, 2 * 86'400'000'000'000); // a bare number is DAYS
  EXPECT_EQ(parseTimeSpan("-00:00:01", &err)->nanos, -1'000'000'000);
}

TEST(TimeSpan, RejectsMalformed) {
  std::string err;
  EXPECT_FALSE(parseTimeSpan("5 seconds", &err));
  EXPECT_NE(err.find("hh:mm:ss"), std::string::npos) << err;
  EXPECT_FALSE(parseTimeSpan("00:61:00", &err));
  EXPECT_FALSE(parseTimeSpan("25:00:00", &err));
  EXPECT_FALSE(parseTimeSpan("00:00:00.12345678", &err));
  EXPECT_FALSE(parseTimeSpan("2s", &err));
  EXPECT_FALSE(parseTimeSpan("", &err));
}

TEST(Properties, ReadsSeparatorsCommentsContinuationsAndEscapes) {
  SourceFile src("a.properties", "# comment\n! also\nkey=value\nk2 : v2\nk3 v3\nlist=a,\\\n    b\nesc=x\\u0041\\ty\n  spaced.key =  1  \n");
  auto e = readProperties(src);
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[0].key, "key");
  EXPECT_EQ(e[0].value, "value");
  EXPECT_EQ(e[0].valueWhere.line, 3);
  EXPECT_EQ(e[0].valueWhere.column, 5);
  EXPECT_EQ(e[1].key, "k2");
  EXPECT_EQ(e[1].value, "v2");
  EXPECT_EQ(e[2].value, "v3");
  EXPECT_EQ(e[3].value, "a,b");
  EXPECT_FALSE(e[3].singleLine);
  EXPECT_EQ(e[3].lastLine0, 6);
  EXPECT_EQ(e[4].value, "xA\ty");
  EXPECT_EQ(e[5].key, "spaced.key");
  EXPECT_EQ(e[5].value, "1");
  EXPECT_EQ(e[5].keyWhere.column, 3);
}

TEST(Attempts, Resilience4jCountsAttemptsInYamlAndProperties) {
  FileModel y = extract("application.yml", "resilience4j.retry:\n  instances:\n    a:\n      maxAttempts: 5\n    b:\n      waitDuration: 1s\n");
  ASSERT_EQ(y.policies.size(), 2u);
  EXPECT_EQ(*y.policies[0].max_attempts.value, 5);
  EXPECT_EQ(y.policies[0].max_attempts.origin, Origin::Written);
  EXPECT_EQ(y.policies[0].max_attempts.where.line, 4);
  EXPECT_FALSE(y.policies[0].attempts_count_retries);
  EXPECT_EQ(y.policies[0].retries(), 4);
  EXPECT_EQ(*y.policies[1].max_attempts.value, 3); // default, the first call included
  EXPECT_EQ(y.policies[1].max_attempts.origin, Origin::Defaulted);
  EXPECT_NE(y.policies[1].max_attempts.source.find("RetryConfig.java"), std::string::npos);

  FileModel p = extract("application.properties", "resilience4j.retry.instances.a.max-attempts=5\n");
  ASSERT_EQ(p.policies.size(), 1u);
  EXPECT_EQ(*p.policies[0].max_attempts.value, 5);
  EXPECT_EQ(p.policies[0].max_attempts.where.line, 1);
  EXPECT_EQ(p.policies[0].max_attempts.where.column, 45);
}

TEST(Attempts, Resilience4jInstancesInheritBaseAndDefaultConfig) {
  FileModel m = extract("application.yml", R"(resilience4j.retry:
  configs:
    default:
      maxAttempts: 4
    slow:
      waitDuration: 2s
  instances:
    a:
      baseConfig: slow
      retryExceptions: [java.io.IOException]
    b:
      baseConfig: default
)");
  // b only names the default config: it is folded into the default config's policy; slow is a
  // policy of its own, since a takes its backoff from it.
  ASSERT_EQ(m.policies.size(), 3u);
  const RetryPolicy &a = m.policies[0];
  EXPECT_EQ(a.anchor, "resilience4j.retry/instances/a");
  EXPECT_EQ(*a.max_attempts.value, 4); // from configs.default, merged into every instance
  EXPECT_EQ(a.max_attempts.where.line, 4);
  EXPECT_EQ(*a.backoff.initial.value, Duration::s(2)); // from configs.slow
  EXPECT_NE(m.policies[1].component.find("used by instances a, b"), std::string::npos);
  EXPECT_EQ(m.policies[2].used_by, "configs.slow is used by instance a");
}

TEST(Attempts, SpringGatewayCountsRetries) {
  FileModel m = extract("application.yml", R"(spring:
  cloud:
    gateway:
      routes:
      - id: r
        filters:
        - name: Retry
          args: {retries: 2}
        - Retry=5
        - Retry
)");
  ASSERT_EQ(m.policies.size(), 3u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 3);
  EXPECT_TRUE(m.policies[0].attempts_count_retries);
  EXPECT_EQ(m.policies[0].describeAttempts(), "retries: 2 = 2 retries + the first try = 3 attempts");
  EXPECT_EQ(*m.policies[1].max_attempts.value, 6);
  EXPECT_EQ(m.policies[1].max_attempts.where.line, 9);
  EXPECT_EQ(*m.policies[2].max_attempts.value, 4); // default 3 retries
  EXPECT_EQ(m.policies[2].max_attempts.origin, Origin::Defaulted);
}

TEST(Attempts, DotnetCountsRetries) {
  FileModel m = extract("appsettings.json", R"({"Http": {"Retry": {"MaxRetryAttempts": 2}}, "Other": {"Retry": {"UseJitter": true}}})");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 3);
  EXPECT_TRUE(m.policies[0].attempts_count_retries);
  EXPECT_EQ(m.policies[0].attempts_field, "MaxRetryAttempts");
  EXPECT_EQ(*m.policies[1].max_attempts.value, 4); // default 3 retries
  EXPECT_EQ(m.policies[1].max_attempts.origin, Origin::Defaulted);
}

TEST(Recognition, UnrelatedFilesAreSkipped) {
  FileModel m;
  std::vector<Diagnostic> errors;
  EXPECT_FALSE(extractText("appsettings.json", R"({"Retry": {"Enabled": true}, "Logging": {}})", false, m, errors));
  EXPECT_FALSE(extractText("application.yml", "spring:\n  application:\n    name: x\n", false, m, errors));
  EXPECT_FALSE(extractText("app.properties", "server.port=8080\n", false, m, errors));
  EXPECT_TRUE(errors.empty());
}

TEST(Corpus, SpringAndDotnetConfigsAreRecognised) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunOptions o;
  o.paths = {(corpusDir() / "resilience4j").string(), (corpusDir() / "spring-cloud-gateway").string(),
             (corpusDir() / "dotnet-http-resilience").string()};
  RunResult r = run(o);
  for (const Diagnostic &d : r.errors) ADD_FAILURE() << d.path << ":" << d.line << ": " << d.message;
  EXPECT_EQ(r.stats.files_analysed, 4u);
  // Resilience4j: configs.default (backendA and backendB fold into it); gateway: 3 route
  // filters + 1 default filter; .NET: one Retry section.
  EXPECT_EQ(r.stats.policies, 6u);
  bool r4jJitter = false, dotnetJitter = false, gatewayPost = false;
  for (const Finding &f : r.findings) {
    r4jJitter |= f.rule == "RL101" && f.where.path.find("resilience4j-spring-boot2-demo") != std::string::npos && f.where.line == 4;
    dotnetJitter |= f.rule == "RL101" && f.where.path.find("appsettings.json") != std::string::npos && f.where.line == 5;
    gatewayPost |= f.rule == "RL403" && f.where.path.find("application-retrytests.yml") != std::string::npos && f.where.line == 21;
  }
  EXPECT_TRUE(r4jJitter);
  EXPECT_TRUE(dotnetJitter);
  EXPECT_TRUE(gatewayPost);
}
