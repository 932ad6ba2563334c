// The fast path of lint/yaml/load.h: a hand-written reader for the YAML configuration files are
// written in (block maps and sequences, "- key: v" compact maps, one-line plain and quoted
// scalars, comments, `---`/`...` documents, one-line flow collections) and for JSON (a flow
// collection spanning lines at a document's root).
//
// Its one rule: produce exactly the tree yaml-cpp 0.7 produces, or give up (return false) and
// let yaml-cpp read the text. Whatever is not certain to match gives up: anchors, aliases, tags,
// block scalars, multi-line scalars, complex keys, directives, tabs, unusual escapes, a lone '\r',
// control characters, any syntax error. yaml-cpp facts it relies on (checked by
// tests/yaml_fast_test.cpp against yaml-cpp itself):
//  - marks are 0-based byte position, line and byte column; "\r\n" is one line break;
//  - a block map's mark is its first key's, a block sequence's its first '-', a flow
//    collection's its bracket, a quoted scalar's its opening quote;
//  - an empty value (null) is marked where the next token starts (comments and blank lines
//    skipped), or at the end of the text as {size, number of '\n', 0} (but see
//    endsWithBlankOrCommentLine);
//  - plain `~`, `null`, `Null`, `NULL` and empty values are null nodes with tag "";
//    plain scalars have tag "?", quoted ones "!", collections "?";
//  - a plain scalar ends at " #" or the line's end, trailing spaces dropped; in block context a
//    more indented next line would continue it (so that gives up).
#include <cstring>

#include "lint/yaml/load.h"

namespace retrylint::yaml {

namespace {

struct GiveUp {};

constexpr int kMaxDepth = kFastParserMaxDepth;
// yaml-cpp rejects simple keys longer than 1024 characters.
constexpr size_t kMaxKeyLength = 1000;

bool isNullPlain(std::string_view s) { return s == "~" || s == "null" || s == "Null" || s == "NULL"; }
bool isAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

class Parser {
public:
  Parser(std::string_view text, Document &doc) : t_(text), doc_(doc) {}

  void stream(std::vector<uint32_t> &roots) {
    skipToContent();
    while (i_ < t_.size()) {
      doc_.setDocument(static_cast<uint32_t>(roots.size()));
      if (atMarker("---")) {
        i_ += 3;
        endOfLine();
        skipToContent();
      }
      roots.push_back(atDocumentBoundary() ? null(mark()) : blockNode(-1, 0));
      skipToContent();
      // A document ends at the text's end, at `---` or at `...` (after which a document may
      // start without `---`); anything else after its root is an error.
      if (i_ < t_.size() && !atMarker("---") && !atMarker("...")) throw GiveUp{};
      while (atMarker("...")) {
        i_ += 3;
        endOfLine();
        skipToContent();
      }
    }
  }

private:
  std::string_view t_;
  Document &doc_;
  size_t i_ = 0, lineStart_ = 0;
  int line_ = 0;

  char at(size_t k) const { return k < t_.size() ? t_[k] : '\0'; }
  char cur() const { return at(i_); }
  bool eol(size_t k) const { return k >= t_.size() || t_[k] == '\n' || t_[k] == '\r'; }
  bool blankOrEol(size_t k) const { return eol(k) || t_[k] == ' '; }
  int column() const { return static_cast<int>(i_ - lineStart_); }
  Mark mark() const {
    if (i_ >= t_.size()) return endMark();
    return Mark{static_cast<int>(i_), line_, column()};
  }
  Mark endMark() const {
    int lines = 0;
    for (char c : t_) lines += c == '\n';
    return Mark{static_cast<int>(t_.size()), lines, 0};
  }

