// Recognition on real repositories (issue #13): Argo retryStrategy without a limit and
// templateDefaults, Argo's missing jitter setting, Spring Cloud Gateway Server MVC's Retry filter,
// Envoy Gateway retrying success statuses, Kong declarative files without _format_version, and
// Resilience4j base configs reported once for all the instances that use them.
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

// The dialects found in `text` (extractText: no rules run).
bool formatFound(const std::string &path, const std::string &text, std::string_view format) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText(path, text, true, m, errors);
  return std::find(m.formats.begin(), m.formats.end(), format) != m.formats.end();
}

// An Argo Workflow named w with `spec` lines after its header (line 5 is the first of them).
std::string argo(const std::string &kind, const std::string &spec) {
  return "apiVersion: argoproj.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: w}\nspec:\n" + spec;
}

} // namespace

TEST(ArgoRecognition, NoLimitRetriesForeverAndSaysWhy) {
  FileResult r = run("wf.yaml", argo("Workflow", "  templates:\n"
                                 "  - name: a\n"
                                 "    retryStrategy: {}\n"
                                 "  - name: b\n"
                                 "    retryStrategy: {retryPolicy: Always}\n"));
  auto hits = rule(r, "RL201");
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0]->where.line, 7);
  EXPECT_EQ(hits[1]->where.line, 9);
  EXPECT_TRUE(contains(hits[0]->message, "until it succeeds")) << hits[0]->message;
  EXPECT_TRUE(contains(hits[0]->message, "operator.go")) << hits[0]->message;
}

TEST(ArgoRecognition, TemplateDefaultsReportedOnceAndNameTheTemplates) {
  FileResult r = run("wf.yaml", argo("WorkflowTemplate", "  templateDefaults:\n"
                                 "    retryStrategy: {retryPolicy: OnError}\n"
                                 "  templates:\n"
                                 "  - name: fetch\n"
                                 "  - name: store\n"
                                 "    retryStrategy: {limit: 2, backoff: {duration: '5s', factor: 2, cap: '1m'}}\n"));
  auto hits = rule(r, "RL201");
  ASSERT_EQ(hits.size(), 1u) << "one finding for the defaults, none for the template that merges them";
  EXPECT_EQ(hits[0]->where.line, 6);
  EXPECT_TRUE(contains(hits[0]->message, "spec.templateDefaults applies to every template: fetch, store")) << hits[0]->message;
}

TEST(ArgoRecognition, MissingJitterSaysArgoHasNoSettingAndOffersNoFix) {
  FileResult r = run("wf.yaml", argo("Workflow", "  templates:\n"
                                 "  - name: a\n"
                                 "    retryStrategy:\n"
                                 "      limit: 3\n"
                                 "      backoff:\n"
                                 "        duration: '5s'\n"
                                 "        factor: 2\n"
                                 "        cap: '1m'\n"));
  auto hits = rule(r, "RL101");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_TRUE(contains(hits[0]->message, "Argo has no jitter setting")) << hits[0]->message;
  EXPECT_TRUE(hits[0]->fixes.empty());
}

TEST(SpringMvcRecognition, ServerWebMvcRetryFilterIsReadWithItsOwnDefaults) {
  const std::string text = "spring:\n"
                           "  cloud:\n"
                           "    gateway:\n"
                           "      server:\n"
                           "        webmvc:\n"
                           "          routes:\n"
                           "          - id: r\n"
                           "            uri: http://x\n"
                           "            filters:\n"
                           "            - name: Retry\n"
                           "              args:\n"
                           "                retries: 3\n"
                           "                backoff: {firstBackoff: 100ms, factor: 2}\n";
  FileResult r = run("application.yml", text);
  ASSERT_TRUE(formatFound("application.yml", text, "spring-cloud-gateway"));
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText("application.yml", text, true, m, errors);
  ASSERT_EQ(m.policies.size(), 1u);
  const RetryPolicy &p = m.policies[0];
  EXPECT_EQ(p.max_attempts.value, 4); // retries count retries (FrameworkRetryFilterFunctions)
  ASSERT_TRUE(p.backoff.cap.value);   // ExponentialBackOff's 30 s default maximum, not uncapped
  EXPECT_EQ(p.backoff.cap.value->nanos, 30'000'000'000);
  EXPECT_TRUE(rule(r, "RL103").empty());
  auto jitter = rule(r, "RL101");
  ASSERT_EQ(jitter.size(), 1u);
  EXPECT_TRUE(contains(jitter[0]->message, "Server MVC has no jitter setting")) << jitter[0]->message;
  EXPECT_TRUE(jitter[0]->fixes.empty()) << "WebFlux's jitter block does not exist in Server MVC";
}

TEST(SpringMvcRecognition, PropertiesShortcutTakesASeriesNotAStatus) {
  FileResult r = run("application.properties",
                     "spring.cloud.gateway.server.webmvc.routes[0].id=r\n"
                     "spring.cloud.gateway.server.webmvc.routes[0].filters[0]=Retry=2,INTERNAL_SERVER_ERROR,GET\n");
  auto bad = rule(r, "RL901");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_TRUE(contains(bad[0]->message, "HttpStatus.Series")) << bad[0]->message;
}

TEST(EnvoyGatewayRecognition, RetryingASuccessStatusIsInvalid) {
  FileResult r = run("btp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\n"
                                  "kind: BackendTrafficPolicy\n"
                                  "metadata: {name: p}\n"
                                  "spec:\n"
                                  "  retry:\n"
                                  "    numRetries: 2\n"
                                  "    retryOn:\n"
                                  "      httpStatusCodes: [200, 503]\n");
  auto bad = rule(r, "RL901");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->where.line, 8);
  EXPECT_TRUE(contains(bad[0]->message, "200 is a success (2xx)")) << bad[0]->message;
  EXPECT_TRUE(contains(bad[0]->message, "up to 3 times")) << bad[0]->message;
}

