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
      "SetHeader", "set_header", "emplace", "find", "at", "front", "back", "stoi", "atoi", "strerror", "errno",
      // Comparisons of data: they match or not, they do not fail (a search for a matching entry).
      "strcmp", "strncmp", "strcasecmp", "strncasecmp", "memcmp", "wcscmp", "compare", "equals", "Equals",
      "EqualsIgnoreCase", "starts_with", "ends_with", "StartsWith", "EndsWith"};
  const std::string &n = t[i].text;
  if (names.count(n) || isKeyword(n)) return true;
  std::string l = lower(n);
  if (isClockName(n)) return true;
  // Waits (the loop's cadence or backoff), assertions and checks, compare-and-swap.
  if (l.find("sleep") != std::string::npos || l.rfind("wait", 0) == 0 || l.rfind("_wait", 0) == 0 ||
      (l.rfind("from", 0) == 0 && (l.find("second") != std::string::npos || l.find("milli") != std::string::npos ||
                                   l.find("micro") != std::string::npos || l.find("nano") != std::string::npos)) ||
      l.find("compare_exchange") != std::string::npos || l.rfind("assert_", 0) == 0 || l.rfind("expect_", 0) == 0 ||
      l.rfind("check_", 0) == 0 || l.rfind("dcheck", 0) == 0 || l.find("likely") != std::string::npos ||
      l.rfind("predict_", 0) == 0)
    return true;
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
// An acronym before it is a prefix, not the word: WALHasNewData -> has, DBIsOpen -> is.
std::string firstWord(std::string_view name) {
  size_t b = 0;
  while (b < name.size() && name[b] == '_') ++b;
  auto upper = [&](size_t i) { return i < name.size() && std::isupper(static_cast<unsigned char>(name[i])); };
  size_t a = b;
  while (upper(a)) ++a;
  if (a - b >= 2 && a < name.size() && std::islower(static_cast<unsigned char>(name[a]))) b = a - 1; // WAL|Has…
  size_t e = b + 1;
  while (e < name.size() && name[e] != '_' && !upper(e)) ++e;
  return lower(name.substr(b, e - b));
}

