#include "lint/yaml/load.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <llvm/ADT/StringExtras.h>

namespace retrylint::yaml {

namespace {

// Builds the arena tree from yaml-cpp's parser events, as yaml-cpp's NodeBuilder builds its
// nodes: the same marks, tags ("" for nulls), styles (collections only), and an alias is the
// anchored node itself (shared, so an alias bomb costs no memory). Maps are resolved as the
// fast parser's are (Document::attach: duplicate keys, merge keys); aliases are held to
// AliasError's rules.
// A block scalar header that starts its line after a tag: `  !Sub |` or `- !Sub >-  # c`.
// yaml-cpp 0.7 takes the tag for a possible key and measures the block scalar from the tag's
// column, so content at the tag's indentation (valid YAML: it only has to be deeper than the
// parent node; PyYAML and CloudFormation read it) is "end of map not found". Such texts are read
// again with these tags blanked (same length: every other position stays), and the builder puts
// each tag, and the tag's mark, back on the scalar that starts at the indicator.
struct TaggedHeader {
  size_t indicator; // offset of the '|' or '>'
  size_t tagPos;    // offset of the '!'
  int line, tagColumn;
  std::string tag;
  bool hit = false;
};

std::vector<TaggedHeader> findTaggedHeaders(std::string_view text) {
  std::vector<TaggedHeader> out;
  // A %TAG directive would give `!` another meaning than its text.
  if (text.find("%TAG") != std::string_view::npos) return out;
  int line = 0;
  bool afterKey = false; // the last line that was not blank or a comment ended with `key:`
  for (size_t b = 0; b < text.size(); ++line) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    size_t end = e > b && text[e - 1] == '\r' ? e - 1 : e;
    size_t i = b;
    auto spaces = [&] {
      size_t from = i;
      while (i < end && text[i] == ' ') ++i;
      return i - from;
    };
    spaces();
    const bool valueOfKey = afterKey;
    if (i < end && text[i] != '#') {
      size_t last = end;
      while (last > i && text[last - 1] == ' ') --last;
      afterKey = text[last - 1] == ':';
    }
    bool entry = false;
    while (i + 1 < end && text[i] == '-' && text[i + 1] == ' ') ++i, spaces(), entry = true;
    const size_t tagPos = i;
    // Only the value of a `key:` line or a sequence entry: not a line of a block scalar's text.
    if ((valueOfKey || entry) && i < end && text[i] == '!') {
      ++i;
      while (i < end && (llvm::isAlnum(text[i]) || std::string_view("_.:/-").find(text[i]) != std::string_view::npos)) ++i;
      const size_t tagEnd = i;
      if (spaces() > 0 && i < end && (text[i] == '|' || text[i] == '>')) {
        const size_t indicator = i++;
        for (int k = 0; k < 2 && i < end && (text[i] == '+' || text[i] == '-' || (text[i] >= '1' && text[i] <= '9')); ++k) ++i;
        const bool spaced = spaces() > 0;
        if (i == end || (spaced && text[i] == '#'))
          out.push_back(TaggedHeader{indicator, tagPos, line, static_cast<int>(tagPos - b),
                                     std::string(text.substr(tagPos, tagEnd - tagPos)), false});
      }
    }
    b = e + 1;
  }
  return out;
}

struct Builder : YAML::EventHandler {
  Document &doc;
  const int maxNesting;
  std::vector<TaggedHeader> *headers; // sorted by offset; null when the text is read as written
  Builder(Document &d, int maxNesting, std::vector<TaggedHeader> *headers = nullptr)
      : doc(d), maxNesting(maxNesting), headers(headers) {}

  // By node: its size with every alias in it expanded (saturating); 0 while a collection is
  // still open, so an alias to it is a cycle.
  std::vector<uint64_t> expanded;
  // By node: the collections nested in it, itself included, aliases expanded (0 for scalars).
  std::vector<uint32_t> height;
  static constexpr uint64_t kSaturated = UINT64_MAX / 2;
  static uint64_t add(uint64_t a, uint64_t b) { return std::min(a + b, kSaturated); }
  uint64_t written = 0, aliased = 0; // nodes in the text; nodes its aliases add when expanded
  std::map<YAML::anchor_t, std::string> names;
  std::string anchorName; // OnAnchor's, for the node event that follows

