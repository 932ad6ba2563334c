// The token view of a C++ file: Clang's raw lexer, comments and preprocessor lines left out.
#include <algorithm>
#include <cctype>

#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

#include "lint/cpp/cpp_frontend.h"

#include <set>

namespace retrylint::cpp {

Tokens::Tokens(std::string_view text) {
  clang::LangOptions lo;
  lo.CPlusPlus = lo.CPlusPlus11 = lo.CPlusPlus14 = lo.CPlusPlus17 = lo.CPlusPlus20 = true;
  lo.Bool = lo.LineComment = true;
  const clang::SourceLocation base = clang::SourceLocation::getFromRawEncoding(1);
  clang::Lexer lex(base, lo, text.data(), text.data(), text.data() + text.size());
  clang::Token tok;
  bool skipping = false; // inside a preprocessor directive
  // Conditional groups (#if … #elif … #else … #endif). Every branch is read, as the raw text has
  // them, unless the branches open or close brackets on their own (`#ifdef ESP32 if (connect(a,
  // b, t)) { #else if (connect(a, b)) { #endif`): then one is kept, the first, so the brackets
  // still match and the function's body is right. An `#if 0` branch is dead code, never read.
  struct Group {
    int parent, parentBranch;
    std::vector<int> net;        // per branch: opening minus closing brackets
    std::vector<bool> zero;      // per branch: `#if 0` / `#elif 0`
  };
  std::vector<Group> gs;
  std::vector<std::pair<int, int>> open; // (group, branch) of the enclosing conditionals
  std::vector<std::pair<int, int>> where; // per token: its innermost (group, branch), or (-1, 0)
  size_t directiveAt = 0;
  std::string directive;
  while (true) {
    lex.LexFromRawLexer(tok);
    if (tok.is(clang::tok::eof)) break;
    const size_t offset = tok.getLocation().getRawEncoding() - base.getRawEncoding();
    if (offset + tok.getLength() > text.size()) break;
    const std::string_view spelled = text.substr(offset, tok.getLength());
    if (tok.isAtStartOfLine()) {
      skipping = tok.is(clang::tok::hash);
      directiveAt = 0;
      directive.clear();
    }
    if (skipping) {
      if (directiveAt == 1) {
        directive = std::string(spelled);
        if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
          const auto parent = open.empty() ? std::pair<int, int>{-1, 0} : open.back();
          gs.push_back({parent.first, parent.second, {0}, {false}});
          open.push_back({static_cast<int>(gs.size()) - 1, 0});
        } else if ((directive == "elif" || directive == "else" || directive == "elifdef" || directive == "elifndef") &&
                   !open.empty()) {
          Group &g = gs[open.back().first];
          g.net.push_back(0);
          g.zero.push_back(false);
          open.back().second = static_cast<int>(g.net.size()) - 1;
        } else if (directive == "endif" && !open.empty()) {
          open.pop_back();
        }
      } else if (directiveAt == 2 && (directive == "if" || directive == "elif") && spelled == "0" && !open.empty()) {
        gs[open.back().first].zero.back() = true;
      }
      ++directiveAt;
      continue;
    }
    Tok t;
    t.offset = offset;
    t.length = tok.getLength();
    t.text = std::string(spelled);
    // A name longer than any real one (a stranger's megabyte identifier) is no name: the analyses
    // match names with std::regex, which recurses per character and would overflow the stack.
    if (tok.is(clang::tok::raw_identifier)) t.kind = t.length <= kMaxNameLength ? Tok::Ident : Tok::Other;
    else if (tok.is(clang::tok::numeric_constant)) t.kind = Tok::Number;
    else if (clang::tok::isStringLiteral(tok.getKind())) t.kind = Tok::String;
    else if (tok.isOneOf(clang::tok::char_constant, clang::tok::wide_char_constant, clang::tok::utf8_char_constant,
                         clang::tok::utf16_char_constant, clang::tok::utf32_char_constant)) t.kind = Tok::Char;
    else if (clang::tok::getPunctuatorSpelling(tok.getKind())) t.kind = Tok::Punct;
    if (!open.empty() && t.kind == Tok::Punct && t.text.size() == 1) {
      const char c = t.text[0];
      const int d = (c == '(' || c == '[' || c == '{') ? 1 : (c == ')' || c == ']' || c == '}') ? -1 : 0;
      if (d) gs[open.back().first].net[open.back().second] += d;
    }
    where.push_back(open.empty() ? std::pair<int, int>{-1, 0} : open.back());
    toks_.push_back(std::move(t));
  }
  if (!gs.empty()) {
    // Which branches are read: all, unless one is unbalanced; never an `#if 0` one.
    std::vector<std::vector<bool>> keep(gs.size());
    for (size_t g = 0; g < gs.size(); ++g) {
      bool balanced = true;
      for (int n : gs[g].net) balanced &= n == 0;
      keep[g].assign(gs[g].net.size(), true);
      bool chosen = false;
      for (size_t b = 0; b < gs[g].net.size(); ++b) {
        if (gs[g].zero[b]) {
          keep[g][b] = false;
        } else if (!balanced) {
          keep[g][b] = !chosen;
          chosen = true;
        }
      }
      // … and only where the enclosing branch is read (a group's parent comes before it).
      const Group &gr = gs[g];
      if (gr.parent >= 0 && !keep[gr.parent][gr.parentBranch]) keep[g].assign(keep[g].size(), false);
    }
    auto kept = [&](std::pair<int, int> w) { return w.first < 0 || keep[w.first][w.second]; };
    std::vector<Tok> read;
    read.reserve(toks_.size());
    for (size_t i = 0; i < toks_.size(); ++i)
      if (kept(where[i])) read.push_back(std::move(toks_[i]));
    toks_ = std::move(read);
  }
  match_.assign(toks_.size(), -1);
  std::vector<size_t> stack;
  for (size_t i = 0; i < toks_.size(); ++i) {
    const std::string &s = toks_[i].text;
    if (toks_[i].kind != Tok::Punct) continue;
    if (s == "(" || s == "[" || s == "{") stack.push_back(i);
    else if (s == ")" || s == "]" || s == "}") {
      char open = s == ")" ? '(' : s == "]" ? '[' : '{';
      // Unwind to the matching opener (recovers from stray brackets in macros).
      auto it = std::find_if(stack.rbegin(), stack.rend(), [&](size_t j) { return toks_[j].text[0] == open; });
      if (it == stack.rend()) continue;
      size_t j = *it;
      stack.erase(std::next(it).base(), stack.end());
      match_[j] = static_cast<int>(i);
      match_[i] = static_cast<int>(j);
    }
  }
}

