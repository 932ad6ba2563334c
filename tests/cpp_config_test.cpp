// Library configuration in C++ code: AWS SDK for C++ retry strategies and gRPC service configs in
// string literals (positions inside raw and escaped literals, strategy defaults, custom subclasses).
#include <map>

#include <gtest/gtest.h>

#include "lint/engine.h"

using namespace retrylint;

namespace {

FileModel extract(const std::string &text, std::vector<Diagnostic> *errs = nullptr) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText("/tmp/retrylint-cpp-config-test.cpp", text, true, m, errors, ExtractOptions{});
  if (errs) *errs = errors;
  return m;
}

std::vector<Finding> findings(const std::string &text, const std::string &rule) {
  FileResult r = analyseText("/tmp/retrylint-cpp-config-test.cpp", text, true, RunOptions{});
  EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors.front().message);
  std::vector<Finding> out;
  for (const Finding &f : r.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

const RetryPolicy *find(const FileModel &m, const std::string &anchorPart) {
  for (const RetryPolicy &p : m.policies)
    if (p.anchor.find(anchorPart) != std::string::npos) return &p;
  return nullptr;
}

} // namespace

TEST(CppConfig, PositionsInsideARawLiteral) {
  const std::string code = "#include <grpcpp/grpcpp.h>\n"                           // 1
                           "void F(grpc::ChannelArguments &args) {\n"               // 2
                           "  args.SetServiceConfigJSON(R\"json({\n"                // 3
                           "  \"methodConfig\": [{\"name\": [{\"service\": \"a.B\"}],\n" // 4
                           "    \"retryPolicy\": {\"maxAttempts\": 9, \"initialBackoff\": \"1s\",\n" // 5
                           "      \"maxBackoff\": \"2s\", \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}],\n"
                           "  \"retryThrottling\": {\"maxTokens\": 10, \"tokenRatio\": 0.1}})json\");\n"
                           "}\n";
  auto f = findings(code, "RL203");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 5);
  EXPECT_EQ(f[0].where.column, 36); // the 9 after "maxAttempts":
  EXPECT_EQ(f[0].where.end_column, 37);
  EXPECT_EQ(f[0].format, "grpc-service-config");
  FileModel m = extract(code);
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].max_attempts.value, std::optional<int>(9));
  EXPECT_EQ(m.policies[0].runtime_max_attempts, std::optional<int>(5));
}

TEST(CppConfig, PositionsInsideEscapedConcatenatedLiterals) {
  const std::string code = "void F(grpc::ChannelArguments &args) {\n"
                           "  args.SetString(GRPC_ARG_SERVICE_CONFIG,\n"
                           "    \"{\\\"methodConfig\\\": [{\\\"name\\\": [{\\\"service\\\": \\\"a.B\\\"}], \"\n"
                           "    \"\\\"retryPolicy\\\": {\\\"maxAttempts\\\": 3, \\\"initialBackoff\\\": \\\"1s\\\", \\\"maxBackoff\\\": \\\"2s\\\", \"\n"
                           "    \"\\\"backoffMultiplier\\\": 2, \\\"retryableStatusCodes\\\": [\\\"unavailable\\\"]}}]}\");\n"
                           "}\n";
  auto f = findings(code, "RL901");
  ASSERT_EQ(f.size(), 1u) << code;
  EXPECT_EQ(f[0].where.line, 5);
  // "\"unavailable\"" as spelled in the source, escapes included.
  std::string line5 = "    \"\\\"backoffMultiplier\\\": 2, \\\"retryableStatusCodes\\\": [\\\"unavailable\\\"]}}]}\");";
  size_t col = line5.find("\\\"unavailable") + 1;
  EXPECT_EQ(f[0].where.column, static_cast<int>(col));
  EXPECT_EQ(f[0].where.end_column, static_cast<int>(col + std::string("\\\"unavailable\\\"").size()));
  // The fix re-spells the replacement for the ordinary literal.
  ASSERT_EQ(f[0].fixes.size(), 1u);
  ASSERT_EQ(f[0].fixes[0].edits.size(), 1u);
  EXPECT_EQ(f[0].fixes[0].edits[0].replacement, "\\\"UNAVAILABLE\\\"");
  EXPECT_EQ(code.substr(f[0].fixes[0].edits[0].offset, f[0].fixes[0].edits[0].length), "\\\"unavailable\\\"");
  // No retryThrottling: RL303 at the retryPolicy key on line 4.
  auto budget = findings(code, "RL303");
  ASSERT_EQ(budget.size(), 1u);
  EXPECT_EQ(budget[0].where.line, 4);
}

TEST(CppConfig, LiteralPassedByNameAndInvalidJson) {
  const std::string bad = "const char kConfig[] = R\"({\"methodConfig\": [],})\";\n"
                          "void F(grpc::ChannelArguments &args) { args.SetServiceConfigJSON(kConfig); }\n";
  std::vector<Diagnostic> errors;
  extract(bad, &errors);
  EXPECT_TRUE(errors.empty()); // not an analysis error: the file compiles
  auto f = findings(bad, "RL901");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 1);
  EXPECT_NE(f[0].message.find("not valid JSON"), std::string::npos);
}

