// Hostile YAML structure: alias cycles and alias bombs, duplicate keys, merge keys. The tree the
// extractors walk must be finite and small whatever the aliases, and must hold what runtimes
// read (the last value of a duplicated key, merged `<<` entries), not what the eye reads first.
#include <chrono>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "lint/yaml/load.h"
#include "tests/cli_support.h"
#include "tests/hostile_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;
using namespace retrylint::yaml;

namespace {

struct HostileYaml : ::testing::Test {
  TempDir dir;
  void SetUp() override { dir.write("good.yaml", kIstioTooMany); }
  // 1 GiB and 30 s: the inputs are a few hundred bytes; expanded they would take many GiB.
  CliRun lint(const std::string &args) { return runLimited(dir.path, "good.yaml " + args, 30, 1048576); }
};

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
  EXPECT_EQ(withoutSummary(quiet.err), "");
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

// A chain of anchors, each holding the last, nests deep in a flat text (no --max-nesting
// estimate sees it): 3,000 levels took the Resilience4j walker past 1 GiB (bad_alloc, no line).
// Padding keeps the chain within the node budget, so only the depth check stops it.
TEST_F(HostileYaml, AliasChainsDeeperThanTheNestingLimitAreRefused) {
  auto chain = [](int n) {
    std::string y = "resilience4j.retry:\n  configs:\n    pad: [" + repeat("1", 300000) + "]\n    a0: &a0 {maxAttempts: 3}\n";
    for (int k = 1; k < n; ++k) y += "    a" + std::to_string(k) + ": &a" + std::to_string(k) + " {x: *a" + std::to_string(k - 1) + "}\n";
    return y + "  instances:\n    x:\n      deep: *a" + std::to_string(n - 1) + "\n";
  };
  dir.write("chain.yml", chain(3000));
  auto r = lint("chain.yml");
  // a252 sits 3 levels down (resilience4j.retry, configs, a253's map) and holds 253 maps + {x:}.
  expectErrorFor(r, "chain.yml", 257);
  EXPECT_NE(r.err.find("error: YAML alias *a252 nests the tree 257 levels deep, more than the limit of 256 (--max-nesting)"),
            std::string::npos)
      << r.err;
  expectGoodFileReported(r);
  // The limit is the flag's.
  auto low = runLimited(dir.path, "--max-nesting 20 chain.yml", 30, 1048576);
  expectErrorFor(low, "chain.yml", 21);
  EXPECT_NE(low.err.find("more than the limit of 20 (--max-nesting)"), std::string::npos) << low.err;
}

// A big text may expand 16 times, but its aliases never add more than a million nodes: with
// 201,013 nodes written, a1's 500 aliases add 500,500, and a2's first 500,501 more: refused there.
TEST_F(HostileYaml, AliasesAddAtMostAMillionNodes) {
  std::string y = "resilience4j.retry:\n  configs:\n    pad: [" + repeat("1", 200000) + "]\n"
                  "    a0: &a0 [" + repeat("1", 1000) + "]\n";
  y += "    a1: &a1 [" + repeat("*a0", 500) + "]\n";
  y += "    a2: [*a1, *a1, *a1]\n";
  dir.write("wide.yml", y);
  auto r = lint("wide.yml");
  expectErrorFor(r, "wide.yml", 6);
  EXPECT_NE(r.err.find("wide.yml:6:10: error: YAML aliases expand to more than 1201013 nodes"), std::string::npos) << r.err;
  expectGoodFileReported(r);
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

// The tree holds the last value of a duplicated key, as Go's and Python's JSON readers and
// YAML loaders do, with the same tree from both parsers; the earlier entry is recorded.
TEST(HostileYamlTree, DuplicateKeysKeepTheLastValue) {
  const std::string plain = "a: 1\nb: 2\na: 3\nc: {x: 1, x: 2}\n";
  // An anchor makes the fast parser give up: yaml-cpp's events build the same tree.
  const std::string anchored = "a: 1\nb: &b 2\na: 3\nc: {x: 1, x: 2}\n";
  Stream fast;
  ASSERT_TRUE(parseFast(plain, Mode::All, fast));
  Stream slow = parseWithYamlCpp(anchored, Mode::All);
  for (const Stream *s : {&fast, &slow}) {
    const Node doc = s->documents.at(0);
    EXPECT_EQ(doc.size(), 3u);
    EXPECT_EQ(doc["a"].Scalar(), "3");
    EXPECT_EQ(doc["a"].Mark().line, 2);
    EXPECT_EQ(doc["c"]["x"].Scalar(), "2");
    std::vector<std::string> keys;
    for (const auto &kv : doc) keys.push_back(kv.first.Scalar());
    EXPECT_EQ(keys, (std::vector<std::string>{"b", "a", "c"}));
    // Recorded as each map ends: the inner map's first.
    ASSERT_EQ(s->arena->duplicates().size(), 2u);
    EXPECT_EQ(s->arena->node(s->arena->duplicates()[0].key).Mark().line, 3);
    const Document::Duplicate &d = s->arena->duplicates()[1];
    EXPECT_EQ(s->arena->node(d.key).Mark().line, 0);
    EXPECT_EQ(s->arena->node(d.value).Scalar(), "1");
    EXPECT_EQ(s->arena->node(d.laterValue).Scalar(), "3");
  }
  EXPECT_EQ(dump(fast), dump(parseWithYamlCpp(plain, Mode::All)));
  // A big map takes the sorting path: the same answer.
  std::string big;
  for (int i = 0; i < 50; ++i) big += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  big += "k7: last\n";
  Stream b = loadAll(big);
  EXPECT_EQ(b.documents[0].size(), 50u);
  EXPECT_EQ(b.documents[0]["k7"].Scalar(), "last");
  ASSERT_EQ(b.arena->duplicates().size(), 1u);
  EXPECT_EQ(b.arena->node(b.arena->duplicates()[0].key).Mark().line, 7);
}

// `maxAttempts: 3` for the reviewer, 9 for the runtime: the analysis uses 9, and RL901 says so.
TEST_F(HostileYaml, DuplicateKeyUsesTheLastValueAndIsReported) {
  dir.write("grpc.json", R"({
  "methodConfig": [{
    "name": [{"service": "shop.Cart"}],
    "retryPolicy": {
      "maxAttempts": 3,
      "initialBackoff": "0.1s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"],
      "maxAttempts": 9
    }
  }],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}
)");
  const std::string vs = std::regex_replace(std::string(kIstioTooMany), std::regex("attempts: 9\n"), "attempts: 3\n      attempts: 9\n");
  dir.write("istio.yaml", vs);
  // Read by yaml-cpp (an anchor): the same.
  dir.write("anchored.yaml", std::regex_replace(vs, std::regex("hosts: \\[ratings\\]"), "hosts: &h [ratings]"));
  // Not a retry config: not ours to judge.
  dir.write("other.yaml", "name: x\nname: y\n");
  auto r = lint("grpc.json istio.yaml anchored.yaml other.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(withoutSummary(r.err), "");
  EXPECT_NE(r.out.find("grpc.json:5:7: error: duplicate key `maxAttempts`: most loaders keep the last value (9, line 10), "
                       "so the 3 written here has no effect; remove one [RL901"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("grpc.json:10:22: warning: maxAttempts 9 exceeds the ceiling of 5 attempts"), std::string::npos) << r.out;
  for (const char *f : {"istio.yaml", "anchored.yaml"}) {
    const std::string name = f;
    EXPECT_NE(r.out.find(name + ":10:7: error: duplicate key `attempts`: most loaders keep the last value (9, line 11)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(name + ":11:17: warning: attempts: 9 = 9 retries"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(name + ":10:17:"), std::string::npos) << "the dead value was analysed:\n" << r.out;
  }
  EXPECT_EQ(r.out.find("other.yaml"), std::string::npos) << r.out;
}

// Merge keys as YAML 1.1 loaders read them: explicit keys win, then earlier maps; `<<` goes.
TEST(HostileYamlTree, MergeKeysAreMerged) {
  const std::string text = "base: &base {a: 1, b: 2}\n"
                           "more: &more {b: 20, c: 30}\n"
                           "m:\n"
                           "  <<: [*base, *more]\n"
                           "  a: 10\n";
  Stream s = loadAll(text);
  const Node m = s.documents.at(0)["m"];
  std::vector<std::string> entries;
  for (const auto &kv : m) entries.push_back(kv.first.Scalar() + "=" + kv.second.Scalar());
  EXPECT_EQ(entries, (std::vector<std::string>{"b=2", "c=30", "a=10"}));
  EXPECT_FALSE(m["<<"].IsDefined());
  EXPECT_EQ(m["b"].Mark().line, 0); // where it is written
  EXPECT_TRUE(s.arena->duplicates().empty()); // overriding a merged key is no duplicate
  // Inline maps are read by the fast parser: the same merge.
  const std::string inline_ = "m:\n  <<: {a: 1, b: 2}\n  a: 10\n";
  Stream fast;
  ASSERT_TRUE(parseFast(inline_, Mode::All, fast));
  EXPECT_EQ(dump(fast), dump(parseWithYamlCpp(inline_, Mode::All)));
  EXPECT_EQ(fast.documents[0]["m"].size(), 2u);
  EXPECT_EQ(fast.documents[0]["m"]["b"].Scalar(), "2");
  // A quoted "<<", or one whose value is no map, is an ordinary key.
  Stream q = loadAll("m:\n  '<<': {a: 1}\n  x: {<<: 5}\n");
  EXPECT_TRUE(q.documents[0]["m"]["<<"].IsMap());
  EXPECT_EQ(q.documents[0]["m"]["x"]["<<"].Scalar(), "5");
}

// `<<: *base`: a false RL901 (Istio: retries without attempts) and no findings at all
// (Resilience4j: an instance of unknown fields) before; now the merged tree's findings, at the
// lines where the merged values are written.
TEST_F(HostileYaml, MergeKeysGiveTheMergedTreesFindings) {
  const fs::path fixtures = fs::path(RETRYLINT_SOURCE_DIR) / "fixtures";
  fs::copy_file(fixtures / "resilience4j" / "merge-keys.yml", dir.path / "r4j.yml");
  fs::copy_file(fixtures / "istio" / "merge-keys.yaml", dir.path / "istio.yaml");
  auto r = lint("r4j.yml istio.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(withoutSummary(r.err), "");
  EXPECT_EQ(r.out.find("RL901"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("r4j.yml:15:20: warning: maxAttempts 8 exceeds the ceiling of 5 attempts"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "r4j.yml:"), 1u) << r.out; // `overrides` (maxAttempts 2) is fine
  EXPECT_EQ(count(r.out, "istio.yaml:12:17: warning: attempts: 9"), 1u) << r.out;
  EXPECT_EQ(count(r.out, "istio.yaml:"), 1u) << r.out;
}
