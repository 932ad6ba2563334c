// A small, strict INI reader that keeps positions, for the INI dialects (AWS shared config, …).
//
// Syntax accepted: `[section]` headers, `key = value` lines, full-line comments starting with
// `#` or `;`, inline comments (` #` or ` ;` after whitespace), blank lines, and indented
// `key = value` lines under a key with an empty value (AWS "sub-properties": `s3 =` then
// `  max_concurrent_requests = 10`). Anything else is a syntax error with its line and column.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "lint/source.h"

namespace retrylint {

struct IniEntry {
  std::string key, value;     // trimmed; inline comments removed
  int line0 = 0;              // 0-based line
  int key_col0 = 0;           // 0-based column of the key
  int value_col0 = 0;         // 0-based column of the value (where it would start when empty)
  std::vector<IniEntry> sub;  // indented sub-properties
};

struct IniSection {
  std::string name;           // text between the brackets, trimmed ("profile dev")
  int line0 = 0;
  int name_col0 = 0;          // 0-based column of the name's first character
  std::vector<IniEntry> entries;

  // The last entry with this key (later lines win), or nullptr.
  const IniEntry *find(std::string_view key) const;
};

struct IniFile {
  std::vector<IniSection> sections;
};

struct IniError : std::runtime_error {
  int line0, col0;
  IniError(int l, int c, const std::string &msg) : std::runtime_error(msg), line0(l), col0(c) {}
};

// Parses the whole file; throws IniError at the first line that is not INI.
IniFile parseIni(const SourceFile &src);

// Span helpers: the key, the value (or, when empty, the position after '='), the section name.
Span keySpan(const SourceFile &src, const IniEntry &e);
Span valueSpan(const SourceFile &src, const IniEntry &e);
Span sectionSpan(const SourceFile &src, const IniSection &s);

} // namespace retrylint
