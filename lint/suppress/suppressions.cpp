#include "lint/suppress/suppressions.h"

#include <optional>
#include <regex>

#include <algorithm>
#include <cctype>

#include <llvm/ADT/StringRef.h>

#include "rules/rule.h"

namespace retrylint {
namespace {

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// Where a line's comment starts, read with what the lines above left open: a string (YAML's
// quoted scalars may span lines), a C++ raw string, a block comment. A suppression marker counts
// only inside a comment: one inside a string value (a URL's `#fragment`, a JSON string's `// …`) is
// text the file's author may not even have written, and never silences anything.
// Comments: '#' that starts the line or follows whitespace, '//' and '/*' anywhere outside a
// string, ';' or '!' that starts the line; in a .properties file only a line that starts with
// '#' or '!' (a value runs to the end of its line there).
class CommentScanner {
public:
  explicit CommentScanner(bool wholeLineOnly) : wholeLineOnly_(wholeLineOnly) {}

  // Reads the next line: where its comment starts (npos: none). Call once per line, in order.
  size_t next(std::string_view line) {
    start_ = state_;
    return scan(state_, line, line.size());
  }

  // Whether offset `pos` of the line just read lies in code: not in a string, nor in a comment.
  bool codeAt(std::string_view line, size_t pos) const {
    State s = start_;
    return scan(s, line, pos) == std::string_view::npos && s.in == In::Code;
  }

private:
  enum class In { Code, Double, Single, Raw, Block };
  struct State {
    In in = In::Code;
    std::string rawEnd; // `)delim"` of the raw string open
  };

  static bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // Reads line[0, limit) from `st`, leaving `st` as it is at `limit`; where a comment starts.
  size_t scan(State &st, std::string_view line, size_t limit) const {
    if (wholeLineOnly_) {
      std::string_view t = trimLeft(line);
      size_t at = line.size() - t.size();
      return !t.empty() && (t.front() == '#' || t.front() == '!') && at < limit ? at : std::string_view::npos;
    }
    size_t comment = st.in == In::Block ? 0 : std::string_view::npos;
    for (size_t i = 0; i < limit && i < line.size(); ++i) {
      char c = line[i];
      switch (st.in) {
      case In::Block:
        if (c == '*' && i + 1 < line.size() && line[i + 1] == '/') st.in = In::Code, ++i;
        continue;
      case In::Double:
        if (c == '\\') ++i;
        else if (c == '"') st.in = In::Code;
        continue;
      case In::Single:
        if (c == '\\') ++i;
        else if (c == '\'' && i + 1 < line.size() && line[i + 1] == '\'') ++i; // YAML's '' inside '…'
        else if (c == '\'') st.in = In::Code;
        continue;
      case In::Raw:
        if (line.substr(i).rfind(st.rawEnd, 0) == 0) i += st.rawEnd.size() - 1, st.in = In::Code;
        continue;
      case In::Code:
        break;
      }
      bool afterSpace = i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t';
      if (c == '#' && afterSpace) return std::min(comment, i);
      if ((c == ';' || c == '!') && trimLeft(line.substr(0, i)).empty()) return std::min(comment, i);
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') return std::min(comment, i);
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
        comment = std::min(comment, i);
        st.in = In::Block, ++i;
      } else if (c == '"') {
        // A C++ raw string R"delim( … )delim" (u8R, uR, UR, LR too) runs to its own end.
        size_t open = line.find('(', i + 1);
        bool raw = i > 0 && line[i - 1] == 'R' && open != std::string_view::npos && open - i <= 17 &&
                   (i < 2 || !identifierChar(line[i - 2]) || std::string_view("8uUL").find(line[i - 2]) != std::string_view::npos);
        if (raw) {
          st.rawEnd = ")" + std::string(line.substr(i + 1, open - i - 1)) + "\"";
          st.in = In::Raw;
          i = open;
        } else {
          st.in = In::Double;
        }
      } else if (c == '\'' && (afterSpace || std::string_view(":,[{(=<>!&|?+-").find(line[i - 1]) != std::string_view::npos)) {
        st.in = In::Single; // a quote that starts a value; not the one in `don't` or `1'000`
      }
    }
    return comment;
  }

