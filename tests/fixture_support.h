// Reading a fixture's expectations: `# expect: RL401` / `# ok: RL101` next to the line in
// YAML, INI and .properties (`; expect:` in INI too), `// expect:` in C++, a sidecar NAME.json.expect (`LINE RULE`, `LINE !RULE`) for JSON, which has no comments,
// and for any other file that has a NAME.expect sidecar (.properties, whose comments fill a line).
// `error` in place of a rule code expects an analysis error (exit code 2) at that line.
#pragma once
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace retrylint::testing {

struct Expectations {
  std::multiset<std::pair<int, std::string>> expected; // (line, rule or "error")
  std::set<std::pair<int, std::string>> forbidden;     // (line, rule): `# ok:` lines
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void addCodes(const std::string &list, int line, bool ok, Expectations &e) {
  std::istringstream words(list);
  std::string w;
  while (words >> w) {
    while (!w.empty() && (w.back() == ',' || w.back() == '.')) w.pop_back();
    if (w.empty()) continue;
    if (w != "error" && (w.size() != 5 || w.rfind("RL", 0) != 0)) break; // the rest is prose
    if (ok) e.forbidden.insert({line, w});
    else e.expected.insert({line, w});
  }
}

inline Expectations parseExpectations(const std::string &path, const std::string &text) {
  Expectations e;
  // JSON has no comments, and a .properties comment must fill its line: both may use a sidecar.
  bool json = path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (json || std::ifstream(path + ".expect").good()) {
    std::istringstream in(readFile(path + ".expect"));
    std::string lineText;
    while (std::getline(in, lineText)) {
      std::istringstream ls(lineText);
      int line;
      std::string code;
      if (lineText.empty() || lineText[0] == '#' || !(ls >> line)) continue;
      while (ls >> code) {
        if (code[0] == '#') break;
        if (code[0] == '!') e.forbidden.insert({line, code.substr(1)});
        else e.expected.insert({line, code});
      }
    }
    return e;
  }
  std::istringstream in(text);
  std::string lineText;
  int line = 0;
  while (std::getline(in, lineText)) {
    ++line;
    for (auto [tag, ok] : {std::pair<const char *, bool>{"# expect:", false}, {"# ok:", true},
                           {"// expect:", false}, {"// ok:", true}, {"; expect:", false}, {"; ok:", true}}) {
      size_t at = lineText.find(tag);
      if (at != std::string::npos) addCodes(lineText.substr(at + std::string(tag).size()), line, ok, e);
    }
  }
  return e;
}

} // namespace retrylint::testing