  struct Open {
    uint32_t node;
    size_t from; // its first child on doc.scratch()
  };
  std::vector<Open> open;
  std::map<YAML::anchor_t, uint32_t> anchors;
  std::vector<uint32_t> roots;

  // yaml-cpp 0.7's LoadAll never returns when a ',' follows a document's content ("[a], b",
  // "{e},{e}", "\"a\","): the parser yields empty documents at the same position forever,
  // growing memory. Stop there with a parse error at the ','.
  size_t lastStart = SIZE_MAX;
  void OnDocumentStart(const YAML::Mark &m) override {
    if (m.pos >= 0 && static_cast<size_t>(m.pos) == lastStart)
      throw YAML::ParserException(m, "unexpected ',' after the end of the document's content");
    lastStart = static_cast<size_t>(m.pos);
    doc.setDocument(static_cast<uint32_t>(roots.size()));
  }
  void OnAnchor(const YAML::Mark &, const std::string &name) override { anchorName = name; }
  void OnDocumentEnd() override {}

  uint32_t push(const YAML::Mark &m, NodeType::value type, std::string_view tag, YAML::anchor_t anchor) {
    Document::Data d;
    d.type = type;
    d.mark = Mark{m.pos, m.line, m.column};
    d.tag = tag == "?" ? std::string_view("?") : tag == "!" ? std::string_view("!") : tag.empty() ? std::string_view() : doc.own(std::string(tag));
    uint32_t i = doc.add(d);
    expanded.resize(i + 1);
    expanded[i] = type == NodeType::Map || type == NodeType::Sequence ? 0 : 1;
    height.resize(i + 1);
    ++written;
    if (anchor != YAML::NullAnchor) {
      anchors[anchor] = i;
      names[anchor] = std::move(anchorName);
    }
    anchorName.clear();
    return i;
  }
  void attach(uint32_t i) {
    if (open.empty()) roots.push_back(i);
    else doc.scratch().push_back(i);
  }
  void OnNull(const YAML::Mark &m, YAML::anchor_t anchor) override { attach(push(m, NodeType::Null, {}, anchor)); }
  void OnAlias(const YAML::Mark &m, YAML::anchor_t anchor) override {
    auto it = anchors.find(anchor);
    // yaml-cpp's parser rejects unknown aliases before this; stay total anyway.
    if (it == anchors.end()) throw YAML::ParserException(YAML::Mark::null_mark(), "unknown alias");
    const uint32_t target = it->second;
    if (expanded[target] == 0)
      throw AliasError(m, "YAML alias *" + names[anchor] + " is inside the node it refers to (a cycle); not analysed");
    aliased = add(aliased, expanded[target]);
    const uint64_t budget = std::min(std::max(kMinAliasBudget, kAliasBudgetFactor * written), written + kMaxAliasNodes);
    if (add(written, aliased) > budget)
      throw AliasError(m, "YAML aliases expand to more than " + std::to_string(budget) + " nodes (the limit for " +
                              std::to_string(written) + " nodes written: " + std::to_string(kAliasBudgetFactor) +
                              " times as many, at least " + std::to_string(kMinAliasBudget) + ", at most " +
                              std::to_string(kMaxAliasNodes) + " more); not analysed");
    if (const size_t depth = open.size() + height[target]; depth > static_cast<size_t>(maxNesting))
      throw AliasError(m, "YAML alias *" + names[anchor] + " nests the tree " + std::to_string(depth) +
                              " levels deep, more than the limit of " + std::to_string(maxNesting) +
                              " (--max-nesting); not analysed");
    attach(target);
  }
  void OnScalar(const YAML::Mark &m, const std::string &tag, YAML::anchor_t anchor, const std::string &value) override {
    if (headers && m.pos >= 0) {
      auto h = std::lower_bound(headers->begin(), headers->end(), static_cast<size_t>(m.pos),
                                [](const TaggedHeader &t, size_t pos) { return t.indicator < pos; });
      if (h != headers->end() && h->indicator == static_cast<size_t>(m.pos) && tag == "!") {
        h->hit = true;
        YAML::Mark at;
        at.pos = static_cast<int>(h->tagPos);
        at.line = h->line;
        at.column = h->tagColumn;
        uint32_t i = push(at, NodeType::Scalar, h->tag, anchor);
        doc.data(i).text = doc.own(value);
        attach(i);
        return;
      }
    }
    uint32_t i = push(m, NodeType::Scalar, tag, anchor);
    doc.data(i).text = doc.own(value);
    attach(i);
  }
  void start(const YAML::Mark &m, NodeType::value type, const std::string &tag, YAML::anchor_t anchor,
             YAML::EmitterStyle::value style) {
    uint32_t i = push(m, type, tag, anchor);
    doc.data(i).style = style == YAML::EmitterStyle::Flow ? EmitterStyle::Flow
                        : style == YAML::EmitterStyle::Block ? EmitterStyle::Block
                                                             : EmitterStyle::Default;
    open.push_back(Open{i, doc.scratch().size()});
  }
  void end() {
    Open o = open.back();
    open.pop_back();
    doc.attach(o.node, o.from);
    uint64_t size = 1;
    uint32_t below = 0;
    doc.forEachChild(o.node, [&](uint32_t c) {
      size = add(size, expanded[c]);
      below = std::max(below, height[c]);
    });
    expanded[o.node] = size;
    height[o.node] = below + 1;
    attach(o.node);
  }
  void OnSequenceStart(const YAML::Mark &m, const std::string &tag, YAML::anchor_t anchor, YAML::EmitterStyle::value style) override {
    start(m, NodeType::Sequence, tag, anchor, style);
  }
  void OnSequenceEnd() override { end(); }
  void OnMapStart(const YAML::Mark &m, const std::string &tag, YAML::anchor_t anchor, YAML::EmitterStyle::value style) override {
    start(m, NodeType::Map, tag, anchor, style);
  }
  void OnMapEnd() override { end(); }
};

} // namespace

