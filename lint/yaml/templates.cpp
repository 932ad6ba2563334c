#include "lint/yaml/templates.h"

#include <array>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Path.h>

namespace retrylint::yaml {

bool isYamlTemplatePath(std::string_view path) {
  const llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(path.data(), path.size()));
  static constexpr std::array<llvm::StringLiteral, 6> kEndings = {".yaml.tpl",  ".yml.tpl",    ".yaml.tmpl",
                                                                  ".yml.tmpl", ".yaml.gotmpl", ".yml.gotmpl"};
  for (llvm::StringRef e : kEndings)
    if (name.size() > e.size() && name.endswith_insensitive(e)) return true;
  return false;
}

bool isBareTemplatePath(std::string_view path) {
  const llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(path.data(), path.size()));
  if (isYamlTemplatePath(path) || name.endswith_insensitive(".json.tpl") || name.endswith_insensitive(".json.tmpl")) return false;
  for (llvm::StringRef e : {llvm::StringRef(".tpl"), llvm::StringRef(".tmpl")})
    if (name.size() > e.size() && name.endswith_insensitive(e)) return true;
  return false;
}

bool looksLikeJsonText(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

bool isJsonTemplatePath(std::string_view path) {
  if (isYamlTemplatePath(path)) return false;
  const llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(path.data(), path.size()));
  // `.tftpl` and `.tpl` alone too: templatefile() reads any name (`sfn_template.tftpl`, `states.tpl`), and
  // one that is not JSON (a Helm `_helpers.tpl`, a shell script) is skipped without an error.
  static constexpr std::array<llvm::StringLiteral, 6> kEndings = {".json.tpl", ".json.tftpl", ".json.tmpl", ".json.j2",
                                                                  ".tftpl", ".tpl"};
  for (llvm::StringRef e : kEndings)
    if (name.size() > e.size() && name.endswith_insensitive(e)) return true;
  return false;
}

std::string blankTemplateDirectives(std::string text) {
  for (size_t open = text.find("%{"); open != std::string::npos; open = text.find("%{", open)) {
    const size_t close = text.find('}', open + 2);
    const size_t end = close == std::string::npos ? text.size() : close + 1;
    for (size_t k = open; k < end; ++k)
      if (text[k] != '\n' && text[k] != '\r') text[k] = ' ';
    open = end;
  }
  return text;
}

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

size_t interpolationEnd(std::string_view text, size_t i, bool withinLine) {
  int depth = 0;
  for (size_t j = i + 1; j < text.size(); ++j) {
    const char c = text[j];
    if (withinLine && c == '\n') break;
    if (c == '"') {
      for (++j; j < text.size() && text[j] != '"'; ++j) {
        if (withinLine && text[j] == '\n') return std::string_view::npos;
        if (text[j] == '\\') ++j;
      }
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return j;
    }
  }
  return std::string_view::npos;
}

namespace {
// Calls `f(begin, end, inString)` for each `${…}` ([begin, end], the braces included), inside a
// JSON string or not; an interpolation inside a string does not end it, whatever quotes it holds.
template <class F> void forEachInterpolation(std::string_view text, F f) {
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      size_t end = interpolationEnd(text, i);
      if (end == std::string_view::npos) return;
      if (!f(i, end, inString)) return;
      i = end;
    } else if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    }
  }
}

// Calls `f(begin, end)` for each `${…}` outside a JSON string ([begin, end], the braces included).
template <class F> void forEachJsonPlaceholder(std::string_view text, F f) {
  forEachInterpolation(text, [&](size_t b, size_t e, bool inString) { return inString || f(b, e); });
}

// Writes `fill` over [b, e] of `text`, then blanks: line breaks stay where they are.
void overwrite(std::string &text, size_t b, size_t e, std::string_view fill) {
  size_t k = 0;
  for (size_t j = b; j <= e; ++j) {
    if (text[j] == '\n' || text[j] == '\r') continue;
    text[j] = k < fill.size() ? fill[k++] : ' ';
  }
}
} // namespace

bool hasJsonPlaceholders(std::string_view text) {
  bool any = false;
  forEachJsonPlaceholder(text, [&](size_t, size_t) { return !(any = true); });
  return any;
}

std::string blankJsonPlaceholders(std::string text) {
  std::string_view view = text; // the scan reads what the loop writes only past the current one
  forEachJsonPlaceholder(view, [&](size_t b, size_t e) {
    overwrite(text, b, e, e - b + 1 >= 4 ? "null" : "0");
    return true;
  });
  return text;
}

std::string fillJsonPlaceholders(std::string text, const std::map<std::string, std::string> &values) {
  if (values.empty()) return text;
  std::string_view view = text;
  forEachJsonPlaceholder(view, [&](size_t b, size_t e) {
    std::string_view name = view.substr(b + 2, e - b - 2);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    auto it = values.find(std::string(name));
    if (it == values.end() || it->second.size() > e - b + 1) return true;
    overwrite(text, b, e, it->second);
    return true;
  });
  return text;
}

void quoteInterpolation(std::string &text, size_t b, size_t e) {
  for (size_t j = b; j < e && j < text.size(); ++j) {
    if (text[j] == '"') text[j] = '\'';
    else if (text[j] == '\\') text[j] = '/';
  }
}

std::string quoteInStringInterpolations(std::string text) {
  std::string_view view = text;
  forEachInterpolation(view, [&](size_t b, size_t e, bool inString) {
    if (inString) quoteInterpolation(text, b, e + 1);
    return true;
  });
  return text;
}

} // namespace retrylint::yaml
