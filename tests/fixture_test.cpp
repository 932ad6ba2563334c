// Runs every fixture under fixtures/ and compares what retrylint reports with the expectations
// written next to the lines: a missing finding and an unexpected finding both fail.
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "fixture_support.h"
#include "lint/engine.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

std::vector<std::string> fixtureFiles() {
  std::vector<std::string> out;
  for (const auto &e : fs::recursive_directory_iterator(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures")) {
    if (!e.is_regular_file()) continue;
    auto ext = e.path().extension().string();
    if (ext == ".expect" || ext == ".md") continue; // sidecars and notes, not inputs
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string nameOf(const ::testing::TestParamInfo<std::string> &info) {
  std::string rel = fs::relative(info.param, fs::path(RETRYLINT_SOURCE_DIR) / "fixtures").string();
  for (char &c : rel)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return rel;
}

class Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixture, ReportsExactlyTheExpectedFindings) {
  const std::string path = GetParam();
  const std::string text = readFile(path);
  Expectations want = parseExpectations(path, text);
  FileResult got = analyseText(path, text, /*named=*/true, RunOptions{});

  std::multiset<std::pair<int, std::string>> actual;
  std::map<std::pair<int, std::string>, std::string> messages;
  for (const Finding &f : got.findings) {
    actual.insert({f.where.line, f.rule});
    messages[{f.where.line, f.rule}] = f.message;
    EXPECT_GT(f.where.column, 0) << f.rule << " at line " << f.where.line << " has no column";
    EXPECT_GE(f.where.end_column, f.where.column) << f.rule << " at line " << f.where.line;
  }
  for (const Diagnostic &d : got.errors) {
    actual.insert({d.line, "error"});
    messages[{d.line, "error"}] = d.message;
  }

  std::multiset<std::pair<int, std::string>> missing, unexpected;
  std::set_difference(want.expected.begin(), want.expected.end(), actual.begin(), actual.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(actual.begin(), actual.end(), want.expected.begin(), want.expected.end(),
                      std::inserter(unexpected, unexpected.end()));
  for (const auto &[line, rule] : missing) ADD_FAILURE() << path << ":" << line << ": expected " << rule << ", not reported";
  for (const auto &[line, rule] : unexpected)
    ADD_FAILURE() << path << ":" << line << ": unexpected " << rule << ": " << messages[{line, rule}];
  // Pinned expectations: a finding of that rule on that line with the column and message asked.
  for (const Pin &pin : want.pins) {
    std::string seen;
    bool found = false;
    for (const Finding &f : got.findings) {
      if (f.where.line != pin.line || f.rule != pin.rule) continue;
      const std::string severity(severityName(f.severity));
      if ((pin.column == 0 || static_cast<int>(f.where.column) == pin.column) &&
          (pin.severity.empty() || pin.severity == severity) && f.message.find(pin.message) != std::string::npos)
        found = true;
      seen += "\n  column " + std::to_string(f.where.column) + ", " + severity + ": " + f.message;
    }
    for (const Diagnostic &d : got.errors) {
      if (d.line != pin.line || pin.rule != "error") continue;
      if ((pin.column == 0 || static_cast<int>(d.column) == pin.column) && d.message.find(pin.message) != std::string::npos) found = true;
      seen += "\n  column " + std::to_string(d.column) + ": " + d.message;
    }
    EXPECT_TRUE(found) << path << ":" << pin.line << ": expected " << pin.rule << (pin.column ? " at column " + std::to_string(pin.column) : "")
                       << (pin.severity.empty() ? "" : " as a " + pin.severity)
                       << (pin.message.empty() ? "" : " saying \"" + pin.message + "\"") << "; reported:" << seen;
  }
  for (const auto &[line, rule] : want.forbidden)
    EXPECT_EQ(actual.count({line, rule}), 0u) << path << ":" << line << ": marked `ok: " << rule << "` but reported";
  EXPECT_FALSE(want.expected.empty() && want.forbidden.empty())
      << path << " states no expectation (add `# expect:`/`# ok:` or a .expect sidecar)";
}

INSTANTIATE_TEST_SUITE_P(All, Fixture, ::testing::ValuesIn(fixtureFiles()), nameOf);

// Every rule fires in at least one fixture and is shown not firing in another.
TEST(FixtureCoverage, EveryRuleFiresAndStaysQuietSomewhere) {
  std::set<std::string> fired, quiet;
  for (const auto &path : fixtureFiles()) {
    Expectations e = parseExpectations(path, readFile(path));
    for (const auto &[line, rule] : e.expected) fired.insert(rule);
    for (const auto &[line, rule] : e.forbidden) quiet.insert(rule);
  }
  for (const Rule *r : allRules()) {
    std::string code(r->code);
    // Chain-only rules (RL204) and RL202, which reports only in a declared layer, need a layer
    // config: tests/layers_test.cpp runs them.
    if ((!r->check && !r->checkSuppressions) || code == "RL202") continue;
    EXPECT_TRUE(fired.count(code)) << code << " fires in no fixture";
    EXPECT_TRUE(quiet.count(code)) << code << " has no `ok:` fixture";
  }
}

} // namespace

// The expectation syntax itself: codes up to the prose, pinned columns and messages.
TEST(FixtureExpectations, CodesColumnsAndMessagesUpToTheProse) {
  Expectations e = parseExpectations("f.yaml", "a: 1  # expect: RL203:17 \"6 attempts\" RL101  ok: RL103 (why)\n"
                                               "b: 2  # expect: RL102 (a \"quoted\" aside)\n");
  EXPECT_EQ(e.expected, (std::multiset<std::pair<int, std::string>>{{1, "RL203"}, {1, "RL101"}, {2, "RL102"}}));
  EXPECT_EQ(e.forbidden, (std::set<std::pair<int, std::string>>{{1, "RL103"}}));
  ASSERT_EQ(e.pins.size(), 1u);
  EXPECT_EQ(e.pins[0].line, 1);
  EXPECT_EQ(e.pins[0].rule, "RL203");
  EXPECT_EQ(e.pins[0].column, 17);
  EXPECT_EQ(e.pins[0].message, "6 attempts");
  // An unclosed quote is prose, not a pin.
  Expectations open = parseExpectations("g.yaml", "x: 1  # expect: RL101 \",\n");
  EXPECT_EQ(open.expected.size(), 1u);
  EXPECT_TRUE(open.pins.empty());
  // A severity pin, alone or with a column and a message; an unknown one is prose.
  Expectations sev = parseExpectations("h.yaml", "x: 1  # expect: RL101@note RL102:9@warning \"fixed\"\n"
                                                 "y: 2  # expect: RL103@maybe\n");
  ASSERT_EQ(sev.pins.size(), 2u);
  EXPECT_EQ(sev.pins[0].rule, "RL101");
  EXPECT_EQ(sev.pins[0].severity, "note");
  EXPECT_EQ(sev.pins[1].column, 9);
  EXPECT_EQ(sev.pins[1].severity, "warning");
  EXPECT_EQ(sev.pins[1].message, "fixed");
  EXPECT_EQ(sev.expected.count({2, "RL103"}), 0u);
}
