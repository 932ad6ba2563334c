#include "lint/extract/ini.h"

namespace retrylint {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// The end of the meaningful text: before an inline comment (` #`/` ;` after whitespace), then
// trailing whitespace removed.
size_t contentEnd(std::string_view ln, size_t from) {
  size_t end = ln.size();
  for (size_t i = from; i < ln.size(); ++i) {
    if ((ln[i] == '#' || ln[i] == ';') && i > from && isBlank(ln[i - 1])) {
      end = i;
      break;
    }
  }
  while (end > from && isBlank(ln[end - 1])) --end;
  return end;
}

size_t skipBlanks(std::string_view ln, size_t i) {
  while (i < ln.size() && isBlank(ln[i])) ++i;
  return i;
}

// `key = value` starting at column `start`; throws on anything else.
IniEntry parseEntry(std::string_view ln, int line0, size_t start) {
  size_t eq = ln.find('=', start);
  size_t end = contentEnd(ln, start);
  if (eq == std::string_view::npos || eq >= end)
    throw IniError(line0, static_cast<int>(start), "expected 'key = value', a [section] header or a comment");
  size_t keyEnd = eq;
  while (keyEnd > start && isBlank(ln[keyEnd - 1])) --keyEnd;
  if (keyEnd == start) throw IniError(line0, static_cast<int>(eq), "'=' with no key before it");
  IniEntry e;
  e.key = std::string(ln.substr(start, keyEnd - start));
  e.line0 = line0;
  e.key_col0 = static_cast<int>(start);
  size_t v = skipBlanks(ln, eq + 1);
  size_t vEnd = contentEnd(ln, v);
  if (v > vEnd) v = vEnd;
  e.value_col0 = static_cast<int>(v);
  e.value = std::string(ln.substr(v, vEnd - v));
  return e;
}

} // namespace

const IniEntry *IniSection::find(std::string_view key) const {
  const IniEntry *found = nullptr;
  for (const auto &e : entries)
    if (e.key == key) found = &e;
  return found;
}

IniFile parseIni(const SourceFile &src) {
  IniFile f;
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view ln = src.line(l);
    size_t i = skipBlanks(ln, 0);
    if (i == ln.size() || ln[i] == '#' || ln[i] == ';') continue;
    if (ln[i] == '[') {
      size_t end = contentEnd(ln, i);
      if (ln[end - 1] != ']') throw IniError(l, static_cast<int>(end), "section header without a closing ']'");
      size_t b = skipBlanks(ln, i + 1), e = end - 1;
      while (e > b && isBlank(ln[e - 1])) --e;
      if (e <= b) throw IniError(l, static_cast<int>(i), "empty section name");
      std::string_view name = ln.substr(b, e - b);
      if (name.find_first_of("[]") != std::string_view::npos)
        throw IniError(l, static_cast<int>(b), "section name contains a bracket");
      IniSection s;
      s.name = std::string(name);
      s.line0 = l;
      s.name_col0 = static_cast<int>(b);
      f.sections.push_back(std::move(s));
      continue;
    }
    if (f.sections.empty()) throw IniError(l, static_cast<int>(i), "setting outside any [section]");
    auto &entries = f.sections.back().entries;
    if (i > 0) {
      // An indented line: a sub-property of the key above, which must have an empty value.
      if (entries.empty() || !entries.back().value.empty())
        throw IniError(l, static_cast<int>(i), "indented line, but the setting above has a value (sub-properties follow a 'key =' with no value)");
      entries.back().sub.push_back(parseEntry(ln, l, i));
      continue;
    }
    entries.push_back(parseEntry(ln, l, i));
  }
  return f;
}

Span keySpan(const SourceFile &src, const IniEntry &e) {
  return Span{src.path(), e.line0 + 1, e.key_col0 + 1, e.line0 + 1, e.key_col0 + 1 + static_cast<int>(e.key.size())};
}

Span valueSpan(const SourceFile &src, const IniEntry &e) {
  int len = std::max<int>(1, static_cast<int>(e.value.size()));
  return Span{src.path(), e.line0 + 1, e.value_col0 + 1, e.line0 + 1, e.value_col0 + 1 + len};
}

Span sectionSpan(const SourceFile &src, const IniSection &s) {
  return Span{src.path(), s.line0 + 1, s.name_col0 + 1, s.line0 + 1, s.name_col0 + 1 + static_cast<int>(s.name.size())};
}

} // namespace retrylint
