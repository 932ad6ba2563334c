// Finding retry loops among the loops Clang saw, and reading their attempt bound, what they
// retry (catch clauses, HTTP status checks) and idempotency keys made per attempt.
#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"
#include "lint/model/status_codes.h"

namespace retrylint::cpp {
namespace {

constexpr std::string_view kFormat = "cpp";

bool isKeyword(std::string_view s) {
  static const std::set<std::string_view> kw = {
      "if", "for", "while", "do", "switch", "return", "sizeof", "catch", "static_cast", "dynamic_cast",
      "reinterpret_cast", "const_cast", "decltype", "alignof", "noexcept", "throw", "new", "delete", "co_await",
      "typeid", "defined", "static_assert", "else", "case", "default", "break", "continue", "try", "operator"};
  return kw.count(s) > 0;
}

// Calls that do not perform the operation being retried: waits, logging, arithmetic, accessors
// on a result, durations, randomness.
bool isNonOperation(const Tokens &t, size_t i) {
  static const std::set<std::string_view> names = {
      "sleep_for", "sleep_until", "usleep", "sleep", "nanosleep", "SleepFor", "SleepUntil", "Sleep", "wait_for",
      "wait_until", "min", "max", "clamp", "pow", "exp2", "ldexp", "abs", "to_string", "size", "length", "empty",
      "format", "print", "println", "printf", "fprintf", "snprintf", "sprintf", "puts", "perror", "move", "forward",
      "ok", "code", "what", "message", "status", "error_code", "value", "c_str", "str", "count", "error", "value_or",
      "has_value", "milliseconds", "seconds", "microseconds", "nanoseconds", "minutes", "hours", "duration",
      "duration_cast", "Milliseconds", "Seconds", "Microseconds", "Minutes", "Duration", "now", "rand", "random",
      "uniform_int_distribution", "uniform_real_distribution", "Uniform", "swap", "push_back", "emplace_back",
      "append", "insert", "reset", "assign", "get", "load", "store", "lock", "unlock", "begin", "end", "data",
      "warn", "info", "debug", "trace", "critical", "warning", "log", "Log", "ToString", "DebugString", "string",
      "exception", "runtime_error", "make_shared", "make_unique", "MakeShared", "IsRetryable", "ShouldRetry",
      "Status", "StatusOr", "optional", "vector", "assert", "CHECK", "DCHECK", "set", "add_header", "AddHeader",
      "SetHeader", "set_header", "emplace", "find", "at", "front", "back", "stoi", "atoi", "strerror", "errno"};
  const std::string &n = t[i].text;
  if (names.count(n) || isKeyword(n)) return true;
  std::string l = lower(n);
  if (l.find("log") != std::string::npos || l.find("rand") != std::string::npos ||
      l.find("uuid") != std::string::npos || l.find("jitter") != std::string::npos ||
      l.find("backoff") != std::string::npos || l.find("delay") != std::string::npos)
    return true;
  // std:: and chrono helpers are never the retried operation.
  if (i >= 2 && t.is(i - 1, "::") && (t[i - 2].text == "std" || t[i - 2].text == "chrono" || t[i - 2].text == "absl"))
    return true;
  return false;
}

// The first word of a name: IsReady -> is, is_ready -> is, poll -> poll.
std::string firstWord(std::string_view name) {
  size_t b = 0;
  while (b < name.size() && name[b] == '_') ++b;
  size_t e = b + 1;
  while (e < name.size() && name[e] != '_' && !std::isupper(static_cast<unsigned char>(name[e]))) ++e;
  return lower(name.substr(b, e - b));
}

// Polling and readiness checks ask a question; they are not the failed operation.
bool isQuery(std::string_view name) {
  static const std::set<std::string> q = {"is", "has", "ready", "done", "poll", "peek", "wait", "exists", "running",
                                          "alive", "healthy", "available", "finished", "completed", "pending",
                                          "can", "should", "check", "query", "probe", "ping", "try", "connected"};
  return q.count(firstWord(name)) > 0;
}

struct IfInfo { Range cond, then; size_t kw; bool exits = false, continues = false; };
struct Handler { size_t kw; Range decl, body; bool goesRound = false; };
struct TryInfo { Range block; std::vector<Handler> handlers; };

// The flow facts of one loop body, collected without entering nested loops.
struct Body {
  std::vector<IfInfo> ifs;
  std::vector<TryInfo> trys;
  std::vector<Range> stmts; // expression statements
};

class Analyzer {
public:
  Analyzer(const Tokens &t) : t(t) {}
  const Tokens &t;

