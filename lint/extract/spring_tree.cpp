#include "lint/extract/spring_tree.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <llvm/ADT/StringExtras.h>

#include "lint/extract/properties.h"

namespace retrylint {
namespace {

struct Step {
  bool index = false;
  std::string name; // map key (as written)
  size_t idx = 0;
  size_t end = 0;   // offset in the key just past this step
};

// "a.b[0].c" -> a, b, [0], c; "instances[my.name]" -> instances, my.name.
std::vector<Step> splitKey(std::string_view key) {
  std::vector<Step> out;
  std::string cur;
  auto flush = [&](size_t end) {
    if (!cur.empty()) out.push_back(Step{false, cur, 0, end});
    cur.clear();
  };
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    if (c == '.') {
      flush(i);
    } else if (c == '[') {
      flush(i);
      size_t close = key.find(']', i);
      if (close == std::string_view::npos) {
        cur = std::string(key.substr(i));
        break;
      }
      std::string inner(key.substr(i + 1, close - i - 1));
      bool digits = !inner.empty() && inner.size() < 7 &&
                    std::all_of(inner.begin(), inner.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
      if (digits) out.push_back(Step{true, "", static_cast<size_t>(std::stoul(inner)), close + 1});
      else out.push_back(Step{false, inner, 0, close + 1});
      i = close;
    } else {
      cur += c;
    }
  }
  flush(key.size());
  return out;
}

SpringNode *findChild(SpringNode &n, std::string_view name) { return const_cast<SpringNode *>(child(n, name)); }

// Adds an entry to a map node, indexed by its relaxed name.
SpringNode &addChild(SpringNode &map, SpringNode child) {
  map.byName.emplace(relaxedName(child.key), map.children.size());
  map.children.push_back(std::move(child));
  return map.children.back();
}

// The node reached by one step from `parent`, created (as Null) when missing.
SpringNode &stepInto(SpringNode &parent, const Step &s, bool *created) {
  *created = false;
  if (s.index) {
    if (parent.kind != SpringNode::Kind::List) {
      parent.kind = SpringNode::Kind::List;
      parent.children.clear();
      parent.byName.clear();
    }
    constexpr size_t kMaxIndex = 10000; // a list index beyond this is not a real config
    size_t idx = std::min(s.idx, kMaxIndex);
    if (parent.children.size() <= idx) {
      *created = true;
      parent.children.resize(idx + 1);
    }
    return parent.children[idx];
  }
  if (parent.kind != SpringNode::Kind::Map) {
    parent.kind = SpringNode::Kind::Map;
    parent.children.clear();
    parent.byName.clear();
  }
  if (SpringNode *c = findChild(parent, s.name)) return *c;
  *created = true;
  SpringNode fresh;
  fresh.key = s.name;
  return addChild(parent, std::move(fresh));
}

void merge(SpringNode &into, SpringNode from) {
  if (into.kind == SpringNode::Kind::Map && from.kind == SpringNode::Kind::Map) {
    for (auto &c : from.children) {
      if (SpringNode *mine = findChild(into, c.key)) merge(*mine, std::move(c));
      else addChild(into, std::move(c));
    }
    return;
  }
  std::string key = into.key;
  Span keyWhere = into.keyWhere;
  into = std::move(from);
  into.key = key;
  if (keyWhere.known() && !into.keyWhere.known()) into.keyWhere = keyWhere;
}

// The parts of a document the Spring dialects read (relaxed dotted paths). The rest of an
// application.yml (datasources, logging, management, ...) is never looked at: not converted.
constexpr std::string_view kSpringRoots[] = {"resilience4j", "spring.cloud.gateway"};

enum class Keep { No, Partly, All };
// Whether the entry at relaxed dotted `path` is read: inside a root (All), on the way to one
// (Partly), or neither.
Keep keep(std::string_view path) {
  Keep k = Keep::No;
  for (std::string_view root : kSpringRoots) {
    if (path.size() >= root.size() && path.compare(0, root.size(), root) == 0 &&
        (path.size() == root.size() || path[root.size()] == '.'))
      return Keep::All;
    if (root.size() > path.size() && root.compare(0, path.size(), path) == 0 && root[path.size()] == '.') k = Keep::Partly;
  }
  return k;
}

// `within`: the relaxed dotted path of `v` while it lies on the way to a root; nullptr once
// inside one (everything below is converted).
SpringNode convert(const yaml::Node &v, const ExtractContext &cx, const std::string *within) {
  SpringNode n;
  n.where = cx.span(v);
  if (v.IsScalar()) {
    n.kind = SpringNode::Kind::Scalar;
    n.scalar = v.Scalar();
    n.quoted = isQuoted(v);
    if (!v.Mark().is_null()) {
      n.line0 = v.Mark().line;
      n.col0 = v.Mark().column;
      n.singleLine = n.scalar.find('\n') == std::string::npos;
    }
  } else if (v.IsSequence()) {
    n.kind = SpringNode::Kind::List;
    if (within) return n; // no root lies below a list
    for (const auto &item : v) n.children.push_back(convert(item, cx, nullptr));
  } else if (v.IsMap()) {
    n.kind = SpringNode::Kind::Map;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      const std::string key = it->first.Scalar();
      auto steps = splitKey(key);
      if (steps.empty()) continue;
      std::string path;
      Keep k = Keep::All;
      if (within) {
        path = *within;
        for (const Step &s : steps) {
          if (s.index) {
            k = Keep::No;
            break;
          }
          if (!path.empty()) path += '.';
          path += relaxedName(s.name);
          k = keep(path);
          if (k != Keep::Partly) break;
        }
        if (k == Keep::No) continue;
      }
      SpringNode *cur = &n;
      Span keyWhere = cx.span(it->first);
      for (size_t i = 0; i + 1 < steps.size(); ++i) {
        bool created;
        cur = &stepInto(*cur, steps[i], &created);
        if (created) cur->keyWhere = keyWhere;
      }
      SpringNode value = convert(it->second, cx, k == Keep::All ? nullptr : &path);
      value.keyWhere = keyWhere;
      value.key = steps.back().name;
      // A block map under its own key can take a new entry on the line after the key.
      const yaml::Mark km = it->first.Mark(), vm = it->second.Mark();
      if (it->second.IsMap() && !km.is_null() && !vm.is_null() && vm.line > km.line && it->second.size() > 0) {
        value.insertAfterLine0 = km.line;
        value.childIndent = cx.src.indentOf(vm.line);
      }
      bool created;
      SpringNode &slot = stepInto(*cur, steps.back(), &created);
      if (created) slot = std::move(value);
      else merge(slot, std::move(value));
    }
  }
  return n;
}

std::string trim(std::string_view s) { return llvm::StringRef(s).trim().str(); }

std::string shown(const SpringNode &n) {
  if (n.isMap()) return "a map";
  if (n.isList()) return "a list";
  if (n.isNull()) return "empty";
  return "'" + n.scalar + "'";
}

} // namespace

