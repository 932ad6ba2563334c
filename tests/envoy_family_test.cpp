// Envoy routes, Envoy Gateway BackendTrafficPolicy, Gateway API HTTPRoute and Linkerd
// ServiceProfile: attempts normalisation, defaults, corpus files and the Gateway API durations.
#include <filesystem>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {
RunResult runOn(const std::string &sub) {
  RunOptions o;
  o.paths = {(corpusDir() / sub).string()};
  return run(o);
}

bool has(const RunResult &r, const std::string &rule, int line) {
  for (const Finding &f : r.findings)
    if (f.rule == rule && f.where.line == line) return true;
  return false;
}
} // namespace

// ---- attempts normalisation -------------------------------------------------------------------

TEST(EnvoyRoute, NumRetriesCountsRetriesAndDefaultsToOne) {
  FileModel m = extract("rc.yaml", R"(name: rc
virtual_hosts:
- name: v
  domains: ["*"]
  routes:
  - match: {prefix: /a}
    route:
      cluster: c
      retry_policy: {retry_on: 5xx, num_retries: 3}
  - match: {prefix: /b}
    route:
      cluster: c
      retryPolicy: {retryOn: 5xx}
  - match: {prefix: /c}
    route:
      cluster: c
      retry_policy: {retry_on: 5xx, num_retries: 0}
)");
  ASSERT_EQ(m.policies.size(), 2u); // num_retries 0: retries off
  EXPECT_EQ(*m.policies[0].max_attempts.value, 4);
  EXPECT_TRUE(m.policies[0].attempts_count_retries);
  EXPECT_EQ(m.policies[0].describeAttempts(), "num_retries: 3 = 3 retries + the first try = 4 attempts");
  EXPECT_EQ(m.policies[1].max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(*m.policies[1].max_attempts.value, 2);
  EXPECT_EQ(m.policies[1].attempts_field, "numRetries");
  EXPECT_NE(m.policies[1].max_attempts.source.find("1 retry"), std::string::npos);
  // Envoy's own defaults: 15 s route timeout, jittered 25 ms backoff capped at 250 ms.
  EXPECT_EQ(m.policies[1].overall_deadline.origin, Origin::Defaulted);
  EXPECT_EQ(*m.policies[1].overall_deadline.value, Duration::s(15));
  EXPECT_EQ(m.policies[1].backoff.jitter.value, Jitter::Full);
  EXPECT_EQ(*m.policies[1].backoff.cap.value, Duration::ms(250));
}

TEST(EnvoyRoute, VirtualHostPolicyAppliesOnlyToRoutesWithoutTheirOwn) {
  FileModel m = extract("rc.yaml", R"(name: rc
virtual_hosts:
- name: v
  domains: ["*"]
  retry_policy: {retry_on: 5xx, num_retries: 2, per_try_timeout: 1s}
  routes:
  - match: {prefix: /own}
    route: {cluster: c, retry_policy: {retry_on: connect-failure}}
  - match: {prefix: /}
    route: {cluster: c, timeout: 4s}
)");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 2); // the route's own policy, not merged
  EXPECT_EQ(m.policies[1].anchor, "RouteConfiguration/rc/v/retry_policy");
  EXPECT_EQ(*m.policies[1].max_attempts.value, 3);
  EXPECT_EQ(*m.policies[1].overall_deadline.value, Duration::s(4));
}

// A listener whose routes /a, /b and /c retry 5xx on the clusters named, and `clusters` (YAML
// list items) beside it.
FileModel routesToClusters(const char *file, const std::vector<std::string> &names, const std::string &clusters) {
  std::string text = R"(static_resources:
  listeners:
  - filter_chains:
    - filters:
      - typed_config:
          route_config:
            virtual_hosts:
            - name: v
              routes:
)";
  const char *prefixes[] = {"/a", "/b", "/c"};
  for (size_t i = 0; i < names.size() && i < 3; ++i)
    text += std::string("              - {match: {prefix: ") + prefixes[i] + "}, route: {cluster: " + names[i] +
            ", retry_policy: {retry_on: 5xx}}}\n";
  return extract(file, text + "  clusters:\n" + clusters);
}