// Readiness checks ask a question; they are not the failed operation. A name alone says so only
// for accessors (is_ready(), HasLeader(), done()); a try_lock(), a Ping() or a CheckHealth() acts
// and can fail, so it is an operation. Where Clang resolved the callee, a const member function is
// a question whatever its name.
bool isQueryName(std::string_view name) {
  static const std::set<std::string> q = {"is", "has", "ready", "done", "peek", "exists", "running", "alive",
                                          "healthy", "available", "finished", "completed", "pending", "should",
                                          "connected", "empty", "full", "size", "contains", "valid"};
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
  Analyzer(const Tokens &t, const FileFacts *facts = nullptr) : t(t), facts_(facts) {}
  const Tokens &t;
  const FileFacts *facts_;

  // Statements of a block or the single statement r.
  std::vector<Range> children(Range r) const { return statementsOf(t, r); }

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
      if (wantExit && (s == "break" || s == "return" || s == "throw" || s == "co_return" || fatal(i))) return true;
      if (wantContinue && s == "continue") return true;
    }
    return false;
  }

  // A call that never returns: CHECK(false), LOG(FATAL), abort(), exit(), std::terminate, or a
  // callee Clang knows is [[noreturn]].
  bool fatal(size_t i) const {
    const std::string &s = t[i].text;
    if (!isIdent(t[i]) || !t.is(i + 1, "(")) return false;
    if ((s == "CHECK" || s == "DCHECK") && t.is(i + 2, "false") && t.is(i + 3, ")")) return true;
    if (s.find("LOG") != std::string::npos && t.is(i + 2, "FATAL")) return true;
    if ((s == "abort" || s == "exit" || s == "_exit" || s == "terminate" || s == "quick_exit" || s == "Fatal" ||
         s == "fatal" || s == "die" || s == "panic" || s == "FatalError") &&
        !(i > 0 && (t.is(i - 1, ".") || t.is(i - 1, "->"))))
      return true;
    if (facts_) {
      auto it = facts_->typed.find(t[i].offset);
      if (it != facts_->typed.end() && it->second.no_return) return true;
    }
    return false;
  }

  // Whether every path through a block leaves: it ends by leaving, or by an if/else whose branches
  // both do.
  bool allPathsLeave(Range r) const {
    if (endsWithExit(r)) return true;
    auto kids = children(r);
    if (kids.empty()) return false;
    Range last = kids.back();
    if (t.is(last.b, "{")) return allPathsLeave(last);
    if (!t.is(last.b, "if") || !t.is(last.b + 1, "(")) return false;
    size_t thenB = t.close(last.b + 1) + 1, thenE = t.statementEnd(thenB);
    if (!t.is(thenE, "else")) return false;
    auto leaves = [&](Range b) { return t.is(b.b, "{") ? allPathsLeave(b) : endsWithExit({b.b, b.e}) || has(b, true, false); };
    return leaves({thenB, thenE}) && leaves({thenE + 1, last.e});
  }

  // Whether a block ends by leaving the loop (its last statement is return/throw/break, or a
  // call that never returns).
  bool endsWithExit(Range r) const {
    auto kids = children(r);
    if (kids.empty()) return false;
    const std::string &s = t[kids.back().b].text;
    return s == "return" || s == "throw" || s == "break" || s == "co_return" || fatal(kids.back().b);
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
          // It goes round when it does not end by leaving, or when a `continue` of the loop in it
          // does (`catch (…) { if (++n < kMax) continue; throw; }`: round while the bound allows).
          h.goesRound = !endsWithExit(h.body) || has(h.body, false, true);
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

  bool isQuery(size_t i) const {
    if (facts_) {
      auto it = facts_->typed.find(t[i].offset);
      if (it != facts_->typed.end() && !it->second.callee.empty()) return it->second.const_method || isQueryName(t[i].text);
    }
    return isQueryName(t[i].text);
  }

  std::vector<size_t> opCalls(Range r) const {
    std::vector<size_t> out;
    for (size_t i = r.b; i + 1 < r.e && i + 1 < t.size(); ++i) {
      if (!isIdent(t[i]) || !t.is(i + 1, "(")) continue;
      if (!isNonOperation(t, i) && !isQuery(i)) {
        out.push_back(i);
        continue;
      }
      // What a wait is given (its delay: MonoDelta::FromMilliseconds(ms), backoff.Next()) is no operation.
      std::string l = lower(t[i].text);
      if (l.find("sleep") != std::string::npos || l.rfind("wait", 0) == 0) i = std::max(i, std::min(t.close(i + 1), r.e) - 1);
    }
    return out;
  }

  std::optional<long long> eval(Range r, const std::map<std::string, long long> &consts) const {
    // What Clang evaluated for exactly this operand (a macro from the compile database, an
    // enumerator, a constant from a header).
    if (facts_ && r.b < r.e && r.e <= t.size()) {
      auto it = facts_->values.find({t[r.b].offset, t[r.e - 1].offset});
      if (it != facts_->values.end()) return it->second;
    }
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
      if (s == ")" || s == "]") { size_t o = t.opening(b - 1); if (o >= b) break; b = o; continue; }
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
    // `++n < k`, `n-- > 0`: a step in the comparison (either direction; the caller knows which).
    if (t.is(i - 1, "++") || t.is(i - 1, "--")) c.preInc = true;
    if (t.is(after, "++") || t.is(after, "--")) { c.postInc = true; ++after; }
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
  static const std::regex re(std::string("deadline|timeout|elapsed|expire|until|now|stop|cancel|shutdown|done|running|budget|"
                                         "remaining|max|limit|attempt|tries|count|") + kRetryWords,
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
      size_t o = t.opening(i - 1);
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

} // namespace

std::string functionName(const Tokens &t, size_t fnBrace) {
  // ... name ( params ) qualifiers {
  size_t j = fnBrace;
  for (int guard = 0; j > 0 && guard < 40; ++guard) {
    --j;
    if (t.is(j, ")")) {
      size_t o = t.opening(j);
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

bool isClockName(std::string_view name) {
  static const std::regex clock("(^|_)(time|clock)(_|$)|gettimeofday|clock_gettime|^now$|monotonic|elapsed|"
                                "gettick|tickcount|(^|_)ticks?(_|$)",
                                std::regex::icase);
  return std::regex_search(name.begin(), name.end(), clock);
}

bool isLocalOperation(std::string_view name) {
  static const std::regex local("^(push|pop|steal|enqueue|dequeue|try_?push|try_?pop|push_locked|get_object|malloc|"
                                "realloc|alloc|uv_|pthread_|sem_|popen|system|read_command_output|close|"
                                // a local process: started, waited for, replaced (a supervisor relaunching it)
                                "v?fork$|posix_spawnp?$|waitpid$|wait[34]$|exec[lv]p?e?$|"
                                "reserve|try_?reserve|"
                                // the local file system
                                "_?w?mkdir|CreateDirectory|CreateDir|create_director|PathExists|DirectoryExists|"
                                "FileExists|WriteSmallFile|rename|unlink|rmdir|fsync|l?stat$|S_IS|GetFileAttributes|"
                                // local sockets and locks: a port or address of this host, an interface
                                // list, a lock file (first contact: jitter said of them was judged FALSE)
                                "socket$|setsockopt$|bind$|listen$|getifaddrs|flock$|lockf$|_locking$|"
                                // a device on this host: libusb, hidapi, ioctl (first contact: USB
                                // and HID retries given a remote service's consequences, judged FALSE)
                                "libusb_|hid_(open|read|write|send|get)|ioctl$|fopen$)",
                                std::regex::icase);
  return std::regex_search(name.begin(), name.end(), local);
}

void setCodePolicyFields(RetryPolicy &p) {
  p.attempts_field = ""; // counted from the code, no field: "3 attempts", total tries incl. the first
  p.attempts_count_retries = false;
  p.per_try_timeout.origin = Origin::NotApplicable;
  p.overall_deadline.origin = Origin::NotApplicable;
  p.budget.origin = Origin::NotApplicable;
  p.adaptive_rate_limit.origin = Origin::NotApplicable;
  p.max_attempts.origin = Origin::Unknown;
}

// Test code repeats and polls on purpose (waiting for a server it started, a flaky expectation),
// and no outage multiplies it: its retry findings are advice, at note severity.
void markTestCode(const ExtractContext &cx, const std::string &function, RetryPolicy &p) {
  static const std::regex testPath(R"((^|/)(tests?|testing|unittests?|benchmarks?|testdata)/|[_-](test|tests|unittest|benchmark)\.[A-Za-z+]+$|(^|/)test_[^/]*$)",
                                   std::regex::icase);
  static const std::regex testFunction(R"(^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|BENCHMARK)$|ForTests?$|^(.*::)?test[A-Z_])");
  if (std::regex_search(cx.src.path().str(), testPath) || std::regex_search(function, testFunction)) {
    p.advisory = true;
    p.used_by = "in test code";
  }
}


// Loops Clang dropped from a body it kept (`for (…; attempt < MAX_TRIES; …)` with MAX_TRIES from
// a missing header makes the whole statement invalid): found from the tokens, in the innermost body.
std::vector<LoopSite> droppedLoops(const Tokens &t, const FileFacts &facts) {
  std::set<size_t> known;
  for (const LoopSite &l : facts.loops) known.insert(l.keyword_offset);
  std::vector<LoopSite> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const std::string &k = t[i].text;
    if (t[i].kind != Tok::Ident || (k != "for" && k != "while" && k != "do") || known.count(t[i].offset)) continue;
    if (k != "do" && !t.is(i + 1, "(")) continue;
    if (k == "while" && i > 0 && t.is(i - 1, "}")) { // the end of a do … while
      size_t o = t.opening(i - 1);
      if (o < t.size() && o > 0 && t.is(o - 1, "do")) continue;
    }
    LoopSite site{t[i].offset, 0, 0};
    size_t best = SIZE_MAX;
    for (auto [b, e] : facts.functions)
      if (b < site.keyword_offset && site.keyword_offset < e && e - b < best) {
        best = e - b;
        site.fn_begin = b;
        site.fn_end = e;
      }
    // A body Clang dropped whole (a destructor or a template member of a class it cannot see):
    // the innermost block around the loop that opens like a function's, `name(…) quals {`.
    if (best == SIZE_MAX)
      for (size_t j = i; j-- > 0;) {
        if (!t.is(j, "{") || t.close(j) < i || t.close(j) >= t.size()) continue;
        size_t open = functionParams(t, j);
        if (open == std::string::npos) continue;
        const bool callOperator = t.is(open - 1, ")") && t.opening(open - 1) > 0 && t.opening(open - 1) < t.size() &&
                                  t[t.opening(open - 1) - 1].text == "operator";
        if (!isIdent(t[open - 1]) && !t.is(open - 1, "]") && !callOperator) continue;
        site.fn_begin = t[j].offset;
        site.fn_end = t[t.close(j)].offset + 1;
        best = 0;
        break;
      }
    if (best != SIZE_MAX) out.push_back(site);
  }
  return out;
}

namespace {

// One loop under analysis: where its parts are, and what each step below learns of it in turn.
// The steps run in the order analyseLoops calls them; each reads what the earlier ones found.
struct Loop {
  Loop(const Tokens &t, const FileFacts &facts, Analyzer &a, ExtractContext &cx, size_t kw)
      : t(t), facts(facts), a(a), cx(cx), lv{t, {}, {}, {}, {}, {}, facts.constants, &facts, {}, false}, kind(t[kw].text), kw(kw) {}
  Loop(const Loop &) = delete; // lv.refersToOp refers to this one
  const Tokens &t;
  const FileFacts &facts;
  Analyzer &a;
  ExtractContext &cx;
  LoopView lv;
  const std::string kind; // for, while, do
  const size_t kw;        // the keyword's token
  Range init, cond, inc;  // for (init; cond; inc); a while's or do's condition is cond
  Body body;
  std::set<std::string> opVars; // variables holding the operation's outcome
  bool trivialCond = false, canExit = false;
  // Which way its branches leave or go round, by what they say of the operation's outcome.
  bool successExit = false, failureExit = false, unknownExit = false;
  bool failureRound = false, successRound = false, unknownRound = false;
  bool endsExit = false;                        // the body's last statement leaves
  bool tryRetry = false, tryRetryUnknown = false; // a try block whose handler goes round
  std::string counter;                          // the attempt counter
  bool attemptNamed = false;                    // … named for attempts
  bool processing = false;                      // each pass works on something else: iteration
  bool countsDown = false;                      // the counter starts at the number of tries and falls
  std::vector<size_t> testedOps;                // the operations its conditions test: the retried one

  bool refersToOp(Range r) const { return lv.refersToOp(r); }
  // The steps, in the order they run.
  bool locateParts(const LoopSite &site);
  void findOperation();
  void readBranches();
  void findCounter();
  void findTestedOperations();
  void findChangingInputs();
  bool isRetryLoop();
  bool walksItems() const;
  bool firstTryBeforeLoop() const;
  RetryPolicy policyOf(std::map<std::string, int> &perFunction);
  void judgeWhatIsRetried(RetryPolicy &p);
  std::string againFlag() const;
  void markConnectionRetries(RetryPolicy &p);
  void countAttempts(RetryPolicy &p);
  void readCatchClauses(RetryPolicy &p);
  void readHttpStatuses(RetryPolicy &p);
  void readGrpcCodes(RetryPolicy &p);
  void findNonIdempotentRequests(RetryPolicy &p);
  void findCounterDerivedVariables();
  void findIdempotencyKeys(RetryPolicy &p);
  void readDelegatedDecision(RetryPolicy &p);
};

// Header, body and the for-clauses; false when the tokens do not make a loop.
bool Loop::locateParts(const LoopSite &site) {
  if (kind != "for" && kind != "while" && kind != "do") return false;

  size_t fb = t.at(site.fn_begin);
  lv.fn = fb == std::string::npos ? Range{0, t.size()} : Range{fb, std::min(t.close(fb) + 1, t.size())};
  // Header and body.
  if (kind == "do") {
    size_t be = t.statementEnd(kw + 1);
    lv.body = {kw + 1, be};
    if (!t.is(be, "while") || !t.is(be + 1, "(")) return false;
    lv.header = {be + 2, t.close(be + 1)};
  } else {
    if (!t.is(kw + 1, "(")) return false;
    lv.header = {kw + 2, t.close(kw + 1)};
    lv.body = {lv.header.e + 1, t.statementEnd(lv.header.e + 1)};
  }
  if (lv.body.e > t.size() || lv.header.e > t.size()) return false;

  // for (init; cond; inc)
  init = Range{lv.header.b, lv.header.b};
  cond = lv.header;
  inc = Range{lv.header.e, lv.header.e};
  if (kind == "for") {
    std::vector<size_t> semis;
    bool rangeFor = false;
    for (size_t i = lv.header.b; i < lv.header.e; ++i) {
      const std::string &s = t[i].text;
      if (s == "(" || s == "[" || s == "{") { i = t.close(i); continue; }
      if (s == ";") semis.push_back(i);
      if (s == ":" ) rangeFor = true;
    }
    if (semis.size() != 2 || (rangeFor && semis.empty())) return false; // range-for: iteration, not retry
    init = {lv.header.b, semis[0]};
    cond = {semis[0] + 1, semis[1]};
    inc = {semis[1] + 1, lv.header.e};
  }

  return true;
}

// The operation: the calls whose outcome decides between leaving and going round.
void Loop::findOperation() {
  auto collectOpVars = [&](Range s) {
    auto calls = a.opCalls(s);
    if (calls.empty()) return;
    for (size_t i = s.b; i + 1 < s.e; ++i)
      if (isIdent(t[i]) && (t[i + 1].text == "=" ) && i < calls.front() && !t.is(i - 1, ".") && !t.is(i - 1, "->"))
        opVars.insert(t[i].text);
  };
  for (Range s : body.stmts) collectOpVars(s);
  // Out-parameters hold the outcome too: connect(ep, ec); if (!ec) …; Call(&status).
  for (Range s : body.stmts)
    for (size_t c : a.opCalls(s))
      for (Range arg : callArgs(t, c + 1)) {
        size_t b = arg.b;
        bool address = t.is(b, "&");
        if (address) ++b;
        if (b + 1 != arg.e || !isIdent(t[b])) continue;
        bool declaredHere = false;
        for (const Write &w : writesOf(t, {lv.body.b, c}, t[b].text)) declaredHere |= w.declared;
        // `ErrorCode ec;` has no initialiser: a declaration is a type name then the variable.
        for (size_t k = lv.body.b + 1; k < c && !declaredHere; ++k)
          declaredHere = t[k].text == t[b].text && isIdent(t[k - 1]) && t.is(k + 1, ";");
        if (address || declaredHere) opVars.insert(t[b].text);
      }
  // Captures the loop, not the references above (they end with this call).
  lv.refersToOp = [this](Range r) {
    if (!a.opCalls(r).empty()) return true;
    for (const auto &v : opVars) if (mentions(t, r, v)) return true;
    return false;
  };

  trivialCond = cond.b >= cond.e || (cond.e == cond.b + 1 && (t[cond.b].text == "true" || t[cond.b].text == "1"));
  canExit = !trivialCond || a.has(lv.body, true, false);
}

// Which way each branch leaves or goes round, by what its condition says of the outcome.
void Loop::readBranches() {
  // ---- Is it a retry? It leaves when the operation succeeded and goes round when it failed. ----
  // A loop that goes round after success too (a consumer, a server, periodic work, a stream) is
  // not, whatever its names; names only decide where the conditions' polarity is unknown.
  auto outcome = [&](Range c) { return conditionOutcome(t, c, lv.refersToOp, &facts); };
  // What a leaving branch hands back says which way it leaves: `return Status(EINVAL, …)`,
  // `return false`, `return -1`, `throw` leave on failure, whatever the condition looked like.
  auto leavesWithError = [&](Range then) {
    static const std::regex errorish("error|err|fail|invalid|status\\s*\\(\\s*e[a-z]", std::regex::icase);
    for (size_t k = then.b; k < then.e; ++k) {
      if (t.is(k, "throw")) return true;
      if (!t.is(k, "return")) continue;
      size_t e = k + 1;
      while (e < then.e && !t.is(e, ";")) ++e;
      if (e == k + 2 && (t[k + 1].text == "false" || t[k + 1].text == "nullptr" || t[k + 1].text == "NULL")) return true;
      if (e == k + 3 && t.is(k + 1, "-") && t[k + 2].kind == Tok::Number) return true;
      std::string ret = t.join(k + 1, e);
      if (std::regex_search(ret, errorish)) return true;
      return false;
    }
    return false;
  };
  // `if (msg) { if (msg->topic == "exit") break; handle(msg); }`: success leaves only now and
  // then; otherwise it falls through and goes round (a consumer).
  bool successFallsThrough = false;
  for (const IfInfo &i : body.ifs) {
    if (!refersToOp(i.cond)) continue;
    Outcome o = outcome(i.cond);
    if (i.exits && !i.continues && o != Outcome::Failure && leavesWithError(i.then)) o = Outcome::Failure;
    if (i.exits && !i.continues && o == Outcome::Success && !a.endsWithExit(i.then)) {
      successFallsThrough = true;
      continue;
    }
    if (i.exits && !i.continues) {
      (o == Outcome::Success ? successExit : o == Outcome::Failure ? failureExit : unknownExit) = true;
    } else if (i.continues) {
      (o == Outcome::Failure ? failureRound : o == Outcome::Success ? successRound : unknownRound) = true;
    }
  }
  if (!trivialCond && refersToOp(cond)) { // while (!connect()), do { … } while (!st.ok())
    const Outcome o = outcome(cond);
    if (o == Outcome::Failure) {
      successExit = failureRound = true;
      lv.body_after_failure = kind != "do"; // a do-body runs before its first test
    }
    else if (o == Outcome::Success) successRound = true; // while (queue.pop(item)): a consumer
    else unknownExit = true;
  }
  // The body's last statement leaves the loop: only a `continue` goes round.
  if (auto kids = a.children(lv.body); !kids.empty()) {
    const std::string &last = t[kids.back().b].text;
    endsExit = last == "return" || last == "break" || last == "co_return";
  }
  if (endsExit && (failureRound || unknownRound)) successExit = true;
  if (successFallsThrough) (endsExit ? successExit : successRound) = true;
  // try { op(); return / break / done = true; } catch (…) { go round }
  for (const TryInfo &ti : body.trys) {
    if (a.opCalls(ti.block).empty()) continue;
    bool round = false;
    for (const Handler &h : ti.handlers) round |= h.goesRound;
    if (!round) continue;
    // It leaves after success: an exit in the try block that no condition guards but one on the
    // operation's result (`if (!is_running()) return;` is a stop flag: success goes round), or a
    // success flag the loop tests, set where the operation succeeded.
    auto underStopFlag = [&](Range st) {
      for (const IfInfo &i : body.ifs)
        if (i.kw == st.b) return !refersToOp(i.cond);
      return false;
    };
    std::function<bool(Range)> leavesFrom = [&](Range block) {
      for (Range st : a.children(block)) {
        if (t.is(st.b, "{")) {
          if (leavesFrom(st)) return true;
        } else if (!underStopFlag(st) && a.has(st, true, false)) {
          return true;
        }
      }
      return false;
    };
    auto setsFlag = [&](const std::string &flag) {
      for (const Write &w : writesOf(t, ti.block, flag))
        for (Range st : a.children(ti.block))
          if (st.b <= w.name_index && w.name_index < st.e)
            if (st.b == w.name_index || (t.is(st.b, "if") && !underStopFlag(st))) return true;
      return false;
    };
    bool leaves = leavesFrom(ti.block) || endsExit;
    for (size_t i = cond.b; i < cond.e && !leaves; ++i)
      if (isIdent(t[i]) && setsFlag(t[i].text)) leaves = true;
    (leaves ? tryRetry : tryRetryUnknown) = true;
  }

}

void Loop::findCounter() {
  // The attempt counter.
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
  // A count down: `uint8_t retry = 3; while (!ok && retry > 0) { retry--; … }`, `while (n-- > 0)`.
  // Only a counter the conditions compare: a length consumed (`left -= n`) is not a count of tries.
  if (counter.empty()) {
    auto findDec = [&](Range r) -> std::string {
      for (size_t i = r.b; i < r.e && i + 1 < t.size(); ++i) {
        if (!isIdent(t[i]) || (i > 0 && (t.is(i - 1, ".") || t.is(i - 1, "->")))) continue;
        if (t.is(i + 1, "--") || (i > 0 && t.is(i - 1, "--")) || (t.is(i + 1, "-=") && t.is(i + 2, "1"))) return t[i].text;
      }
      return "";
    };
    std::string down = findDec(lv.body);
    if (down.empty()) down = findDec(kind == "for" ? inc : cond);
    bool compared = !down.empty() && findCompare(t, cond, down).has_value();
    for (const IfInfo &i : body.ifs) compared |= !down.empty() && i.exits && findCompare(t, i.cond, down).has_value();
    if (compared) {
      counter = down;
      countsDown = true;
    }
  }
  lv.counter = counter;
  static const std::regex attemptName(std::string("attempt|tries|try|") + kRetryWords, std::regex::icase);
  attemptNamed = !counter.empty() && std::regex_search(counter, attemptName);
  // `for (auto itRetry = msgs.begin(); itRetry != msgs.end(); ++itRetry)`: a walk over a range,
  // whatever the iterator is called.
  for (size_t i = cond.b; i + 1 < cond.e; ++i)
    if (isIdent(t[i]) && t.is(i + 1, "(") && (t[i].text == "end" || t[i].text == "cend" || t[i].text == "rend"))
      processing = true;
  // A processing loop walks a collection with its counter, or hands it to the operation
  // (bind(port + i), Send(items[i])): each pass does something else, not the same thing again.
  if (!counter.empty() && !attemptNamed) { // kDelays[attempt] is a backoff table, not a collection
    for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
      if ((t.is(i, "[") && mentions(t, {i + 1, t.close(i)}, counter)) ||
          ((t[i].text == "at" || t[i].text == "get") && t.is(i + 1, "(") && mentions(t, {i + 2, t.close(i + 1)}, counter)))
        processing = true;
    static const std::regex sizeName("(size|length|count|num|end|empty)$", std::regex::icase);
    for (size_t i = cond.b; i < cond.e; ++i) // v.size(), n->count, sk_X_num(gens): not a retry_count variable
      if (isIdent(t[i]) && std::regex_search(t[i].text, sizeName) &&
          (t.is(i + 1, "(") || t.is(i - 1, ".") || t.is(i - 1, "->")))
        processing = true;
  }
  processing |= walksItems();
  // A drain: the condition asks whether a container holds more (`!q.empty()`, `q.size() > 0`) and
  // each pass takes an item out of it (`q.pop()`, `q.pop_front()`, `q.erase(q.begin())`): every
  // pass works on another item, whatever the loop then does with it.
  for (size_t i = cond.b; i + 3 < cond.e && !processing; ++i) {
    if (!isIdent(t[i]) || !(t.is(i + 1, ".") || t.is(i + 1, "->")) || !t.is(i + 3, "(")) continue;
    const std::string &asked = t[i + 2].text;
    if (asked != "empty" && asked != "size" && asked != "length") continue;
    const std::string &container = t[i].text;
    for (size_t k = lv.body.b; k + 3 < lv.body.e && !processing; ++k)
      if (t[k].text == container && !t.is(k - 1, ".") && !t.is(k - 1, "->") && (t.is(k + 1, ".") || t.is(k + 1, "->")) &&
          t.is(k + 3, "(")) {
        static const std::set<std::string_view> takes = {"pop", "pop_front", "pop_back", "erase", "take", "dequeue",
                                                         "extract", "shift", "clear", "Pop", "PopFront", "Take", "Dequeue"};
        processing = takes.count(t[k + 2].text) > 0;
      }
  }
}

// A walk: each pass works on the next item, and the loop goes round while there is one.
// `while ((dup = dups.dequeue()))`, `while ((e = it.next()) != nullptr)`: the condition takes it.
// `while (entry != NULL) { …; entry = map.get_entry(i); }`: the pass moves the pointer on.
// `for (; first != last; ++first)`: an iterator compared with another and advanced.
// A retry goes round while there is none (`while (conn == nullptr) conn = connect();`).
bool Loop::walksItems() const {
  auto isNull = [&](size_t i) { return t[i].text == "NULL" || t[i].text == "nullptr"; };
  // The condition takes the next item.
  for (size_t i = cond.b; i + 2 < cond.e; ++i) {
    if (!t.is(i, "(") || !isIdent(t[i + 1]) || !t.is(i + 2, "=")) continue;
    const size_t c = t.close(i);
    bool call = false;
    for (size_t k = i + 3; k < c && !call; ++k) call = isIdent(t[k]) && t.is(k + 1, "(");
    if (!call) continue;
    if (c + 1 == cond.e) return true;                                   // while ((x = next()))
    if (t.is(c + 1, "!=") && c + 3 == cond.e && isNull(c + 2)) return true; // … != nullptr
  }
  // The condition fills what the pass works on: `while (cursor.get(key, value, MDB_NEXT))`,
  // `while (std::getline(in, line))`, `while (it.next(&item) > 0)`. An argument passed by address,
  // or declared before the loop with no value, is an out-parameter; the pass reads it and never
  // sets it. A failure in the pass skips that item: the next pass fetches another one. (A retry
  // tests its operation or a decision on it: `while (!connect(…))`, `while (ShouldRetry(status))`
  // with `status` set in the pass.)
  if (cond.b < cond.e && !t.is(cond.b, "!")) {
    size_t k = cond.b;
    while (k + 2 < cond.e && isIdent(t[k]) && (t.is(k + 1, ".") || t.is(k + 1, "->") || t.is(k + 1, "::"))) k += 2;
    if (k + 1 < cond.e && isIdent(t[k]) && t.is(k + 1, "(")) {
      const size_t c = t.close(k + 1);
      auto is = [&](size_t i, const char *s) { return i < cond.e && t[i].text == s; };
      const bool whole = c + 1 == cond.e ||
                         (c + 3 == cond.e && ((is(c + 1, ">") && is(c + 2, "0")) || (is(c + 1, "!=") && is(c + 2, "0")) ||
                                              (is(c + 1, "==") && (is(c + 2, "1") || is(c + 2, "true")))));
      auto declaredEmpty = [&](const std::string &v) {
        for (size_t d = lv.fn.b + 1; d + 1 < kw; ++d) {
          if (t[d].text != v || !(isIdent(t[d - 1]) || t.is(d - 1, ">") || t.is(d - 1, "*")) || t.is(d - 1, "return")) continue;
          size_t after = t.is(d + 1, "[") ? t.close(d + 1) + 1 : d + 1;
          if (t.is(after, ";") || t.is(after, ",")) return true;
        }
        return false;
      };
      auto setInPass = [&](const std::string &v) {
        for (size_t i = lv.body.b + 1; i + 1 < lv.body.e; ++i)
          if (t[i].text == v && isIdent(t[i]) && !t.is(i - 1, ".") && !t.is(i - 1, "->") &&
              (t.is(i + 1, "=") || t.is(i + 1, "++") || t.is(i + 1, "--") || t.is(i - 1, "++") || t.is(i - 1, "--") ||
               t.is(i + 1, "+=") || t.is(i + 1, "-=")))
            return true;
        return false;
      };
      if (whole)
        for (Range arg : callArgs(t, k + 1)) {
          std::string v;
          if (arg.e == arg.b + 2 && t.is(arg.b, "&") && isIdent(t[arg.b + 1])) v = t[arg.b + 1].text;
          else if (arg.e == arg.b + 1 && isIdent(t[arg.b]) && declaredEmpty(t[arg.b].text)) v = t[arg.b].text;
          if (!v.empty() && v != counter && mentions(t, lv.body, v) && !setInPass(v)) return true;
        }
    }
  }
  // The pass moves the tested pointer on: `p != NULL`, `p.get() != nullptr`, `p` alone.
  Range v{cond.b, cond.e};
  if (cond.e >= cond.b + 3 && t.is(cond.e - 2, "!=") && isNull(cond.e - 1)) v = {cond.b, cond.e - 2};
  else if (!(cond.e == cond.b + 1 && isIdent(t[cond.b]))) v = {0, 0};
  if (v.e > v.b && isIdent(t[v.b]) && (v.e == v.b + 1 || (v.e == v.b + 5 && t.is(v.b + 1, ".") && t[v.b + 2].text == "get"))) {
    const std::string &p = t[v.b].text;
    for (size_t k = lv.body.b + 1; k + 1 < lv.body.e; ++k)
      if (t[k].text == p && t.is(k + 1, "=") && !t.is(k - 1, ".") && !t.is(k - 1, "->") && (t.is(k - 1, ";") || t.is(k - 1, "{") || t.is(k - 1, "}")))
        return v.e > v.b + 1 || cond.e == v.e + 2; // a smart pointer's get(), or a comparison with null
  }
  // for (; first != last; ++first)
  if (kind == "for" && cond.e == cond.b + 3 && isIdent(t[cond.b]) && t.is(cond.b + 1, "!=") && isIdent(t[cond.b + 2])) {
    const std::string &it = t[cond.b].text;
    for (size_t k = inc.b; k + 1 < inc.e + 1 && k + 1 < t.size(); ++k)
      if ((t.is(k, "++") && t[k + 1].text == it) || (t[k].text == it && t.is(k + 1, "++"))) return true;
  }
  return false;
}

void Loop::findTestedOperations() {
  // The operations the loop's conditions test, directly or through the variables holding
  // their results: the retried operation.
  {
    std::vector<Range> tested{cond};
    for (const IfInfo &i : body.ifs) tested.push_back(i.cond);
    for (Range c : tested)
      for (size_t k : a.opCalls(c)) testedOps.push_back(k);
    for (Range st : body.stmts) {
      bool decides = false;
      for (size_t k = st.b; k < st.e && !decides; ++k)
        if (isIdent(t[k]) && opVars.count(t[k].text))
          for (Range c : tested) decides |= mentions(t, c, t[k].text);
      if (decides)
        for (size_t k : a.opCalls(st)) testedOps.push_back(k);
    }
  }
}

void Loop::findChangingInputs() {
  {
    // Variables that change from pass to pass: the for-increment's, recurrences (x = f(x),
    // x += …, --x), element writes (s[2] = c), and what is computed from them in the body.
    // An operation that takes one of them (as an argument or as its object) is a different
    // operation each time round: iteration, a search, a degraded request, not a retry.
    std::set<std::string> changing, indexed;
    // Statements of nested loops iterate on their own (an iterator walked in an inner loop).
    std::vector<Range> nestedLoops;
    for (size_t i = lv.body.b + 1; i < lv.body.e; ++i)
      if (t[i].text == "for" || t[i].text == "while" || t[i].text == "do") {
        size_t e = t.statementEnd(i);
        nestedLoops.push_back({i, e});
        i = std::max(i, e - 1);
      }
    auto inNested = [&](size_t i) {
      for (Range r : nestedLoops)
        if (r.b <= i && i < r.e) return true;
      return false;
    };
    static const std::regex waitName("delay|backoff|wait|sleep|timeout|deadline|interval|budget|remaining", std::regex::icase);
    // A result of the operation is not an input that changes; a value computed from one that
    // changes is (gen = sk_value(gens, i)), force.
    auto consider = [&](const std::string &v, bool force = false) {
      if (v.empty() || (opVars.count(v) && !force) || (v == counter && attemptNamed) || std::regex_search(v, waitName)) return;
      changing.insert(v);
    };
    for (size_t i = inc.b; i < inc.e; ++i)
      if (isIdent(t[i]) && !t.is(i + 1, "(") && !t.is(i - 1, ".") && !t.is(i - 1, "->")) consider(t[i].text);
    // A value drawn at random in each pass (`port = ports(rng)`, a random local port, a random
    // replica) makes each pass try something else: a search, not the same operation again. Not a
    // key made per attempt (RL404 reads those), which names the same request.
    std::set<std::string> drawn;
    // A random source by its name (rand(), jitter) or by the type it is declared with in the
    // function (`std::uniform_int_distribution<int> ports(…)`, `std::mt19937 rng`).
    auto randomSource = [&](size_t k) {
      if (isRandomSource(t[k].text)) return true;
      for (size_t d = lv.fn.b + 1; d < kw; ++d) {
        if (t[d].text != t[k].text || !(t.is(d + 1, "(") || t.is(d + 1, "{") || t.is(d + 1, ";") || t.is(d + 1, "=")) ||
            !(isIdent(t[d - 1]) || t.is(d - 1, ">")))
          continue;
        for (size_t b = d - 1; b > lv.fn.b && b + 12 > d && !t.is(b, ";") && !t.is(b, "{") && !t.is(b, "}"); --b)
          if (isIdent(t[b]) && isRandomSource(t[b].text)) return true;
      }
      return false;
    };
    for (size_t i = lv.body.b + 1; i + 1 < lv.body.e; ++i) {
      if (!isIdent(t[i]) || !t.is(i + 1, "=") || t.is(i - 1, ".") || t.is(i - 1, "->") || inNested(i) || isKeyName(t[i])) continue;
      size_t e = t.statementEnd(i);
      for (size_t k = i + 2; k < e; ++k)
        if (isIdent(t[k]) && t.is(k + 1, "(") && randomSource(k)) {
          consider(t[i].text, true);
          drawn.insert(t[i].text);
          break;
        }
    }
    if (!counter.empty()) consider(counter);
    for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i) {
      if (inNested(i)) continue;
      if (!isIdent(t[i]) || t.is(i - 1, ".") || t.is(i - 1, "->") || t.is(i - 1, "::")) continue;
      const std::string &n = t[i].text;
      if (t.is(i + 1, "++") || t.is(i + 1, "--") || t.is(i - 1, "++") || t.is(i - 1, "--") || t.is(i + 1, "+=") ||
          t.is(i + 1, "-=") || t.is(i + 1, "*=") || t.is(i + 1, "/="))
        consider(n);
      else if (t.is(i + 1, "[") && t.is(t.close(i + 1) + 1, "=")) consider(n);
      else if (t.is(i + 1, "=") && mentions(t, {i + 2, t.statementEnd(i)}, n)) consider(n);
    }
    // `request = shouldRetry(status, *response);`, `cursor = page.next();`: the next pass sends
    // what this pass's answer computed (a handshake, paging), not the same request again.
    for (size_t i = lv.body.b + 1; i + 1 < lv.body.e; ++i) {
      if (!isIdent(t[i]) || !t.is(i + 1, "=") || t.is(i - 1, ".") || t.is(i - 1, "->") || isIdent(t[i - 1]) ||
          t.is(i - 1, ">") || t.is(i - 1, "*") || t.is(i - 1, "&") || inNested(i))
        continue; // an assignment, not a declaration (a declaration in the loop is made fresh each pass)
      size_t e = t.statementEnd(i);
      bool fromAnswer = false;
      for (const auto &v : opVars)
        if (v != t[i].text && mentions(t, {i + 2, e}, v)) fromAnswer = true;
      // `errCode = res.r0;`: a copy of the answer is the outcome, not a next request made from it,
      // unless the pass gave it to a call before it was copied (`select(lastmq); …; lastmq = mq;`:
      // carried into the next pass's request).
      {
        size_t k = i + 2;
        bool copy = k < e && isIdent(t[k]) && opVars.count(t[k].text);
        for (++k; copy && k + 1 < e; k += 2) copy = (t.is(k, ".") || t.is(k, "->")) && isIdent(t[k + 1]);
        bool usedBefore = false;
        for (size_t c : a.opCalls({lv.body.b, i}))
          usedBefore |= mentions(t, {c + 2, t.close(c + 1)}, t[i].text);
        if (copy && k + 1 >= e && !usedBefore) fromAnswer = false;
      }
      // carried from pass to pass: declared before the loop, not in its body
      bool declaredInBody = false;
      for (size_t k = lv.body.b + 1; k < lv.body.e && !declaredInBody; ++k)
        declaredInBody = t[k].text == t[i].text && isIdent(t[k - 1]) && t[k - 1].text != "return" &&
                         (t.is(k + 1, ";") || t.is(k + 1, "=") || t.is(k + 1, "(") || t.is(k + 1, "{"));
      if (fromAnswer && !declaredInBody) consider(t[i].text, true);
    }
    // `addr.port = port;`: the object whose member is written from a changing value changes too.
    for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i) {
      if (!t.is(i, "=") || i < 3) continue;
      size_t root = i - 1;
      while (root >= 2 && isIdent(t[root]) && (t.is(root - 1, ".") || t.is(root - 1, "->")) && isIdent(t[root - 2])) root -= 2;
      if (root == i - 1 || !isIdent(t[root])) continue;
      size_t e = t.statementEnd(i);
      for (const auto &v : std::set<std::string>(changing))
        if (mentions(t, {i + 1, e}, v)) {
          consider(t[root].text);
          if (drawn.count(v)) drawn.insert(t[root].text);
          break;
        }
    }
    for (int round = 0; round < 3; ++round) // derived: x = g(changing)
      for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i) {
        if (!isIdent(t[i]) || !(t.is(i + 1, "=") || (t.is(i + 1, "(") && i > lv.body.b && isIdent(t[i - 1]) && !t.is(i - 1, "return"))) ||
            changing.count(t[i].text) || t.is(i - 1, ".") || t.is(i - 1, "->"))
          continue;
        if (inNested(i)) continue;
        size_t e = t.statementEnd(i);
        for (const auto &v : std::set<std::string>(changing))
          if (mentions(t, {i + 2, e}, v)) {
            consider(t[i].text, true);
            // g = groups[s % n], c = &sub_done(i)->cntl: an element chosen by the changing value
            for (size_t k = i + 2; k < e; ++k) {
              if (t.is(k, "[") && mentions(t, {k + 1, t.close(k)}, v)) indexed.insert(t[i].text);
              if (t.is(k, "(") && k > 0 && isIdent(t[k - 1]))
                for (Range arg : callArgs(t, k))
                  if (arg.e == arg.b + 1 && t[arg.b].text == v) indexed.insert(t[i].text);
            }
            break;
          }
      }
    // The retried operation: the tested calls, and those in a try block that goes round.
    std::vector<size_t> decisive = testedOps;
    for (const TryInfo &ti : body.trys)
      for (size_t k : a.opCalls(ti.block)) decisive.push_back(k);
    if (decisive.empty()) decisive = a.opCalls(lv.body);
    for (size_t c : decisive) {
      if (inNested(c)) continue;
      Range args{c + 2, t.close(c + 1)};
      size_t recv = c; // the object the call is made on: g->_rq.steal() -> g
      while (recv >= 2 && (t.is(recv - 1, ".") || t.is(recv - 1, "->") || t.is(recv - 1, "::"))) {
        recv -= 2;
        if (t.is(recv, ")") || t.is(recv, "]")) break;
      }
      for (const auto &v : changing)
        if (mentions(t, args, v) || (recv < c && t[recv].text == v && (v == counter || indexed.count(v) || drawn.count(v))))
          processing = true;
    }
  }

}

// Is it a retry? It leaves when the operation succeeded and goes round when it failed, and
// something shows it is no spin.
bool Loop::isRetryLoop() {
  a.walk(lv.body, body);
  findOperation();
  readBranches();
  findCounter();
  findTestedOperations();
  findChangingInputs();

  // Evidence that the repetition is a retry and not a spin: a wait, a counter that bounds it,
  // a caught failure that goes round, or names that say so.
  bool waits = false, named = attemptNamed;
  // `do { … } while (++n < kMax && SLEEP_SEC(delay) == 0)`: a wait written in the condition.
  for (size_t i = cond.b; i + 1 < cond.e && !waits; ++i) {
    if (!isIdent(t[i]) || !t.is(i + 1, "(")) continue;
    std::string l = lower(t[i].text);
    waits = l.find("sleep") != std::string::npos || (l.rfind("wait", 0) == 0 && l != "wait");
  }
  for (size_t i = lv.body.b; i < lv.body.e; ++i) {
    // `throw DL_RETRY_EX(EX_GOT_EOF);` leaves the loop: the retry it asks for is its catcher's.
    if (t.is(i, "throw")) { i = std::max(i, t.statementEnd(i) - 1); continue; }
    if (!isIdent(t[i])) continue;
    std::string l = lower(t[i].text);
    // A timed wait; `cv.wait(lock)` / `sem_wait(&s)` block until notified: no backoff, no retry evidence.
    if ((l.find("sleep") != std::string::npos || (l.rfind("wait", 0) == 0 && l != "wait")) && t.is(i + 1, "(")) waits = true;
    // A name that speaks of retrying or backing off (ShouldRetry(), opts.retry_delay, backoff_ms);
    // "attempt" only as the counter (`moves_attempted_this_round_for_test_` counts something else).
    // Not a value being set (`retry_count = atoi(optarg)` in an option parser).
    if ((speaksOfRetrying(l) || l.find("backoff") != std::string::npos) && l.find("eintr") == std::string::npos &&
        !t.is(i + 1, "="))
      named = true;
  }
  bool counted = false;
  if (!counter.empty()) {
    counted = findCompare(t, cond, counter).has_value();
    for (const IfInfo &i : body.ifs) counted |= i.exits && findCompare(t, i.cond, counter).has_value();
  }

  // `if (p) { …; break; } CHECK(false) << "cannot allocate";`: the way round ends the process.
  bool fatalRound = false;
  for (Range st : a.children(lv.body)) fatalRound |= a.fatal(st.b);
  // A worker: the pass starts by blocking for the next event or item (`_fetch_events()`,
  // `queue.pop()`, `cv.wait_for(…)`); a failure there is handed back, not re-issued.
  // The pass's first statement, or the first one of the try block it opens with (a watcher whose
  // `try { auto events = watch.wait().get(); … } catch (…) { log; }` goes on after a failure).
  bool worker = false;
  if (auto kids = a.children(lv.body); !kids.empty()) {
    static const std::regex next("fetch_?events|^wait$|^wait_?for$|dequeue|^pop|^take$|next_?event|^receive|^recv$|get_?next",
                                 std::regex::icase);
    Range first = kids.front();
    if (t.is(first.b, "try") && t.is(first.b + 1, "{"))
      if (auto inner = a.children({first.b + 1, t.close(first.b + 1) + 1}); !inner.empty()) first = inner.front();
    for (size_t i = first.b; i + 1 < first.e && !worker; ++i)
      worker = isIdent(t[i]) && t.is(i + 1, "(") && std::regex_search(t[i].text, next);
    // `try { io_context.run(); break; } catch (…) { log; }`: an event loop's dispatch, `run()`,
    // `run_one()` or `exec()` on an object with nothing to say. A handler that threw is not run
    // again; the loop dispatches the others (a worker thread's lifetime, not a retry).
    for (size_t i = first.b; i + 2 < first.e && !worker; ++i)
      worker = isIdent(t[i]) && (t[i].text == "run" || t[i].text == "run_one" || t[i].text == "exec" || t[i].text == "loop") &&
               i >= 2 && (t.is(i - 1, ".") || t.is(i - 1, "->")) && t.is(i + 1, "(") && t.is(i + 2, ")");
  }
  bool isRetry = false;
  if (worker) {
    isRetry = false;
  } else if (fatalRound && !failureRound) {
    isRetry = false;
  } else if (failureExit && !failureRound && !unknownRound && !tryRetry && !named) {
    // `if (n < 0) return error;`: failures leave, the loop goes on after success (a stream), or
    // waits and asks again while the answer is "not yet" (a poll): no failure is re-issued.
    isRetry = false;
  } else if (successExit || tryRetry) {
    // A wait, a bound on the count or a handler that goes round is structure; a name that speaks
    // of retrying adds confidence only beside a failure seen going round (names never decide).
    // (`if (ok) return r;` and then round again: what follows the exit runs after a failure.)
    const bool failureGoesRound = failureRound || (successExit && !successRound && !endsExit);
    isRetry = waits || counted || tryRetry || (named && failureGoesRound);
  } else if (!failureExit && !successRound && (unknownExit || unknownRound || tryRetryUnknown)) {
    // Polarity unknown: a loop that says it retries, and waits or counts its tries.
    isRetry = named && (waits || counted);
  }
  // Every path through the body leaves (`if (…) return true; else return false;`): it never
  // goes round, whatever its counter says.
  const bool neverRepeats = !tryRetry && !failureRound && !successRound && !unknownRound && a.allPathsLeave(lv.body);
  return isRetry && canExit && !processing && !neverRepeats;

}

// The retry loop as a policy: where it is, whose it is, what a loop has no field for.
RetryPolicy Loop::policyOf(std::map<std::string, int> &perFunction) {
  RetryPolicy p;
  p.format = std::string(kFormat);
  std::string fname = functionName(t, lv.fn.b);
  int index = perFunction[fname]++;
  p.component = "retry loop in " + (fname.empty() ? std::string("(file scope)") : fname + "()");
  p.anchor = "cpp/" + (fname.empty() ? std::string("-") : fname) + "/loop[" + std::to_string(index) + "]";
  p.where = spanOf(cx, t, kw, kw + 1);
  markTestCode(cx, fname, p);

  p.attempt_variable = counter;
  setCodePolicyFields(p);
  return p;
}

void Loop::judgeWhatIsRetried(RetryPolicy &p) {
  // What is retried decides whose load the retries add to. A local resource (an in-process
  // queue, a syscall that said EAGAIN, a local subprocess, libuv, an allocation) loads nothing
  // remote; an attempt on a newly chosen connection or node is failover. Both are advice.
  if (!p.advisory) {
    static const std::regex again("^E(AGAIN|WOULDBLOCK|INTR|OVERCROWDED)$");
    static const std::regex failover("^_?(fetch|pick|choose|select_?(node|server|host)|next_?(node|host|server|endpoint)|"
                                     "ExtractOrCreate|get_?node|_get_node|acquire_?conn)",
                                     std::regex::icase);
    bool allLocal = !testedOps.empty(), eagain = false, pick = false;
    // POSIX `open` of a path on this host: `::open(path, O_RDWR)`, `open(dev, O_RDONLY)`; a member
    // `conn_->open()` is whatever the class opens.
    auto localCall = [&](size_t k) {
      if (isLocalOperation(t[k].text)) return true;
      if (t[k].text != "open" && t[k].text != "openat" && t[k].text != "_wopen") return false;
      if (t.is(k - 1, ".") || t.is(k - 1, "->")) return false;
      if (t.is(k - 1, "::") && k >= 2 && isIdent(t[k - 2]) && t[k - 2].text != "std") return false;
      for (size_t a = k + 2; a < t.close(k + 1); ++a)
        if (isIdent(t[a]) && t[a].text.rfind("O_", 0) == 0) return true;
      return t.is(k - 1, "::");
    };
    // Calls in a local operation's arguments make what it is given (`WriteFile(path, Script())`).
    std::vector<Range> localArgs;
    for (size_t k : testedOps)
      if (localCall(k)) localArgs.push_back({k + 1, t.close(k + 1)});
    // A test that neither leaves nor goes round (`if (out.empty())` after success) handles the
    // result: it says nothing about what is retried.
    std::vector<Range> handling;
    for (const IfInfo &i : body.ifs)
      if (!i.exits && !i.continues) handling.push_back(i.cond);
    for (size_t k : testedOps) {
      bool skip = false;
      for (Range r : localArgs) skip |= r.b < k && k < r.e;
      for (Range r : handling) skip |= r.b <= k && k < r.e;
      if (!skip) allLocal &= localCall(k);
    }
    for (size_t i = lv.body.b; i < lv.body.e; ++i) {
      if (isIdent(t[i]) && std::regex_match(t[i].text, again)) eagain = true;
      if (isIdent(t[i]) && t.is(i + 1, "(") && std::regex_search(t[i].text, failover)) pick = true;
    }
    for (size_t k : testedOps) {
      std::string l = lower(t[k].text);
      if (l.find("try_lock") != std::string::npos || l.find("trylock") != std::string::npos ||
          l.find("try_acquire") != std::string::npos || l.find("tryacquire") != std::string::npos)
        p.waits_for_lock = true;
    }
    if (allLocal || eagain) {
      p.advisory = true;
      p.used_by = "a local resource: nothing remote takes the retries";
    } else if (pick) {
      p.advisory = true;
      p.used_by = "each attempt goes to a newly chosen connection or node";
    } else if (auto flag = againFlag(); !flag.empty()) {
      p.advisory = true;
      p.used_by = flag;
    }
  }
  // A random sleep before the loop starts each caller at a phase of its own; a failure is seen
  // at that phase and a fixed interval keeps the retry there, so callers do not retry in step.
  if (randomWaitIn(t, {lv.fn.b, kw})) {
    p.crowd = Crowd::OutOfStep;
    p.crowd_why = "a random wait before the loop starts each caller at its own phase, and a schedule without randomness keeps it there";
  }

}

// `Status s = func(deadline, &retry); if (!retry) return s;`: the call's own result decides
// nothing, and the callee answers through an out-parameter whether to call again. A poll for
// completion (`*retry = !resp.done()`) answers the same way as a failure would: the loop cannot
// tell a retry from waiting for a state. Why, for messages, or "".
std::string Loop::againFlag() const {
  std::vector<Range> tested{cond};
  for (const IfInfo &i : body.ifs) tested.push_back(i.cond);
  auto decides = [&](const std::string &v) {
    for (Range c : tested)
      if (mentions(t, c, v)) return true;
    return false;
  };
  for (size_t k : testedOps) {
    // The result is kept: `x = call(…)` or `T x = call(…)`, and never tested.
    if (k < lv.body.b + 2 || !t.is(k - 1, "=") || !isIdent(t[k - 2])) continue;
    const std::string result = t[k - 2].text;
    if (decides(result) || !t.is(k + 1, "(")) continue;
    for (Range arg : callArgs(t, k + 1))
      if (arg.e == arg.b + 2 && t.is(arg.b, "&") && isIdent(t[arg.b + 1]) && decides(t[arg.b + 1].text))
        return "the result " + result + " of " + t[k].text + "() decides nothing: the callee answers through " +
               t[arg.b + 1].text + " whether to call again, as a poll for completion does";
  }
  return "";
}

// A loop that re-establishes a connection (`cli.reconnect()`, `socket.connect(ep, ec)`, tested by
// `is_connected()` or the call itself) retries no request: each attempt costs the server one
// connection attempt, and nothing a caller asked for is sent twice (Condition::before_send, as
// for HAProxy's conn-failure). Counts are then advice (RL203, RL104); the wait rules still apply.
void Loop::markConnectionRetries(RetryPolicy &p) {
  static const std::regex connect("^(async_?)?(re)?connect(_?to)?$|^try_?reconnect$|^open_?connection$", std::regex::icase);
  static const std::regex state("^(is_?)?connected$", std::regex::icase);
  bool connects = false, other = false;
  auto judge = [&](size_t k) {
    if (std::regex_match(t[k].text, connect)) connects = true;
    else if (!std::regex_match(t[k].text, state)) other = true;
  };
  for (size_t k : testedOps) judge(k);
  for (Range st : body.stmts)
    for (size_t k : a.opCalls(st)) judge(k);
  if (!connects || other) return;
  for (Condition &c : p.retry_on) c.before_send = true;
  if (p.retry_on.empty()) {
    Condition c;
    c.kind = Condition::Kind::Transport;
    c.text = "a failed connection";
    c.where = p.where;
    c.before_send = true;
    p.retry_on.push_back(std::move(c));
  }
}

// `int code = http.GET(); while (code != 200 && tries <= 5) { …; code = http.GET(); ++tries; }`:
// the first attempt is made before the loop, so each pass is a retry. The condition tests a
// variable that the pass sets from a call, and the same call set it before the loop.
bool Loop::firstTryBeforeLoop() const {
  auto callee = [&](Range v) {
    std::string s;
    for (size_t k = v.b; k < v.e && !t.is(k, "("); ++k) s += t[k].text;
    return v.e > v.b && t.is(v.b, "(") ? std::string() : s;
  };
  // `data = send(cmd, &response);` before the loop and in it, `if (response == ok) break;`: the
  // tested answer is an out-parameter of the same call.
  auto givesAddressOf = [&](size_t c, const std::string &v) {
    const size_t close = t.close(c + 1);
    for (size_t k = c + 2; k + 1 < close; ++k)
      if (t.is(k, "&") && t[k + 1].text == v && (t.is(k + 2, ",") || t.is(k + 2, ")"))) return true;
    return false;
  };
  std::vector<Range> tested{cond};
  for (const IfInfo &i : body.ifs)
    if (i.exits) tested.push_back(i.cond);
  for (Range r : tested)
    for (size_t i = r.b; i < r.e; ++i) {
      if (!isIdent(t[i]) || t.is(i + 1, "(") || t.is(i - 1, ".") || t.is(i - 1, "->") || t[i].text == counter) continue;
      for (const Write &in : writesOf(t, lv.body, t[i].text)) {
        if (in.op != "=" || !a.opCalls(in.value).size()) continue;
        const std::string op = callee(in.value);
        for (const Write &before : writesOf(t, {lv.fn.b, kw}, t[i].text))
          if (before.op == "=" && !op.empty() && callee(before.value) == op) return true;
      }
      // Only when that call is all the pass does: beside another operation (`Rebalance();
      // Distribution(&totals);`) the call before the loop is a reading of state, not a first try.
      const auto passCalls = a.opCalls(lv.body);
      for (size_t c : passCalls) {
        if (!givesAddressOf(c, t[i].text)) continue;
        bool alone = true;
        for (size_t o : passCalls) alone &= t[o].text == t[c].text;
        if (!alone) continue;
        for (size_t b : a.opCalls({lv.fn.b, kw}))
          if (t[b].text == t[c].text && givesAddressOf(b, t[i].text)) return true;
      }
    }
  return false;
}

void Loop::countAttempts(RetryPolicy &p) {
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
        if (countsDown) { // from the start down to the bound
          if (c->op == ">" || c->op == "!=") n = *start - *bound;
          else if (c->op == ">=") n = *start - *bound + 1;
        } else if (c->op == "<" || c->op == "!=") n = *bound - *start;
        else if (c->op == "<=") n = *bound - *start + 1;
        if (n >= 0 && (c->preInc || c->postInc)) n += (kind == "do" ? 1 : 0) + (c->preInc ? -1 : 0);
        if (n >= 1 && kind != "do" && firstTryBeforeLoop()) n += 1; // each pass is a retry
        if (n >= 1 && n <= 1000000)
          p.max_attempts = written(std::optional<int>(static_cast<int>(n)), spanOf(cx, t, c->bound.b, c->bound.e));
      }
    } else {
      // `catch (…) { if (++attempts < kMax) continue; throw; }`: the way round, not the way out,
      // is bounded. Attempts: the values the test lets round, and the first try.
      for (const IfInfo &i : body.ifs) {
        if (!i.continues || i.exits || countsDown) continue;
        auto c = findCompare(t, i.cond, counter);
        if (!c || (c->op != "<" && c->op != "<=" && c->op != "!=")) continue; // `tries != kTries`: round below it
        bounded = true;
        auto bound = a.eval(c->bound, facts.constants);
        if (!bound || !start) break;
        long long n = *bound - *start + (c->op == "<=" ? 1 : 0);
        bool incBefore = c->preInc;
        for (size_t k = lv.body.b; k < i.kw && !incBefore; ++k)
          if (t[k].text == counter && (t.is(k + 1, "++") || t.is(k - 1, "++") || t.is(k + 1, "+="))) incBefore = true;
        if (c->postInc || !incBefore) n += 1;
        if (n >= 1 && n <= 1000000)
          p.max_attempts = written(std::optional<int>(static_cast<int>(n)), spanOf(cx, t, c->bound.b, c->bound.e));
        break;
      }
      for (const IfInfo &i : body.ifs) {
        if (bounded) break;
        if (!i.exits) continue;
        auto c = findCompare(t, i.cond, counter);
        if (!c) continue;
        bounded = true;
        auto bound = a.eval(c->bound, facts.constants);
        if (!bound || !start) break;
        long long n = -1;
        if (countsDown) {
          if (c->op == "<=" || c->op == "==") n = *start - *bound;
          else if (c->op == "<") n = *start - *bound + 1;
        } else if (c->op == ">=" || c->op == "==") n = *bound - *start;
        else if (c->op == ">") n = *bound - *start + 1;
        if (n < 0) break;
        bool incBefore = c->preInc;
        const char *step = countsDown ? "--" : "++", *stepBy = countsDown ? "-=" : "+=";
        for (size_t k = lv.body.b; k < i.kw && !incBefore; ++k)
          if (t[k].text == counter && (t.is(k + 1, step) || t.is(k - 1, step) || t.is(k + 1, stepBy))) incBefore = true;
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
    // A limit by name (deadline, max_retries) or a clock read compared (`gettick_ms() >= end`).
    auto scan = [&](Range r) {
      for (size_t i = r.b; i < r.e; ++i)
        if (isIdent(t[i]) && (isLimitName(t[i].text) || (t.is(i + 1, "(") && isClockName(t[i].text)))) limited = true;
    };
    if (!trivialCond) {
      if (kind == "for" || !refersToOp(cond)) limited = true;
      scan(cond);
    }
    for (const IfInfo &i : body.ifs) {
      if (!i.exits && !i.continues) continue;
      // `if (Now() < deadline) continue;` bounds the way round as `if (Now() > deadline) break;` does.
      scan(i.cond);
      if (!i.exits) continue;
      // `request = shouldRetry(status); if (request == nullptr) throw …;`: a policy decides.
      for (size_t k = i.cond.b; k < i.cond.e; ++k)
        if (isIdent(t[k]) && !t.is(k + 1, "("))
          for (const Write &w : writesOf(t, lv.body, t[k].text)) scan(w.value);
    }
    // `if (++retries > max_retry) throw …;` anywhere in the body (a nested loop included).
    for (size_t i = lv.body.b; i + 1 < lv.body.e && !limited; ++i) {
      if (!t.is(i, "if") || !t.is(i + 1, "(")) continue;
      Range c{i + 2, t.close(i + 1)};
      bool counts = false;
      for (size_t k = c.b; k < c.e; ++k)
        counts |= (t.is(k, "++") || t.is(k + 1, "++")) && isIdent(t[k + (t.is(k, "++") ? 1 : 0)]);
      for (size_t k = c.b; k < c.e && !counts; ++k) // `++retries;` earlier, `if (retries > max)` here
        if (isIdent(t[k]))
          for (size_t m = lv.body.b; m + 1 < lv.body.e && !counts; ++m)
            counts = t[m].text == t[k].text && (t.is(m + 1, "++") || t.is(m - 1, "++")) && !t.is(m - 1, ".");
      bool compares = false;
      for (size_t k = c.b; k < c.e; ++k) compares |= t.is(k, ">") || t.is(k, ">=") || t.is(k, "==");
      size_t te = t.statementEnd(c.e + 1);
      bool leaves = false;
      for (size_t k = c.e + 1; k < te; ++k) leaves |= t.is(k, "throw") || t.is(k, "return");
      if (counts && compares && leaves) limited = true;
    }
    // ASSERT_LT(tries, kMax) returns from a test; CHECK_LT(tries, kMax) aborts.
    if (!counter.empty())
      for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
        if (isIdent(t[i]) && t.is(i + 1, "(") &&
            (t[i].text.rfind("ASSERT_", 0) == 0 || t[i].text.rfind("CHECK_", 0) == 0 || t[i].text == "CHECK") &&
            mentions(t, {i + 2, t.close(i + 1)}, counter))
          limited = true;
    if (!limited) {
      Span w = trivialCond ? (cond.b < cond.e ? spanOf(cx, t, cond.b, cond.e) : spanOf(cx, t, kw, kw + 1))
                           : spanOf(cx, t, cond.b, cond.e);
      p.max_attempts = written(std::optional<int>(), w);
    }
  }
}

void Loop::readCatchClauses(RetryPolicy &p) {
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
      // `catch (...) { handle_error(std::current_exception(), …); }`: the exception is handed to
      // a classifier, which decides what goes round (it may end the loop through its result).
      auto classifier = [&]() -> std::string {
        for (size_t i = h.body.b; i + 1 < h.body.e; ++i)
          if (isIdent(t[i]) && t.is(i + 1, "(") && !isNonOperation(t, i))
            for (size_t k = i + 2; k < t.close(i + 1); ++k)
              if (t[k].text == "current_exception" && t.is(k + 1, "(")) return t[i].text;
        return "";
      };
      if (c.catch_all)
        if (std::string f = classifier(); !f.empty())
          c.catch_all_why = "the handler hands the exception to " + f + "(), which decides what is retried";
      p.retry_on.push_back(std::move(c));
    }
  }
}

