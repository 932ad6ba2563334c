// Backoff calculators: functions that compute the next wait of a retry schedule, with no loop in
// view (the loop, a timer or a callback that uses them is elsewhere, often in another file):
//
//   uint64_t Schedule::next_delay_ms() { delay = std::min(base * (1 << attempt_++), max); … }
//   Duration backoff(size_t n) { return jitter * min * std::pow(2, n - 1); }
//
// Such a function is a retry schedule of its own: its growth, cap, random term and the order of
// the two are what every caller waits, so it is analysed where it is written (RL101, RL103 and
// RL105 point into it), whoever calls it. What decides that a function is one: its result grows
// with a count (a shift by a variable, pow/exp2/ldexp, a value multiplied in place); what says the
// result is a wait adds confidence and is required: a duration type or unit in it, or a name of
// the function or of what it returns that speaks of a delay.
#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

constexpr std::string_view kFormat = "cpp";

bool delayName(std::string_view n) {
  static const std::regex delay("delay|backoff|back_off|interval|wait|sleep|pause|timeout|reconnect|retr(y|ies)",
                                std::regex::icase);
  return std::regex_search(n.begin(), n.end(), delay);
}

bool durationWord(std::string_view n) {
  // A duration type (a time_point is an instant, not a wait).
  static const std::regex unit("^(duration|milliseconds|seconds|microseconds|nanoseconds|minutes|Duration|"
                               "Milliseconds|Seconds|TimeDelta)$");
  return std::regex_match(n.begin(), n.end(), unit);
}

// The expressions a function returns, and everything they are computed from in it.
struct Returned {
  std::vector<Range> returns; // `return EXPR;`: EXPR
  std::vector<Range> parts;   // EXPR and the values of the variables it reads
  std::set<std::string> vars;
};

Returned returnedBy(const Tokens &t, Range body) {
  Returned r;
  for (size_t i = body.b + 1; i + 1 < body.e; ++i) {
    if (t.is(i, "[")) { // a lambda's returns are its own
      size_t j = t.close(i) + 1;
      if (t.is(j, "(")) j = t.close(j) + 1;
      while (j < body.e && (t[j].text == "mutable" || t[j].text == "noexcept" || t[j].text == "->" || isIdent(t[j]))) ++j;
      if (t.is(j, "{")) i = t.close(j);
      continue;
    }
    if (!t.is(i, "return")) continue;
    size_t e = t.statementEnd(i);
    if (e > i + 2) r.returns.push_back({i + 1, e - 1});
  }
  r.parts = r.returns;
  for (size_t k = 0; k < r.parts.size() && k < 32; ++k) {
    const Range part = r.parts[k];
    for (size_t i = part.b; i < part.e; ++i) {
      if (!isIdent(t[i]) || t.is(i - 1, ".") || t.is(i - 1, "->") || t.is(i + 1, "::") || t.is(i + 1, "(")) continue;
      if (!r.vars.insert(t[i].text).second) continue;
      for (const Write &w : writesOf(t, body, t[i].text))
        if (w.op != "++" && w.op != "--") r.parts.push_back(w.value);
    }
  }
  return r;
}

// What the schedule grows with: the variable a shift or a power takes (`1 << attempt_`,
// `std::pow(2, n - 1)`), or a value kept between calls and multiplied in place (`delay_ *= 2`,
// a member: a local multiplied in place is a unit conversion). A shift whose value is masked
// (`~((1 << bits) - 1)`, `x & (1 << n)`) makes a bit mask, not a wait. "" when nothing grows.
std::string growsWith(const Tokens &t, const Returned &r, Range body) {
  auto masked = [&](Range part) {
    for (size_t i = part.b; i < part.e; ++i)
      if (t.is(i, "~") || t.is(i, "&") || t.is(i, "|") || t.is(i, "^") || t.is(i, "&=") || t.is(i, "|=")) return true;
    return false;
  };
  for (Range part : r.parts) {
    if (masked(part)) continue;
    for (size_t i = part.b; i < part.e; ++i) {
      if (t.is(i, "<<")) {
        size_t k = i + 1;
        while (k < part.e && (t.is(k, "(") || t.is(k, "static_cast") || t.is(k, "<") || t.is(k, ">") ||
                              (isIdent(t[k]) && t.is(k + 1, ">"))))
          ++k;
        if (k < part.e && isIdent(t[k]) && !t.is(k + 1, "(")) return t[k].text;
      }
      if ((t[i].text == "pow" || t[i].text == "exp2" || t[i].text == "ldexp") && t.is(i + 1, "(")) {
        auto args = callArgs(t, i + 1);
        Range exponent = args.empty() ? Range{} : args.back();
        for (size_t k = exponent.b; k < exponent.e; ++k)
          if (isIdent(t[k]) && !t.is(k + 1, "(")) return t[k].text;
      }
    }
  }
  for (const std::string &v : r.vars) {
    const auto ws = writesOf(t, body, v);
    const bool local = std::any_of(ws.begin(), ws.end(), [](const Write &w) { return w.declared; });
    for (const Write &w : ws)
      if (!local && (w.op == "*=" || w.op == "<<=")) return v;
  }
  return "";
}

} // namespace