namespace {

Stream parseAsWritten(std::string_view text, Mode mode, int maxNesting, std::vector<TaggedHeader> *headers) {
  Stream s;
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  Builder b(*s.arena, maxNesting, headers);
  if (mode == Mode::First) {
    parser.HandleNextDocument(b);
    // YAML::Load of a text without a document is a null node without a mark.
    s.documents.push_back(b.roots.empty() ? Node() : s.arena->node(b.roots.front()));
    return s;
  }
  while (parser.HandleNextDocument(b)) {}
  for (uint32_t r : b.roots) s.documents.push_back(s.arena->node(r));
  return s;
}

// The text with the tags of `headers` blanked, read with them put back; nullopt when it is not
// YAML either, or when a blanked line was not a header (it sat in another scalar, whose value
// the blanking changed, or a later document Mode::First does not read): then once more with only
// the headers that were.
std::optional<Stream> parseWithTaggedHeaders(std::string_view text, Mode mode, int maxNesting,
                                             std::vector<TaggedHeader> headers) {
  for (int round = 0; round < 2 && !headers.empty(); ++round) {
    std::string blanked(text);
    for (const TaggedHeader &h : headers) std::fill_n(blanked.begin() + static_cast<long>(h.tagPos), h.tag.size(), ' ');
    Stream s;
    try {
      s = parseAsWritten(blanked, mode, maxNesting, &headers);
    } catch (const AliasError &) {
      throw;
    } catch (const YAML::Exception &) {
      return std::nullopt;
    }
    if (std::all_of(headers.begin(), headers.end(), [](const TaggedHeader &h) { return h.hit; })) return s;
    headers.erase(std::remove_if(headers.begin(), headers.end(), [](const TaggedHeader &h) { return !h.hit; }), headers.end());
    for (TaggedHeader &h : headers) h.hit = false;
  }
  return std::nullopt;
}

} // namespace

Stream parseWithYamlCpp(std::string_view text, Mode mode, int maxNesting) {
  try {
    return parseAsWritten(text, mode, maxNesting, nullptr);
  } catch (const AliasError &) {
    throw;
  } catch (const YAML::Exception &) {
    // Valid YAML yaml-cpp rejects: a tag before a block scalar (see TaggedHeader).
    std::vector<TaggedHeader> headers = findTaggedHeaders(text);
    if (headers.empty()) throw;
    if (auto s = parseWithTaggedHeaders(text, mode, maxNesting, std::move(headers))) return std::move(*s);
    throw;
  }
}

Stream loadAll(std::string_view text) {
  Stream s;
  if (parseFast(text, Mode::All, s)) return s;
  return parseWithYamlCpp(text, Mode::All);
}

Stream loadFirst(std::string_view text) {
  Stream s;
  if (parseFast(text, Mode::First, s)) return s;
  return parseWithYamlCpp(text, Mode::First);
}

} // namespace retrylint::yaml