void Loop::readHttpStatuses(RetryPolicy &p) {
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

}

void Loop::readGrpcCodes(RetryPolicy &p) {
  // gRPC status codes: `if (st.error_code() == grpc::StatusCode::PERMISSION_DENIED) continue;`
  // retries that code; `if (code == UNAVAILABLE) { sleep; continue; }` retries a transient one.
  // A branch that goes round (or does not leave) on `== CODE` retries CODE; a leaving branch
  // on `!= CODE`, or a loop condition `while (code == CODE)`, retries CODE too.
  {
    auto grpcCode = [&](Range r, bool &equal) -> std::optional<std::pair<int, size_t>> {
      for (size_t i = r.b; i < r.e; ++i) {
        if (!isIdent(t[i])) continue;
        auto code = grpcCodeFromName(t[i].text);
        if (!code || *code == 0) continue;
        // only as a qualified enumerator or compared with a status/code value
        bool qualified = t.is(i - 1, "::") && (t[i - 2].text == "StatusCode" || t[i - 2].text == "grpc");
        size_t rel = SIZE_MAX;
        for (size_t k = r.b; k < r.e; ++k)
          if (t.is(k, "==") || t.is(k, "!=")) { rel = k; break; }
        if (rel == SIZE_MAX) continue;
        bool statusSide = false;
        for (size_t k = r.b; k < rel; ++k) {
          std::string l = lower(t[k].text);
          statusSide |= l.find("code") != std::string::npos || l.find("status") != std::string::npos;
        }
        if (!qualified && !statusSide) continue;
        equal = t.is(rel, "==");
        return std::pair{*code, i};
      }
      return std::nullopt;
    };
    auto addGrpc = [&](int code, size_t at, Range cond) {
      Condition c;
      c.kind = Condition::Kind::GrpcStatus;
      c.grpc_code = code;
      c.text = t.join(cond.b, cond.e);
      c.where = spanOf(cx, t, at, at + 1);
      c.may_have_been_processed = grpcCodeMayHaveBeenProcessed(code);
      if (c.may_have_been_processed) c.why_processed = grpcCodeName(code) + " can follow a call the server already acted on";
      p.retry_on.push_back(std::move(c));
    };
    for (const IfInfo &i : body.ifs) {
      // split `a || b` conditions into their parts
      std::vector<Range> parts;
      size_t b = i.cond.b;
      for (size_t k = i.cond.b; k <= i.cond.e; ++k) {
        if (k < i.cond.e && (t.is(k, "(") || t.is(k, "["))) { k = t.close(k); continue; }
        if (k == i.cond.e || t.is(k, "||")) { parts.push_back({b, k}); b = k + 1; }
      }
      for (Range part : parts) {
        bool equal = false;
        auto got = grpcCode(part, equal);
        if (!got) continue;
        const bool goesRound = i.continues || !i.exits;
        if ((equal && goesRound && (i.continues || !endsExit)) || (!equal && i.exits && !i.continues))
          addGrpc(got->first, got->second, part);
      }
    }
    if (!trivialCond) {
      bool equal = false;
      if (auto got = grpcCode(cond, equal); got && equal) addGrpc(got->first, got->second, cond);
    }
  }

}

