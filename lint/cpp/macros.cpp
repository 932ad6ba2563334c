// Retry loops written in macro bodies (`#define HANDLE_OVERCROWDED(write_expr) ({ while (true)
// { … (write_expr) … usleep(…); } })`): the file's tokens leave directives out, so each such
// body is analysed on its own, as the text of the file with everything else blanked (offsets,
// lines and columns stay exact). A parameter used as `(param)` is the operation the caller
// passes: it is read as a call, `param()`, of the same length.
#include <regex>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {

void analyseMacroLoops(std::string_view text, ExtractContext &cx) {
  static const std::regex define(R"(^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\))");
  static const std::regex loopWord(R"(\b(for|while|do)\b)");
  static const std::regex evidence(std::string("sleep|attempt|backoff|tries|wait_for|") + kRetryWords, std::regex::icase);
  constexpr int kMaxMacros = 64; // a file of generated macros costs at most this many passes
  // std::regex recurses per character it repeats over: a stranger's megabyte-long line or macro
  // would overflow the stack. A define's head is read from its first 1 KB, and a body over 16 KB
  // (no retry helper is that long) is left alone.
  constexpr size_t kMaxHead = 1024, kMaxBody = 16 * 1024;
  int analysed = 0;
  size_t at = 0;
  while (at < text.size() && analysed < kMaxMacros) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    std::smatch m;
    size_t first = text.find_first_not_of(" \t", at);
    if (first >= eol || text[first] != '#' || text.substr(first, std::min<size_t>(eol - first, 32)).find("define") == std::string_view::npos) {
      at = eol + 1;
      continue;
    }
    const std::string line(text.substr(at, std::min(eol - at, kMaxHead)));
    if (!std::regex_search(line, m, define)) {
      at = eol + 1;
      continue;
    }
    // The body: this line after the parameters, and the lines its backslashes continue onto.
    const size_t bodyBegin = at + static_cast<size_t>(m.position(0) + m.length(0));
    size_t end = eol;
    while (end > at && end <= text.size() && text[end - 1] == '\\' && end < text.size()) {
      size_t next = text.find('\n', end + 1);
      end = next == std::string::npos ? text.size() : next;
    }
    const std::string name = m[1].str();
    std::vector<std::string> params;
    {
      std::string p = m[2].str();
      std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
      for (auto it = std::sregex_iterator(p.begin(), p.end(), ident); it != std::sregex_iterator(); ++it)
        params.push_back(it->str());
    }
    at = end + 1;
    if (end - bodyBegin > kMaxBody) continue;
    const std::string body(text.substr(bodyBegin, end - bodyBegin));
    if (!std::regex_search(body, loopWord) || !std::regex_search(body, evidence)) continue;
    ++analysed;

    std::string blank(text.size(), ' ');
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') blank[i] = '\n';
    for (size_t i = bodyBegin; i < end; ++i)
      if (text[i] != '\\' || (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r')) blank[i] = text[i];
    // `(param)` -> `param()`: the caller's expression is the operation.
    for (const std::string &p : params) {
      std::regex use("\\(\\s*" + p + "\\s*\\)");
      std::string region = blank.substr(bodyBegin, end - bodyBegin);
      for (auto it = std::sregex_iterator(region.begin(), region.end(), use); it != std::sregex_iterator(); ++it) {
        size_t b = bodyBegin + static_cast<size_t>(it->position(0));
        size_t len = static_cast<size_t>(it->length(0));
        std::string repl = p + "()";
        repl.resize(len, ' ');
        blank.replace(b, len, repl);
      }
    }

    Tokens toks(blank);
    FileFacts facts;
    facts.functions.push_back({bodyBegin, end});
    const size_t before = cx.model.policies.size();
    analyseLoops(toks, facts, cx);
    int index = 0;
    for (size_t i = before; i < cx.model.policies.size(); ++i) {
      RetryPolicy &p = cx.model.policies[i];
      p.component = "retry loop in macro " + name;
      p.anchor = "cpp/macro " + name + "/loop[" + std::to_string(index++) + "]";
    }
  }
}

} // namespace retrylint::cpp