  void newline() {
    if (t_[i_] == '\r') ++i_; // checked up front: always followed by '\n'
    ++i_;
    ++line_;
    lineStart_ = i_;
  }
  // Spaces, comments and line breaks up to the next token.
  void skipToContent() {
    for (;;) {
      while (i_ < t_.size() && t_[i_] == ' ') ++i_;
      if (i_ >= t_.size()) return;
      if (t_[i_] == '#') {
        if (i_ > lineStart_ && t_[i_ - 1] != ' ') throw GiveUp{};
        while (!eol(i_)) ++i_;
      }
      if (i_ >= t_.size()) return;
      if (t_[i_] == '\n' || t_[i_] == '\r') newline();
      else return;
    }
  }
  // After a value: only spaces and a comment may follow on its line.
  void endOfLine() {
    size_t start = i_;
    while (i_ < t_.size() && t_[i_] == ' ') ++i_;
    if (cur() == '#') {
      if (i_ == start && i_ > lineStart_) throw GiveUp{}; // '#' must follow a space to start a comment
      while (!eol(i_)) ++i_;
    }
    if (!eol(i_)) throw GiveUp{};
  }
  bool atMarker(const char *m) const {
    return i_ == lineStart_ && t_.compare(i_, 3, m) == 0 && blankOrEol(i_ + 3);
  }
  bool atDocumentBoundary() const { return i_ >= t_.size() || atMarker("---") || atMarker("..."); }
  bool atSequenceEntry() const { return cur() == '-' && blankOrEol(i_ + 1); }

  uint32_t add(NodeType::value type, Mark m, std::string_view tag, EmitterStyle::value style = EmitterStyle::Default) {
    Document::Data d;
    d.type = type;
    d.mark = m;
    d.tag = tag;
    d.style = style;
    return doc_.add(d);
  }
  uint32_t null(Mark m) { return add(NodeType::Null, m, {}); }
  uint32_t scalar(Mark m, std::string_view text, bool quoted) {
    if (!quoted && isNullPlain(text)) return null(m);
    uint32_t n = add(NodeType::Scalar, m, quoted ? "!" : "?");
    doc_.data(n).text = text;
    return n;
  }

  // A node in block context at the current content position, more indented than `parent`.
  uint32_t blockNode(int parent, int depth) {
    if (depth > kMaxDepth) throw GiveUp{};
    const int col = column();
    if (col <= parent && !(col == parent && atSequenceEntry())) throw GiveUp{};
    if (atSequenceEntry()) return blockSequence(depth);
    if (cur() == '[' || cur() == '{') {
      // Only a document's root flow collection may span lines (JSON); elsewhere YAML's
      // indentation rules for flow content would have to be followed.
      uint32_t n = flow(parent < 0, depth);
      endOfLine();
      return n;
    }
    size_t keyEnd;
    if (!keyAhead(keyEnd)) throw GiveUp{}; // a lone scalar (perhaps multi-line): yaml-cpp's
    return blockMap(depth);
  }

  // Whether the line at the current position starts with a simple key ("key:" followed by a
  // space or the line's end); `end` is where the key's scalar ends.
  bool keyAhead(size_t &end) {
    size_t k = i_;
    char c = at(k);
    if (c == '[' || c == '{') return false; // a flow collection (as a key: yaml-cpp's)
    if (c == '"' || c == '\'') {
      end = quotedEnd(k);
      if (end == std::string_view::npos) return false;
      size_t j = end;
      while (at(j) == ' ') ++j;
      return at(j) == ':' && blankOrEol(j + 1);
    }
    for (; !eol(k); ++k) {
      if (t_[k] == ':' && blankOrEol(k + 1)) {
        end = k;
        return true;
      }
      if (t_[k] == '#' && k > i_ && t_[k - 1] == ' ') return false;
    }
    return false;
  }

  uint32_t blockMap(int depth) {
    const int col = column();
    uint32_t map = add(NodeType::Map, mark(), "?", EmitterStyle::Block);
    const size_t from = doc_.scratch().size();
    for (;;) {
      // A key, then ':'.
      const size_t keyStart = i_;
      uint32_t key;
      if (cur() == '"' || cur() == '\'') {
        key = quoted();
      } else {
        size_t end;
        if (!keyAhead(end)) throw GiveUp{};
        key = plain(end);
      }
      if (i_ - keyStart > kMaxKeyLength) throw GiveUp{};
      while (cur() == ' ') ++i_;
      if (cur() != ':' || !blankOrEol(i_ + 1)) throw GiveUp{};
      ++i_;
      doc_.scratch().push_back(key);
      doc_.scratch().push_back(blockValue(col, true, depth));
      skipToContent();
      if (atDocumentBoundary() || column() < col) break;
      if (column() > col || atSequenceEntry()) throw GiveUp{};
    }
    doc_.attach(map, from);
    return map;
  }

