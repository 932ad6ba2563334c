// Log calls inside a retry loop (and its catch blocks), read from tokens so that log macros from
// headers that are absent (glog's LOG(WARNING) << …) are still seen.
#include <algorithm>
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

bool isLevel(std::string_view n) {
  static const std::set<std::string_view> s = {"trace", "debug", "info", "warn", "warning", "error", "critical",
                                               "fatal", "log"};
  return s.count(n) > 0;
}

// Macros named like logging: LOG, VLOG, PLOG, LOG_WARN, APP_LOG, SPDLOG_WARN, ABSL_LOG …
bool isLogMacro(std::string_view n) {
  static const std::regex re("^[A-Z0-9_]*LOG[A-Z0-9_]*$");
  return std::regex_match(n.begin(), n.end(), re);
}

bool isPrint(std::string_view n) {
  static const std::set<std::string_view> s = {"printf", "fprintf", "puts", "fputs", "perror", "syslog"};
  return s.count(n) > 0;
}

// Whether the statements of r end by leaving the loop: the last one is return, throw or break.
bool endsByLeaving(const Tokens &t, Range r) {
  auto stmts = statementsOf(t, r);
  if (stmts.empty() || (t.is(r.b, "{") && stmts.back().b == r.b)) return false;
  const std::string &k = t[stmts.back().b].text;
  return k == "return" || k == "throw" || k == "break" || k == "co_return";
}

// Where a log statement stands in the loop body: only a log on the way from a failed attempt
// to the next one is an attempt log. Logs before the operation (announcing an attempt), on the
// success path, in a branch that leaves the loop (success or giving up), and inside nested loops
// and lambdas (they belong to them) are not.
class Paths {
public:
  Paths(const LoopView &lv) : lv_(lv), t_(lv.t) { walkInto(lv.body, lv.body_after_failure ? State::Failure : State::Plain); }
  bool onFailurePath(size_t i) const {
    for (const auto &[r, st] : regions_)
      if (r.b <= i && i < r.e) return st == State::Failure;
    return false;
  }
  size_t firstOp() const { return firstOp_; }

private:
  enum class State { Plain, Failure, Excluded };
  void walkInto(Range r, State st) {
    if (r.b >= r.e) return;
    const Tokens &t = t_;
    const std::vector<Range> stmts = statementsOf(t, r);
    // A block whose last statement leaves the loop: what comes before it leaves too, unless it
    // goes round with a `continue` of its own.
    const bool leaves = !stmts.empty() && endsByLeaving(t, {r.b, r.e}) && t.is(r.b, "{");
    for (Range s : stmts) {
      const std::string &k = t[s.b].text;
      if (leaves && !continues(s)) {
        regions_.push_back({s, State::Excluded});
        continue;
      }
      if (k == "{") { walkInto(s, st); continue; }
      if (k == "for" || k == "while" || k == "do") { add(s, State::Excluded); continue; }
      if (k == "if") {
        size_t j = s.b + 1;
        if (t.is(j, "constexpr")) ++j;
        if (!t.is(j, "(")) { add(s, st); continue; }
        Range cond{j + 1, t.close(j)};
        size_t thenB = cond.e + 1, thenE = std::min(t.statementEnd(thenB), s.e);
        Range then{thenB, thenE}, other{thenE, thenE};
        if (t.is(thenE, "else")) other = {thenE + 1, s.e};
        Outcome o = lv_.refersToOp && lv_.refersToOp(cond) ? conditionOutcome(t, cond, lv_.refersToOp, lv_.facts) : Outcome::Unknown;
        State thenSt = o == Outcome::Success ? State::Excluded : o == Outcome::Failure ? State::Failure : st;
        // `if (errors == kThreshold) LOG(…)`, `if (attempt >= max)`: the give-up or escalation branch.
        if (!lv_.counter.empty() && mentions(t, cond, lv_.counter)) {
          for (size_t k = cond.b; k < cond.e; ++k)
            if (t.is(k, "==") || t.is(k, ">=") || t.is(k, ">")) thenSt = State::Excluded;
        }
        State elseSt = o == Outcome::Success ? State::Failure : o == Outcome::Failure ? State::Excluded : st;
        if (st == State::Excluded) thenSt = elseSt = State::Excluded;
        if (endsByLeaving(t, then)) thenSt = State::Excluded;
        if (other.b < other.e && endsByLeaving(t, other)) elseSt = State::Excluded;
        add(cond, st);
        walkInto(then, thenSt);
        if (other.b < other.e) walkInto(other, elseSt);
        continue;
      }
      if (k == "try") {
        size_t be = t.statementEnd(s.b + 1);
        walkInto({s.b + 1, be}, st);
        size_t j = be;
        while (t.is(j, "catch") && t.is(j + 1, "(")) {
          size_t hb = t.close(j + 1) + 1, he = t.statementEnd(hb);
          walkInto({hb, he}, st == State::Excluded || endsByLeaving(t, {hb, he}) ? State::Excluded : State::Failure);
          j = he;
        }
        continue;
      }
      add(s, st);
    }
  }
  // Whether r holds a `continue` of this loop (nested loops and lambdas have their own).
  bool continues(Range r) const {
    const Tokens &t = t_;
    for (size_t i = r.b; i < r.e && i < t.size(); ++i) {
      const std::string &k = t[i].text;
      if (k == "for" || k == "while" || k == "do" || k == "switch") { i = std::max(i, t.statementEnd(i) - 1); continue; }
      if (k == "[") {
        size_t j = t.close(i) + 1;
        if (t.is(j, "(")) j = t.close(j) + 1;
        while (j < r.e && !t.is(j, "{") && !t.is(j, ";") && (isIdent(t[j]) || t.is(j, "->"))) ++j;
        if (t.is(j, "{")) i = t.close(j);
        continue;
      }
      if (k == "continue") return true;
    }
    return false;
  }
  // A plain statement: after the operation it is on every path, failed attempts included.
  void add(Range s, State st) {
    const Tokens &t = t_;
    if (st == State::Plain && lv_.refersToOp) {
      bool hasOp = false;
      for (size_t i = s.b; i + 1 < s.e && !hasOp; ++i) hasOp = isIdent(t[i]) && t.is(i + 1, "(") && lv_.refersToOp({i, i + 2});
      if (hasOp && firstOp_ == SIZE_MAX) firstOp_ = s.b;
    }
    // Lambdas inside the statement are callbacks: their logs are not this loop's.
    for (size_t i = s.b; i < s.e; ++i) {
      if (!t.is(i, "[")) continue;
      size_t j = t.close(i) + 1;
      if (t.is(j, "(")) j = t.close(j) + 1;
      while (j < s.e && (t[j].text == "mutable" || t[j].text == "noexcept" || t[j].text == "->" || isIdent(t[j]))) ++j;
      if (t.is(j, "{") && j < s.e) {
        regions_.insert(regions_.begin(), {Range{j, t.close(j) + 1}, State::Excluded});
        i = t.close(j);
      }
    }
    regions_.push_back({s, st == State::Plain ? (firstOp_ != SIZE_MAX && s.b > firstOp_ ? State::Failure : State::Excluded) : st});
  }

