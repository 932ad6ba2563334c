// Layers: the `layers`/`chains` config, RL202 with and without layer information, RL204 and RL301
// across layers on the fixtures under fixtures/layers/ (run with their .retrylint.yaml), and
// `--report layers`.
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "cli_support.h"
#include "lint/config/config.h"
#include "lint/engine.h"

using namespace retrylint;
using namespace retrylint::testing;

namespace {

const std::string kFixtures = std::string(RETRYLINT_SOURCE_DIR) + "/fixtures/layers/";

// The config's error: "line: message", or "" when it loads.
std::string configError(const std::string &text) {
  TempDir t;
  std::vector<Diagnostic> errors;
  auto c = loadProjectConfig(t.write(".retrylint.yaml", text), errors);
  if (c) return "";
  return errors.empty() ? "?" : std::to_string(errors[0].line) + ": " + errors[0].message;
}

RunResult runLayered(const std::string &dir, unsigned jobs = 2) {
  RunOptions o;
  std::vector<Diagnostic> errors;
  o.config = loadProjectConfig(kFixtures + dir + "/.retrylint.yaml", errors);
  EXPECT_TRUE(o.config) << (errors.empty() ? "" : errors[0].message);
  o.settings = o.config->settings;
  o.paths = {kFixtures + dir};
  o.jobs = jobs;
  return run(o);
}

std::vector<const Finding *> findingsOf(const RunResult &r, const std::string &rule) {
  std::vector<const Finding *> out;
  for (const Finding &f : r.findings)
    if (f.rule == rule) out.push_back(&f);
  return out;
}

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

TEST(LayersConfig, ChainsDefaultToTheLayersInOrder) {
  TempDir t;
  std::vector<Diagnostic> errors;
  auto c = loadProjectConfig(t.write(".retrylint.yaml", "layers:\n  - {name: a, paths: [a/**]}\n  - {name: b, paths: [b/**]}\n"), errors);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->chains.size(), 1u);
  EXPECT_EQ(c->chains[0].layers, (std::vector<size_t>{0, 1}));
}

TEST(LayersConfig, ExplicitChainsShareLayers) {
  TempDir t;
  std::vector<Diagnostic> errors;
  auto c = loadProjectConfig(kFixtures + "chains/.retrylint.yaml", errors);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->chains.size(), 3u);
  EXPECT_EQ(c->chains[1].layers, (std::vector<size_t>{0, 2, 1, 3}));
  EXPECT_EQ(c->chains[2].layers, (std::vector<size_t>{3}));
  EXPECT_EQ(c->chains[1].line, 16);
}

TEST(LayersConfig, InvalidConfigsNameTheLine) {
  const std::string two = "layers:\n  - name: a\n    paths: [a/**]\n  - name: b\n    paths: [b/**]\n";
  EXPECT_EQ(configError(two + "chains:\n  - [a, c]\n"), "7: unknown layer 'c' in a chain (declared layers: a, b)");
  EXPECT_EQ(configError(two + "chains:\n  - [a, b, a]\n"), "7: layer 'a' appears twice in one chain");
  EXPECT_EQ(configError(two + "chains:\n  - []\n"), "7: each chain must be a non-empty list of layer names, outermost first");
  EXPECT_EQ(configError(two + "chains: [a, b]\n"), "6: each chain must be a non-empty list of layer names, outermost first");
  EXPECT_EQ(configError("chains:\n  - [a]\n"), "2: chains name layers, but no layers are declared");
  EXPECT_EQ(configError("layers:\n  - {name: a, paths: [a/**]}\n  - {name: a, paths: [b/**]}\n"),
            "3: layer 'a' is declared twice (first on line 2)");
  EXPECT_EQ(configError("layers:\n  - name: a\n    paths: [mesh/**]\n  - name: b\n    paths: [x/**, /mesh/]\n"),
            "5: '/mesh/' is already a path of layer 'a' (line 3); a file belongs to one layer");
  EXPECT_EQ(configError("layers:\n  - {name: a, paths: [a/**], owns-retries: true}\n  - {name: b, paths: [b/**], owns-retries: true}\n"),
            "3: layers 'a' (line 2) and 'b' both own retries; at most one layer may");
  EXPECT_EQ(configError("layers:\n  - {name: a, paths: []}\n"), "2: layer 'a' has no paths");
  EXPECT_EQ(configError("layers:\n  - {name: a, paths: [a/**], owner: true}\n"),
            "2: unknown key 'owner' in a layer (allowed: name, owns-retries, paths)");
  EXPECT_EQ(configError("layers: []\n"), "1: layers is empty: declare at least one layer with name and paths");
  EXPECT_EQ(configError("layers:\n  - {name: a, paths: [a/**], owns-retries: yes}\n"), "2: owns-retries must be true or false, not 'yes'");
}