  uint32_t blockSequence(int depth) {
    const int col = column();
    uint32_t seq = add(NodeType::Sequence, mark(), "?", EmitterStyle::Block);
    const size_t from = doc_.scratch().size();
    for (;;) {
      ++i_; // the '-'
      while (cur() == ' ') ++i_;
      size_t keyEnd;
      if (!eol(i_) && cur() != '#' && keyAhead(keyEnd)) {
        // "- key: v": a map whose keys line up with this one.
        if (depth + 1 > kMaxDepth) throw GiveUp{};
        doc_.scratch().push_back(blockMap(depth + 1));
      } else {
        doc_.scratch().push_back(blockValue(col, false, depth));
      }
      skipToContent();
      if (atDocumentBoundary() || column() < col) break;
      if (column() > col) throw GiveUp{};
      if (!atSequenceEntry()) break; // a key of the map this sequence is a value of
    }
    doc_.attach(seq, from);
    return seq;
  }

  // The value after "key:" (or after "- "), which may be on this line, on the next ones, or empty.
  // `col` is the column of the collection the value is in.
  uint32_t blockValue(int col, bool inMap, int depth) {
    while (cur() == ' ') ++i_;
    if (cur() == '#' || eol(i_)) {
      skipToContent();
      if (atDocumentBoundary()) return null(mark());
      // A sequence may sit at its key's own indentation.
      if (column() > col || (column() == col && atSequenceEntry() && inMap))
        return blockNode(col, depth + 1);
      return null(mark());
    }
    return inlineValue(col, depth);
  }

  // A value that starts on the current line after "key: " or "- ".
  uint32_t inlineValue(int col, int depth) {
    char c = cur();
    if (c == '[' || c == '{') {
      uint32_t n = flow(false, depth + 1);
      endOfLine();
      return n;
    }
    if (c == '"' || c == '\'') {
      uint32_t n = quoted();
      endOfLine();
      return n;
    }
    size_t end = lineValueEnd();
    uint32_t n = plain(end);
    endOfLine();
    return n;
  }

  // Where a plain scalar value starting here ends on its line; gives up on ": " inside it.
  size_t lineValueEnd() {
    size_t k = i_;
    for (; !eol(k); ++k) {
      if (t_[k] == ':' && blankOrEol(k + 1)) throw GiveUp{};
      if (t_[k] == '#' && t_[k - 1] == ' ') break;
    }
    return k;
  }

  // A plain scalar from here to `end` (trailing spaces dropped).
  uint32_t plain(size_t end) {
    char c = cur();
    static const char indicators[] = "-?:,[]{}#&*!|>'\"%@`";
    if (c == ' ' || eol(i_) || (std::strchr(indicators, c) && c != '\0')) {
      // "-1", "-Xmx": a '-' followed by a letter or digit starts a plain scalar.
      if (!(c == '-' && isAlnum(at(i_ + 1)))) throw GiveUp{};
    }
    size_t last = end;
    while (last > i_ && t_[last - 1] == ' ') --last;
    Mark m = mark();
    uint32_t n = scalar(m, t_.substr(i_, last - i_), false);
    i_ = last;
    return n;
  }

  // Just past the closing quote of the quoted scalar whose opening quote is at `k`, or npos when
  // it does not close on its line (multi-line quoted scalars fold lines: yaml-cpp's).
  size_t quotedEnd(size_t k) const {
    const char q = t_[k];
    for (++k;; ++k) {
      if (eol(k)) return std::string_view::npos;
      if (t_[k] == q) {
        if (q == '\'' && at(k + 1) == '\'') {
          ++k;
          continue;
        }
        return k + 1;
      }
      if (q == '"' && t_[k] == '\\' && !eol(k + 1)) ++k;
    }
  }