  // Statements of a block or the single statement r.
  std::vector<Range> children(Range r) const {
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

  // Whether r holds a break/continue belonging to the loop, or a return/throw (the loop is left).
  bool has(Range r, bool wantExit, bool wantContinue) const {
    for (size_t i = r.b; i < r.e && i < t.size(); ++i) {
      const std::string &s = t[i].text;
      if (s == "[" ) { // a lambda's body belongs to the lambda
        size_t j = t.close(i) + 1;
        if (t.is(j, "(")) j = t.close(j) + 1;
        while (j < r.e && (t[j].text == "mutable" || t[j].text == "noexcept")) ++j;
        if (t.is(j, "{")) { i = t.close(j); continue; }
        continue;
      }
      if (s == "for" || s == "while" || s == "do" || s == "switch") {
        size_t end = t.statementEnd(i);
        if (wantExit) // return/throw still leave our loop
          for (size_t k = i; k < end && k < r.e; ++k)
            if (t[k].text == "return" || t[k].text == "throw") return true;
        i = end - 1;
        continue;
      }
      if (wantExit && (s == "break" || s == "return" || s == "throw" || s == "co_return")) return true;
      if (wantContinue && s == "continue") return true;
    }
    return false;
  }

  // Whether a block ends by leaving the loop (its last statement is return/throw/break).
  bool endsWithExit(Range r) const {
    auto kids = children(r);
    if (kids.empty()) return false;
    const std::string &s = t[kids.back().b].text;
    return s == "return" || s == "throw" || s == "break" || s == "co_return";
  }

  void walk(Range r, Body &b) const {
    for (Range s : children(r)) {
      const std::string &k = t[s.b].text;
      if (k == "{") { walk(s, b); continue; }
      if (k == "if") {
        size_t j = s.b + 1;
        if (t.is(j, "constexpr")) ++j;
        if (!t.is(j, "(")) continue;
        IfInfo info;
        info.kw = s.b;
        info.cond = {j + 1, t.close(j)};
        size_t thenB = t.close(j) + 1, thenE = t.statementEnd(thenB);
        info.then = {thenB, std::min(thenE, s.e)};
        info.exits = has(info.then, true, false);
        info.continues = has(info.then, false, true);
        b.ifs.push_back(info);
        walk(info.then, b);
        if (t.is(thenE, "else")) walk({thenE + 1, s.e}, b);
        continue;
      }
      if (k == "try") {
        TryInfo ti;
        size_t be = t.statementEnd(s.b + 1);
        ti.block = {s.b + 1, be};
        walk(ti.block, b);
        size_t j = be;
        while (t.is(j, "catch") && t.is(j + 1, "(")) {
          Handler h;
          h.kw = j;
          h.decl = {j + 2, t.close(j + 1)};
          size_t hb = t.close(j + 1) + 1, he = t.statementEnd(hb);
          h.body = {hb, he};
          h.goesRound = !endsWithExit(h.body);
          walk(h.body, b);
          ti.handlers.push_back(h);
          j = he;
        }
        b.trys.push_back(ti);
        continue;
      }
      if (k == "for" || k == "while" || k == "do") continue; // nested loops own their flow
      if (k == "switch") { walk({t.statementEnd(s.b + 1) > s.b ? s.b + 1 : s.e, s.e}, b); continue; }
      b.stmts.push_back(s);
    }
  }

  std::vector<size_t> opCalls(Range r) const {
    std::vector<size_t> out;
    for (size_t i = r.b; i + 1 < r.e && i + 1 < t.size(); ++i)
      if (isIdent(t[i]) && t.is(i + 1, "(") && !isNonOperation(t, i) && !isQuery(t[i].text)) out.push_back(i);
    return out;
  }

  std::optional<long long> eval(Range r, const std::map<std::string, long long> &consts) const {
    size_t i = r.b;
    std::function<std::optional<long long>()> expr, term, atom;
    atom = [&]() -> std::optional<long long> {
      if (i >= r.e) return std::nullopt;
      const Tok &k = t[i];
      if (k.text == "(") {
        ++i;
        auto v = expr();
        if (!t.is(i, ")")) return std::nullopt;
        ++i;
        return v;
      }
      if (k.kind == Tok::Number) {
        ++i;
        std::string digits;
        for (char c : k.text) if (c != '\'') digits += c;
        try {
          size_t used = 0;
          long long v = std::stoll(digits, &used, 0);
          std::string suffix = lower(digits.substr(used));
          if (!suffix.empty() && suffix.find_first_not_of("ul") != std::string::npos) return std::nullopt;
          return v;
        } catch (...) { return std::nullopt; }
      }
      if (isIdent(k)) {
        // a qualified constant: ns::kMax -> kMax
        size_t j = i;
        while (t.is(j + 1, "::") && j + 2 < r.e && isIdent(t[j + 2])) j += 2;
        auto it = consts.find(t[j].text);
        if (it == consts.end()) return std::nullopt;
        i = j + 1;
        return it->second;
      }
      return std::nullopt;
    };
    term = [&]() -> std::optional<long long> {
      auto v = atom();
      while (v && i < r.e && t[i].text == "*") { ++i; auto w = atom(); if (!w) return std::nullopt; *v *= *w; }
      return v;
    };
    expr = [&]() -> std::optional<long long> {
      auto v = term();
      while (v && i < r.e && (t[i].text == "+" || t[i].text == "-")) {
        bool plus = t[i].text == "+";
        ++i;
        auto w = term();
        if (!w) return std::nullopt;
        *v = plus ? *v + *w : *v - *w;
      }
      return v;
    };
    auto v = expr();
    if (i != r.e) return std::nullopt;
    return v;
  }
};

bool isRel(std::string_view s) { return s == "<" || s == "<=" || s == ">" || s == ">=" || s == "!=" || s == "=="; }

std::string flip(std::string_view op) {
  if (op == "<") return ">";
  if (op == ">") return "<";
  if (op == "<=") return ">=";
  if (op == ">=") return "<=";
  return std::string(op);
}

// `V op B` found in a condition, normalised so the counter is on the left.
struct Compare {
  std::string op;
  Range bound;
  bool preInc = false, postInc = false;
  size_t at = 0;
};

std::optional<Compare> findCompare(const Tokens &t, Range r, const std::string &v) {
  auto operandEnd = [&](size_t j) {
    while (j < r.e) {
      const std::string &s = t[j].text;
      if (s == "(" || s == "[") { j = t.close(j) + 1; continue; }
      if (s == "&&" || s == "||" || s == ")" || s == "?" || s == ";" || s == ",") break;
      ++j;
    }
    return std::min(j, r.e);
  };
  auto operandBegin = [&](size_t j) { // j: index just before the operator
    size_t b = j + 1;
    while (b > r.b) {
      const std::string &s = t[b - 1].text;
      if (s == ")" || s == "]") { size_t o = t.close(b - 1); if (o >= b) break; b = o; continue; }
      if (s == "&&" || s == "||" || s == "(" || s == "!" || s == "?" || s == ";" || s == ",") break;
      --b;
    }
    return b;
  };
  for (size_t i = r.b; i < r.e; ++i) {
    if (!isIdent(t[i]) || t[i].text != v || (i > 0 && (t.is(i - 1, ".") || t.is(i - 1, "->")))) continue;
    Compare c;
    c.at = i;
    size_t after = i + 1;
    if (t.is(i - 1, "++")) c.preInc = true;
    if (t.is(after, "++")) { c.postInc = true; ++after; }
    if (after < r.e && isRel(t[after].text)) {
      c.op = t[after].text;
      c.bound = {after + 1, operandEnd(after + 1)};
      return c;
    }
    size_t before = c.preInc ? i - 1 : i;
    if (before > r.b && isRel(t[before - 1].text)) {
      c.op = flip(t[before - 1].text);
      c.bound = {operandBegin(before - 2), before - 1};
      return c;
    }
  }
  return std::nullopt;
}

bool isLimitName(std::string_view s) {
  static const std::regex re("deadline|timeout|elapsed|expire|until|now|stop|cancel|shutdown|done|running|budget|"
                             "remaining|max|limit|attempt|retr|tries|count",
                             std::regex::icase);
  return std::regex_search(s.begin(), s.end(), re);
}

bool isRandomName(std::string_view s) {
  static const std::regex re("uuid|guid|random|rand|nonce", std::regex::icase);
  return std::regex_search(s.begin(), s.end(), re);
}

bool isKeyName(const Tok &k) {
  if (k.kind != Tok::Ident && k.kind != Tok::String) return false;
  std::string l = lower(k.text);
  return l.find("idempoten") != std::string::npos;
}

// HTTP statuses that satisfy a condition over one status variable, as a 100..599 bitmap.
std::optional<std::vector<bool>> statusSet(const Tokens &t, Range cond) {
  static const std::regex statusName("status|code", std::regex::icase);
  std::vector<bool> out;
  bool any = false, conj = false, disj = false;
  std::vector<bool> acc;
  for (size_t i = cond.b; i < cond.e; ++i) {
    if (t[i].text == "&&") conj = true;
    if (t[i].text == "||") disj = true;
  }
  if (conj && disj) return std::nullopt;
  acc.assign(600, conj || !disj ? true : false);
  if (!conj && !disj) acc.assign(600, true);
  for (size_t i = cond.b; i + 1 < cond.e; ++i) {
    if (!isRel(t[i].text)) continue;
    // status op N   or   N op status
    std::string op = t[i].text;
    const Tok *num = nullptr;
    const Tok *name = nullptr;
    if (t[i + 1].kind == Tok::Number && i > cond.b && isIdent(t[i - 1])) { num = &t[i + 1]; name = &t[i - 1]; }
    else if (i > cond.b && t[i - 1].kind == Tok::Number && isIdent(t[i + 1])) { num = &t[i - 1]; name = &t[i + 1]; op = flip(op); }
    else if (i > cond.b && t.is(i - 1, ")") && t[i + 1].kind == Tok::Number) {
      size_t o = t.close(i - 1);
      if (o < i && o > cond.b && isIdent(t[o - 1])) { num = &t[i + 1]; name = &t[o - 1]; }
    }
    if (!num || !name || !std::regex_search(name->text, statusName)) continue;
    long long n;
    try { n = std::stoll(num->text); } catch (...) { continue; }
    if (n < 100 || n > 599) continue;
    std::vector<bool> s(600, false);
    for (int c = 100; c < 600; ++c) {
      bool v = op == "<" ? c < n : op == "<=" ? c <= n : op == ">" ? c > n : op == ">=" ? c >= n : op == "==" ? c == n : c != n;
      s[c] = v;
    }
    any = true;
    for (int c = 0; c < 600; ++c) acc[c] = disj ? (acc[c] || s[c]) : (acc[c] && s[c]);
  }
  if (!any) return std::nullopt;
  for (int c = 0; c < 100; ++c) acc[c] = false;
  return acc;
}

std::string functionName(const Tokens &t, size_t fnBrace) {
  // ... name ( params ) qualifiers {
  size_t j = fnBrace;
  for (int guard = 0; j > 0 && guard < 40; ++guard) {
    --j;
    if (t.is(j, ")")) {
      size_t o = t.close(j);
      if (o < j && o > 0 && isIdent(t[o - 1]) && !isKeyword(t[o - 1].text)) {
        size_t b = o - 1;
        while (b >= 2 && t.is(b - 1, "::") && isIdent(t[b - 2])) b -= 2;
        std::string name;
        for (size_t k = b; k < o; ++k) name += t[k].text;
        return name;
      }
      if (o < j) j = o;
    }
    if (t.is(j, ";") || t.is(j, "}")) break;
  }
  return "";
}

} // namespace

void analyseLoops(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  Analyzer a(t);
  std::map<std::string, int> perFunction;
  std::set<size_t> seen;
  for (const LoopSite &site : facts.loops) {
    size_t kw = t.at(site.keyword_offset);
    if (kw == std::string::npos || !seen.insert(kw).second) continue;
    const std::string kind = t[kw].text;
    if (kind != "for" && kind != "while" && kind != "do") continue;

    LoopView lv{t, {}, {}, {}, {}, {}, facts.constants};
    size_t fb = t.at(site.fn_begin);
    lv.fn = fb == std::string::npos ? Range{0, t.size()} : Range{fb, std::min(t.close(fb) + 1, t.size())};
    // Header and body.
    if (kind == "do") {
      size_t be = t.statementEnd(kw + 1);
      lv.body = {kw + 1, be};
      if (!t.is(be, "while") || !t.is(be + 1, "(")) continue;
      lv.header = {be + 2, t.close(be + 1)};
    } else {
      if (!t.is(kw + 1, "(")) continue;
      lv.header = {kw + 2, t.close(kw + 1)};
      lv.body = {lv.header.e + 1, t.statementEnd(lv.header.e + 1)};
    }
    if (lv.body.e > t.size() || lv.header.e > t.size()) continue;

    // for (init; cond; inc)
    Range init{lv.header.b, lv.header.b}, cond = lv.header, inc{lv.header.e, lv.header.e};
    if (kind == "for") {
      std::vector<size_t> semis;
      bool rangeFor = false;
      for (size_t i = lv.header.b; i < lv.header.e; ++i) {
        const std::string &s = t[i].text;
        if (s == "(" || s == "[" || s == "{") { i = t.close(i); continue; }
        if (s == ";") semis.push_back(i);
        if (s == ":" ) rangeFor = true;
      }
      if (semis.size() != 2 || (rangeFor && semis.empty())) continue; // range-for: iteration, not retry
      init = {lv.header.b, semis[0]};
      cond = {semis[0] + 1, semis[1]};
      inc = {semis[1] + 1, lv.header.e};
    }

    Body body;
    a.walk(lv.body, body);

    // The operation: calls whose outcome decides between leaving and going round.
    std::set<std::string> opVars;
    auto collectOpVars = [&](Range s) {
      auto calls = a.opCalls(s);
      if (calls.empty()) return;
      for (size_t i = s.b; i + 1 < s.e; ++i)
        if (isIdent(t[i]) && (t[i + 1].text == "=" ) && i < calls.front()) opVars.insert(t[i].text);
    };
    for (Range s : body.stmts) collectOpVars(s);
    auto refersToOp = [&](Range r) {
      if (!a.opCalls(r).empty()) return true;
      for (const auto &v : opVars) if (mentions(t, r, v)) return true;
      return false;
    };

    bool tryRetry = false;
    for (const TryInfo &ti : body.trys)
      if (!a.opCalls(ti.block).empty())
        for (const Handler &h : ti.handlers) tryRetry |= h.goesRound;
    bool resultRetry = false;
    if (kind != "for" && refersToOp(cond)) resultRetry = true;
    for (const IfInfo &i : body.ifs)
      if ((i.exits || i.continues) && refersToOp(i.cond)) resultRetry = true;

    const bool trivialCond = cond.b >= cond.e || (cond.e == cond.b + 1 && (t[cond.b].text == "true" || t[cond.b].text == "1"));
    const bool canExit = !trivialCond || a.has(lv.body, true, false);

    // The attempt counter.
    std::string counter;
    if (kind == "for") {
      for (size_t i = inc.b; i < inc.e; ++i)
        if (isIdent(t[i]) && (t.is(i + 1, "++") || t.is(i - 1, "++") || t.is(i + 1, "+="))) { counter = t[i].text; break; }
    }
    auto findInc = [&](Range r) -> std::string {
      for (size_t i = r.b; i < r.e && i + 1 < t.size(); ++i) {
        if (!isIdent(t[i]) || (i > 0 && (t.is(i - 1, ".") || t.is(i - 1, "->")))) continue;
        if (t.is(i + 1, "++") || (i > 0 && t.is(i - 1, "++")) || (t.is(i + 1, "+=") && t.is(i + 2, "1"))) return t[i].text;
      }
      return "";
    };
    if (counter.empty()) counter = findInc(lv.body);
    if (counter.empty() && kind != "for") counter = findInc(cond);
    lv.counter = counter;
    // A processing loop walks a collection with its counter: not a retry.
    bool processing = false;
    if (!counter.empty()) {
      for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
        if ((t.is(i, "[") && mentions(t, {i + 1, t.close(i)}, counter)) ||
            ((t[i].text == "at" || t[i].text == "get") && t.is(i + 1, "(") && mentions(t, {i + 2, t.close(i + 1)}, counter)))
          processing = true;
      for (size_t i = cond.b; i < cond.e; ++i)
        if (t[i].text == "size" || t[i].text == "length" || t[i].text == "end" || t[i].text == "count" || t[i].text == "empty")
          processing = true;
    }

    bool evidence = tryRetry;
    for (size_t i = lv.body.b; i < lv.body.e && !evidence; ++i) {
      std::string l = lower(t[i].text);
      if (isIdent(t[i]) && (l.find("sleep") != std::string::npos || l == "wait_for" || l == "wait_until" ||
                            l.find("retr") != std::string::npos || l.find("attempt") != std::string::npos ||
                            l.find("backoff") != std::string::npos))
        evidence = true;
    }
    if (!counter.empty() && std::regex_search(counter, std::regex("attempt|retr|tries|try", std::regex::icase))) evidence = true;

    if (!(tryRetry || resultRetry) || !canExit || !evidence || processing) continue;

    // ---- a retry loop: the policy ----
    RetryPolicy p;
    p.format = std::string(kFormat);
    std::string fname = functionName(t, lv.fn.b);
    int index = perFunction[fname]++;
    p.component = "retry loop in " + (fname.empty() ? std::string("(file scope)") : fname + "()");
    p.anchor = "cpp/" + (fname.empty() ? std::string("-") : fname) + "/loop[" + std::to_string(index) + "]";
    p.where = spanOf(cx, t, kw, kw + 1);
    p.attempt_variable = counter;
    p.attempts_field = "attempts"; // counted from the loop: total tries, incl. the first
    p.attempts_count_retries = false;
    p.per_try_timeout.origin = Origin::NotApplicable;
    p.overall_deadline.origin = Origin::NotApplicable;
    p.budget.origin = Origin::NotApplicable;
    p.adaptive_rate_limit.origin = Origin::NotApplicable;
    p.max_attempts.origin = Origin::Unknown;

    // Attempts.
    auto startValue = [&]() -> std::optional<long long> {
      Range scope = kind == "for" ? init : Range{lv.fn.b, kw};
      auto ws = writesOf(t, scope, counter);
      for (auto it = ws.rbegin(); it != ws.rend(); ++it)
        if (it->op == "=") return a.eval(it->value, facts.constants);
      if (kind == "for") { // declared before the loop
        auto before = writesOf(t, {lv.fn.b, kw}, counter);
        for (auto it = before.rbegin(); it != before.rend(); ++it)
          if (it->op == "=") return a.eval(it->value, facts.constants);
      }
      return std::nullopt;
    };
    bool bounded = false;
    if (!counter.empty()) {
      auto start = startValue();
      if (auto c = findCompare(t, cond, counter)) {
        bounded = true;
        auto bound = a.eval(c->bound, facts.constants);
        if (bound && start) {
          long long n = -1;
          if (c->op == "<" || c->op == "!=") n = *bound - *start;
          else if (c->op == "<=") n = *bound - *start + 1;
          if (n >= 0 && (c->preInc || c->postInc)) n += (kind == "do" ? 1 : 0) + (c->preInc ? -1 : 0);
          if (n >= 1 && n <= 1000000)
            p.max_attempts = written(std::optional<int>(static_cast<int>(n)), spanOf(cx, t, c->bound.b, c->bound.e));
        }
      } else {
        for (const IfInfo &i : body.ifs) {
          if (!i.exits) continue;
          auto c = findCompare(t, i.cond, counter);
          if (!c) continue;
          bounded = true;
          auto bound = a.eval(c->bound, facts.constants);
          if (!bound || !start) break;
          long long n = -1;
          if (c->op == ">=" || c->op == "==") n = *bound - *start;
          else if (c->op == ">") n = *bound - *start + 1;
          if (n < 0) break;
          bool incBefore = c->preInc;
          for (size_t k = lv.body.b; k < i.kw && !incBefore; ++k)
            if (t[k].text == counter && (t.is(k + 1, "++") || t.is(k - 1, "++") || t.is(k + 1, "+="))) incBefore = true;
          bool opBefore = !a.opCalls({lv.body.b, i.kw}).empty();
          if (c->postInc || (!incBefore && opBefore)) n += 1;
          if (n >= 1 && n <= 1000000)
            p.max_attempts = written(std::optional<int>(static_cast<int>(n)), spanOf(cx, t, c->bound.b, c->bound.e));
          break;
        }
      }
    }
    if (!bounded) {
      bool limited = false;
      auto scan = [&](Range r) {
        for (size_t i = r.b; i < r.e; ++i)
          if (isIdent(t[i]) && isLimitName(t[i].text)) limited = true;
      };
      if (!trivialCond) {
        if (kind == "for" || !refersToOp(cond)) limited = true;
        scan(cond);
      }
      for (const IfInfo &i : body.ifs)
        if (i.exits) scan(i.cond);
      if (!limited) {
        Span w = trivialCond ? (cond.b < cond.e ? spanOf(cx, t, cond.b, cond.e) : spanOf(cx, t, kw, kw + 1))
                             : spanOf(cx, t, cond.b, cond.e);
        p.max_attempts = written(std::optional<int>(), w);
      }
    }

    // What is retried: catch clauses that go round again.
    for (const TryInfo &ti : body.trys) {
      for (const Handler &h : ti.handlers) {
        if (!h.goesRound) continue;
        Condition c;
        c.kind = Condition::Kind::ErrorName;
        c.where = spanOf(cx, t, h.kw, h.decl.e + 1);
        std::string decl = t.join(h.decl.b, h.decl.e);
        if (decl == "...") {
          c.catch_all = true;
          c.text = "catch (...)";
        } else {
          c.text = "catch (" + decl + ")";
          for (size_t i = h.decl.b; i < h.decl.e; ++i)
            if (t[i].text == "exception" && (i == h.decl.b || !t.is(i - 1, "::") || t[i - 2].text == "std"))
              c.catch_all = true;
        }
        p.retry_on.push_back(std::move(c));
      }
    }
    // HTTP statuses: exits on success (or give-up) remove statuses; retry branches add them.
    {
      std::vector<bool> exitSet(600, false), retrySet(600, false);
      bool anyExit = false, anyRetry = false;
      size_t firstWhere = 0;
      bool whereSet = false;
      for (const IfInfo &i : body.ifs) {
        auto s = statusSet(t, i.cond);
        if (!s) continue;
        if (!whereSet || (!i.exits && !anyRetry)) { firstWhere = i.kw; whereSet = true; }
        if (i.exits && !i.continues) { anyExit = true; for (int c = 0; c < 600; ++c) exitSet[c] = exitSet[c] || (*s)[c]; }
        else { anyRetry = true; for (int c = 0; c < 600; ++c) retrySet[c] = retrySet[c] || (*s)[c]; }
      }
      if (anyExit || anyRetry) {
        int lo = -1, hi = -1;
        for (int c = 400; c < 500; ++c) {
          bool retried = (anyRetry ? retrySet[c] : true) && !exitSet[c];
          if (retried && httpCodeIsPermanent(c)) { if (lo < 0) lo = c; hi = c; }
        }
        if (lo >= 0) {
          Condition c;
          c.kind = Condition::Kind::HttpStatus;
          const IfInfo *src = nullptr;
          for (const IfInfo &i : body.ifs) if (i.kw == firstWhere) src = &i;
          c.text = src ? t.join(src->cond.b, src->cond.e) : "HTTP status";
          c.where = src ? spanOf(cx, t, src->cond.b, src->cond.e) : p.where;
          c.http_lo = lo;
          c.http_hi = hi;
          p.retry_on.push_back(std::move(c));
        }
      }
    }

    // Variables derived from the counter inside the loop (for logs).
    if (!counter.empty()) {
      std::vector<std::string> known{counter};
      for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i) {
        if (!isIdent(t[i]) || !t.is(i + 1, "=") || i == lv.body.b || !isIdent(t[i - 1])) continue;
        size_t e = t.statementEnd(i);
        for (const auto &k : known)
          if (mentions(t, {i + 2, e}, k)) { known.push_back(t[i].text); lv.derived.push_back(t[i].text); break; }
      }
    }

    // Idempotency keys made per attempt.
    {
      std::map<std::string, size_t> madeHere; // loop-local variable -> the generator token
      for (size_t i = lv.body.b; i + 2 < lv.body.e; ++i) {
        if (!isIdent(t[i]) || !t.is(i + 1, "=") || !isIdent(t[i - 1])) continue;
        size_t e = t.statementEnd(i);
        for (size_t k = i + 2; k < e; ++k)
          if (isIdent(t[k]) && isRandomName(t[k].text) && t.is(k + 1, "(")) { madeHere[t[i].text] = k; break; }
      }
      bool keySeen = false;
      for (size_t i = lv.fn.b; i < lv.fn.e; ++i) keySeen |= isKeyName(t[i]);
      p.idempotency_key = keySeen;
      std::set<size_t> reported;
      for (size_t i = lv.body.b; i < lv.body.e; ++i) {
        if (!isKeyName(t[i])) continue;
        // the statement around the mention
        size_t sb = i;
        while (sb > lv.body.b && !t.is(sb - 1, ";") && !t.is(sb - 1, "{") && !t.is(sb - 1, "}")) --sb;
        size_t se = i;
        while (se < lv.body.e && !t.is(se, ";")) { if (t.is(se, "(") || t.is(se, "{")) se = t.close(se); ++se; }
        std::optional<size_t> gen;
        for (size_t k = sb; k < se && !gen; ++k) {
          if (isIdent(t[k]) && isRandomName(t[k].text) && t.is(k + 1, "(")) gen = k;
          else if (isIdent(t[k]) && madeHere.count(t[k].text) && madeHere[t[k].text] < sb) gen = madeHere[t[k].text];
        }
        if (gen && reported.insert(*gen).second) p.keys_made_per_attempt.push_back(spanOf(cx, t, *gen, *gen + 1));
        i = std::max(i, se);
      }
    }

    analyseWait(lv, cx, p);
    findLogs(lv, cx, p);
    cx.model.policies.push_back(std::move(p));
  }
}

} // namespace retrylint::cpp
