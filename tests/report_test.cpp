// Report writers, on a fixed result: exact text and JSON.
#include <gtest/gtest.h>
#include <llvm/Support/raw_ostream.h>

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
