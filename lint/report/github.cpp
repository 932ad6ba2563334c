// GitHub Actions workflow commands: `::warning file=…,line=…::message`, one per finding, which
// GitHub shows as annotations on the pull request.
#include "lint/report/report.h"

namespace retrylint {
namespace {

// Workflow-command escapes for %, CR and LF; other control bytes from the inputs as \xNN.
std::string escapeData(std::string_view s) {
  std::string out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != '%' && s[i] != '\r' && s[i] != '\n') continue;
    out += escapeControls(s.substr(start, i - start));
    if (i < s.size()) out += s[i] == '%' ? "%25" : s[i] == '\r' ? "%0D" : "%0A";
    start = i + 1;
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
    out << "::" << command(f.severity) << " file=" << escapeProperty(f.where.path.str()) << ",line=" << f.where.line
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
