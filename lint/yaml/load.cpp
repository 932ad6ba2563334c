#include "lint/yaml/load.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

namespace retrylint::yaml {

namespace {

// Builds the arena tree from yaml-cpp's parser events, as yaml-cpp's NodeBuilder builds its
// nodes: the same marks, tags ("" for nulls), styles (collections only), and an alias is the
// anchored node itself (shared, so an alias bomb costs no memory). Maps are resolved as the
// fast parser's are (Document::attach: duplicate keys, merge keys); aliases are held to
// AliasError's rules.
struct Builder : YAML::EventHandler {
  Document &doc;
  const int maxNesting;
  Builder(Document &d, int maxNesting) : doc(d), maxNesting(maxNesting) {}

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

Stream parseWithYamlCpp(std::string_view text, Mode mode, int maxNesting) {
  Stream s;
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  Builder b(*s.arena, maxNesting);
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