TEST(KongRecognition, DeclarativeFileWithoutFormatVersionByShape) {
  const std::string text = "services:\n"
                           "- name: s\n"
                           "  host: orders.internal\n"
                           "  retries: 2\n"
                           "  routes: [{name: r, paths: [/]}]\n";
  FileResult r = run("kong.yaml", text);
  EXPECT_TRUE(formatFound("kong.yaml", text, "kong"));
  EXPECT_EQ(r.policies, 1u);
}

TEST(KongRecognition, ComposeAndHelmServicesAreNotKong) {
  for (const char *text : {"services:\n  kong:\n    image: kong\n    restart: always\n",
                           "services:\n- name: web\n  host: web.example.com\n  port: 80\n",
                           "apiVersion: v1\nkind: ConfigMap\nservices:\n- host: a\n  retries: 3\n"}) {
    FileResult r = run("docker-compose.yaml", text);
    EXPECT_FALSE(formatFound("docker-compose.yaml", text, "kong")) << text;
    EXPECT_TRUE(r.findings.empty()) << text;
  }
}

TEST(Resilience4jRecognition, BaseConfigFindingsReportedOnceWithTheirInstances) {
  FileResult r = run("application.yml", "resilience4j.retry:\n"
                                        "  configs:\n"
                                        "    default:\n"
                                        "      maxAttempts: 3\n"
                                        "      waitDuration: 100\n"
                                        "  instances:\n"
                                        "    backendA:\n"
                                        "      baseConfig: default\n"
                                        "    backendB:\n"
                                        "      baseConfig: default\n"
                                        "resilience4j.circuitbreaker:\n"
                                        "  instances:\n"
                                        "    backendA: {slidingWindowSize: 10}\n"
                                        "    backendB: {slidingWindowSize: 10}\n");
  for (const char *code : {"RL101", "RL102"}) {
    auto hits = rule(r, code);
    ASSERT_EQ(hits.size(), 1u) << code << " once, at configs.default";
    EXPECT_EQ(hits[0]->where.line, 3) << code;
    EXPECT_TRUE(contains(hits[0]->message, "configs.default is used by instances backendA, backendB")) << hits[0]->message;
  }
}

TEST(Resilience4jRecognition, AnInstanceReportsWhatItWritesItself) {
  FileResult r = run("application.yml", "resilience4j.retry:\n"
                                        "  configs:\n"
                                        "    shared:\n"
                                        "      waitDuration: 1s\n"
                                        "  instances:\n"
                                        "    a:\n"
                                        "      baseConfig: shared\n"
                                        "      waitDuration: 2s\n"
                                        "    b:\n"
                                        "      baseConfig: shared\n"
                                        "      maxAttempts: 2\n");
  // a writes its own backoff: its RL102 at its block (line 6); b takes shared's, reported at shared once.
  auto fixed = rule(r, "RL102");
  std::vector<int> lines;
  for (const Finding *f : fixed) lines.push_back(f->where.line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{3, 6}));
  for (const Finding *f : fixed)
    if (f->where.line == 3) {
      EXPECT_TRUE(contains(f->message, "configs.shared is used by instances a, b")) << f->message;
    }
}
