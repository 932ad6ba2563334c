#include "lint/report/report.h"

namespace retrylint {
namespace {

void location(llvm::raw_ostream &out, const std::string &path, int line, int col, bool color) {
  if (color) out.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*bold=*/true);
  out << path;
  if (line > 0) out << ":" << line << ":" << (col > 0 ? col : 1);
  out << ":";
  if (color) out.resetColor();
}

void severityWord(llvm::raw_ostream &out, Severity s, bool color) {
  if (color) {
    auto c = s == Severity::Error ? llvm::raw_ostream::RED : s == Severity::Warning ? llvm::raw_ostream::MAGENTA : llvm::raw_ostream::CYAN;
    out.changeColor(c, /*bold=*/true);
  }
  out << severityName(s) << ":";
  if (color) out.resetColor();
}

} // namespace

void writeText(llvm::raw_ostream &out, const RunResult &result, bool color) {
  for (const Finding &f : result.findings) {
    location(out, f.where.path, f.where.line, f.where.column, color);
    out << " ";
    severityWord(out, f.severity, color);
    out << " " << f.message << " [" << f.rule << " " << f.name << "]\n";
  }
}

void writeErrorsText(llvm::raw_ostream &out, const RunResult &result, bool color) {
  for (const Diagnostic &d : result.errors) {
    location(out, d.path, d.line, d.column, color);
    out << " ";
    severityWord(out, Severity::Error, color);
    out << " " << d.message << "\n";
  }
}

} // namespace retrylint
