// Helpers shared by the extractor suites: extract a text that must analyse cleanly, and find
// the shared corpus.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "lint/engine.h"

namespace retrylint::testing {

// Extracts `text` as if read from `path`; fails the test when it is not recognised or errors.
inline FileModel extract(const std::string &path, const std::string &text) {
  FileModel m;
  std::vector<Diagnostic> errors;
  EXPECT_TRUE(extractText(path, text, true, m, errors)) << path << " was not recognised";
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  return m;
}

// Analyses `text` as if read from `path` with the default options; fails the test on any error.
inline FileResult analyseClean(const std::string &path, const std::string &text) {
  FileResult r = analyseText(path, text, /*named=*/true, RunOptions{});
  for (const Diagnostic &d : r.errors) ADD_FAILURE() << path << ":" << d.line << ": " << d.message;
  return r;
}

// The findings of one rule, in report order.
inline std::vector<const Finding *> findingsOf(const FileResult &r, std::string_view code) {
  std::vector<const Finding *> out;
  for (const Finding &f : r.findings)
    if (f.rule == code) out.push_back(&f);
  return out;
}

// Real configurations from public repositories, kept in the repository (tests/data/corpus/README.md),
// or $RETRYLINT_CORPUS.
inline std::filesystem::path corpusDir() {
  if (const char *env = std::getenv("RETRYLINT_CORPUS")) return env;
  return std::filesystem::path(RETRYLINT_SOURCE_DIR) / "tests" / "data" / "corpus";
}

} // namespace retrylint::testing