size_t Tokens::at(size_t offset) const {
  auto it = std::lower_bound(toks_.begin(), toks_.end(), offset, [](const Tok &t, size_t o) { return t.offset < o; });
  if (it == toks_.end() || it->offset != offset) return std::string::npos;
  return static_cast<size_t>(it - toks_.begin());
}

size_t Tokens::close(size_t open) const {
  if (open >= toks_.size() || match_[open] < 0 || static_cast<size_t>(match_[open]) < open) return toks_.size();
  return static_cast<size_t>(match_[open]);
}

size_t Tokens::opening(size_t close) const {
  if (close >= toks_.size() || match_[close] < 0 || static_cast<size_t>(match_[close]) > close) return toks_.size();
  return static_cast<size_t>(match_[close]);
}

size_t Tokens::statementEnd(size_t i) const {
  const size_t n = toks_.size();
  if (i >= n) return n;
  const std::string &s = toks_[i].text;
  auto afterParens = [&](size_t j) { return is(j, "(") ? std::min(close(j) + 1, n) : j; };
  if (s == "{") return std::min(close(i) + 1, n);
  if (s == "if") {
    size_t j = i + 1;
    if (is(j, "constexpr")) ++j;
    j = statementEnd(afterParens(j));
    if (is(j, "else")) j = statementEnd(j + 1);
    return j;
  }
  if (s == "for" || s == "while" || s == "switch") return statementEnd(afterParens(i + 1));
  if (s == "do") {
    size_t j = statementEnd(i + 1);
    if (is(j, "while")) j = afterParens(j + 1);
    if (is(j, ";")) ++j;
    return j;
  }
  if (s == "try") {
    size_t j = statementEnd(i + 1);
    while (is(j, "catch")) j = statementEnd(afterParens(j + 1));
    return j;
  }
  for (size_t j = i; j < n; ++j) {
    const std::string &t = toks_[j].text;
    if (toks_[j].kind != Tok::Punct) continue;
    if (t == "(" || t == "[" || t == "{") {
      size_t c = close(j);
      if (c >= n) return n;
      j = c;
    } else if (t == ";") {
      return j + 1;
    } else if (t == "}" || t == ")" || t == "]") {
      return j; // the end of the enclosing block
    }
  }
  return n;
}

std::string Tokens::join(size_t b, size_t e) const {
  std::string out;
  for (size_t i = b; i < e && i < toks_.size(); ++i) {
    if (!out.empty()) {
      const Tok &prev = toks_[i - 1];
      bool tight = prev.offset + prev.length == toks_[i].offset;
      if (!tight) out += ' ';
    }
    out += toks_[i].text;
  }
  return out;
}

