#include "lint/source.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "lint/model/finding.h"

namespace retrylint {

std::string_view severityName(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "warning";
}

std::optional<Severity> parseSeverity(std::string_view s) {
  if (s == "note") return Severity::Note;
  if (s == "warning") return Severity::Warning;
  if (s == "error") return Severity::Error;
  return std::nullopt;
}

bool findingLess(const Finding &a, const Finding &b) {
  return std::tie(a.where.path, a.where.line, a.where.column, a.rule, a.message) <
         std::tie(b.where.path, b.where.line, b.where.column, b.rule, b.message);
}

bool diagnosticLess(const Diagnostic &a, const Diagnostic &b) {
  return std::tie(a.path, a.line, a.column, a.message) < std::tie(b.path, b.line, b.column, b.message);
}

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  starts_.reserve(text_.size() / 32 + 2);
  starts_.push_back(0);
  const char *b = text_.data(), *e = b + text_.size();
  if (std::memchr(b, '\r', text_.size()) == nullptr) {
    for (const char *p = b; (p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(e - p)))) != nullptr;)
      starts_.push_back(static_cast<size_t>(++p - b));
    return;
  }
  // Lines end at "\r\n", "\n" or a lone "\r" (old Mac OS), as YAML and the compilers read them.
  for (const char *p = b; p < e; ++p) {
    if (*p == '\r' && p + 1 < e && p[1] == '\n') ++p;
    if (*p == '\n' || *p == '\r') starts_.push_back(static_cast<size_t>(p + 1 - b));
  }
}

// The line break ending the text before `end`: "\r\n", "\n", "\r" or nothing.
static size_t breakLength(const std::string &text, size_t end) {
  if (end == 0) return 0;
  if (text[end - 1] == '\n') return end >= 2 && text[end - 2] == '\r' ? 2 : 1;
  return text[end - 1] == '\r' ? 1 : 0;
}

std::string_view SourceFile::line(int l) const {
  if (l < 0 || l >= lineCount()) return {};
  size_t b = starts_[l];
  size_t e = l + 1 < lineCount() ? starts_[l + 1] : text_.size();
  e -= std::min(breakLength(text_, e), e - b);
  return std::string_view(text_.data() + b, e - b);
}

Span SourceFile::spanAt(size_t offset, size_t length) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  int l = static_cast<int>(it - starts_.begin()) - 1;
  int c = static_cast<int>(offset - starts_[l]);
  return Span{path_, l + 1, c + 1, l + 1, c + 1 + static_cast<int>(length)};
}

Span SourceFile::scalarSpan(int line0, int col0, std::string_view plainValue) const {
  Span s{path_, line0 + 1, col0 + 1, line0 + 1, col0 + 2};
  std::string_view ln = line(line0);
  if (col0 < 0 || static_cast<size_t>(col0) >= ln.size()) return s;
  char q = ln[col0];
  if (q == '"' || q == '\'') {
    for (size_t i = col0 + 1; i < ln.size(); ++i) {
      if (q == '"' && ln[i] == '\\') { ++i; continue; }
      if (ln[i] == q) {
        if (q == '\'' && i + 1 < ln.size() && ln[i + 1] == '\'') { ++i; continue; }
        s.end_column = static_cast<int>(i) + 2;
        return s;
      }
    }
    s.end_column = static_cast<int>(ln.size()) + 1;
    return s;
  }
  if (!plainValue.empty() && ln.substr(col0, plainValue.size()) == plainValue)
    s.end_column = col0 + 1 + static_cast<int>(plainValue.size());
  return s;
}

Span SourceFile::tokenSpan(int line0, int col0, size_t offsetInValue, size_t length) const {
  std::string_view ln = line(line0);
  int start = col0;
  if (col0 >= 0 && static_cast<size_t>(col0) < ln.size() && (ln[col0] == '"' || ln[col0] == '\'')) ++start;
  start += static_cast<int>(offsetInValue);
  return Span{path_, line0 + 1, start + 1, line0 + 1, start + 1 + static_cast<int>(length)};
}

size_t SourceFile::offsetOf(int line0, int col0) const {
  if (line0 < 0) return 0;
  if (line0 >= lineCount()) return text_.size();
  return std::min(starts_[line0] + static_cast<size_t>(std::max(col0, 0)), text_.size());
}

TextEdit SourceFile::replace(const Span &span, std::string replacement) const {
  TextEdit e;
  e.where = span;
  e.offset = offsetOf(span.line - 1, span.column - 1);
  size_t end = offsetOf(span.end_line - 1, span.end_column - 1);
  e.length = end > e.offset ? end - e.offset : 0;
  e.replacement = std::move(replacement);
  return e;
}

TextEdit SourceFile::insertLineAfter(int line0, std::string lineText) const {
  TextEdit e;
  size_t at = line0 + 1 < lineCount() ? starts_[line0 + 1] : text_.size();
  // The file's own line break, as the line ends (the previous one's at the end of the file).
  std::string nl = "\n";
  if (size_t n = breakLength(text_, at)) nl = text_.substr(at - n, n);
  else if (size_t p = line0 >= 1 && line0 < lineCount() ? breakLength(text_, starts_[line0]) : 0) nl = text_.substr(starts_[line0] - p, p);
  e.offset = at;
  e.length = 0;
  e.replacement = (at == text_.size() && !text_.empty() && breakLength(text_, at) == 0 ? nl : "") + lineText + nl;
  int insertedLine = line0 + 2;
  e.where = Span{path_, insertedLine, 1, insertedLine, 1};
  return e;
}

TextEdit SourceFile::removeLine(int line0) const {
  TextEdit e;
  e.offset = starts_[line0];
  e.length = (line0 + 1 < lineCount() ? starts_[line0 + 1] : text_.size()) - e.offset;
  e.where = Span{path_, line0 + 1, 1, line0 + 2, 1};
  return e;
}

std::string SourceFile::indentOf(int line0) const {
  std::string_view ln = line(line0);
  size_t n = 0;
  while (n < ln.size() && ln[n] == ' ') ++n;
  return std::string(ln.substr(0, n));
}

} // namespace retrylint