std::string relaxedName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name)
    if (c != '-' && c != '_') out += llvm::toLower(c);
  return out;
}

const SpringNode *child(const SpringNode &n, std::string_view name) {
  if (!n.isMap()) return nullptr;
  auto it = n.byName.find(relaxedName(name));
  return it == n.byName.end() ? nullptr : &n.children[it->second];
}

const SpringNode *at(const SpringNode &root, std::string_view dottedPath) {
  const SpringNode *cur = &root;
  for (const Step &s : splitKey(dottedPath)) {
    if (!cur) return nullptr;
    cur = child(*cur, s.name);
  }
  return cur;
}

SpringNode springTreeFromYaml(const yaml::Node &doc, const ExtractContext &cx) {
  const std::string top;
  return convert(doc, cx, &top);
}

SpringNode springTreeFromProperties(const SourceFile &src) {
  SpringNode root;
  root.kind = SpringNode::Kind::Map;
  root.properties = true;
  for (const PropertyEntry &e : readProperties(src)) {
    auto steps = splitKey(e.key);
    if (steps.empty()) continue;
    SpringNode *cur = &root;
    for (size_t i = 0; i < steps.size(); ++i) {
      bool created;
      SpringNode *next = &stepInto(*cur, steps[i], &created);
      if (created || !next->keyWhere.known()) {
        next->keyWhere = e.keyWhere;
        next->where = e.keyWhere;
      }
      next->properties = true;
      next->path = e.key.substr(0, steps[i].end);
      next->insertAfterLine0 = std::max(next->insertAfterLine0, e.lastLine0);
      cur = next;
    }
    cur->kind = SpringNode::Kind::Scalar;
    cur->children.clear();
    cur->byName.clear();
    cur->scalar = e.value;
    cur->where = e.valueWhere;
    cur->keyWhere = e.keyWhere;
    cur->line0 = e.line0;
    cur->col0 = e.valueCol0;
    cur->singleLine = e.singleLine && !e.escaped;
  }
  return root;
}

bool yamlHasPath(const yaml::Node &doc, std::string_view dottedPath) {
  std::vector<std::string> want;
  for (const Step &s : splitKey(dottedPath)) want.push_back(relaxedName(s.name));
  // Breadth-limited walk: match key segments against the remaining path.
  struct Item { yaml::Node node; size_t matched; };
  std::vector<Item> stack{{doc, 0}};
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    if (!item.node.IsMap()) continue;
    for (auto it = item.node.begin(); it != item.node.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      size_t m = item.matched;
      bool ok = true;
      for (const Step &s : splitKey(it->first.Scalar())) {
        if (m == want.size()) break;
        if (s.index || relaxedName(s.name) != want[m]) { ok = false; break; }
        ++m;
      }
      if (!ok) continue;
      if (m == want.size()) return true;
      stack.push_back({it->second, m});
    }
  }
  return false;
}

