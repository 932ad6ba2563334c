// Reading a fixture's expectations: `# expect: RL401` / `# ok: RL101` next to the line in
// YAML, INI and .properties (`; expect:` in INI too), `// expect:` in C++, a sidecar NAME.json.expect (`LINE RULE`, `LINE !RULE`) for JSON, which has no comments,
// and for any other file that has a NAME.expect sidecar (.properties, whose comments fill a line).
// `error` in place of a rule code expects an analysis error (exit code 2) at that line.
// An expectation may pin more than the line: `RL203:17` the column, and a quoted text after it
// (`# expect: RL203:17 "6 attempts"`) a substring of the message; the same in a sidecar
// (`12 RL203:17 "6 attempts"`). `@note`, `@warning` or `@error` after the code pins the severity
// (`# expect: RL101@note "no concurrent Map"`): where a finding is advice and where it is not.
#pragma once
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace retrylint::testing {

struct Pin {
  int line = 0;
  std::string rule;
  int column = 0;       // 0: any
  std::string message;  // a substring the message must hold; "": any
  std::string severity; // "note", "warning", "error"; "": any
};

struct Expectations {
  std::multiset<std::pair<int, std::string>> expected; // (line, rule or "error")
  std::set<std::pair<int, std::string>> forbidden;     // (line, rule): `# ok:` lines
  std::vector<Pin> pins;                               // expectations with a column or a message
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads `CODE[:COLUMN] ["message part"] CODE ...` up to the first word that is not one (prose).
inline void addCodes(const std::string &list, int line, bool ok, Expectations &e) {
  size_t i = 0;
  bool lastWasExpected = false;
  while (i < list.size()) {
    while (i < list.size() && (list[i] == ' ' || list[i] == '\t')) ++i;
    if (i >= list.size()) break;
    if (list[i] == '"') {
      size_t close = list.find('"', i + 1);
      if (close == std::string::npos || !lastWasExpected) break;
      e.pins.back().message = list.substr(i + 1, close - i - 1);
      i = close + 1;
      lastWasExpected = false;
      continue;
    }
    size_t end = list.find_first_of(" \t", i);
    std::string w = list.substr(i, end == std::string::npos ? std::string::npos : end - i);
    i = end == std::string::npos ? list.size() : end;
    while (!w.empty() && (w.back() == ',' || w.back() == '.')) w.pop_back();
    if (w.empty()) continue;
    std::string severity;
    if (size_t at = w.find('@'); at != std::string::npos) {
      severity = w.substr(at + 1);
      w = w.substr(0, at);
      if (severity != "note" && severity != "warning" && severity != "error") break; // prose
    }
    int column = 0;
    if (size_t colon = w.find(':'); colon != std::string::npos && colon + 1 < w.size() &&
                                    w.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      column = std::stoi(w.substr(colon + 1));
      w = w.substr(0, colon);
    }
    if (w != "error" && (w.size() != 5 || w.rfind("RL", 0) != 0)) break; // the rest is prose
    lastWasExpected = !ok;
    if (ok) {
      e.forbidden.insert({line, w});
      continue;
    }
    e.expected.insert({line, w});
    e.pins.push_back(Pin{line, w, column, "", severity});
  }
  // Only the pins that pin something are kept.
  e.pins.erase(std::remove_if(e.pins.begin(), e.pins.end(),
                              [](const Pin &p) { return p.column == 0 && p.message.empty() && p.severity.empty(); }),
               e.pins.end());
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
      if (lineText.empty() || lineText[0] == '#' || !(ls >> line)) continue;
      std::string rest;
      std::getline(ls, rest);
      if (size_t hash = rest.find(" #"); hash != std::string::npos) rest.resize(hash);
      // `!RULE` forbids; the others expect, with their pins.
      std::string expected;
      std::istringstream words(rest);
      for (std::string w; words >> w;) {
        if (w[0] == '!') e.forbidden.insert({line, w.substr(1)});
        else expected += w + " ";
      }
      addCodes(expected, line, false, e);
    }
    return e;
  }
  std::istringstream in(text);
  std::string lineText;
  int line = 0;
  while (std::getline(in, lineText)) {
    ++line;
    // The comment holding the expectations, then every `expect:` and `ok:` in it
    // (`# expect: RL102  ok: RL101` states both).
    size_t from = std::string::npos;
    for (const char *tag : {"# expect:", "# ok:", "// expect:", "// ok:", "; expect:", "; ok:"})
      from = std::min(from, lineText.find(tag));
    if (from == std::string::npos) continue;
    const std::string comment = lineText.substr(from);
    for (auto [tag, ok] : {std::pair<const char *, bool>{"expect:", false}, {"ok:", true}})
      for (size_t at = comment.find(tag); at != std::string::npos; at = comment.find(tag, at + 1)) {
        const char before = at ? comment[at - 1] : ' ';
        if (before != ' ' && before != '#' && before != '/' && before != ';' && before != '\t') continue;
        addCodes(comment.substr(at + std::string(tag).size()), line, ok, e);
      }
  }
  return e;
}

} // namespace retrylint::testing
