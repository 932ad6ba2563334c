#include "lint/report/report.h"

#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/JSON.h>

namespace retrylint {

std::string escapeControls(std::string_view s) {
  static const char *hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  auto escape = [&](unsigned char c) { out += "\\x"; out += hex[c >> 4]; out += hex[c & 15]; };
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) escape(c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A multi-byte sequence: kept when it is valid UTF-8 and not a C1 control (U+0080-U+009F).
    unsigned len = llvm::getNumBytesForUTF8(c);
    const auto *p = reinterpret_cast<const llvm::UTF8 *>(s.data() + i);
    bool ok = len > 1 && i + len <= s.size() && llvm::isLegalUTF8Sequence(p, p + len) &&
              !(c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0);
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      escape(c);
      ++i;
    }
  }
  return out;
}

std::string validUtf8(std::string_view s) {
  llvm::StringRef r(s.data(), s.size());
  return llvm::json::isUTF8(r) ? r.str() : llvm::json::fixUTF8(r);
}

namespace {

void location(llvm::raw_ostream &out, const std::string &path, int line, int col, bool color) {
  if (color) out.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*bold=*/true);
  out << escapeControls(path);
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
    out << " " << escapeControls(f.message) << " [" << f.rule << " " << f.name << "]\n";
  }
}

void writeErrorsText(llvm::raw_ostream &out, const RunResult &result, bool color) {
  for (const auto *list : {&result.warnings, &result.errors})
    for (const Diagnostic &d : *list) {
      location(out, d.path, d.line, d.column, color);
      out << " ";
      severityWord(out, list == &result.errors ? Severity::Error : Severity::Warning, color);
      out << " " << escapeControls(d.message) << "\n";
    }
}

} // namespace retrylint