void Loop::findNonIdempotentRequests(RetryPolicy &p) {
  // Non-idempotent requests sent by the loop (RL403): POST or PATCH through cpr, libcurl, Beast,
  // cpprestsdk, or a method string, in the loop or where the request is built before it.
  {
    auto methodAt = [&](size_t i) -> std::optional<std::string> {
      const std::string &k = t[i].text;
      if (t[i].kind == Tok::String) {
        if (k == "\"POST\"" || k == "\"PATCH\"") return k.substr(1, k.size() - 2);
        return std::nullopt;
      }
      if (!isIdent(t[i])) return std::nullopt;
      if ((k == "Post" || k == "Patch" || k == "PostAsync" || k == "PatchAsync") && t.is(i - 1, "::") && t[i - 2].text == "cpr")
        return k.rfind("Post", 0) == 0 ? "POST" : "PATCH";
      if (k == "CURLOPT_POST" || k == "CURLOPT_POSTFIELDS" || k == "CURLOPT_COPYPOSTFIELDS") return std::string("POST");
      if ((k == "post" || k == "patch") && t.is(i - 1, "::") && t[i - 2].text == "verb") return k == "post" ? "POST" : "PATCH";
      if ((k == "POST" || k == "PATCH") && t.is(i - 1, "::") && (t[i - 2].text == "methods" || t[i - 2].text == "verb" ||
                                                                t[i - 2].text == "HttpMethod" || t[i - 2].text == "Method"))
        return k;
      return std::nullopt;
    };
    for (size_t i = lv.fn.b; i < lv.body.e && p.methods.empty(); ++i)
      if (auto m = methodAt(i)) p.methods.push_back(written(*m, spanOf(cx, t, i, i + 1)));
    if (!p.methods.empty()) {
      // What sends it again: 5xx statuses, exceptions (a timeout), or any failed call.
      bool statusRetry = false;
      for (const IfInfo &i : body.ifs)
        if (auto st = statusSet(t, i.cond)) {
          bool round = i.continues || !i.exits;
          for (int code = 500; code < 600 && round; ++code)
            if ((*st)[code] && httpCodeMayHaveBeenProcessed(code)) {
              Condition c;
              c.kind = Condition::Kind::HttpStatus;
              c.text = t.join(i.cond.b, i.cond.e);
              c.where = spanOf(cx, t, i.cond.b, i.cond.e);
              c.http_lo = 500;
              c.http_hi = 599;
              c.may_have_been_processed = true;
              c.why_processed = "a 5xx can come after the server acted on the request";
              p.retry_on.push_back(std::move(c));
              statusRetry = true;
              break;
            }
        }
      bool caught = false;
      if (!statusRetry)
        for (Condition &c : p.retry_on)
          if (c.kind == Condition::Kind::ErrorName) {
            caught = true;
            c.may_have_been_processed = true;
            c.why_processed = "an exception from the call (a timeout, a dropped connection) can come after the server acted";
          }
      if (!statusRetry && !caught && p.retry_on.empty()) { // `if (resp.ok()) return; sleep;`: every failure
        Condition c;
        c.kind = Condition::Kind::Transport;
        c.text = "any failure";
        c.where = p.where;
        c.may_have_been_processed = true;
        c.why_processed = "a failed call (a timeout, a dropped connection) may already have been acted on";
        p.retry_on.push_back(std::move(c));
      }
    }
  }

}

