#include "lint/report/report.h"

#include <map>
#include <set>

#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>

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
  // A line that starts with "::" is a workflow command to GitHub Actions (`::stop-commands::`,
  // `::add-mask::`), on standard output and error alike: a file named so is shown as ./::…
  if (llvm::StringRef(path).startswith("::")) out << "./";
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

SourceLines::SourceLines(const RunResult &result) {
  if (!result.text_input) return;
  llvm::StringRef text = result.text_input->text;
  if (text.startswith("\xEF\xBB\xBF")) text = text.drop_front(3); // spans count from after it
  files_[result.text_input->path].emplace(result.text_input->path, text.str());
}

std::optional<std::string_view> SourceLines::line(const std::string &path, int line) {
  auto [it, fresh] = files_.try_emplace(path);
  if (fresh) {
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(path, st) && llvm::sys::fs::is_regular_file(st) && st.getSize() <= (32u << 20))
      if (auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
        llvm::StringRef text = (*buf)->getBuffer();
        if (text.startswith("\xEF\xBB\xBF")) text = text.drop_front(3); // spans count from after it
        it->second.emplace(path, text.str());
      }
  }
  if (!it->second || line < 1 || line > it->second->lineCount()) return std::nullopt;
  return it->second->line(line - 1);
}

int SourceLines::codePointColumn(const std::string &path, int line, int byteColumn) {
  auto ln = this->line(path, line);
  if (!ln || byteColumn < 1) return byteColumn;
  int col = 1;
  for (size_t i = 0; i + 1 < static_cast<size_t>(byteColumn) && i < ln->size(); ++i)
    if ((static_cast<unsigned char>((*ln)[i]) & 0xC0) != 0x80) ++col;
  // Past the end of the line (a span ending at the line break): the bytes beyond count one each.
  if (static_cast<size_t>(byteColumn) > ln->size() + 1) col += byteColumn - 1 - static_cast<int>(ln->size());
  return col;
}

namespace {

// The line, then a caret under the column and tildes to the end of the span on that line, as
// clang prints them. Tabs before the column are kept, so the caret lines up. A long line (a
// minified file's one line) is shown as a window of at most kExcerptBytes around the column, with
// '…' where it is cut, so a report never repeats megabytes per finding.
constexpr size_t kExcerptBytes = 240;

void excerpt(llvm::raw_ostream &out, SourceLines &files, const Span &where, bool color) {
  auto full = files.line(where.path, where.line);
  if (!full || where.column < 1 || static_cast<size_t>(where.column - 1) > full->size()) return;
  std::string_view ln = *full;
  size_t column = static_cast<size_t>(where.column); // 1-based, in bytes of `ln`
  size_t spanEnd = where.end_line == where.line && where.end_column > where.column
                       ? std::min(static_cast<size_t>(where.end_column - 1), ln.size())
                       : column;
  bool cutBefore = false, cutAfter = false;
  if (ln.size() > kExcerptBytes) {
    auto isContinuation = [&](size_t i) { return i < ln.size() && (static_cast<unsigned char>(ln[i]) & 0xC0) == 0x80; };
    size_t from = column - 1 > kExcerptBytes / 4 ? column - 1 - kExcerptBytes / 4 : 0;
    while (from > 0 && isContinuation(from)) --from;
    size_t to = std::min(ln.size(), from + kExcerptBytes);
    while (to < ln.size() && isContinuation(to)) --to;
    cutBefore = from > 0;
    cutAfter = to < ln.size();
    ln = ln.substr(from, to - from);
    column -= from;
    spanEnd = std::min(spanEnd > from ? spanEnd - from : column, ln.size());
  }
  std::string shown = escapeControls(ln);
  // A line GitHub Actions would read as a workflow command (it trims leading white space) gets
  // a zero-width space inside its "::": the same to the eye, the caret still in place.
  if (!cutBefore && llvm::StringRef(shown).ltrim().startswith("::"))
    shown.insert(shown.size() - llvm::StringRef(shown).ltrim().size() + 1, "\u200B");
  out << (cutBefore ? "…" : "") << shown << (cutAfter ? "…" : "") << "\n";
  std::string pad = cutBefore ? " " : "";
  for (size_t i = 0; i + 1 < column; ++i) {
    unsigned char c = static_cast<unsigned char>(ln[i]);
    if (c == '\t') pad += '\t';
    else if ((c & 0xC0) != 0x80) pad += ' '; // one column per character, not per byte
  }
  size_t width = 1;
  for (size_t i = column; i < spanEnd; ++i)
    if ((static_cast<unsigned char>(ln[i]) & 0xC0) != 0x80) ++width;
  out << pad;
  if (color) out.changeColor(llvm::raw_ostream::GREEN, /*bold=*/true);
  out << "^" << std::string(width - 1, '~');
  if (color) out.resetColor();
  out << "\n";
}

} // namespace