  // A one-line quoted scalar at the current position; the position moves past its closing quote.
  uint32_t quoted() {
    const char q = cur();
    Mark m = mark();
    size_t end = quotedEnd(i_);
    if (end == std::string_view::npos) throw GiveUp{};
    std::string_view body = t_.substr(i_ + 1, end - i_ - 2);
    i_ = end;
    const bool plainCopy = body.find(q == '"' ? '\\' : '\'') == std::string_view::npos;
    if (plainCopy) return scalar(m, body, true);
    std::string s;
    s.reserve(body.size());
    for (size_t j = 0; j < body.size(); ++j) {
      char c = body[j];
      if (q == '\'') {
        s += c;
        if (c == '\'') ++j; // '' is one quote
        continue;
      }
      if (c != '\\') {
        s += c;
        continue;
      }
      switch (body[++j]) {
      case '\\': s += '\\'; break;
      case '"': s += '"'; break;
      case '/': s += '/'; break;
      case 'n': s += '\n'; break;
      case 't': s += '\t'; break;
      case 'r': s += '\r'; break;
      case 'b': s += '\b'; break;
      case 'f': s += '\f'; break;
      default: throw GiveUp{}; // \u, \x, \0, \e ...: yaml-cpp's
      }
    }
    return scalar(m, doc_.own(std::move(s)), true);
  }

  // Spaces (and, where the collection may span lines, line breaks and comments) in flow context.
  void flowSpace(bool multiLine) {
    for (;;) {
      while (cur() == ' ') ++i_;
      if (cur() == '#') {
        if ((t_[i_ - 1] != ' ' && t_[i_ - 1] != '\n') || !multiLine) throw GiveUp{};
        while (!eol(i_)) ++i_;
      }
      if (i_ >= t_.size()) throw GiveUp{}; // unterminated
      if (t_[i_] == '\n' || t_[i_] == '\r') {
        if (!multiLine) throw GiveUp{};
        newline();
        // `---` and `...` at a line's start end the document even inside brackets (an error).
        if (atDocumentBoundary()) throw GiveUp{};
        continue;
      }
      return;
    }
  }

  // A flow collection at '[' or '{'.
  uint32_t flow(bool multiLine, int depth) {
    if (depth > kMaxDepth) throw GiveUp{};
    const bool isMap = cur() == '{';
    const char close = isMap ? '}' : ']';
    uint32_t n = add(isMap ? NodeType::Map : NodeType::Sequence, mark(), "?", EmitterStyle::Flow);
    const size_t from = doc_.scratch().size();
    ++i_;
    flowSpace(multiLine);
    if (cur() == close) {
      ++i_;
      doc_.attach(n, from);
      return n;
    }
    for (;;) {
      bool jsonKey = cur() == '"' || cur() == '\'';
      size_t start = i_;
      uint32_t item = flowItem(multiLine, depth);
      if (isMap) {
        if (i_ - start > kMaxKeyLength || doc_.data(item).type == NodeType::Map || doc_.data(item).type == NodeType::Sequence)
          throw GiveUp{};
        while (cur() == ' ') ++i_;
        // After a quoted key the ':' may touch the value ("a":1); after a plain one it needs a space.
        if (cur() != ':' || (!jsonKey && at(i_ + 1) != ' ')) throw GiveUp{};
        ++i_;
        flowSpace(multiLine);
        if (cur() == ',' || cur() == close) throw GiveUp{}; // an empty value
        doc_.scratch().push_back(item);
        doc_.scratch().push_back(flowItem(multiLine, depth));
      } else {
        doc_.scratch().push_back(item);
      }
      flowSpace(multiLine);
      if (cur() == close) {
        ++i_;
        break;
      }
      if (cur() != ',') throw GiveUp{};
      ++i_;
      flowSpace(multiLine);
      if (cur() == close || cur() == ',') throw GiveUp{}; // a trailing comma
    }
    doc_.attach(n, from);
    return n;
  }

