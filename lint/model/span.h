// Where a value came from: file, 1-based line and column, and the end of the construct.
#pragma once
#include <string>

namespace retrylint {

struct Span {
  std::string path;
  int line = 0, column = 0, end_line = 0, end_column = 0;
  bool known() const { return line > 0; }
};

} // namespace retrylint