void writeText(llvm::raw_ostream &out, const RunResult &result, bool color, bool showSource) {
  SourceLines files(result);
  for (const Finding &f : result.findings) {
    location(out, f.where.path, f.where.line, f.where.column, color);
    out << " ";
    severityWord(out, f.severity, color);
    out << " " << escapeControls(f.message) << " [" << f.rule << " " << f.name << "]\n";
    if (showSource) excerpt(out, files, f.where, color);
  }
}

void writeSummary(llvm::raw_ostream &out, const RunResult &result, const std::vector<std::string> &paths) {
  size_t by[3] = {0, 0, 0};
  std::set<std::string> files;
  for (const Finding &f : result.findings) {
    ++by[static_cast<int>(f.severity)];
    files.insert(f.where.path);
  }
  auto count = [](size_t n, const char *one, const char *many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  const Stats &s = result.stats;
  if (s.files_seen == 0) {
    out << "retrylint: warning: no file to read in";
    for (const std::string &p : paths) out << " " << escapeControls(p);
    out << " (see the README, \"What it reads\")\n";
    return;
  }
  if (s.files_analysed == 0 && result.errors.empty()) {
    out << "retrylint: warning: none of the " << count(s.files_seen, "file", "files")
        << " read holds retry settings retrylint knows (see the README, \"What it reads\")\n";
    return;
  }
  out << "retrylint: " << count(by[2], "error", "errors") << ", " << count(by[1], "warning", "warnings") << ", "
      << count(by[0], "note", "notes");
  if (!files.empty()) out << " in " << count(files.size(), "file", "files");
  out << "; " << count(s.files_analysed, "file", "files") << " with retry settings of " << s.files_seen << " read";
  if (!result.errors.empty()) out << ", " << count(result.errors.size(), "analysis error", "analysis errors");
  if (!result.warnings.empty()) out << ", " << result.warnings.size() << " skipped";
  out << "\n";
}

void writeStatistics(llvm::raw_ostream &out, const RunResult &result, bool json) {
  struct Row {
    std::string rule, name;
    Severity severity;
    size_t count = 0;
  };
  std::map<std::pair<std::string, int>, Row> rows;
  for (const Finding &f : result.findings) {
    Row &r = rows[{f.rule, static_cast<int>(f.severity)}];
    r.rule = f.rule;
    r.name = f.name;
    r.severity = f.severity;
    ++r.count;
  }
  std::vector<Row> sorted;
  for (auto &[k, r] : rows) sorted.push_back(r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Row &a, const Row &b) { return a.count > b.count; });
  if (json) {
    llvm::json::OStream j(out, 2);
    j.array([&] {
      for (const Row &r : sorted)
        j.object([&] {
          j.attribute("rule", r.rule);
          j.attribute("name", r.name);
          j.attribute("severity", std::string(severityName(r.severity)));
          j.attribute("count", static_cast<int64_t>(r.count));
        });
    });
    out << "\n";
    return;
  }
  for (const Row &r : sorted)
    out << llvm::right_justify(std::to_string(r.count), 6) << "  " << llvm::left_justify(r.rule, 6) << " "
        << llvm::left_justify(r.name, 40) << " " << severityName(r.severity) << "\n";
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