  State state_, start_;
  bool wholeLineOnly_;
};

bool commentOnly(std::string_view line, size_t pos) {
  std::string_view before = trimLeft(line.substr(0, pos));
  // Only the comment introducer may precede the marker.
  while (!before.empty() && (before.front() == '#' || before.front() == '/' || before.front() == ';' ||
                             before.front() == '*' || before.front() == '!' || before.front() == ' '))
    before.remove_prefix(1);
  return before.empty();
}

// A JSON member that carries a suppression: `"//retrylint": "ignore[RL203] reason"` (any JSON
// dialect whose runtime ignores unknown keys: gRPC service configs), or `"Comment": "retrylint:
// ignore[RL101] reason"` (Step Functions states and retriers take a Comment), `"$comment"` and
// `"_comment"` likewise. `text` starts at `ignore`; `alone`: the member is all its line holds.
struct JsonMember {
  size_t at;
  std::string_view text;
  bool alone;
};
std::optional<JsonMember> jsonSuppression(std::string_view line) {
  static const std::regex member(R"re("(//retrylint|Comment|\$comment|_comment)"\s*:\s*"(retrylint:\s*)?(ignore[^"]*)"\s*,?)re");
  // std::regex recurses per character: a stranger's megabyte line must not reach it.
  if (line.size() > 4096 || line.find('"') == std::string_view::npos) return std::nullopt;
  std::cmatch m;
  if (!std::regex_search(line.data(), line.data() + line.size(), m, member)) return std::nullopt;
  if (m[1].str() != "//retrylint" && !m[2].matched) return std::nullopt; // another key's own text
  size_t at = static_cast<size_t>(m.position(0));
  bool alone = trimLeft(line.substr(0, at)).empty() && trimLeft(line.substr(at + static_cast<size_t>(m.length(0)))).empty();
  return JsonMember{at, line.substr(static_cast<size_t>(m.position(3)), static_cast<size_t>(m.length(3))), alone};
}

// The 1-based first and last lines of the JSON object around byte `offset` ({0, 0}: none), found
// by one pass over the text that skips strings.
std::pair<int, int> enclosingObject(const SourceFile &src, size_t offset) {
  const std::string &t = src.text();
  std::vector<size_t> open;
  size_t start = std::string::npos;
  bool inString = false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (i == offset) {
      if (open.empty()) return {0, 0};
      start = open.back();
    }
    if (c == '"') inString = true;
    else if (c == '{') open.push_back(i);
    else if (c == '}' && !open.empty()) {
      if (open.back() == start) return {src.spanAt(start, 1).line, src.spanAt(i, 1).line};
      open.pop_back();
    }
  }
  return {0, 0};
}

void addRules(std::string_view list, Suppression &s) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string name(list.substr(start, comma - start));
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    start = comma + 1;
    if (name.empty()) continue;
    if (name.rfind("retrylint-", 0) == 0) name = name.substr(10);
    if (name == "*") continue;
    if (const Rule *r = findRule(name)) s.codes.insert(std::string(r->code));
    else s.unknown.push_back(name);
  }
}

int nextCodeLine(const SourceFile &src, int line0) {
  // The line a comment-only suppression silences: the next line that is not blank.
  for (int l = line0 + 1; l < src.lineCount(); ++l)
    if (!trimLeft(src.line(l)).empty()) return l + 1;
  return line0 + 2;
}

} // namespace