// The function's name as messages show it: qualified where it is defined outside its class.
std::string shownName(const Tokens &t, const Function &f) {
  const std::string fname = functionName(t, f.brace);
  return fname.empty() ? f.name : fname;
}

// A schedule with no attempts of its own, where `what` ("calculator", "timer") is found in the
// function `f`: how often it is used is its callers' to say (RetryPolicy::schedule_only).
RetryPolicy schedulePolicy(const Tokens &t, ExtractContext &cx, const Function &f, const std::string &what,
                           const std::string &component, Span where, std::map<std::string, int> &perFunction) {
  RetryPolicy p;
  p.format = std::string(kFormat);
  const std::string shown = shownName(t, f);
  p.component = component;
  p.anchor = "cpp/" + shown + "/" + what + "[" + std::to_string(perFunction[shown]++) + "]";
  p.where = where;
  markTestCode(cx, functionName(t, f.brace), p);
  setCodePolicyFields(p);
  p.schedule_only = true;
  return p;
}


void analyseCalculators(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  std::map<std::string, int> perFunction;
  for (const Function &f : functionsOf(t)) {
    const Range body = f.body;
    // A function that sleeps or loops itself is read by the loop analysis.
    bool own = false;
    for (size_t i = body.b; i < body.e && !own; ++i)
      own = (isIdent(t[i]) && isSleep(t[i].text) && t.is(i + 1, "(")) || t.is(i, "for") || t.is(i, "while") || t.is(i, "do");
    if (own) continue;
    // A schedule another analysis already read (an AWS RetryStrategy's CalculateDelayBeforeNextRetry,
    // a loop's wait) is reported once, by it.
    const Span whole = spanOf(cx, t, body.b, body.e);
    auto inside = [&](const Span &s) { return s.line >= whole.line && s.line <= whole.end_line && s.line > 0; };
    if (std::any_of(cx.model.policies.begin(), cx.model.policies.end(), [&](const RetryPolicy &q) {
          return inside(q.backoff.growth.where) || inside(q.backoff.jitter.where) || inside(q.where);
        }))
      continue;
    Returned r = returnedBy(t, body);
    if (r.returns.empty()) continue;
    const std::string count = growsWith(t, r, body);
    if (count.empty()) continue;
    // Confidence that the result is a wait: its name, what it returns, or a duration in it or in
    // the declared return type (the tokens before the name, back to the previous declaration).
    bool wait = delayName(f.name);
    for (const std::string &v : r.vars) wait |= delayName(v);
    for (Range part : r.parts) wait |= firstDuration(t, part).has_value();
    for (size_t i = f.name_index; i-- > 0 && !wait && f.name_index - i < 12;) {
      if (t.is(i, ";") || t.is(i, "{") || t.is(i, "}") || t.is(i, ":")) break;
      wait = isIdent(t[i]) && durationWord(t[i].text);
    }
    if (!wait) continue;
    // What it returns is a timeout (`nextTimeout = rpcTimeoutMs * (1 << n)`): the next attempt's
    // own limit grows, which is no wait between attempts and needs no random term.
    {
      static const std::regex timeout("timeout|deadline|time_out", std::regex::icase);
      static const std::regex pause("sleep|wait|delay|interval|backoff|back_off|pause", std::regex::icase);
      bool limit = false, between = false;
      for (Range ret : r.returns)
        for (size_t k = ret.b; k < ret.e; ++k) {
          if (!isIdent(t[k])) continue;
          limit |= std::regex_search(t[k].text, timeout);
          between |= std::regex_search(t[k].text, pause);
        }
      if (limit && !between) continue;
    }

    const std::string shown = shownName(t, f);
    RetryPolicy p = schedulePolicy(t, cx, f, "calculator", "backoff calculator " + shown + "()",
                                   spanOf(cx, t, f.name_index, f.name_index + 1), perFunction);
    p.attempt_variable = count;
    LoopView lv{t, {}, body, body, count, {}, facts.constants, &facts, {}, false};
    const Range &delay = r.returns.back();
    analyseDelay(lv, cx, p, delay, spanOf(cx, t, delay.b, delay.e), "");
    if (p.backoff.growth.value != Growth::Exponential || !p.backoff.growth.known()) continue;
    p.backoff.description = "the delay " + shown + "() computes";
    cx.model.policies.push_back(std::move(p));
  }
}

} // namespace retrylint::cpp
