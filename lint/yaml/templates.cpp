#include "lint/yaml/templates.h"

namespace retrylint::yaml {

bool hasTemplateMarkers(std::string_view text) { return text.find("{{") != std::string_view::npos; }

std::string maskTemplates(std::string_view text) {
  std::string out(text);
  size_t lineStart = 0;
  while (lineStart < out.size()) {
    size_t lineEnd = out.find('\n', lineStart);
    if (lineEnd == std::string::npos) lineEnd = out.size();
    const size_t next = lineEnd + 1;
    if (lineEnd > lineStart && out[lineEnd - 1] == '\r') --lineEnd; // a CRLF's CR stays
    // Mask each `{{ … }}` on the line (an unclosed one runs to the line's end).
    bool onlyTemplates = true, any = false;
    size_t i = lineStart;
    while (i < lineEnd) {
      size_t open = out.find("{{", i);
      if (open == std::string::npos || open >= lineEnd) {
        for (size_t k = i; k < lineEnd; ++k)
          if (out[k] != ' ' && out[k] != '\t') onlyTemplates = false;
        break;
      }
      for (size_t k = i; k < open; ++k)
        if (out[k] != ' ' && out[k] != '\t') onlyTemplates = false;
      size_t close = out.find("}}", open + 2);
      size_t end = close == std::string::npos || close + 2 > lineEnd ? lineEnd : close + 2;
      for (size_t k = open; k < end; ++k) out[k] = '_';
      any = true;
      i = end;
    }
    if (any && onlyTemplates)
      for (size_t k = lineStart; k < lineEnd; ++k) out[k] = ' ';
    lineStart = next;
  }
  return out;
}

} // namespace retrylint::yaml
