// Where a value came from: file, 1-based line and column, and the end of the construct.
#pragma once
#include <compare>
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace retrylint {

// The path of a span's file, shared: every span of a file (and spans are copied into every
// setting, condition and finding) points at one copy, so copying a span allocates nothing.
// Reads as a const std::string&.
class FilePath {
public:
  FilePath() = default;
  FilePath(std::string path) : p_(path.empty() ? nullptr : std::make_shared<const std::string>(std::move(path))) {}
  FilePath(const char *path) : FilePath(std::string(path)) {}
  FilePath(std::string_view path) : FilePath(std::string(path)) {}

  const std::string &str() const { return p_ ? *p_ : none(); }
  operator const std::string &() const { return str(); }
  bool empty() const { return !p_; }
  size_t size() const { return str().size(); }
  const char *c_str() const { return str().c_str(); }
  size_t find(std::string_view part, size_t from = 0) const { return str().find(part, from); }

  friend bool operator==(const FilePath &a, const FilePath &b) { return a.p_ == b.p_ || a.str() == b.str(); }
  friend std::strong_ordering operator<=>(const FilePath &a, const FilePath &b) { return a.str().compare(b.str()) <=> 0; }
  friend bool operator==(const FilePath &a, const std::string &b) { return a.str() == b; }
  friend bool operator==(const FilePath &a, const char *b) { return a.str() == b; }
  friend std::string operator+(const FilePath &a, const std::string &b) { return a.str() + b; }
  friend std::string operator+(const FilePath &a, const char *b) { return a.str() + b; }
  friend std::string operator+(const FilePath &a, char b) { return a.str() + b; }
  friend std::string operator+(const std::string &a, const FilePath &b) { return a + b.str(); }
  friend std::string operator+(const char *a, const FilePath &b) { return a + b.str(); }
  friend std::ostream &operator<<(std::ostream &out, const FilePath &p) { return out << p.str(); }

private:
  static const std::string &none() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> p_;
};

struct Span {
  FilePath path;
  int line = 0, column = 0, end_line = 0, end_column = 0;
  bool known() const { return line > 0; }
};

// One text replacement: `length` bytes at byte `offset` of the file become `replacement`.
// `where` is the same range as lines and columns (1-based; an insertion has end == start).
struct TextEdit {
  Span where;
  size_t offset = 0, length = 0;
  std::string replacement;
};

// A mechanical fix: the edits that make the construct safe, applied together.
struct Fix {
  std::string description; // "set JitterStrategy to FULL"
  std::vector<TextEdit> edits;
  // Safe: keeps what the author meant (adds the missing cap or jitter, spells a value the way the
  // runtime reads it) and `--fix` applies it. Unsafe: changes behaviour (turns retries off,
  // switches the policy type); only `--unsafe-fixes` applies it. Either way --fix applies a fix
  // only when re-analysis shows it removes its finding and raises no other (lint/fix/plan.h).
  bool safe = true;
  // SHA-256 (hex) of the text the offsets were computed on (after a byte-order mark is
  // dropped): --fix writes only a file that still holds exactly that text.
  std::string source_sha256 = {};
};

} // namespace retrylint
