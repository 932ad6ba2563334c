#include "lint/yaml/json_strict.h"

#include <algorithm>

#include <regex>
#include <vector>

namespace retrylint::yaml {

namespace {
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
// The characters llvm::json reads greedily into a number token.
bool isNumberChar(char c) { return isDigit(c) || c == 'e' || c == 'E' || c == '+' || c == '-' || c == '.'; }
} // namespace

bool certainlyStrictJson(std::string_view text) {
  const char *p = text.data(), *end = p + text.size();
  auto ws = [&] {
    while (p != end && isSpace(*p)) ++p;
  };
  auto literal = [&](std::string_view word) {
    if (static_cast<size_t>(end - p) < word.size() || std::string_view(p, word.size()) != word) return false;
    p += word.size();
    return true;
  };
  // A string after its opening quote: printable ASCII and the short escapes only.
  auto string = [&] {
    for (;;) {
      if (p == end) return false;
      const unsigned char c = static_cast<unsigned char>(*p++);
      if (c == '"') return true;
      if (c < 0x20 || c >= 0x80) return false;
      if (c != '\\') continue;
      if (p == end) return false;
      switch (*p++) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': break;
      default: return false; // \u (surrogates, U+FFFD) and errors: let llvm::json decide
      }
    }
  };
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and no further number character after it
  // (llvm::json reads [0-9eE+-.]* as one token and then needs strtod to take all of it).
  auto number = [&] {
    if (p != end && *p == '-') ++p;
    if (p == end || !isDigit(*p)) return false;
    if (*p == '0') ++p;
    else
      while (p != end && isDigit(*p)) ++p;
    if (p != end && *p == '.') {
      ++p;
      if (p == end || !isDigit(*p)) return false;
      while (p != end && isDigit(*p)) ++p;
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p != end && (*p == '+' || *p == '-')) ++p;
      if (p == end || !isDigit(*p)) return false;
      while (p != end && isDigit(*p)) ++p;
    }
    return p == end || !isNumberChar(*p);
  };

  // Open containers: true for an object. After a value, what may follow depends on the top.
  std::vector<bool> open;
  ws();
  for (;;) {
    // A value is expected here.
    if (p == end) return false;
    const char c = *p++;
    bool scalar = true;
    if (c == '{' || c == '[') {
      ws();
      if (p != end && *p == (c == '{' ? '}' : ']')) {
        ++p; // empty: a complete value
      } else {
        open.push_back(c == '{');
        scalar = false;
        if (c == '{') {
          if (p == end || *p++ != '"' || !string()) return false;
          ws();
          if (p == end || *p++ != ':') return false;
          ws();
        }
      }
    } else if (c == '"') {
      if (!string()) return false;
    } else if (c == 't') {
      if (!literal("rue")) return false;
    } else if (c == 'f') {
      if (!literal("alse")) return false;
    } else if (c == 'n') {
      if (!literal("ull")) return false;
    } else {
      --p;
      if (!number()) return false;
    }
    if (!scalar) continue; // the container's first value comes next
    // After a complete value: close containers, or go on to the next element.
    for (;;) {
      ws();
      if (open.empty()) return p == end;
      if (p == end) return false;
      const char d = *p++;
      if (d == (open.back() ? '}' : ']')) {
        open.pop_back();
        continue;
      }
      if (d != ',') return false;
      ws();
      if (open.back()) {
        if (p == end || *p++ != '"' || !string()) return false;
        ws();
        if (p == end || *p++ != ':') return false;
        ws();
      }
      break;
    }
  }
}

JsonErrorPosition liftJsonErrorPosition(std::string &message) {
  JsonErrorPosition at;
  static const std::regex position(R"(\[(\d+):(\d+), byte=(\d+)\]:?\s*)");
  std::smatch m;
  if (!std::regex_search(message, m, position)) return at;
  at.found = true;
  at.line = std::stoi(m[1]);
  at.column = std::stoi(m[2]);
  at.byte = std::stoul(m[3]);
  message = m.prefix().str() + m.suffix().str();
  return at;
}

int jsonDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

llvm::Expected<llvm::json::Value> parseJsonWithin(std::string_view text, int maxDepth) {
  if (jsonDepth(text) > maxDepth)
    return llvm::createStringError(std::errc::invalid_argument, "arrays and objects nest deeper than %d", maxDepth);
  return llvm::json::parse(llvm::StringRef(text.data(), text.size()));
}

} // namespace retrylint::yaml