TEST(LayersConfig, NestedDirectoriesBelongToTheDeeperLayerAndOverlapsAreErrors) {
  TempDir t;
  std::vector<Diagnostic> errors;
  auto c = loadProjectConfig(t.write(".retrylint.yaml", "layers:\n  - {name: svc, paths: [services/orders/**]}\n"
                                                        "  - {name: db, paths: [services/orders/db/**]}\n"
                                                        "  - {name: mesh, paths: ['mesh/*.yaml']}\n"
                                                        "  - {name: other, paths: ['mesh/orders-*']}\n"),
                             errors);
  ASSERT_TRUE(c);
  std::string ambiguous;
  EXPECT_EQ(layerOf(*c, (t.path / "services/orders/app.yaml").string()), std::optional<size_t>(0));
  EXPECT_EQ(layerOf(*c, (t.path / "services/orders/db/config").string()), std::optional<size_t>(1));
  EXPECT_EQ(layerOf(*c, (t.path / "mesh/routes.yaml").string()), std::optional<size_t>(2));
  EXPECT_EQ(layerOf(*c, (t.path / "mesh/orders-route.yaml").string(), &ambiguous), std::nullopt);
  EXPECT_NE(ambiguous.find("layers 'mesh'"), std::string::npos) << ambiguous;
  EXPECT_NE(ambiguous.find("'other' (line 5)"), std::string::npos) << ambiguous;
  EXPECT_EQ(layerOf(*c, (t.path / "elsewhere/x.yaml").string()), std::nullopt);

  // At run time, a retry config in two layers is an error naming the file and both layers.
  t.write("mesh/orders-route.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: o}\n"
                                    "spec:\n  http:\n  - route: [{destination: {host: o}}]\n");
  RunOptions o;
  o.config = c;
  o.paths = {(t.path / "mesh").string()};
  RunResult r = run(o);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(endsWith(r.errors[0].path, "mesh/orders-route.yaml"));
  EXPECT_NE(r.errors[0].message.find("a file belongs to one layer"), std::string::npos);
}

TEST(Layers, AmplifiedChainFiresRL204AndRL202) {
  RunResult r = runLayered("amplified");
  EXPECT_TRUE(r.errors.empty());
  auto amp = findingsOf(r, "RL204");
  ASSERT_EQ(amp.size(), 1u);
  EXPECT_TRUE(endsWith(amp[0]->where.path, "services/orders/db/config"));
  EXPECT_EQ(amp[0]->where.line, 3);
  EXPECT_EQ(amp[0]->severity, Severity::Error);
  const std::string &m = amp[0]->message;
  EXPECT_NE(m.find("gateway 3 (defaulted: Istio's default when a route has no retries block: 2 retries"), std::string::npos) << m;
  EXPECT_NE(m.find("x orders-service 3 (written: maxAttempts 3 ["), std::string::npos) << m;
  EXPECT_NE(m.find("x datastore-client 3 (defaulted: AWS SDK default"), std::string::npos) << m;
  EXPECT_NE(m.find("= up to 27 calls from 'datastore-client' per user request, above the ceiling of 10"), std::string::npos) << m;
  ASSERT_EQ(amp[0]->fixes.size(), 1u); // max_attempts = 1 in the AWS profile

  auto defaults = findingsOf(r, "RL202");
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_TRUE(endsWith(defaults[0]->where.path, "mesh/orders-route.yaml"));
  EXPECT_EQ(defaults[0]->where.line, 11);
  EXPECT_EQ(defaults[0]->severity, Severity::Warning);
  EXPECT_NE(defaults[0]->message.find("Layer 'gateway' does not own retries"), std::string::npos) << defaults[0]->message;
  EXPECT_NE(defaults[0]->message.find("set attempts to 0"), std::string::npos) << defaults[0]->message;
  ASSERT_EQ(defaults[0]->fixes.size(), 1u);
  EXPECT_EQ(defaults[0]->fixes[0].edits[0].replacement, "retries: {attempts: 0}\n    ");
  EXPECT_TRUE(endsWith(defaults[1]->where.path, "services/orders/db/config"));
  EXPECT_NE(defaults[1]->message.find("set max_attempts to 1"), std::string::npos) << defaults[1]->message;
  EXPECT_EQ(defaults[1]->fixes[0].edits[0].replacement, "max_attempts = 1\n");

  ASSERT_EQ(r.chains.size(), 1u);
  std::vector<LayerFigures> f = r.chains[0].figures;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(*f[2].calls, 27);
  EXPECT_EQ(f[1].attempts_origin, "written");
}

TEST(Layers, FixedChainIsQuiet) {
  RunResult r = runLayered("fixed");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(findingsOf(r, "RL204").empty());
  EXPECT_TRUE(findingsOf(r, "RL202").empty());
  EXPECT_TRUE(findingsOf(r, "RL301").empty());
  std::vector<LayerFigures> f = r.chains.at(0).figures;
  EXPECT_EQ(*f[2].calls, 3);
}

