// dump() of lint/yaml/document.h for any node type with yaml-cpp's API: the arena tree's
// yaml::Node and yaml-cpp's own YAML::Node print alike, so tests can compare the two.
#pragma once
#include <string>

namespace retrylint::yaml {

// One line per node: kind, mark, tag, style (collections), text (scalars, control characters,
// '\' and '"' as \xNN); map entries as key then value, indented.
template <class AnyNode> void dumpTree(const AnyNode &n, int depth, std::string &out) {
  out.append(static_cast<size_t>(depth) * 2, ' ');
  // Both libraries number their kinds and styles alike: Undefined, Null, Scalar, Sequence, Map;
  // Default, Block, Flow.
  static const char *const kinds[] = {"undefined", "null", "scalar", "seq", "map"};
  static const char *const styles[] = {" default", " block", " flow"};
  out += kinds[static_cast<int>(n.Type())];
  const auto m = n.Mark();
  out += " @" + std::to_string(m.pos) + ":" + std::to_string(m.line) + ":" + std::to_string(m.column);
  out += " tag=";
  out += n.Tag();
  if (n.IsMap() || n.IsSequence()) out += styles[static_cast<int>(n.Style())];
  if (n.IsScalar()) {
    out += " \"";
    for (char c : n.Scalar()) {
      if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == '"') {
        static const char hex[] = "0123456789abcdef";
        out += "\\x";
        out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
        out += hex[static_cast<unsigned char>(c) & 15];
      } else {
        out += c;
      }
    }
    out += '"';
  }
  out += '\n';
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (n.IsMap()) {
      dumpTree(it->first, depth + 1, out);
      dumpTree(it->second, depth + 2, out);
    } else {
      dumpTree(static_cast<const AnyNode &>(*it), depth + 1, out);
    }
  }
}

} // namespace retrylint::yaml
