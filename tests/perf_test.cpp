// Performance features must not change results: the pre-filter, the result cache, sharding and
// merging all give what a plain run gives.
#include <filesystem>

#include <gtest/gtest.h>

#include "lint/cpp/driver.h"
#include "lint/engine.h"
#include "lint/extract/extractors.h"
#include "lint/cache/cache.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tests/fixture_support.h"

using namespace retrylint;
using namespace retrylint::testing;
namespace fs = std::filesystem;

namespace {

std::string describe(const FileResult &r) {
  std::string out = r.analysed ? "analysed " : "skipped ";
  out += std::to_string(r.policies) + " policies\n";
  for (const Finding &f : r.findings)
    out += f.rule + " " + f.where.path + ":" + std::to_string(f.where.line) + ":" + std::to_string(f.where.column) + " " +
           f.message + " [" + f.anchor + "] " + std::to_string(f.fixes.size()) + " fixes\n";
  for (const Diagnostic &d : r.errors) out += "error " + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.message + "\n";
  return out;
}

std::vector<fs::path> inputsUnder(const fs::path &dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto &e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string name = e.path().filename().string();
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".expect") == 0) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

// The proof the pre-filter never drops a file with findings: every fixture and every corpus file,
// analysed with and without it, gives the same findings, errors and policy counts.
TEST(Prefilter, EveryFixtureAndCorpusFileGivesTheSameResultWithAndWithoutIt) {
  std::vector<fs::path> files = inputsUnder(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures");
  for (const fs::path &p : inputsUnder(corpusDir())) files.push_back(p);
  ASSERT_GT(files.size(), 50u);
  size_t withFindings = 0;
  for (const fs::path &p : files) {
    std::string text = readFile(p.string());
    for (bool named : {false, true}) {
      RunOptions on, off;
      off.extract.prefilter = false;
      FileResult a = analyseText(p.string(), text, named, on);
      FileResult b = analyseText(p.string(), text, named, off);
      EXPECT_EQ(describe(a), describe(b)) << p << (named ? " (named)" : "");
      if (!named && !b.findings.empty()) ++withFindings;
    }
  }
  EXPECT_GT(withFindings, 30u);
}

TEST(Prefilter, EveryYamlDialectDeclaresItsWords) {
  for (const Extractor &ex : extractors())
    if (ex.recognise) EXPECT_FALSE(ex.prefilter_words.empty()) << ex.format << ": give its descriptor prefilter_words";
}

// The engine drops a text the pre-filter rejects without asking whether it looks like a retry
// config (whether a parse error is worth reporting): every marker must hold a pre-filter word.
TEST(Prefilter, EveryDialectMarkerPassesThePrefilter) {
  size_t markers = 0;
  for (const Extractor &ex : extractors())
    for (std::string_view m : ex.markers) {
      ++markers;
      EXPECT_TRUE(mayHoldYamlRetryConfig(m)) << ex.format << " marker '" << m << "': add a word to its prefilter_words";
    }
  EXPECT_GT(markers, 20u);
}

TEST(Prefilter, SkipsOnlyWhatNoDialectCouldRecognise) {
  EXPECT_FALSE(mayHoldYamlRetryConfig("apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 3\n"));
  EXPECT_FALSE(mayHoldYamlRetryConfig("{\"name\": \"web\", \"version\": \"1.0.0\"}"));
  EXPECT_TRUE(mayHoldYamlRetryConfig("apiVersion: \"networking.istio.io/v1\"\nkind: VirtualService\n"));
  EXPECT_TRUE(mayHoldYamlRetryConfig("{\"method_config\": []}"));     // snake case folds to methodconfig
  EXPECT_TRUE(mayHoldYamlRetryConfig("RETRY:\n  MaxRetryAttempts: 3\n")); // case folds
  EXPECT_TRUE(mayHoldYamlRetryConfig("{\"\\u006dethodConfig\": []}")); // an escape: the parser decides
}

TEST(Prefilter, CppFilesWithoutARetryShapedLoopAreNotParsed) {
  auto may = [](const std::string &code) { return cpp::mayHoldRetryLoop(cpp::Tokens(code)); };
  EXPECT_FALSE(may("int f(const std::vector<int> &v) { int s = 0; for (int x : v) s += x; return s; }"));
  EXPECT_FALSE(may("// while (true) in a comment\nint g() { return 1; }"));
  EXPECT_FALSE(may("void f(std::vector<int> &v) { for (size_t i = 0; i < v.size(); ++i) v[i]++; }"));
  EXPECT_FALSE(may("void f() { while (!q.empty()) { auto x = q.front(); q.pop(); use(x); } }"));
  EXPECT_FALSE(may("void f() { for (auto [k, v] : m) { try { g(k); } catch (...) {} } }"));
  EXPECT_FALSE(may("void f() { retry(); for (int i = 0; i < n; ++i) {} }")); // the word is outside any loop
  // Loops with evidence of retrying, in the header, the body or the counter's name.
  EXPECT_TRUE(may("void f() { for (int i = 0; i < kMaxRetries; ++i) {} }"));
  EXPECT_TRUE(may("void f() { for (;;) { try { call(); return; } catch (const std::exception &) {} } }"));
  EXPECT_TRUE(may("void f() { while (!ok()) std::this_thread::sleep_for(1s); }"));
  EXPECT_TRUE(may("void f() { do { x(); } while (shouldRetry()); }"));
  EXPECT_TRUE(may("void f() { int attempt = 0; while (!send()) { ++attempt; } }"));
  EXPECT_TRUE(may("void f() { for (int tries = 0; tries < 3; tries++) if (g()) break; }"));
  EXPECT_TRUE(may("void f() { while (true) { if (cv.wait_until(l, t) == std::cv_status::timeout) break; } }"));
}

TEST(Cache, FileResultsRoundTripThroughJson) {
  FileResult r = analyseText("fixtures/istio/attempts.yaml", readFile(std::string(RETRYLINT_SOURCE_DIR) + "/fixtures/istio/attempts.yaml"),
                             false, RunOptions{});
  ASSERT_FALSE(r.findings.empty());
  auto back = fileResultFromJson(fileResultToJson(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(describe(r), describe(*back));
  EXPECT_EQ(fileResultToJson(r), fileResultToJson(*back));
}

TEST(Cache, CachedRunsPrintTheSameBytesAndChangesInvalidate) {
  TempDir t;
  // The key that signs the entries is made here, not in the user's ~/.config.
  ::setenv("XDG_CONFIG_HOME", (t.path / "config").c_str(), 1);
  ::unsetenv("RETRYLINT_CACHE_KEY");
  std::string cache = (t.path / "cache").string();
  std::string tree = (t.path / "tree").string();
  fs::create_directories(tree);
  fs::copy(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures" / "istio", tree + "/istio", fs::copy_options::recursive);
  fs::copy(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures" / "grpc-service-config", tree + "/grpc", fs::copy_options::recursive);
  auto entries = [&] {
    size_t n = 0;
    if (fs::exists(cache))
      for (const auto &e : fs::recursive_directory_iterator(cache)) n += e.is_regular_file();
    return n;
  };
  for (std::string fmt : {"json", "sarif", "text"}) {
    CliRun plain = runRetrylint("--no-cache --format " + fmt + " '" + tree + "'");
    CliRun first = runRetrylint("--cache-dir '" + cache + "' --format " + fmt + " '" + tree + "'");
    CliRun second = runRetrylint("--cache-dir '" + cache + "' --format " + fmt + " '" + tree + "'");
    EXPECT_EQ(plain.out, first.out) << fmt;
    EXPECT_EQ(plain.out, second.out) << fmt;
    EXPECT_EQ(plain.err, second.err) << fmt;
    EXPECT_EQ(plain.exit_code, second.exit_code) << fmt;
  }
  const size_t warm = entries();
  ASSERT_GT(warm, 10u);
  // No flag, no variable: no cache. The variable names a default cache; --no-cache wins over it.
  runRetrylint("--format json '" + tree + "'");
  EXPECT_EQ(entries(), warm);
  std::string envCache = (t.path / "env-cache").string();
  ::setenv("RETRYLINT_CACHE_DIR", envCache.c_str(), 1);
  runRetrylint("--no-cache --format json '" + tree + "'");
  EXPECT_FALSE(fs::exists(envCache));
  CliRun viaEnv = runRetrylint("--format json '" + tree + "'");
  ::unsetenv("RETRYLINT_CACHE_DIR");
  EXPECT_TRUE(fs::exists(envCache));
  EXPECT_EQ(viaEnv.out, runRetrylint("--no-cache --format json '" + tree + "'").out);

  // A changed file: a new entry and the new finding.
  std::string clean = tree + "/istio/clean.yaml";
  std::string text = readFile(clean);
  std::ofstream(clean, std::ios::binary) << text << "# changed\n";
  CliRun changed = runRetrylint("--cache-dir '" + cache + "' --format json '" + tree + "'");
  EXPECT_EQ(entries(), warm + 1);
  EXPECT_EQ(changed.out, runRetrylint("--no-cache --format json '" + tree + "'").out);

  // A changed flag: every file gets a new key, and the result follows the flag.
  CliRun flagged = runRetrylint("--cache-dir '" + cache + "' --max-attempts 2 --format json '" + tree + "'");
  CliRun flaggedPlain = runRetrylint("--no-cache --max-attempts 2 --format json '" + tree + "'");
  EXPECT_EQ(flagged.out, flaggedPlain.out);
  EXPECT_NE(flagged.out, changed.out);
  EXPECT_GT(entries(), warm + 10);

  // A changed config: rules turned off in .retrylint.yaml are off in the cached run too.
  std::string cfg = t.write("cfg/.retrylint.yaml", "rules:\n  RL203: off\n");
  CliRun configured = runRetrylint("--cache-dir '" + cache + "' --config '" + cfg + "' --format json '" + tree + "'");
  EXPECT_EQ(configured.out, runRetrylint("--no-cache --config '" + cfg + "' --format json '" + tree + "'").out);
  EXPECT_EQ(configured.out.find("\"RL203\""), std::string::npos);
  EXPECT_NE(changed.out.find("\"RL203\""), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(t.path / "config" / "retrylint" / "cache-key"));
  ::unsetenv("XDG_CONFIG_HOME");
}

TEST(Shard, ShardsCoverTheRunOnceAndMergeToTheSameReport) {
  TempDir t;
  // Without the layer fixtures' configs: a chain spans files that different shards hold (README).
  const std::string noConfig = "--config /dev/null ";
  CliRun whole = runRetrylint(noConfig + "--no-cache --format json fixtures");
  ASSERT_EQ(whole.exit_code, 2); // the fixtures hold deliberately broken files
  std::string merged = "merge";
  for (int k = 1; k <= 3; ++k) {
    std::string out = (t.path / ("shard" + std::to_string(k) + ".json")).string();
    CliRun s = runRetrylint(noConfig + "--no-cache --shard " + std::to_string(k) + "/3 --format json -o '" + out + "' fixtures");
    EXPECT_NE(slurp(out), whole.out) << "shard " << k << " holds everything";
    merged += " '" + out + "'";
  }
  CliRun m = runRetrylint(merged);
  EXPECT_EQ(m.out, whole.out);
  EXPECT_EQ(m.exit_code, whole.exit_code);
  CliRun sarif = runRetrylint(merged + " --format sarif");
  EXPECT_EQ(sarif.out, runRetrylint(noConfig + "--no-cache --format sarif fixtures").out);

  EXPECT_EQ(runRetrylint("--shard 0/3 fixtures").exit_code, 2);
  EXPECT_EQ(runRetrylint("--shard 4/3 fixtures").exit_code, 2);
}

TEST(Shard, MergedExitCodeFollowsFindingsErrorsAndFailOn) {
  TempDir t;
  std::string warn = (t.path / "warn.json").string(), clean = (t.path / "clean.json").string(),
              broken = (t.path / "broken.json").string();
  runRetrylint("--format json -o '" + warn + "' fixtures/istio/attempts.yaml");
  runRetrylint("--format json -o '" + clean + "' fixtures/grpc-service-config/clean.json");
  runRetrylint("--format json -o '" + broken + "' fixtures/istio/broken.yaml");
  EXPECT_EQ(runRetrylint("merge '" + clean + "' '" + clean + "'").exit_code, 0);
  EXPECT_EQ(runRetrylint("merge '" + clean + "' '" + warn + "'").exit_code, 1);
  EXPECT_EQ(runRetrylint("merge --fail-on error '" + clean + "' '" + warn + "'").exit_code,
            runRetrylint("--fail-on error fixtures/istio/attempts.yaml").exit_code);
  EXPECT_EQ(runRetrylint("merge '" + warn + "' '" + broken + "'").exit_code, 2);
  EXPECT_EQ(runRetrylint("merge '" + (t.path / "missing.json").string() + "'").exit_code, 2);
  std::string notReport = t.write("x.json", "{\"a\": 1}");
  EXPECT_EQ(runRetrylint("merge '" + notReport + "'").exit_code, 2);
}
