// The engine's YAML/JSON document model: one arena per parsed text, nodes are indices into it.
// Node is a cheap handle (arena pointer + index) offering the part of yaml-cpp's YAML::Node API
// the extractors use, with the same semantics (kinds, Scalar(), Tag(), Mark(), Style(), key
// order), so code written against yaml-cpp reads the same. Maps differ from yaml-cpp's where
// yaml-cpp differs from the runtimes that read the files (Document::attach): a duplicated key
// keeps its last value, and merge keys (`<<: *base`) are merged.
// A Node is valid while the Document it points into lives (Stream keeps it alive).
#pragma once
#include <cstdint>
#include <cstddef>
#include <deque>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace retrylint::yaml {

// yaml-cpp's Mark: 0-based; a default Mark is 0/0/0, null_mark() is -1/-1/-1.
struct Mark {
  int pos = 0, line = 0, column = 0;
  static Mark null_mark() { return Mark{-1, -1, -1}; }
  bool is_null() const { return pos == -1 && line == -1 && column == -1; }
  bool operator==(const Mark &) const = default;
};

namespace NodeType {
enum value { Undefined, Null, Scalar, Sequence, Map };
}
namespace EmitterStyle {
enum value { Default, Block, Flow };
}

class Document;
class Node;
class NodeIterator;

class Node {
public:
  Node() = default; // a null node, as YAML::Node() is (no mark)

  NodeType::value Type() const;
  bool IsDefined() const { return Type() != NodeType::Undefined; }
  bool IsNull() const { return Type() == NodeType::Null; }
  bool IsScalar() const { return Type() == NodeType::Scalar; }
  bool IsSequence() const { return Type() == NodeType::Sequence; }
  bool IsMap() const { return Type() == NodeType::Map; }
  explicit operator bool() const { return IsDefined(); }

  // A scalar's text ("" for other kinds). Scalar() builds the std::string on first use only
  // (most scalars are never read); view() never allocates.
  const std::string &Scalar() const;
  std::string_view view() const;
  // "?" for plain scalars and collections, "!" for quoted scalars, "" for nulls, else the tag.
  std::string_view Tag() const;
  yaml::Mark Mark() const;
  EmitterStyle::value Style() const;

  // Entries of a map, items of a sequence, 0 for other kinds.
  size_t size() const;
  NodeIterator begin() const;
  NodeIterator end() const;
  // A sequence's item, or an undefined node.
  Node operator[](size_t index) const;
  // The value of the entry with this scalar key in a map (keys are unique: the last written
  // wins), or an undefined node (never inserts).
  Node operator[](std::string_view key) const;

  // The same node of the same document (yaml-cpp's is()).
  bool is(const Node &other) const { return doc_ == other.doc_ && index_ == other.index_; }

private:
  friend class Document;
  friend class NodeIterator;
  static constexpr uint32_t kUndefined = UINT32_MAX;
  Node(const Document *doc, uint32_t index) : doc_(doc), index_(index) {}
  static Node undefined() { return Node(nullptr, kUndefined); }
  const Document *doc_ = nullptr;
  uint32_t index_ = 0;
};

// What an iterator yields: a sequence item (the value itself) or a map entry (.first, .second),
// as yaml-cpp's iterator_value is.
struct IteratorValue : Node {
  Node first, second;
  IteratorValue() = default;
  IteratorValue(Node item, Node key, Node value) : Node(item), first(key), second(value) {}
};

class NodeIterator {
public:
  using value_type = IteratorValue;
  using difference_type = std::ptrdiff_t;
  using reference = const IteratorValue &;
  using pointer = const IteratorValue *;
  using iterator_category = std::forward_iterator_tag;

  NodeIterator() = default;
  const IteratorValue &operator*() const { return value_; }
  const IteratorValue *operator->() const { return &value_; }
  NodeIterator &operator++() {
    ++pos_;
    load();
    return *this;
  }
  NodeIterator operator++(int) {
    NodeIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const NodeIterator &o) const { return doc_ == o.doc_ && pos_ == o.pos_; }

private:
  friend class Node;
  NodeIterator(const Document *doc, uint32_t node, uint32_t pos);
  void load();
  const Document *doc_ = nullptr;
  uint32_t node_ = 0, pos_ = 0;
  IteratorValue value_;
};

