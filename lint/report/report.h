// Report writers. Exit codes never depend on the format: see lint/main.cpp.
#pragma once
#include <map>
#include <memory>
#include <optional>

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include "lint/engine.h"
#include "lint/source.h"

namespace retrylint {

// Text that came from an input file, made safe for a terminal: control characters (ESC, BEL,
// C1 controls …) and bytes that are not UTF-8 are written as \xNN; tabs stay.
std::string escapeControls(std::string_view s);
// Text made valid UTF-8 for JSON (invalid bytes become U+FFFD), as llvm::json requires.
std::string validUtf8(std::string_view s);

// The lines of the files findings point into, each file read once (regular files of at most
// 32 MiB, the default input limit; others have no lines): source excerpts and SARIF columns.
class SourceLines {
public:
  SourceLines() = default;
  // With the text standard input gave for its path (`retrylint -`), which is never read from disk.
  explicit SourceLines(const RunResult &result);
  std::optional<std::string_view> line(const std::string &path, int line);
  // A 1-based column counted in bytes (as spans are) -> counted in Unicode code points.
  int codePointColumn(const std::string &path, int line, int byteColumn);

private:
  // Each file indexed once by its line starts (SourceFile), as the extractors read it: a report of
  // many findings in one large file costs one read, not a scan per finding.
  std::map<std::string, std::optional<SourceFile>> files_;
};

// `path:line:col: severity: message [RL101 backoff-missing-jitter]`, one line per finding, and
// with `showSource` the line itself with a caret under the column, as clang prints them.
void writeText(llvm::raw_ostream &out, const RunResult &result, bool color, bool showSource = false);
// The run in one line for standard error: findings by severity, files with retry settings, files
// read and skipped; a warning instead when nothing was read or nothing was recognised.
void writeSummary(llvm::raw_ostream &out, const RunResult &result, const std::vector<std::string> &paths);
// --statistics: findings per rule and severity, most frequent first (text, or a JSON array).
void writeStatistics(llvm::raw_ostream &out, const RunResult &result, bool json);
// Warnings, then errors, in the same compiler style (`path:line:col: error: message`), for standard error.
void writeErrorsText(llvm::raw_ostream &out, const RunResult &result, bool color);
// Findings at note severity of rules with Rule::aggregate_notes become one note per rule for the
// whole run: the first one (in report order), its message prefixed with how many policies in how
// many files it holds for. Called last, after baselines and --diff narrowed the findings.
void aggregateNotes(std::vector<Finding> &findings);
// JSON output, version 1 (docs/interface.md).
void writeJson(llvm::raw_ostream &out, const RunResult &result);
// SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.
void writeSarif(llvm::raw_ostream &out, const RunResult &result);
// GitHub Actions workflow commands (annotations).
void writeGithub(llvm::raw_ostream &out, const RunResult &result);

// `--report layers`: a table per declared call chain (attempts and where they come from, calls per
// user request, worst-case time, deadline); without layers, the policies found and how to declare them.
void writeLayersText(llvm::raw_ostream &out, const RunResult &result, const Settings &settings);
void writeLayersJson(llvm::raw_ostream &out, const RunResult &result, const Settings &settings);

} // namespace retrylint
