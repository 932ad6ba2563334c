#include "lint/yaml/toml.h"

#include <sstream>
#include <vector>

#include <toml++/toml.h>

namespace retrylint::yaml {
namespace {

struct TooDeep {
  toml::source_position at;
};

class Builder {
public:
  Builder(std::string_view text, int maxNesting, Document &doc) : doc_(doc), max_(maxNesting) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }

  uint32_t node(const toml::node &n, int depth) {
    if (depth > max_) throw TooDeep{n.source().begin};
    Document::Data d;
    d.mark = mark(n.source().begin);
    if (const toml::table *t = n.as_table()) {
      d.type = NodeType::Map;
      const uint32_t i = doc_.add(d);
      const size_t from = doc_.scratch().size();
      for (auto &&[k, v] : *t) {
        const uint32_t key = scalar(std::string(k.str()), "?", k.source().begin);
        const uint32_t value = node(v, depth + 1);
        doc_.scratch().push_back(key);
        doc_.scratch().push_back(value);
      }
      doc_.attach(i, from);
      return i;
    }
    if (const toml::array *a = n.as_array()) {
      d.type = NodeType::Sequence;
      const uint32_t i = doc_.add(d);
      const size_t from = doc_.scratch().size();
      for (const toml::node &v : *a) {
        const uint32_t item = node(v, depth + 1);
        doc_.scratch().push_back(item);
      }
      doc_.attach(i, from);
      return i;
    }
    if (auto s = n.value<std::string>(); s && n.is_string()) return scalar(*s, "!", n.source().begin);
    if (n.is_integer()) return scalar(std::to_string(*n.value<int64_t>()), "?", n.source().begin);
    if (n.is_boolean()) return scalar(*n.value<bool>() ? "true" : "false", "?", n.source().begin);
    std::ostringstream text; // floats as TOML writes them; dates and times quoted, as YAML reads them
    n.visit([&](auto &&v) { text << v; });
    return scalar(text.str(), n.is_floating_point() ? "?" : "!", n.source().begin);
  }

private:
  Mark mark(const toml::source_position &p) const {
    if (!p) return Mark::null_mark();
    const int line0 = static_cast<int>(p.line) - 1, col0 = static_cast<int>(p.column) - 1;
    const size_t start = line0 >= 0 && static_cast<size_t>(line0) < starts_.size() ? starts_[line0] : 0;
    return Mark{static_cast<int>(start) + col0, line0, col0};
  }
  uint32_t scalar(std::string text, std::string_view tag, const toml::source_position &at) {
    Document::Data d;
    d.type = NodeType::Scalar;
    d.mark = mark(at);
    d.tag = tag;
    d.text = doc_.own(std::move(text));
    return doc_.add(d);
  }

  Document &doc_;
  int max_;
  std::vector<size_t> starts_;
};

} // namespace

namespace {
// An over-estimate of how deep toml++ recurses on `text`, counted without recursion: per line,
// the dots of its keys and the brackets and braces outside strings, over the arrays and inline
// tables still open from lines above. A dotted key of 150,000 parts is as deep as as many tables.
struct Depth {
  int deepest = 0;
  TomlError at;
};
Depth tomlDepth(std::string_view text) {
  Depth d;
  int open = 0, line = 1;
  size_t lineStart = 0;
  char quote = 0;
  int onLine = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line, lineStart = i + 1, onLine = 0;
      if (quote == '"' || quote == '\'') quote = 0; // basic and literal strings end with their line
      continue;
    }
    if (quote) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') ++open, ++onLine;
    else if ((c == ']' || c == '}') && open > 0) --open;
    else if (c == '.') ++onLine;
    if (open + onLine > d.deepest) {
      d.deepest = open + onLine;
      d.at = {line, static_cast<int>(i - lineStart) + 1, ""};
    }
  }
  return d;
}
} // namespace

bool readToml(std::string_view text, int maxNesting, Stream &out, TomlError *error) {
  if (Depth d = tomlDepth(text); d.deepest > maxNesting) {
    if (error) *error = {d.at.line, d.at.column, "keys, tables and arrays nest deeper than " + std::to_string(maxNesting)};
    return false;
  }
  try {
    toml::table root = toml::parse(text);
    Builder b(text, maxNesting, *out.arena);
    out.documents.push_back(out.arena->node(b.node(root, 0)));
    return true;
  } catch (const toml::parse_error &e) {
    if (error) *error = {static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column), std::string(e.description())};
  } catch (const TooDeep &e) {
    if (error) *error = {static_cast<int>(e.at.line), static_cast<int>(e.at.column), "tables and arrays nest deeper than " + std::to_string(maxNesting)};
  }
  return false;
}

} // namespace retrylint::yaml