// The arena: every node of every document parsed from one text.
class Document {
public:
  struct Data {
    NodeType::value type = NodeType::Null;
    EmitterStyle::value style = EmitterStyle::Default;
    yaml::Mark mark;
    std::string_view text; // a scalar's text: into the source, or into owned_
    std::string_view tag;
    uint32_t first = 0, count = 0; // children in kids_: items, or key/value pairs (2 per entry)
    mutable uint32_t materialised = UINT32_MAX; // index into scalars_ once Scalar() was called
  };

  Document() = default;
  Document(const Document &) = delete;
  Document &operator=(const Document &) = delete;

  // Building (the parsers): add a node, then attach children collected on the scratch stack.
  uint32_t add(const Data &d) {
    nodes_.push_back(d);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  Data &data(uint32_t i) { return nodes_[i]; }
  const Data &data(uint32_t i) const { return nodes_[i]; }
  std::vector<uint32_t> &scratch() { return scratch_; }
  // Moves scratch()[from..] into the node's children (a collection's items or key/value pairs).
  // A map's entries are first made what YAML 1.1 loaders (PyYAML, Go's yaml.v3) and JSON
  // readers read: of a key written twice only the last entry stays (the earlier ones are
  // recorded in duplicates()), and a plain `<<` key whose value is a map or a list of maps
  // gives way to those maps' entries (keys written in the map win, then earlier maps).
  void attach(uint32_t node, size_t from);
  // A key written again later in the same map: the entry dropped and the one kept.
  struct Duplicate {
    uint32_t document; // index among the text's documents (as set by setDocument)
    uint32_t key, value, laterKey, laterValue;
  };
  const std::vector<Duplicate> &duplicates() const { return duplicates_; }
  // The document the parser is reading, for the duplicates recorded from now on.
  void setDocument(uint32_t index) { document_ = index; }
  // Keeps a string (an unescaped scalar, a converted tag) for the document's lifetime.
  std::string_view own(std::string s);
  Node node(uint32_t i) const { return Node(this, i); }
  size_t nodeCount() const { return nodes_.size(); }
  // Calls f(child) for a collection's items, or for its keys and values in turn.
  template <class F> void forEachChild(uint32_t i, F f) const {
    const Data &d = nodes_[i];
    if (d.type != NodeType::Map && d.type != NodeType::Sequence) return;
    const uint32_t n = d.type == NodeType::Map ? 2 * d.count : d.count;
    for (uint32_t k = 0; k < n; ++k) f(kids_[d.first + k]);
  }
  void clear();

private:
  friend class Node;
  friend class NodeIterator;
  void resolveMap(size_t from);
  bool mergeable(uint32_t value) const;
  std::vector<Data> nodes_;
  std::vector<uint32_t> kids_;
  std::vector<uint32_t> scratch_;
  std::deque<std::string> owned_;              // stable addresses: deque never moves its elements
  mutable std::deque<std::string> scalars_;    // Scalar()'s strings, built on demand
  std::vector<Duplicate> duplicates_;
  uint32_t document_ = 0;
  // resolveMap's working space, kept to spare an allocation per map.
  std::vector<std::pair<std::string_view, uint32_t>> keys_;
  std::vector<uint8_t> dropped_;
  std::vector<uint32_t> entries_;
};

// The documents of one text (YAML's `---` separated documents; one for JSON).
struct Stream {
  std::unique_ptr<Document> arena = std::make_unique<Document>();
  std::vector<Node> documents;
};

// A readable dump of a tree (kind, tag, style, mark, text, children), for tests and fuzzers
// comparing two parses: equal dumps mean equal trees for everything the extractors can see.
std::string dump(const Node &n);
std::string dump(const Stream &s);

} // namespace retrylint::yaml
