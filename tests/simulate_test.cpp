// The storm simulation (lint/simulate/): closed forms for simple cases, the budget's ratio,
// determinism, the full-jitter comparison, the SVG and the command line.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "lint/simulate/picture.h"
#include "tests/cli_support.h"

using namespace retrylint;
using retrylint::testing::runRetrylint;

namespace {

StormLayer layer(int attempts, Growth growth, double initialS = 1, double mult = 2, bool budget = false) {
  StormLayer l;
  l.name = "layer";
  l.attempts = attempts;
  l.backoff.growth = written(growth, Span{});
  l.backoff.initial = written(std::optional<Duration>(Duration::s(initialS)), Span{});
  l.backoff.multiplier = written(mult, Span{});
  l.backoff.cap = written(std::optional<Duration>(), Span{});
  l.backoff.jitter = written(Jitter::None, Span{});
  l.budget = budget;
  return l;
}

std::map<double, int64_t> byInstant(const StormResult &r) {
  std::map<double, int64_t> m;
  for (double t : r.call_times) ++m[t];
  return m;
}

// A minimal well-formedness check: every tag closes in order, attributes are quoted, no bare '&'.
bool wellFormed(const std::string &x) {
  std::vector<std::string> open;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] == '&') {
      size_t semi = x.find(';', i);
      std::string ent = x.substr(i, semi == std::string::npos ? 0 : semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;") return false;
      continue;
    }
    if (x[i] != '<') continue;
    size_t end = x.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = x.substr(i + 1, end - i - 1);
    i = end;
    if (tag[0] == '?' || tag[0] == '!') continue;
    size_t quotes = 0;
    for (char c : tag) quotes += c == '"';
    if (quotes % 2) return false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
  }
  return open.empty();
}

} // namespace

TEST(Storm, OneLayerWithoutJitterSendsEveryClientAtEachBackoffInstant) {
  StormOptions o;
  o.clients = 1000;
  o.outage_s = 10;
  // 6 attempts, 1 s doubling: calls at 0, 1, 3, 7 (fail) and 15 s (after the outage: success).
  StormResult r = simulateStorm({layer(6, Growth::Exponential)}, o);
  auto m = byInstant(r);
  ASSERT_EQ(m.size(), 5u);
  for (double t : {0.0, 1.0, 3.0, 7.0, 15.0}) EXPECT_EQ(m[t], 1000) << t;
  EXPECT_EQ(r.calls, 5000);
  EXPECT_EQ(r.during_outage, 4000);
  EXPECT_EQ(r.gave_up, 0);
  EXPECT_DOUBLE_EQ(r.amplification, 5.0);
}

TEST(Storm, ThreeLayersOfThreeAttemptsGiveTwentySevenCallsPerRequest) {
  StormOptions o;
  o.clients = 1000;
  o.outage_s = 3600;
  StormResult r = simulateStorm({layer(3, Growth::NoWait), layer(3, Growth::NoWait), layer(3, Growth::NoWait)}, o);
  EXPECT_EQ(r.calls, 27000);
  EXPECT_EQ(r.gave_up, 1000);
}

TEST(Storm, ABudgetKeepsRetriesUnderItsRatio) {
  StormOptions o;
  o.clients = 1000;
  o.outage_s = 3600;
  StormResult r = simulateStorm({layer(5, Growth::Constant, 0.1, 1, /*budget=*/true)}, o);
  const int64_t retries = r.calls - o.clients;
  EXPECT_LE(static_cast<double>(retries), kBudgetRatio * o.clients + 3);
  EXPECT_GT(retries, 0);
  StormResult unbudgeted = simulateStorm({layer(5, Growth::Constant, 0.1, 1)}, o);
  EXPECT_EQ(unbudgeted.calls, 5000);
}

TEST(Storm, SeededAndDeterministic) {
  StormOptions o;
  StormLayer j = withFullJitterAndCap(layer(5, Growth::Exponential));
  StormResult a = simulateStorm({j}, o), b = simulateStorm({j}, o);
  EXPECT_EQ(a.call_times, b.call_times);
  o.seed = 2;
  EXPECT_NE(simulateStorm({j}, o).call_times, a.call_times);
}

TEST(Storm, FullJitterDrawsBelowTheCappedGrownWait) {
  StormLayer j = withFullJitterAndCap(layer(2, Growth::Exponential, 1, 2));
  EXPECT_EQ(j.backoff.cap.value, std::optional<Duration>(Duration::s(kComparisonCapS)));
  StormOptions o;
  o.outage_s = 3600;
  StormResult r = simulateStorm({j}, o);
  ASSERT_EQ(r.calls, 2000);
  auto m = byInstant(r);
  EXPECT_EQ(m[0.0], 1000);
  for (double t : r.call_times) EXPECT_LE(t, 1.0); // the one retry waits random(0, 1 s)
  EXPECT_GT(m.size(), 900u);                        // spread, not a wave
}

TEST(Storm, UnknownWaitsAreNotSimulated) {
  StormLayer l = layer(3, Growth::Exponential);
  l.backoff.growth.origin = Origin::Unknown;
  EXPECT_FALSE(stormBlocker(l).empty());
  l.attempts = 0; // not known
  EXPECT_NE(stormBlocker(l).find("attempts"), std::string::npos);
}

TEST(Storm, PictureIsWellFormedSvgWithBothSeries) {
  StormOptions o;
  StormLayer l = layer(6, Growth::Exponential);
  StormPicture p;
  p.title = "Retry storm: state 'A' & <friends>";
  p.series.push_back({"as configured", "configured", "#c0392b", simulateStorm({l}, o)});
  p.series.push_back({"with full jitter", "full-jitter", "#2471a3", simulateStorm({withFullJitterAndCap(l)}, o)});
  std::string svg;
  llvm::raw_string_ostream os(svg);
  writeStormSvg(os, p);
  os.flush();
  EXPECT_TRUE(wellFormed(svg));
  EXPECT_NE(svg.find("<path id=\"series-configured\" data-calls=\"5000\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"series-full-jitter\""), std::string::npos);
  EXPECT_NE(svg.find("time since the failure (s)"), std::string::npos);
  EXPECT_NE(svg.find("&amp; &lt;friends&gt;"), std::string::npos);
}

TEST(Storm, CommandLineSimulatesAPolicyAndDrawsIt) {
  auto r = runRetrylint("simulate --format json --policy fixtures/aws-step-functions/callback.asl.yaml:14 --svg - "
                        "fixtures/aws-step-functions/callback.asl.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"title\": \"state 'Approve' Retry[0]\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Retry[1]"), std::string::npos) << "--policy selects one";
  EXPECT_NE(r.out.find("\"full_jitter_and_cap\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<path id=\"series-configured\""), std::string::npos);
  auto none = runRetrylint("simulate --policy no-such-policy fixtures/aws-step-functions/callback.asl.yaml");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("nothing matches --policy 'no-such-policy'"), std::string::npos) << none.err;
  auto bad = runRetrylint("--svg x.svg fixtures/aws-step-functions/callback.asl.yaml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("goes with `retrylint simulate`"), std::string::npos) << bad.err;
}
