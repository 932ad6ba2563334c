// The dialects of issue #21, where retries live besides the formats retrylint first read: Linkerd's
// retry annotations (read alongside the Gateway API spec of the same HTTPRoute) and the AWS SDK
// settings in environment variables (Kubernetes env, Docker Compose, .env files, Dockerfiles).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"

using namespace retrylint;

namespace {

FileResult run(const std::string &path, const std::string &text) { return retrylint::testing::analyseClean(path, text); }
const auto rule = retrylint::testing::findingsOf;

bool contains(const std::string &s, std::string_view part) { return s.find(part) != std::string::npos; }

FileModel model(const std::string &path, const std::string &text) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText(path, text, true, m, errors);
  for (const Diagnostic &d : errors) ADD_FAILURE() << path << ":" << d.line << ": " << d.message;
  return m;
}

} // namespace

TEST(LinkerdAnnotations, AreReadAlongsideTheGatewayApiSpecOfTheSameRoute) {
  const std::string route = "apiVersion: gateway.networking.k8s.io/v1\n"
                            "kind: HTTPRoute\n"
                            "metadata:\n"
                            "  name: r\n"
                            "  annotations:\n"
                            "    retry.linkerd.io/http: 5xx\n"
                            "    retry.linkerd.io/limit: \"3\"\n"
                            "spec:\n"
                            "  rules:\n"
                            "  - retry: {attempts: 2, codes: [503]}\n";
  FileModel m = model("route.yaml", route);
  ASSERT_EQ(m.policies.size(), 2u);
  std::vector<std::string> formats = m.formats;
  std::sort(formats.begin(), formats.end());
  EXPECT_EQ(formats, (std::vector<std::string>{"gateway-api-route", "linkerd-retry-annotations"}));
  auto linkerd = std::find_if(m.policies.begin(), m.policies.end(), [](const RetryPolicy &p) { return p.format == "linkerd-retry-annotations"; });
  ASSERT_NE(linkerd, m.policies.end());
  EXPECT_EQ(linkerd->max_attempts.value, 4);
  EXPECT_TRUE(linkerd->max_attempts.written());
  EXPECT_EQ(linkerd->max_attempts.where.line, 7);
  ASSERT_EQ(linkerd->retry_on.size(), 1u);
  EXPECT_EQ(linkerd->retry_on[0].http_lo, 500);
  EXPECT_EQ(linkerd->retry_on[0].http_hi, 599);
}

TEST(LinkerdAnnotations, TheLimitDefaultsToOneRetryAndZeroDoesNotTurnRetriesOff) {
  FileModel m = model("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                  "    retry.linkerd.io/http: gateway-error\n");
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].max_attempts.value, 2);
  EXPECT_EQ(m.policies[0].max_attempts.origin, Origin::Defaulted);
  EXPECT_TRUE(contains(m.policies[0].max_attempts.source, "unwrap_or(1)")) << m.policies[0].max_attempts.source;

  FileResult r = run("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                 "    retry.linkerd.io/http: \"503\"\n    retry.linkerd.io/limit: \"0\"\n");
  auto hits = rule(r, "RL901");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->where.line, 7);
  EXPECT_TRUE(contains(hits[0]->message, "still retries once")) << hits[0]->message;

  // Timeouts alone, or a limit of 0 alone, configure no retry.
  EXPECT_TRUE(model("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                "    timeout.linkerd.io/request: 2s\n").policies.empty());
  EXPECT_TRUE(model("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                "    retry.linkerd.io/limit: \"0\"\n").policies.empty());
}

TEST(LinkerdAnnotations, AnUnreadableConditionDropsTheWholeRetryConfiguration) {
  FileResult r = run("route.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n"
                                   "  annotations:\n    retry.linkerd.io/http: 5xx, 429\n    retry.linkerd.io/limit: \"9\"\n");
  auto hits = rule(r, "RL901");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->where.column, 33); // the entry " 429"
  EXPECT_TRUE(contains(hits[0]->message, "does not trim blanks")) << hits[0]->message;
  EXPECT_TRUE(rule(r, "RL203").empty()); // the 9 retries never happen
}