std::vector<Suppression> parseSuppressions(const SourceFile &src) {
  std::vector<Suppression> out;
  const std::string &text = src.text();
  if (text.find("retrylint") == std::string::npos) return out; // the common case, cheaply
  const std::string &path = src.path();
  CommentScanner comments(llvm::StringRef(path).endswith(".properties"));
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view line = src.line(l);
    const size_t comment = comments.next(line);
    auto inComment = [&](size_t at) { return comment != std::string_view::npos && at >= comment; };
    size_t pos = line.find("retrylint");
    if (pos == std::string_view::npos) continue;

    // clang-tidy style: NOLINT(retrylint-…), NOLINTNEXTLINE(retrylint-…)
    for (const char *tag : {"NOLINTNEXTLINE(", "NOLINT("}) {
      size_t at = line.find(tag);
      if (at == std::string_view::npos || !inComment(at)) continue;
      size_t open = at + std::string_view(tag).size();
      size_t close = line.find(')', open);
      if (close == std::string_view::npos) break;
      std::string_view inside = line.substr(open, close - open);
      // Keep only our checks; other tools' names in the same NOLINT are theirs.
      Suppression s;
      bool ours = false;
      size_t start = 0;
      while (start <= inside.size()) {
        size_t comma = inside.find(',', start);
        if (comma == std::string_view::npos) comma = inside.size();
        std::string_view item = trimLeft(inside.substr(start, comma - start));
        if (item.rfind("retrylint-", 0) == 0) {
          ours = true;
          addRules(item, s);
        }
        start = comma + 1;
      }
      if (!ours) break;
      s.where = src.spanAt(src.offsetOf(l, static_cast<int>(at)), close + 1 - at);
      s.target_line = std::string_view(tag) == "NOLINT(" ? l + 1 : nextCodeLine(src, l);
      out.push_back(std::move(s));
      break;
    }

    // retrylint: ignore[...] / ignore-file[...]
    size_t marker = line.find("retrylint:");
    std::string_view rest;
    bool alone = false;
    std::pair<int, int> object{0, 0};
    if (marker != std::string_view::npos && inComment(marker)) {
      rest = trimLeft(line.substr(marker + 10));
      alone = commentOnly(line, marker);
    } else if (auto member = jsonSuppression(line); member && comments.codeAt(line, member->at)) {
      // JSON has no comments: a member the runtime tolerates carries it (see the header).
      marker = member->at;
      rest = member->text;
      alone = member->alone;
      object = enclosingObject(src, src.offsetOf(l, static_cast<int>(marker)));
    } else {
      continue;
    }
    Suppression s;
    if (rest.rfind("ignore-file", 0) == 0) {
      s.file_wide = true;
      rest.remove_prefix(11);
    } else if (rest.rfind("ignore", 0) == 0) {
      rest.remove_prefix(6);
    } else {
      continue;
    }
    if (!rest.empty() && rest.front() == '[') {
      size_t close = rest.find(']');
      if (close == std::string_view::npos) close = rest.size();
      addRules(rest.substr(1, close - 1), s);
      rest.remove_prefix(std::min(close + 1, rest.size()));
    }
    std::string reason(trimLeft(rest));
    while (!reason.empty() && (reason.back() == ' ' || reason.back() == '/' || reason.back() == '*')) reason.pop_back();
    s.reason = reason;
    s.where = src.spanAt(src.offsetOf(l, static_cast<int>(marker)), line.size() - marker);
    while (!s.reason.empty() && (s.reason.back() == '"' || s.reason.back() == ',')) s.reason.pop_back();
    if (!s.file_wide) s.target_line = alone ? nextCodeLine(src, l) : l + 1;
    if (!s.file_wide && object.first > 0) std::tie(s.target_line, s.target_end_line) = object;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Suppression> applySuppressions(std::vector<Finding> &findings, std::vector<Suppression> &suppressions) {
  if (!suppressions.empty()) {
    findings.erase(std::remove_if(findings.begin(), findings.end(),
                                  [&](const Finding &f) {
                                    bool hit = false;
                                    for (Suppression &s : suppressions) {
                                      if (!s.file_wide && (s.target_end_line ? f.where.line < s.target_line || f.where.line > s.target_end_line
                                                                             : s.target_line != f.where.line))
                                        continue;
                                      if (!s.codes.empty() && !s.codes.count(f.rule)) continue;
                                      if (s.codes.empty() && !s.unknown.empty()) continue; // only unknown names
                                      s.used = true;
                                      hit = true;
                                    }
                                    return hit;
                                  }),
                   findings.end());
  }
  std::vector<Suppression> unused;
  for (const Suppression &s : suppressions)
    if (!s.used || !s.unknown.empty()) unused.push_back(s);
  return unused;
}

} // namespace retrylint