  const LoopView &lv_;
  const Tokens &t_;
  std::vector<std::pair<Range, State>> regions_;
  size_t firstOp_ = SIZE_MAX;
};

} // namespace

void findLogs(const LoopView &lv, ExtractContext &cx, RetryPolicy &p) {
  const Tokens &t = lv.t;
  static const std::regex attemptish(std::string("attempt|tries|") + kRetryWords, std::regex::icase);
  Paths paths(lv);
  for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i) {
    if (!isIdent(t[i])) continue;
    if (!paths.onFailurePath(i)) continue;
    const std::string &n = t[i].text;
    bool qualifiedBefore = i > 0 && (t.is(i - 1, "::") || t.is(i - 1, ".") || t.is(i - 1, "->"));
    std::string call;
    size_t head = i;
    if (isLogMacro(n) && t.is(i + 1, "(") && !qualifiedBefore) {
      size_t c = t.close(i + 1);
      call = c - (i + 2) <= 3 ? t.join(i, c + 1) : n;
    } else if (isPrint(n) && t.is(i + 1, "(") && (!qualifiedBefore || (i >= 2 && t[i - 2].text == "std"))) {
      call = n;
    } else if ((n == "print" || n == "println") && t.is(i + 1, "(") && i >= 2 && t.is(i - 1, "::") &&
               (t[i - 2].text == "fmt" || t[i - 2].text == "std")) {
      call = t[i - 2].text + "::" + n;
      head = i - 2;
    } else if (isLevel(n) && t.is(i + 1, "(") && i >= 2 && (t.is(i - 1, "::") || t.is(i - 1, "->") || t.is(i - 1, ".")) &&
               (t[i - 2].text == "spdlog" || lower(t[i - 2].text).find("log") != std::string::npos)) {
      call = t[i - 2].text + t[i - 1].text + n;
      head = i - 2;
    } else if ((n == "cout" || n == "cerr" || n == "clog") && t.is(i + 1, "<<")) {
      call = (i >= 2 && t.is(i - 1, "::") ? t[i - 2].text + "::" : std::string()) + n;
      head = i >= 2 && t.is(i - 1, "::") ? i - 2 : i;
    }
    if (call.empty()) continue;
    // Throttled logs (LOG_EVERY_SECOND, LOG_EVERY_N, LOG_FIRST_N) do not flood; they are summaries.
    if (n.find("EVERY") != std::string::npos || n.find("FIRST_N") != std::string::npos) continue;
    // Debug-level logs (VLOG, DVLOG, DLOG, spdlog::debug, LOG(DEBUG)) are off where incidents happen.
    {
      std::string l = lower(call);
      if (l.find("vlog") != std::string::npos || l.rfind("dlog", 0) == 0 || l.find("debug") != std::string::npos ||
          l.find("trace") != std::string::npos || (t.is(i + 1, "(") && (lower(t[i + 2].text) == "debug" || lower(t[i + 2].text) == "trace")))
        continue;
    }
    // The statement: up to the `;` that ends it.
    size_t e = i;
    while (e < lv.body.e && !t.is(e, ";")) {
      if (t.is(e, "(") || t.is(e, "[") || t.is(e, "{")) e = t.close(e);
      ++e;
    }
    LogSite site;
    site.call = call;
    site.where = spanOf(cx, t, head, i + 1);
    for (size_t k = head; k < e && !site.has_attempt; ++k) {
      if (!isIdent(t[k])) continue;
      if (!lv.counter.empty() && t[k].text == lv.counter) site.has_attempt = true;
      for (const auto &d : lv.derived) if (t[k].text == d) site.has_attempt = true;
      if (std::regex_search(t[k].text, attemptish)) site.has_attempt = true;
    }
    p.logs.push_back(std::move(site));
    i = e;
  }
  // One line of the pass that names the attempt (`LOG(WARNING) << "failed, retry = " << retry`)
  // tells which attempt the pass's other lines belong to.
  const bool passNamesAttempt = std::any_of(p.logs.begin(), p.logs.end(), [](const LogSite &l) { return l.has_attempt; });
  if (passNamesAttempt)
    for (LogSite &l : p.logs) l.has_attempt = true;
}

} // namespace retrylint::cpp
