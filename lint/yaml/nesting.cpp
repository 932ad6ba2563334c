#include "lint/yaml/nesting.h"

#include <algorithm>
#include <vector>

namespace retrylint {

// The deepest nesting a YAML/JSON text can reach, over-estimated cheaply before the recursive
// parsers see it: indentation levels of block collections (`- - -` on one line counts one per
// dash) plus the open brackets of flow collections.
int nestingDepth(std::string_view text) {
  std::vector<size_t> indents; // columns of the open block levels
  int flow = 0, deepest = 0;
  bool inDouble = false, inSingle = false;
  size_t i = 0;
  while (i < text.size()) {
    // Start of a line: its indentation closes deeper block levels.
    size_t col = 0;
    while (i < text.size() && text[i] == ' ') ++i, ++col;
    bool blank = i >= text.size() || text[i] == '\n' || text[i] == '\r' || text[i] == '#';
    if (!blank && flow == 0 && !inDouble && !inSingle) {
      while (!indents.empty() && indents.back() > col) indents.pop_back();
      if (indents.empty() || indents.back() < col) indents.push_back(col);
      // Compact nested sequences and explicit keys: `- - - x`, `? - x`.
      while (i + 1 < text.size() && (text[i] == '-' || text[i] == '?') && text[i + 1] == ' ') {
        i += 2, col += 2;
        while (i < text.size() && text[i] == ' ') ++i, ++col;
        indents.push_back(col);
      }
    }
    deepest = std::max(deepest, static_cast<int>(indents.size()) + flow);
    for (; i < text.size() && text[i] != '\n'; ++i) {
      char c = text[i];
      if (inDouble) {
        if (c == '\\') ++i;
        else if (c == '"') inDouble = false;
        continue;
      }
      if (inSingle) {
        if (c == '\'') inSingle = false;
        continue;
      }
      if (c == '"') inDouble = true;
      else if (c == '\'' && flow > 0) inSingle = true;
      else if (c == '[' || c == '{') deepest = std::max(deepest, static_cast<int>(indents.size()) + ++flow);
      else if ((c == ']' || c == '}') && flow > 0) --flow;
      else if (c == '#' && flow == 0) break; // a comment (close enough: `#` inside plain scalars is rare)
    }
    while (i < text.size() && text[i] != '\n') ++i;
    ++i;
  }
  return deepest;
}

} // namespace retrylint