void Loop::findCounterDerivedVariables() {
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

}

void Loop::findIdempotencyKeys(RetryPolicy &p) {
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

}

} // namespace

// The failure handed to a strategy that decides: `auto r = co_await strategy_.onError(&txn,
// result.error()); CO_RETURN_ON_ERROR(r);`, `if (!policy->ShouldRetry(err, attempt)) return err;`.
// The call takes the operation's outcome and its answer can end the loop: the bound, and often the
// wait (a strategy backs off before it answers), are the strategy's. How many attempts and whether
// they wait are then not known here: not "unbounded", not "no wait".
void Loop::readDelegatedDecision(RetryPolicy &p) {
  auto delegated = [&] {
    if (p.max_attempts.origin == Origin::Written && !p.max_attempts.value) p.max_attempts.origin = Origin::Unknown;
    if (p.backoff.growth.known() && p.backoff.growth.value == Growth::NoWait) {
      p.backoff.growth.origin = Origin::Unknown;
      p.backoff.jitter.origin = p.backoff.cap.origin = Origin::Unknown;
    }
  };
  // `catch (Error &e) { wait(tr.onError(e)); }`, `co_await backoff.onError(e);`: the handler gives
  // the caught failure to a call and waits for its answer. The wait before the next pass, and the
  // rethrow of a failure not worth retrying, are that call's; neither is "none" here.
  for (const TryInfo &ti : body.trys)
    for (const Handler &h : ti.handlers) {
      if (!h.goesRound) continue;
      // The caught failure, and the variables of the pass it is copied into (`err = e;`, awaited
      // after the try block).
      std::set<std::string> caught;
      for (size_t k = h.decl.b; k < h.decl.e; ++k)
        if (isIdent(t[k]) && k + 1 == h.decl.e) caught.insert(t[k].text);
      if (caught.empty() || h.decl.e <= h.decl.b + 1) continue;
      for (size_t k = h.body.b + 1; k + 3 < h.body.e; ++k)
        if (isIdent(t[k]) && t.is(k + 1, "=") && caught.count(t[k + 2].text) && t.is(k + 3, ";")) caught.insert(t[k].text);
      for (size_t k = lv.body.b + 1; k + 1 < lv.body.e; ++k) {
        if (!isIdent(t[k]) || !t.is(k + 1, "(")) continue;
        bool given = false;
        for (Range arg : callArgs(t, k + 1)) given |= arg.e == arg.b + 1 && caught.count(t[arg.b].text);
        if (!given) continue;
        const size_t stB = [&] { size_t b = k; while (b > lv.body.b + 1 && !t.is(b - 1, ";") && !t.is(b - 1, "{") && !t.is(b - 1, "}")) --b; return b; }();
        const size_t close = t.close(k + 1);
        const bool awaited = t.is(stB, "co_await") || ((t[stB].text == "wait" || t[stB].text == "await") && t.is(stB + 1, "(")) ||
                             ((t.is(close + 1, ".") || t.is(close + 1, "->")) && (t[close + 2].text == "get" || t[close + 2].text == "wait"));
        if (awaited && k > stB) return delegated();
      }
    }
  for (Range st : body.stmts) {
    // v = call(…outcome…)
    size_t eq = SIZE_MAX;
    for (size_t k = st.b; k + 1 < st.e && eq == SIZE_MAX; ++k)
      if (t.is(k, "=") && k > st.b && isIdent(t[k - 1])) eq = k;
    // It takes an outcome an earlier statement of the pass produced (not an out-parameter of
    // its own: that is the operation itself).
    bool takesOutcome = false;
    size_t from = eq == SIZE_MAX ? st.b : eq + 1;
    for (size_t k = from; k + 1 < st.e && !takesOutcome; ++k) {
      if (!isIdent(t[k]) || !t.is(k + 1, "(")) continue;
      for (Range arg : callArgs(t, k + 1)) {
        if (t.is(arg.b, "&")) continue;
        for (const auto &v : opVars)
          if (mentions(t, arg, v) && !writesOf(t, {lv.body.b, st.b}, v).empty()) takesOutcome = true;
      }
    }
    if (!takesOutcome) continue;
    const std::string answer = eq == SIZE_MAX ? "" : t[eq - 1].text;
    // … and its answer leaves the loop: a RETURN_ON_ERROR-style macro given it, or a branch on it that exits.
    bool decides = false;
    static const std::regex leavingMacro("RETURN|RETURN_IF|_OR_RETURN|TRY$", std::regex::icase);
    for (Range other : body.stmts) {
      if (other.b <= st.b || answer.empty()) continue;
      if (isIdent(t[other.b]) && t.is(other.b + 1, "(") && std::regex_search(t[other.b].text, leavingMacro) &&
          mentions(t, {other.b + 2, t.close(other.b + 1)}, answer))
        decides = true;
    }
    for (const IfInfo &i : body.ifs)
      if (i.exits && i.kw > st.b && !answer.empty() && mentions(t, i.cond, answer)) decides = true;
    if (!decides) continue;
    return delegated();
  }
}

