#include "lint/extract/properties.h"

#include <algorithm>

namespace retrylint {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Whether a physical line ends in an odd number of backslashes (a continuation).
bool continues(std::string_view ln) {
  size_t n = 0;
  while (n < ln.size() && ln[ln.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

// Unescape a key or value: \t \n \r \f, \uXXXX (as UTF-8), and \x = x.
std::string unescape(std::string_view s, bool *had) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    *had = true;
    char c = s[++i];
    if (c == 't') out += '\t';
    else if (c == 'n') out += '\n';
    else if (c == 'r') out += '\r';
    else if (c == 'f') out += '\f';
    else if (c == 'u' && i + 4 < s.size()) {
      unsigned cp = 0;
      size_t j = i + 1;
      for (; j <= i + 4; ++j) {
        char h = s[j];
        cp = cp * 16 + (h >= '0' && h <= '9' ? h - '0' : (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? (h | 0x20) - 'a' + 10 : 0);
      }
      i = j - 1;
      if (cp < 0x80) out += static_cast<char>(cp);
      else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else out += c;
  }
  return out;
}

} // namespace

std::vector<PropertyEntry> readProperties(const SourceFile &src) {
  std::vector<PropertyEntry> out;
  const int lines = src.lineCount();
  for (int l = 0; l < lines; ++l) {
    std::string_view ln = src.line(l);
    size_t i = 0;
    while (i < ln.size() && isSpace(ln[i])) ++i;
    if (i == ln.size() || ln[i] == '#' || ln[i] == '!') continue;
    PropertyEntry e;
    e.line0 = l;
    // Key: up to an unescaped '=', ':' or whitespace.
    size_t keyStart = i;
    while (i < ln.size()) {
      if (ln[i] == '\\' && i + 1 < ln.size()) { i += 2; continue; }
      if (ln[i] == '=' || ln[i] == ':' || isSpace(ln[i])) break;
      ++i;
    }
    std::string_view rawKey = ln.substr(keyStart, i - keyStart);
    if (!rawKey.empty() && rawKey.back() == '\\' && continues(ln)) rawKey.remove_suffix(1);
    bool had = false;
    e.key = unescape(rawKey, &had);
    e.keyWhere = Span{src.path(), l + 1, static_cast<int>(keyStart) + 1, l + 1, static_cast<int>(i) + 1};
    while (i < ln.size() && isSpace(ln[i])) ++i;
    if (i < ln.size() && (ln[i] == '=' || ln[i] == ':')) ++i;
    while (i < ln.size() && isSpace(ln[i])) ++i;
    e.valueCol0 = static_cast<int>(i);
    std::string raw(ln.substr(i));
    int last = l;
    while (continues(src.line(last)) && last + 1 < lines) {
      if (!raw.empty()) raw.pop_back(); // empty when the key took the backslash (`key\`)
      e.singleLine = false;
      std::string_view next = src.line(++last);
      size_t k = 0;
      while (k < next.size() && isSpace(next[k])) ++k;
      raw += next.substr(k);
    }
    if (continues(src.line(last)) && !raw.empty()) raw.pop_back();
    // Trailing whitespace is part of a .properties value; Spring's binder trims it for
    // numbers, durations and lists, so it is dropped here.
    while (!raw.empty() && isSpace(raw.back())) raw.pop_back();
    bool escaped = false;
    e.value = unescape(raw, &escaped);
    e.escaped = escaped;
    e.lastLine0 = last;
    size_t shown = e.singleLine ? raw.size() : ln.size() - i;
    e.valueWhere = Span{src.path(), l + 1, e.valueCol0 + 1, l + 1, e.valueCol0 + 1 + static_cast<int>(std::max<size_t>(shown, 1))};
    out.push_back(std::move(e));
    l = last;
  }
  return out;
}

} // namespace retrylint