TEST(EnvoyRoute, BudgetOnlyFromAClusterInTheSameFile) {
  FileModel m = routesToClusters("b.yaml", {"here", "elsewhere", "budgeted"},
                                 "  - {name: here, circuit_breakers: {thresholds: [{max_retries: 1024}]}}\n"
                                 "  - {name: budgeted, circuit_breakers: {thresholds: [{retry_budget: {}}]}}\n");
  ASSERT_EQ(m.policies.size(), 3u);
  EXPECT_EQ(m.policies[0].budget.origin, Origin::Defaulted);
  EXPECT_FALSE(m.policies[0].budget.value); // 1024 parallel retries bound nothing in an outage
  EXPECT_EQ(m.policies[1].budget.origin, Origin::Unknown);
  EXPECT_TRUE(m.policies[2].budget.value);
}

// Envoy's default circuit breaker (3 parallel retries), or a cap as low, bounds the retry load in an
// outage: retries beyond it fail at once. A cap at a non-default priority does not count.
TEST(EnvoyRoute, ALowCapOnParallelRetriesBoundsTheLoadAsABudget) {
  FileModel m = routesToClusters(
      "c.yaml", {"plain", "capped", "high"},
      "  - {name: plain}\n"
      "  - {name: capped, circuit_breakers: {thresholds: [{max_retries: 5}]}}\n"
      "  - {name: high, circuit_breakers: {thresholds: [{priority: HIGH, max_retries: 2}, {max_retries: 100}]}}\n");
  ASSERT_EQ(m.policies.size(), 3u);
  EXPECT_EQ(m.policies[0].budget.origin, Origin::Defaulted);
  EXPECT_TRUE(m.policies[0].budget.value);
  EXPECT_NE(m.policies[0].budget.source.find("3 parallel retries"), std::string::npos);
  EXPECT_EQ(m.policies[1].budget.origin, Origin::Written);
  EXPECT_TRUE(m.policies[1].budget.value);
  EXPECT_NE(m.policies[1].budget.source.find("max_retries: 5"), std::string::npos);
  EXPECT_FALSE(m.policies[2].budget.value);
}

TEST(EnvoyGateway, NumRetriesCountsRetriesAndDefaultsToTwo) {
  FileModel m = extract("btp.yaml", R"(apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: a}
spec:
  retry: {numRetries: 4}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: b}
spec:
  retry: {}
)");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 5);
  EXPECT_EQ(m.policies[0].describeAttempts(), "numRetries: 4 = 4 retries + the first try = 5 attempts");
  EXPECT_EQ(m.policies[1].max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(*m.policies[1].max_attempts.value, 3);
  ASSERT_FALSE(m.policies[1].retry_on.empty());
  EXPECT_EQ(m.policies[1].retry_on.back().text, "503");
}

TEST(EnvoyGateway, ARetryBudgetInTheCircuitBreakerIsABudget) {
  // envoyproxy/gateway api/v1alpha1/circuitbreaker_types.go: circuitBreaker.retryBudget becomes
  // the cluster's Envoy retry_budget. Without it another policy may still set one: unknown.
  FileModel m = extract("btp.yaml", R"(apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: budgeted}
spec:
  retry: {numRetries: 4}
  circuitBreaker:
    retryBudget:
      percent: {numerator: 20}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: plain}
spec:
  retry: {numRetries: 4}
  circuitBreaker: {maxParallelRetries: 10}
)");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_EQ(m.policies[0].budget.origin, Origin::Written);
  EXPECT_TRUE(m.policies[0].budget.value);
  EXPECT_EQ(m.policies[0].budget.where.line, 7); // the retryBudget key
  EXPECT_EQ(m.policies[1].budget.origin, Origin::Unknown);
}