void analyseLoops(const Tokens &t, const FileFacts &given, ExtractContext &cx) {
  FileFacts facts = given;
  for (const LoopSite &l : droppedLoops(t, given)) facts.loops.push_back(l);
  std::sort(facts.loops.begin(), facts.loops.end(),
            [](const LoopSite &a, const LoopSite &b) { return a.keyword_offset < b.keyword_offset; });
  Analyzer a(t, &facts);
  std::map<std::string, int> perFunction;
  std::set<size_t> seen;
  for (const LoopSite &site : facts.loops) {
    size_t kw = t.at(site.keyword_offset);
    if (kw == std::string::npos || !seen.insert(kw).second) continue;
    Loop L(t, facts, a, cx, kw);
    if (!L.locateParts(site) || !L.isRetryLoop()) continue;
    RetryPolicy p = L.policyOf(perFunction);
    L.judgeWhatIsRetried(p);
    L.countAttempts(p);
    L.readCatchClauses(p);
    L.readHttpStatuses(p);
    L.readGrpcCodes(p);
    L.markConnectionRetries(p);
    L.findNonIdempotentRequests(p);
    L.findCounterDerivedVariables();
    L.findIdempotencyKeys(p);
    analyseWait(L.lv, cx, p);
    L.readDelegatedDecision(p);
    findLogs(L.lv, cx, p);
    cx.model.policies.push_back(std::move(p));
  }
}

} // namespace retrylint::cpp
