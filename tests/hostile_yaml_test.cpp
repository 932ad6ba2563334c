// Hostile YAML structure: alias cycles and alias bombs. The tree the extractors walk must be
// finite and small whatever the aliases.
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli_support.h"
#include "tests/hostile_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// An Istio retry block with a finding at line 10 (RL203: attempts 9), next to every hostile file.
constexpr const char *kGood = R"(apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata:
  name: ratings
spec:
  hosts: [ratings]
  http:
  - name: too-many
    retries:
      attempts: 9
      perTryTimeout: 1s
    route:
    - destination: {host: ratings}
)";

struct HostileYaml : ::testing::Test {
  TempDir dir;
  void SetUp() override { dir.write("good.yaml", kGood); }
  // 1 GiB and 30 s: the inputs are a few hundred bytes; expanded they would take many GiB.
  CliRun lint(const std::string &args) { return runLimited(dir.path, "good.yaml " + args, 30, 1048576); }
};

void expectGoodFileReported(const CliRun &r) {
  EXPECT_NE(r.out.find("good.yaml:10:17: warning: attempts: 9"), std::string::npos) << "good file's finding lost:\n"
                                                                                  << r.out << r.err;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string repeat(const std::string &item, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? ", " : "") + item;
  return out;
}

} // namespace

// `&d {x: *d}`: the walkers recursed until the stack overflowed (Resilience4j, Spring) or up to
// their depth limits, repeating findings (Envoy). The loader refuses the alias, at its line.
TEST_F(HostileYaml, AliasCycleIsAnErrorAtTheAliasLine) {
  dir.write("r4j.yml", "resilience4j.retry:\n"
                       "  configs:\n"
                       "    default: &d\n"
                       "      maxAttempts: 3\n"
                       "      x: *d\n");
  dir.write("spring.yml", "spring:\n"
                          "  cloud:\n"
                          "    gateway:\n"
                          "      routes:\n"
                          "        - &r\n"
                          "          id: bare\n"
                          "          uri: http://catalog\n"
                          "          filters:\n"
                          "            - Retry\n"
                          "          x: [*r]\n");
  dir.write("envoy.yaml", "static_resources:\n"
                          "  listeners:\n"
                          "  - &l\n"
                          "    name: main\n"
                          "    filter_chains:\n"
                          "    - filters:\n"
                          "      - typed_config:\n"
                          "          route_config:\n"
                          "            virtual_hosts:\n"
                          "            - name: api\n"
                          "              domains: ['*']\n"
                          "              routes:\n"
                          "              - match: {prefix: /}\n"
                          "                route: {cluster: api, retry_policy: {retry_on: connect-failure}}\n"
                          "      - more: [*l]\n");
  auto r = lint("r4j.yml spring.yml envoy.yaml");
  expectErrorFor(r, "r4j.yml", 5);
  expectErrorFor(r, "spring.yml", 10);
  expectErrorFor(r, "envoy.yaml", 15);
  EXPECT_NE(r.err.find("r4j.yml:5:10: error: YAML alias *d is inside the node it refers to (a cycle)"), std::string::npos) << r.err;
  EXPECT_EQ(count(r.err, "(a cycle)"), 3u) << r.err;
  for (const char *f : {"r4j.yml", "spring.yml", "envoy.yaml"}) EXPECT_EQ(r.out.find(f), std::string::npos) << r.out;
  expectGoodFileReported(r);

  // Not a retry config: someone else's YAML, skipped quietly as any unparsable file is.
  TempDir other;
  other.write("data.yaml", "a: &a {b: [*a]}\n");
  auto quiet = runLimited(other.path, ".", 30, 1048576);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

// A few hundred bytes of aliases that the extractors walked as trees: 7.9 GB (Resilience4j),
// bad_alloc (Step Functions Branches), 180,000 repeated findings (a Kubernetes `kind: List`).
// Now an error at the alias that crosses the budget, at once and in little memory.
TEST_F(HostileYaml, AliasBombsAreRefusedQuicklyInBoundedMemory) {
  std::string r4j = "resilience4j.retry:\n  configs:\n"
                    "    a0: &a0 {maxAttempts: 3, waitDuration: 1s, enableRandomizedWait: true}\n";
  for (int k = 1; k <= 8; ++k)
    r4j += "    a" + std::to_string(k) + ": &a" + std::to_string(k) + " [" + repeat("*a" + std::to_string(k - 1), 10) + "]\n";
  r4j += "  instances:\n    x:\n      baseConfig: a0\n";
  dir.write("r4j.yml", r4j);

  std::string sfn = "StartAt: P\nStates:\n  P:\n    Type: Parallel\n    End: true\n    Branches:\n"
                    "    - &b0 {StartAt: T, States: {T: {Type: Task, Resource: 'arn:aws:states:::lambda:invoke', End: true, "
                    "Retry: [{ErrorEquals: [States.ALL]}]}}}\n";
  for (int k = 1; k <= 8; ++k)
    sfn += "    - &b" + std::to_string(k) + " {StartAt: P, States: {P: {Type: Parallel, End: true, Branches: [" +
           repeat("*b" + std::to_string(k - 1), 8) + "]}}}\n";
  dir.write("sfn.asl.yaml", sfn);

  std::string list = "apiVersion: v1\nkind: List\nitems:\n"
                     "- &v0 {apiVersion: networking.istio.io/v1beta1, kind: VirtualService, metadata: {name: r}, "
                     "spec: {hosts: [r], http: [{retries: {attempts: 9}, route: [{destination: {host: r}}]}]}}\n";
  for (int k = 1; k <= 7; ++k)
    list += "- &v" + std::to_string(k) + " {kind: List, items: [" + repeat("*v" + std::to_string(k - 1), 10) + "]}\n";
  dir.write("list.yaml", list);
  ASSERT_LT(r4j.size() + sfn.size() + list.size(), 3000u);

  const auto start = std::chrono::steady_clock::now();
  auto r = lint("r4j.yml sfn.asl.yaml list.yaml");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The first alias whose expansion takes the text past 100,000 nodes: a5's first (71,111 nodes
  // after 79,000), b4's last (8 x 11,189), v4's third (3 x 28,555 after 31,680).
  expectErrorFor(r, "r4j.yml", 8);
  expectErrorFor(r, "sfn.asl.yaml", 12);
  expectErrorFor(r, "list.yaml", 8);
  EXPECT_EQ(count(r.err, "error: YAML aliases expand to more than 100000 nodes"), 3u) << r.err;
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
  EXPECT_LT(r.out.size(), 2000u) << r.out.substr(0, 2000);
  expectGoodFileReported(r);
  EXPECT_LT(took, kAsan ? 20 : 5);
}

// Aliases within the budget still share nodes: a block reached through many aliases gives its
// findings once (they were reported once per alias).
TEST_F(HostileYaml, FindingsReachedThroughManyAliasesAreReportedOnce) {
  std::string vs = "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: c}\nspec:\n"
                   "  hosts: [c]\n  http:\n"
                   "  - &r0\n    name: r0\n    retries: {attempts: 9, perTryTimeout: 1s}\n    route: [{destination: {host: c}}]\n";
  for (int i = 0; i < 200; ++i) vs += "  - *r0\n";
  dir.write("chain.yaml", vs);
  auto r = lint("chain.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count(r.out, "chain.yaml:9:"), 1u) << r.out.substr(0, 3000);
  expectGoodFileReported(r);
}
