// Report writers, on a fixed result: exact text and JSON.
#include <gtest/gtest.h>
#include <llvm/Support/raw_ostream.h>

#include "lint/report/finding_json.h"
#include "lint/report/report.h"

using namespace retrylint;

namespace {
RunResult sample() {
  RunResult r;
  Finding f;
  f.rule = "RL101";
  f.name = "backoff-missing-jitter";
  f.severity = Severity::Warning;
  f.where = Span{"deploy/a.yaml", 14, 7, 14, 22};
  f.message = "no \"jitter\"";
  f.format = "istio-virtualservice";
  f.fingerprint = "0123456789abcdef";
  r.findings.push_back(f);
  r.errors.push_back(Diagnostic{"broken.yaml", 3, 1, "invalid YAML: end of map not found"});
  r.stats = Stats{4, 2, 3};
  return r;
}
} // namespace

TEST(TextReport, OneCompilerStyleLinePerFinding) {
  std::string s;
  llvm::raw_string_ostream os(s);
  writeText(os, sample(), false);
  os.flush();
  EXPECT_EQ(s, "deploy/a.yaml:14:7: warning: no \"jitter\" [RL101 backoff-missing-jitter]\n");
  std::string e;
  llvm::raw_string_ostream es(e);
  writeErrorsText(es, sample(), false);
  es.flush();
  EXPECT_EQ(e, "broken.yaml:3:1: error: invalid YAML: end of map not found\n");
}

TEST(JsonReport, MatchesTheContract) {
  std::string s;
  llvm::raw_string_ostream os(s);
  writeJson(os, sample());
  os.flush();
  const char *expected = R"({
  "version": 1,
  "tool": {
    "name": "retrylint",
    "version": "0.1.0"
  },
  "findings": [
    {
      "rule": "RL101",
      "name": "backoff-missing-jitter",
      "severity": "warning",
      "path": "deploy/a.yaml",
      "line": 14,
      "column": 7,
      "end_line": 14,
      "end_column": 22,
      "message": "no \"jitter\"",
      "format": "istio-virtualservice",
      "fingerprint": "0123456789abcdef",
      "fixes": []
    }
  ],
  "errors": [
    {
      "path": "broken.yaml",
      "line": 3,
      "column": 1,
      "message": "invalid YAML: end of map not found"
    }
  ],
  "stats": {
    "files_seen": 4,
    "files_analysed": 2,
    "policies": 3,
    "cpp_files_without_full_types": []
  }
}
)";
  EXPECT_EQ(s, expected);
}

// One codec for findings: what the report writes, merge reads back; the cache's full form keeps
// the anchor, the lines read and the text the fixes were computed on, and nothing malformed passes.
TEST(FindingJson, RoundTripsInBothFormsAndRefusesMalformedFindings) {
  Finding f = sample().findings[0];
  f.anchor = "http[0]/retries";
  f.reads = {{12, 14}, {20, 20}};
  Fix fix;
  fix.description = "add jitter";
  fix.safe = false;
  fix.source_sha256 = "ab12";
  fix.edits.push_back(TextEdit{Span{"deploy/a.yaml", 14, 7, 14, 9}, 120, 2, "5s"});
  f.fixes.push_back(fix);
  auto encode = [](const Finding &x, FindingFields fields) {
    std::string s;
    llvm::raw_string_ostream os(s);
    llvm::json::OStream j(os);
    writeFindingJson(j, x, fields);
    return os.str();
  };
  auto decode = [](const std::string &text, FindingFields fields, Finding &out, std::string &error) {
    auto v = llvm::json::parse(text);
    if (!v) {
      llvm::consumeError(v.takeError());
      return false;
    }
    return readFindingJson(*v, fields, out, error);
  };
  std::string error;
  Finding full;
  ASSERT_TRUE(decode(encode(f, FindingFields::Full), FindingFields::Full, full, error)) << error;
  EXPECT_EQ(full.anchor, "http[0]/retries");
  EXPECT_EQ(full.reads, f.reads);
  ASSERT_EQ(full.fixes.size(), 1u);
  EXPECT_EQ(full.fixes[0].source_sha256, "ab12");
  EXPECT_FALSE(full.fixes[0].safe);
  ASSERT_EQ(full.fixes[0].edits.size(), 1u);
  EXPECT_EQ(full.fixes[0].edits[0].where.path, "deploy/a.yaml"); // edits are in the finding's file
  EXPECT_EQ(full.fixes[0].edits[0].offset, 120u);
  EXPECT_EQ(encode(full, FindingFields::Full), encode(f, FindingFields::Full));

  const std::string report = encode(f, FindingFields::Report);
  EXPECT_EQ(report.find("anchor"), std::string::npos);
  EXPECT_EQ(report.find("source_sha256"), std::string::npos);
  Finding back;
  ASSERT_TRUE(decode(report, FindingFields::Report, back, error)) << error;
  EXPECT_EQ(back.message, f.message);
  EXPECT_EQ(back.where.end_column, 22);
  EXPECT_EQ(encode(back, FindingFields::Report), report);
  // The report's form lacks what the full form needs.
  Finding partial;
  EXPECT_FALSE(decode(report, FindingFields::Full, partial, error));

  struct Bad {
    std::string text, says;
  } bad[] = {
      {R"({"rule":"RL101","severity":"fatal","path":"a","line":1,"column":1})", "severity is 'fatal'"},
      {R"({"rule":"RL101","severity":"note","path":"a","column":1})", "lacks its rule, severity or location"},
      {R"({"rule":"RL101","severity":"note","path":"a","line":1,"column":1,"fixes":{}})", "fixes are malformed"},
      {R"({"rule":"RL101","severity":"note","path":"a","line":1,"column":1,"fixes":[{"description":"d","edits":[{"line":1,"column":1,"length":1,"replacement":""}]}]})",
       "fixes are malformed"},
      {R"({"rule":"RL101","severity":"note","path":"a","line":1,"column":1,"message":7})", "not a string"},
      {R"({"rule":"RL101","severity":"note","path":"a","line":99999999999,"column":1})", "lacks its rule, severity or location"},
  };
  for (const Bad &b : bad) {
    Finding out;
    error.clear();
    EXPECT_FALSE(decode(b.text, FindingFields::Report, out, error)) << b.text;
    EXPECT_NE(error.find(b.says), std::string::npos) << b.text << " said: " << error;
  }
}