std::vector<SpringItem> listItems(const ExtractContext &cx, const SpringNode &n, std::string_view what) {
  std::vector<SpringItem> out;
  if (n.isMap()) throw TypeError(n.where, std::string(what) + " must be a list, not a map");
  if (n.isList()) {
    for (const auto &item : n.children) {
      if (item.kind == SpringNode::Kind::Null) continue;
      if (!item.isScalar()) throw TypeError(item.where, std::string(what) + " entries must be names, not " + shown(item));
      for (auto sub : listItems(cx, item, what)) out.push_back(sub);
    }
    return out;
  }
  if (!n.isScalar()) return out;
  // Spring converts a comma-separated string to a list.
  for (const ListEntry &entry : commaList(n.scalar, " \t\n\v\f\r")) {
    if (entry.text.empty()) continue;
    Span where = n.where;
    if (n.singleLine && n.line0 >= 0) where = cx.src.tokenSpan(n.line0, n.col0, entry.offset + entry.lead, entry.text.size());
    out.push_back(SpringItem{entry.text, where, &n});
  }
  return out;
}

std::string springString(const SpringNode &n, std::string_view what) {
  if (!n.isScalar()) throw TypeError(n.where, std::string(what) + " must be a string, not " + shown(n));
  return n.scalar;
}

long long springInt(const SpringNode &n, std::string_view what) {
  auto bad = [&] { return TypeError(n.where, std::string(what) + " must be an integer, not " + shown(n)); };
  if (!n.isScalar()) throw bad();
  std::string s = trim(n.scalar);
  if (s.empty()) throw bad();
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (!end || *end != '\0' || errno != 0) throw bad();
  return v;
}

double springNumber(const SpringNode &n, std::string_view what) {
  auto bad = [&] { return TypeError(n.where, std::string(what) + " must be a number, not " + shown(n)); };
  if (!n.isScalar()) throw bad();
  std::string s = trim(n.scalar);
  errno = 0;
  char *end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || errno != 0 || !std::isfinite(d)) throw bad();
  return d;
}

bool springBool(const SpringNode &n, std::string_view what) {
  // Spring's StringToBooleanConverter: true/on/yes/1 and false/off/no/0, any case.
  if (n.isScalar()) {
    std::string s = relaxedName(trim(n.scalar));
    if (s == "true" || s == "on" || s == "yes" || s == "1") return true;
    if (s == "false" || s == "off" || s == "no" || s == "0") return false;
  }
  throw TypeError(n.where, std::string(what) + " must be true or false, not " + shown(n));
}

std::optional<TextEdit> addEntry(const SourceFile &src, const SpringNode &n, std::string_view name, std::string_view value) {
  if (n.insertAfterLine0 < 0) return std::nullopt;
  if (n.properties) {
    if (n.path.empty()) return std::nullopt;
    return src.insertLineAfter(n.insertAfterLine0, n.path + "." + std::string(name) + "=" + std::string(value));
  }
  return src.insertLineAfter(n.insertAfterLine0, n.childIndent + std::string(name) + ": " + std::string(value));
}

} // namespace retrylint

namespace retrylint {

void extractSpringTree(const SpringNode &root, ExtractContext &cx) {
  auto note = [&](std::string_view format) {
    if (std::find(cx.model.formats.begin(), cx.model.formats.end(), format) == cx.model.formats.end())
      cx.model.formats.emplace_back(format);
  };
  if (hasResilience4jRetry(root)) {
    note("resilience4j");
    try {
      resilience4jFromTree(root, cx);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
  if (hasGatewayRetry(root)) {
    note("spring-cloud-gateway");
    try {
      springGatewayFromTree(root, cx);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

bool recogniseSpringProperties(const SourceFile &src) {
  // The syntax is told by the extension (as .json is); the dialect by content.
  const std::string &p = src.path();
  if (p.size() < 11 || relaxedName(p.substr(p.size() - 11)) != ".properties") return false;
  const std::string &t = src.text();
  return t.find("resilience4j.retry.") != std::string::npos ||
         (t.find("spring.cloud.gateway.") != std::string::npos && t.find("Retry") != std::string::npos);
}

void extractSpringProperties(const SourceFile &src, ExtractContext &cx) {
  extractSpringTree(springTreeFromProperties(src), cx);
}

} // namespace retrylint