TEST(Layers, OwnerMayKeepItsDefaultsAndNoLayersMeansNote) {
  TempDir t;
  t.write(".retrylint.yaml", "layers:\n  - {name: app, paths: [app/]}\n  - {name: db, paths: [db/], owns-retries: true}\n");
  const char *aws = "[profile x]\nregion = eu-west-1\n";
  t.write("db/config", aws);
  t.write("app/config", aws);
  std::vector<Diagnostic> errors;
  RunOptions o;
  o.config = loadProjectConfig((t.path / ".retrylint.yaml").string(), errors);
  o.paths = {t.path.string()};
  RunResult r = run(o);
  auto d = findingsOf(r, "RL202");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(endsWith(d[0]->where.path, "app/config"));
  EXPECT_NE(d[0]->message.find("('db' does)"), std::string::npos) << d[0]->message;

  // Without layers nothing says the profile is intermediate: no finding, not even a note.
  FileResult alone = analyseText("config", aws, true, RunOptions{});
  EXPECT_TRUE(alone.findings.empty());
}

TEST(Layers, InnerLayerOutlivingItsCallerIsRL301) {
  RunResult r = runLayered("deadlines");
  auto d = findingsOf(r, "RL301");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(endsWith(d[0]->where.path, "orders/grpc_service_config.json"));
  EXPECT_EQ(d[0]->where.line, 7);
  EXPECT_NE(d[0]->message.find("layer 'orders-service' can take at most the method timeout 5 s"), std::string::npos) << d[0]->message;
  EXPECT_NE(d[0]->message.find("its caller 'gateway' waits at most perTryTimeout 1 s"), std::string::npos) << d[0]->message;
  EXPECT_TRUE(findingsOf(r, "RL204").empty());
}

TEST(Layers, FourLayerChainsSharingLayers) {
  RunResult r = runLayered("chains");
  EXPECT_TRUE(r.errors.empty());
  auto amp = findingsOf(r, "RL204");
  ASSERT_EQ(amp.size(), 1u); // only edge > worker > api > db exceeds 10
  EXPECT_TRUE(endsWith(amp[0]->where.path, "db/config"));
  EXPECT_EQ(amp[0]->where.line, 4);
  EXPECT_NE(amp[0]->message.find("= up to 24 calls"), std::string::npos) << amp[0]->message;
  auto late = findingsOf(r, "RL301");
  ASSERT_EQ(late.size(), 1u);
  EXPECT_TRUE(endsWith(late[0]->where.path, "worker/route.yaml"));
  EXPECT_EQ(late[0]->where.line, 10);
  EXPECT_NE(late[0]->message.find("3 x 1 s per try + 0.1 s backoff = 3.1 s"), std::string::npos) << late[0]->message;
  ASSERT_EQ(r.chains.size(), 3u);
  EXPECT_EQ(*r.chains[0].figures.back().calls, 8);
  EXPECT_EQ(*r.chains[2].figures.back().calls, 2);
}

TEST(Layers, SameFindingsWhateverTheJobs) {
  for (const char *dir : {"amplified", "chains"}) {
    RunResult one = runLayered(dir, 1), many = runLayered(dir, 4);
    ASSERT_EQ(one.findings.size(), many.findings.size());
    for (size_t i = 0; i < one.findings.size(); ++i) {
      EXPECT_EQ(one.findings[i].fingerprint, many.findings[i].fingerprint);
      EXPECT_EQ(one.findings[i].message, many.findings[i].message);
    }
  }
}

TEST(LayersReport, TextMatchesTheGolden) {
  for (const char *dir : {"amplified", "chains"}) {
    std::string d = "fixtures/layers/" + std::string(dir);
    CliRun r = runRetrylint("--report layers --config " + d + "/.retrylint.yaml " + d);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    expectGolden(r.out, std::string("layers_") + dir + ".txt");
  }
}

TEST(LayersReport, Json) {
  CliRun r = runRetrylint("--report layers --format json --config fixtures/layers/amplified/.retrylint.yaml fixtures/layers/amplified");
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out;
  const auto *layers = doc->getAsObject()->getArray("chains")->front().getAsObject()->getArray("layers");
  ASSERT_EQ(layers->size(), 3u);
  const auto *bottom = (*layers)[2].getAsObject();
  EXPECT_EQ(bottom->getInteger("calls_per_request").getValueOr(0), 27);
  EXPECT_EQ(bottom->getString("attempts_origin").getValueOr("").str(), "defaulted");
  EXPECT_TRUE(bottom->getBoolean("exceeds_max_amplification").getValueOr(false));
}

TEST(LayersReport, WithoutLayersSaysHowToDeclareThem) {
  CliRun r = runRetrylint("--report layers --config /dev/null fixtures/layers/amplified");
  EXPECT_NE(r.out.find("No layers are declared"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("fixtures/layers/amplified/mesh/orders-route.yaml:11 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 3 defaulted  VirtualService orders http[0]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("paths: [fixtures/layers/amplified/services/orders/db/**]"), std::string::npos) << r.out;
  CliRun bad = runRetrylint("--report layers --format sarif fixtures/layers/amplified");
  EXPECT_EQ(bad.exit_code, 2);
}
