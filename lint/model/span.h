// Where a value came from: file, 1-based line and column, and the end of the construct.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace retrylint {

struct Span {
  std::string path;
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
};

} // namespace retrylint
