#include "lint/yaml/document.h"
#include "lint/yaml/dump.h"

namespace retrylint::yaml {

NodeType::value Node::Type() const {
  if (!doc_) return index_ == kUndefined ? NodeType::Undefined : NodeType::Null;
  return doc_->nodes_[index_].type;
}

const std::string &Node::Scalar() const {
  static const std::string empty;
  if (!doc_ || doc_->nodes_[index_].type != NodeType::Scalar) return empty;
  const Document::Data &d = doc_->nodes_[index_];
  if (d.materialised == UINT32_MAX) {
    doc_->scalars_.emplace_back(d.text);
    d.materialised = static_cast<uint32_t>(doc_->scalars_.size() - 1);
  }
  return doc_->scalars_[d.materialised];
}

std::string_view Node::view() const {
  if (!doc_ || doc_->nodes_[index_].type != NodeType::Scalar) return {};
  return doc_->nodes_[index_].text;
}

std::string_view Node::Tag() const { return doc_ ? doc_->nodes_[index_].tag : std::string_view(); }

Mark Node::Mark() const { return doc_ ? doc_->nodes_[index_].mark : Mark::null_mark(); }

EmitterStyle::value Node::Style() const { return doc_ ? doc_->nodes_[index_].style : EmitterStyle::Default; }

size_t Node::size() const {
  if (!doc_) return 0;
  const Document::Data &d = doc_->nodes_[index_];
  return d.type == NodeType::Map || d.type == NodeType::Sequence ? d.count : 0;
}

NodeIterator Node::begin() const {
  if (!doc_ || size() == 0) return NodeIterator();
  return NodeIterator(doc_, index_, 0);
}

NodeIterator Node::end() const {
  if (!doc_ || size() == 0) return NodeIterator();
  return NodeIterator(doc_, index_, static_cast<uint32_t>(size()));
}

Node Node::operator[](size_t index) const {
  if (!IsSequence() || index >= size()) return undefined();
  return Node(doc_, doc_->kids_[doc_->nodes_[index_].first + index]);
}

Node Node::operator[](std::string_view key) const {
  if (!IsMap()) return undefined();
  const Document::Data &d = doc_->nodes_[index_];
  for (uint32_t i = 0; i < d.count; ++i) {
    const Document::Data &k = doc_->nodes_[doc_->kids_[d.first + 2 * i]];
    if (k.type == NodeType::Scalar && k.text == key) return Node(doc_, doc_->kids_[d.first + 2 * i + 1]);
  }
  return undefined();
}

NodeIterator::NodeIterator(const Document *doc, uint32_t node, uint32_t pos) : doc_(doc), node_(node), pos_(pos) {
  load();
}

void NodeIterator::load() {
  const Document::Data &d = doc_->nodes_[node_];
  if (pos_ >= d.count) {
    // The end: compares equal to Node::end(), and to the empty iterator when there are no children.
    value_ = IteratorValue();
    return;
  }
  if (d.type == NodeType::Map) {
    Node k(doc_, doc_->kids_[d.first + 2 * pos_]), v(doc_, doc_->kids_[d.first + 2 * pos_ + 1]);
    // yaml-cpp's map entry is itself no node: an undefined one.
    value_ = IteratorValue(Node::undefined(), k, v);
  } else {
    value_ = IteratorValue(Node(doc_, doc_->kids_[d.first + pos_]), Node::undefined(), Node::undefined());
  }
}

void Document::attach(uint32_t node, size_t from) {
  Data &d = nodes_[node];
  d.first = static_cast<uint32_t>(kids_.size());
  size_t n = scratch_.size() - from;
  d.count = static_cast<uint32_t>(d.type == NodeType::Map ? n / 2 : n);
  kids_.insert(kids_.end(), scratch_.begin() + static_cast<std::ptrdiff_t>(from), scratch_.end());
  scratch_.resize(from);
}

std::string_view Document::own(std::string s) { return owned_.emplace_back(std::move(s)); }

void Document::clear() {
  nodes_.clear();
  kids_.clear();
  scratch_.clear();
  owned_.clear();
  scalars_.clear();
}

std::string dump(const Node &n) {
  std::string out;
  dumpTree(n, 0, out);
  return out;
}

std::string dump(const Stream &s) {
  std::string out = std::to_string(s.documents.size()) + " documents\n";
  for (const Node &d : s.documents) out += "---\n" + dump(d);
  return out;
}

} // namespace retrylint::yaml