bool isIdent(const Tok &t) { return t.kind == Tok::Ident; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool containsI(std::string_view hay, std::string_view needle) { return lower(hay).find(lower(needle)) != std::string::npos; }

Span spanOf(const ExtractContext &cx, const Tokens &t, size_t b, size_t e) {
  if (b >= t.size()) return {};
  if (e <= b) e = b + 1;
  e = std::min(e, t.size());
  Span first = cx.src.spanAt(t[b].offset, t[b].length);
  Span last = cx.src.spanAt(t[e - 1].offset, t[e - 1].length);
  first.end_line = last.end_line;
  first.end_column = last.end_column;
  return first;
}

std::vector<Range> statementsOf(const Tokens &t, Range r) {
  std::vector<Range> out;
  if (r.b >= r.e) return out;
  if (t.is(r.b, "{")) {
    size_t end = std::min(t.close(r.b), r.e);
    for (size_t i = r.b + 1; i < end;) {
      size_t e = std::max(t.statementEnd(i), i + 1);
      out.push_back({i, std::min(e, end)});
      i = e;
    }
  } else {
    out.push_back(r);
  }
  return out;
}

size_t functionParams(const Tokens &t, size_t brace) {
  if (!t.is(brace, "{") || brace == 0) return std::string::npos;
  size_t k = brace;
  while (k > 0 && (t[k - 1].text == "const" || t[k - 1].text == "noexcept" || t[k - 1].text == "override" ||
                   t[k - 1].text == "final" || t[k - 1].text == "mutable"))
    --k;
  if (k == 0 || !t.is(k - 1, ")")) return std::string::npos;
  size_t open = t.opening(k - 1);
  if (open == 0 || open >= t.size()) return std::string::npos;
  const std::string &before = t[open - 1].text;
  if (before == "if" || before == "for" || before == "while" || before == "switch" || before == "catch")
    return std::string::npos;
  return open;
}

bool mentions(const Tokens &t, Range r, std::string_view name) {
  for (size_t i = r.b; i < r.e && i < t.size(); ++i) {
    if (t[i].text != name || !isIdent(t[i])) continue;
    if (i > 0 && (t.is(i - 1, ".") || t.is(i - 1, "->"))) continue;
    return true;
  }
  return false;
}

std::vector<Write> writesOf(const Tokens &t, Range scope, std::string_view name) {
  static const char *ops[] = {"=", "*=", "<<=", "+=", "-=", "/=", ">>=", "|="};
  std::vector<Write> out;
  for (size_t i = scope.b; i < scope.e && i + 1 < t.size(); ++i) {
    if (!isIdent(t[i]) || t[i].text != name) continue;
    if (i > 0 && (t.is(i - 1, ".") || t.is(i - 1, "->") || t.is(i - 1, "::"))) continue;
    const std::string &next = t[i + 1].text;
    bool declared = i > 0 && (isIdent(t[i - 1]) || t.is(i - 1, ">") || t.is(i - 1, "*") || t.is(i - 1, "&")) &&
                    t[i - 1].text != "return";
    std::string op;
    size_t vb = 0, ve = 0;
    if (std::find(std::begin(ops), std::end(ops), next) != std::end(ops)) {
      op = next;
      vb = i + 2;
      ve = vb;
      while (ve < scope.e && ve < t.size()) {
        const std::string &s = t[ve].text;
        if (s == "(" || s == "[" || s == "{") { ve = t.close(ve) + 1; continue; }
        if (s == ";" || s == "," || s == ")" || s == "}" || s == "]") break;
        ++ve;
      }
    } else if (declared && (next == "{" || next == "(") && t[i - 1].text != "return") {
      op = "=";
      vb = i + 2;
      ve = t.close(i + 1);
    } else if (next == "++" || (i > 0 && t.is(i - 1, "++"))) {
      op = "++";
      vb = ve = i;
    } else {
      continue;
    }
    out.push_back(Write{Range{vb, std::min(ve, t.size())}, op, i, declared});
  }
  return out;
}

std::vector<Function> functionsOf(const Tokens &t) {
  static const std::set<std::string_view> notNames = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype",
                                                      "alignof", "noexcept", "static_assert", "operator", "defined"};
  std::vector<Function> out;
  for (size_t i = 0; i < t.size(); ++i) {
    size_t open = functionParams(t, i);
    if (open == std::string::npos || !isIdent(t[open - 1]) || notNames.count(t[open - 1].text)) continue;
    if (open >= 2 && (t.is(open - 2, ".") || t.is(open - 2, "->"))) continue; // a call followed by a block
    Function f;
    f.name = t[open - 1].text;
    f.name_index = open - 1;
    f.brace = i;
    f.body = {i, std::min(t.close(i) + 1, t.size())};
    for (Range p : callArgs(t, open)) {
      size_t e = p.e;
      for (size_t j = p.b; j < p.e; ++j)
        if (t.is(j, "=")) { e = j; break; }
      std::string name;
      bool isBool = false;
      for (size_t j = p.b; j < e; ++j) {
        if (isIdent(t[j])) name = t[j].text;
        isBool |= t[j].text == "bool";
      }
      f.params.push_back(name);
      f.boolParam.push_back(isBool);
    }
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace retrylint::cpp