TEST(CppConfig, DefaultRetryStrategyDefaultsAndArguments) {
  const std::string code = "void F(Aws::Client::ClientConfiguration &cfg, Aws::Client::ClientConfiguration &two) {\n"
                           "  cfg.retryStrategy = Aws::MakeShared<Aws::Client::DefaultRetryStrategy>(\"tag\");\n"
                           "  two.retryStrategy = std::make_shared<Aws::Client::DefaultRetryStrategy>(2, 40);\n"
                           "}\n";
  FileModel m = extract(code);
  const RetryPolicy *d = find(m, "cfg.retryStrategy");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(d->max_attempts.value, std::optional<int>(11));
  EXPECT_EQ(d->attempts_field, "maxRetries");
  EXPECT_TRUE(d->attempts_count_retries);
  EXPECT_EQ(d->backoff.jitter.value, Jitter::None);
  EXPECT_TRUE(d->backoff.cap.known());
  EXPECT_FALSE(d->backoff.cap.value.has_value());
  EXPECT_EQ(*d->backoff.initial.value, Duration::ms(25));
  const RetryPolicy *t = find(m, "two.retryStrategy");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->max_attempts.origin, Origin::Written);
  EXPECT_EQ(t->max_attempts.value, std::optional<int>(3)); // 2 retries + the first try
  EXPECT_EQ(t->max_attempts.where.line, 3);
  EXPECT_EQ(*t->backoff.initial.value, Duration::ms(40));
}

TEST(CppConfig, StandardAdaptiveAndInitRetryStrategy) {
  const std::string code = "void F(Aws::Client::ClientConfiguration &a, Aws::Client::ClientConfiguration &b,\n"
                           "       Aws::Client::ClientConfiguration &c) {\n"
                           "  a.retryStrategy = Aws::MakeShared<Aws::Client::StandardRetryStrategy>(\"tag\");\n"
                           "  b.retryStrategy = Aws::MakeShared<Aws::Client::AdaptiveRetryStrategy>(\"tag\", 2);\n"
                           "  c.retryStrategy = Aws::Client::InitRetryStrategy(\"adaptive\");\n"
                           "}\n";
  FileModel m = extract(code);
  const RetryPolicy *a = find(m, "a.retryStrategy");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->max_attempts.value, std::optional<int>(3));
  EXPECT_EQ(a->max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(a->backoff.jitter.value, Jitter::Full);
  EXPECT_EQ(*a->backoff.cap.value, Duration::s(20));
  EXPECT_TRUE(a->budget.value);
  EXPECT_FALSE(a->adaptive_rate_limit.value);
  const RetryPolicy *b = find(m, "b.retryStrategy");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->max_attempts.value, std::optional<int>(2));
  EXPECT_TRUE(b->adaptive_rate_limit.value);
  const RetryPolicy *c = find(m, "c.retryStrategy");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->adaptive_rate_limit.value);
  EXPECT_EQ(findings(code, "RL304").size(), 2u);
}

TEST(CppConfig, ImplicitClientConfigurationAndTimeouts) {
  const std::string code = "void F() {\n"
                           "  Aws::Client::ClientConfiguration cfg;\n"
                           "  cfg.requestTimeoutMs = 1500;\n"
                           "  Aws::S3::S3Client s3(cfg);\n"
                           "}\n";
  FileModel m = extract(code);
  ASSERT_EQ(m.policies.size(), 1u);
  const RetryPolicy &p = m.policies[0];
  EXPECT_TRUE(p.implicit);
  EXPECT_EQ(p.max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(p.max_attempts.value, std::optional<int>(11));
  EXPECT_NE(p.max_attempts.source.find("InitRetryStrategy"), std::string::npos);
  EXPECT_EQ(p.per_try_timeout.origin, Origin::Written);
  EXPECT_EQ(*p.per_try_timeout.value, Duration::ms(1500));
  FileResult r = analyseText("/tmp/x.cpp", code, true, RunOptions{});
  // An implicit policy: the SDK's defaults, which no rule reports without a declared layer.
  EXPECT_TRUE(r.findings.empty());
}

TEST(CppConfig, CustomSubclass) {
  const std::string code = "class Mine : public Aws::Client::RetryStrategy {\n"
                           " public:\n"
                           "  bool ShouldRetry(const AWSError<CoreErrors> &e, long attemptedRetries) const override {\n"
                           "    return attemptedRetries + 1 < 8 && e.ShouldRetry();\n"
                           "  }\n"
                           "  long CalculateDelayBeforeNextRetry(const AWSError<CoreErrors> &, long n) const override {\n"
                           "    return 1000 << n;\n"
                           "  }\n"
                           "};\n";
  FileModel m = extract(code);
  const RetryPolicy *p = find(m, "aws-retry-strategy/Mine");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->max_attempts.value, std::optional<int>(8)); // retries while n + 1 < 8: 7 retries
  EXPECT_EQ(p->max_attempts.where.line, 4);
  EXPECT_EQ(p->backoff.growth.value, Growth::Exponential);
  EXPECT_EQ(p->backoff.jitter.value, Jitter::None);
  auto f = findings(code, "RL103");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.line, 6);
}