TEST(GatewayApi, AttemptsCountRetriesAndUnsetIsUnknown) {
  FileModel m = extract("r.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  rules:
  - retry: {attempts: 2, codes: [503]}
  - retry: {codes: [503]}
  - retry: {attempts: 0}
)");
  ASSERT_EQ(m.policies.size(), 2u);
  EXPECT_EQ(*m.policies[0].max_attempts.value, 3);
  EXPECT_EQ(m.policies[0].describeAttempts(), "attempts: 2 = 2 retries + the first try = 3 attempts");
  EXPECT_EQ(m.policies[1].max_attempts.origin, Origin::Unknown); // implementation-specific
  EXPECT_FALSE(m.policies[1].max_attempts.known());
}

TEST(Linkerd, RetryableRoutesAreBudgetedNotCounted) {
  FileModel m = extract("sp.yaml", R"(apiVersion: linkerd.io/v1alpha2
kind: ServiceProfile
metadata: {name: s.default.svc.cluster.local}
spec:
  routes:
  - {name: a, condition: {method: GET}, isRetryable: true}
  - {name: b, condition: {method: GET}}
)");
  ASSERT_EQ(m.policies.size(), 1u);
  const RetryPolicy &p = m.policies[0];
  EXPECT_EQ(p.max_attempts.origin, Origin::Unknown); // no per-request limit: RL201 stays quiet
  EXPECT_EQ(p.budget.origin, Origin::Defaulted);     // the default budget 20 % + 10/s applies
  EXPECT_TRUE(p.budget.value);
  EXPECT_EQ(*p.overall_deadline.value, Duration::s(10));
}

// ---- corpus -----------------------------------------------------------------------------------

TEST(EnvoyFamilyCorpus, EnvoyGatewayRouteConfigurationList) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunResult r = runOn("envoy-route-retry-policy");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.policies, 3u);
  // first-route's retryPolicy has no perTryTimeout, but retries only connect-level failures and 500:
  // Envoy would not retry an attempt its per-try timeout cut off, so there is nothing to report.
  EXPECT_FALSE(has(r, "RL302", 15));
  EXPECT_FALSE(has(r, "RL303", 15)) << "the cluster is not in the file: budget unknown";
}

TEST(EnvoyFamilyCorpus, BackendTrafficPolicy) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunResult r = runOn("envoy-gateway-backendtrafficpolicy");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.policies, 1u);
  EXPECT_TRUE(has(r, "RL203", 13)) << "numRetries 5 = 6 attempts";
}

TEST(EnvoyFamilyCorpus, GatewayApiHttpRoutes) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunResult r = runOn("gateway-api-httproute");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.policies, 4u);
  EXPECT_TRUE(has(r, "RL301", 29)) << "6 attempts x 200ms > request 400ms";
}

TEST(EnvoyFamilyCorpus, LinkerdFragments) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunResult r = runOn("linkerd");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.files_analysed, 1u);
  EXPECT_EQ(r.stats.policies, 1u);
  EXPECT_TRUE(r.findings.empty());
}

// ---- Gateway API durations (GEP-2257) ---------------------------------------------------------

TEST(GatewayDuration, AcceptsWholeUnits) {
  EXPECT_EQ(*parseGatewayDuration("500ms", nullptr), Duration::ms(500));
  EXPECT_EQ(*parseGatewayDuration("1h30m", nullptr), Duration::s(5400));
  EXPECT_EQ(*parseGatewayDuration("0s", nullptr), Duration{0});
  EXPECT_EQ(*parseGatewayDuration("1m1s1ms", nullptr), Duration::ms(61001));
}

TEST(GatewayDuration, RejectsDecimalsMissingUnitsAndTooMuch) {
  std::string err;
  EXPECT_FALSE(parseGatewayDuration("0.5s", &err));
  EXPECT_NE(err.find("no decimals"), std::string::npos);
  EXPECT_FALSE(parseGatewayDuration("10", &err));
  EXPECT_FALSE(parseGatewayDuration("", &err));
  EXPECT_FALSE(parseGatewayDuration("-1s", &err));
  EXPECT_FALSE(parseGatewayDuration("1us", &err));
  EXPECT_FALSE(parseGatewayDuration("123456s", &err)); // at most 5 digits
  EXPECT_FALSE(parseGatewayDuration("1h1m1s1ms1h", &err)); // at most 4 components
}