  uint32_t flowItem(bool multiLine, int depth) {
    char c = cur();
    if (c == '[' || c == '{') return flow(multiLine, depth + 1);
    if (c == '"' || c == '\'') return quoted();
    // A plain scalar ends at ',', ']', '}', " #", ": " or the line's end; '[', '{', '?' or a
    // ':' followed by anything else inside it are yaml-cpp's business.
    size_t k = i_;
    for (; !eol(k); ++k) {
      char d = t_[k];
      if (d == ',' || d == ']' || d == '}') break;
      if (d == '#' && t_[k - 1] == ' ') break;
      if (d == ':') {
        if (at(k + 1) == ' ') break;
        throw GiveUp{};
      }
      if (d == '[' || d == '{' || d == '?') throw GiveUp{};
    }
    uint32_t n = plain(k);
    // The scalar must not continue on the next line (it would be folded into it).
    size_t j = i_;
    while (at(j) == ' ') ++j;
    if (eol(j) || at(j) == '#') {
      size_t save = i_, saveStart = lineStart_;
      int saveLine = line_;
      flowSpace(multiLine);
      if (cur() != ',' && cur() != ']' && cur() != '}') throw GiveUp{};
      i_ = save, lineStart_ = saveStart, line_ = saveLine;
    }
    return n;
  }
};

// Characters the fast path never reads: control characters other than line breaks (tabs
// included: YAML forbids them in indentation), a '\r' not before '\n', a byte-order mark or
// UTF-16/32 text (yaml-cpp detects the encoding from the first bytes), and the Unicode line
// separators NEL, LS and PS.
bool readable(std::string_view t) {
  if (!t.empty() && static_cast<unsigned char>(t[0]) >= 0x80) return false;
  for (size_t k = 0; k < t.size(); ++k) {
    unsigned char c = static_cast<unsigned char>(t[k]);
    if (static_cast<unsigned char>(c - 0x20) < 0x60) continue; // printable ASCII: nearly every byte
    if (c < 0x20) {
      if (c == '\n') continue;
      if (c == '\r' && k + 1 < t.size() && t[k + 1] == '\n') continue;
      return false;
    }
    if (c == 0xC2 && k + 1 < t.size() && static_cast<unsigned char>(t[k + 1]) == 0x85) return false;
    if (c == 0xE2 && k + 2 < t.size() && static_cast<unsigned char>(t[k + 1]) == 0x80 &&
        (static_cast<unsigned char>(t[k + 2]) == 0xA8 || static_cast<unsigned char>(t[k + 2]) == 0xA9))
      return false;
    if (c == 0xEF && k + 2 < t.size() && static_cast<unsigned char>(t[k + 1]) == 0xBB && static_cast<unsigned char>(t[k + 2]) == 0xBF)
      return false;
  }
  return true;
}

// A text whose last line is only spaces ends block collections at that indentation before the
// end: yaml-cpp then marks an empty value at those spaces, which the fast path does not model.
// Likewise a last line that is a comment from its first column, without a newline after it:
// yaml-cpp marks an empty value there one column past where its position says it is, and
// after an indented comment at the end too ("  #": column 3, not 0); fuzz_yaml_fast found both.
// Such texts go to yaml-cpp, the reference.
bool endsWithBlankOrCommentLine(std::string_view t) {
  size_t lastBreak = t.rfind('\n');
  std::string_view last = lastBreak == std::string_view::npos ? t : t.substr(lastBreak + 1);
  if (last.empty()) return false;
  size_t content = last.find_first_not_of(' ');
  return content == std::string_view::npos || last[content] == '#';
}

} // namespace

bool parseFast(std::string_view text, Mode mode, Stream &out) {
  if (!readable(text) || endsWithBlankOrCommentLine(text)) return false;
  Document &doc = *out.arena;
  std::vector<uint32_t> roots;
  try {
    Parser(text, doc).stream(roots);
  } catch (const GiveUp &) {
    doc.clear();
    return false;
  }
  out.documents.clear();
  if (mode == Mode::First) {
    out.documents.push_back(roots.empty() ? Node() : doc.node(roots.front()));
    return true;
  }
  for (uint32_t r : roots) out.documents.push_back(doc.node(r));
  return true;
}

} // namespace retrylint::yaml
