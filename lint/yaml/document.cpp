#include "lint/yaml/document.h"
#include "lint/yaml/dump.h"

#include <algorithm>
#include <unordered_set>

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
  if (nodes_[node].type == NodeType::Map) resolveMap(from);
  Data &d = nodes_[node];
  d.first = static_cast<uint32_t>(kids_.size());
  size_t n = scratch_.size() - from;
  d.count = static_cast<uint32_t>(d.type == NodeType::Map ? n / 2 : n);
  kids_.insert(kids_.end(), scratch_.begin() + static_cast<std::ptrdiff_t>(from), scratch_.end());
  scratch_.resize(from);
}

// A merge key's value: a map, or a list of maps (anything else leaves `<<` an ordinary key).
bool Document::mergeable(uint32_t value) const {
  const Data &d = nodes_[value];
  if (d.type == NodeType::Map) return true;
  if (d.type != NodeType::Sequence) return false;
  for (uint32_t i = 0; i < d.count; ++i)
    if (nodes_[kids_[d.first + i]].type != NodeType::Map) return false;
  return true;
}

// The key/value pairs on scratch_[from..] become the entries runtimes read (see attach()).
// Children are complete nodes, so a merged map has had its own duplicates and merges resolved.
void Document::resolveMap(size_t from) {
  const auto n = static_cast<uint32_t>((scratch_.size() - from) / 2);
  auto key = [&](uint32_t i) -> const Data & { return nodes_[scratch_[from + 2 * i]]; };
  auto isMerge = [&](uint32_t i) {
    const Data &k = key(i);
    return k.type == NodeType::Scalar && k.text == "<<" && k.tag == "?" && mergeable(scratch_[from + 2 * i + 1]);
  };
  bool merges = false;
  for (uint32_t i = 0; i < n && !merges; ++i) merges = isMerge(i);
  if (n < 2 && !merges) return; // nearly every small map: nothing to do

  enum : uint8_t { Keep, Dropped, Merge };
  dropped_.assign(n, Keep);
  if (merges)
    for (uint32_t i = 0; i < n; ++i)
      if (isMerge(i)) dropped_[i] = Merge;
  bool any = false;
  auto drop = [&](uint32_t i, uint32_t kept) {
    dropped_[i] = Dropped;
    duplicates_.push_back(Duplicate{document_, scratch_[from + 2 * i], scratch_[from + 2 * i + 1], scratch_[from + 2 * kept],
                                    scratch_[from + 2 * kept + 1]});
    any = true;
  };
  auto comparable = [&](uint32_t i) { return dropped_[i] == Keep && key(i).type == NodeType::Scalar; };
  if (n <= 8) {
    // Small maps (nearly all): compare the keys in place, each with the last equal one after it.
    for (uint32_t i = 0; i + 1 < n; ++i) {
      if (!comparable(i)) continue;
      for (uint32_t j = n - 1; j > i; --j)
        if (comparable(j) && key(j).text == key(i).text) {
          drop(i, j);
          break;
        }
    }
  } else {
    keys_.clear();
    for (uint32_t i = 0; i < n; ++i)
      if (comparable(i)) keys_.emplace_back(key(i).text, i);
    std::sort(keys_.begin(), keys_.end()); // equal keys together, in the order written
    for (size_t a = 0; a < keys_.size();) {
      size_t b = a + 1;
      while (b < keys_.size() && keys_[b].first == keys_[a].first) ++b;
      for (size_t c = a; c + 1 < b; ++c) drop(keys_[c].second, keys_[b - 1].second);
      a = b;
    }
  }
  if (!any && !merges) return;

  // The entries kept, in the order written; a merge key's place takes the merged entries.
  std::unordered_set<std::string_view> taken; // scalar keys present so far (merges only)
  if (merges)
    for (uint32_t i = 0; i < n; ++i)
      if (comparable(i)) taken.insert(key(i).text);
  auto mergeFrom = [&](uint32_t map) {
    const Data &m = nodes_[map];
    for (uint32_t e = 0; e < m.count; ++e) {
      const uint32_t k = kids_[m.first + 2 * e];
      if (nodes_[k].type == NodeType::Scalar && !taken.insert(nodes_[k].text).second) continue;
      entries_.push_back(k);
      entries_.push_back(kids_[m.first + 2 * e + 1]);
    }
  };
  entries_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = scratch_[from + 2 * i + 1];
    if (dropped_[i] == Keep) {
      entries_.push_back(scratch_[from + 2 * i]);
      entries_.push_back(v);
    } else if (dropped_[i] == Merge) {
      const Data &d = nodes_[v];
      if (d.type == NodeType::Map) mergeFrom(v);
      else
        for (uint32_t t = 0; t < d.count; ++t) mergeFrom(kids_[d.first + t]);
    }
  }
  scratch_.resize(from);
  scratch_.insert(scratch_.end(), entries_.begin(), entries_.end());
}

std::string_view Document::own(std::string s) { return owned_.emplace_back(std::move(s)); }

void Document::clear() {
  nodes_.clear();
  kids_.clear();
  scratch_.clear();
  owned_.clear();
  scalars_.clear();
  duplicates_.clear();
  document_ = 0;
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
