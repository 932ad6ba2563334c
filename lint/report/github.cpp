// GitHub Actions workflow commands: `::warning file=…,line=…::message`, one per finding, which
// GitHub shows as annotations on the pull request.
#include "lint/report/report.h"

namespace retrylint {
namespace {

std::string escapeData(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string escapeProperty(std::string_view s) {
  std::string out;
  for (char c : escapeData(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

const char *command(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "notice";
  }
  return "warning";
}

} // namespace

void writeGithub(llvm::raw_ostream &out, const RunResult &result) {
  for (const Finding &f : result.findings) {
    out << "::" << command(f.severity) << " file=" << escapeProperty(f.where.path) << ",line=" << f.where.line
        << ",col=" << f.where.column << ",endLine=" << f.where.end_line << ",endColumn=" << f.where.end_column
        << ",title=" << escapeProperty(f.rule + " " + f.name) << "::" << escapeData(f.message) << "\n";
  }
  for (const Diagnostic &d : result.errors) {
    out << "::error file=" << escapeProperty(d.path);
    if (d.line > 0) out << ",line=" << d.line << ",col=" << std::max(d.column, 1);
    out << ",title=retrylint could not analyse this file::" << escapeData(d.message) << "\n";
  }
}

} // namespace retrylint
