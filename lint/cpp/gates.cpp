// Re-attempts gated by the time since the last failure, carried by a function the program calls
// over and over (an Arduino `loop()`, a state machine's `run()`, a periodic tick):
//
//   if (!client.connected() && millis() - lastFail_ >= kReconnectMs) {
//     if (!client.connect(host, port)) lastFail_ = millis();
//   }
//
// The gate compares the time since `lastFail_` with an interval; the failure branch of an
// operation sets `lastFail_` to now. Each call after the interval re-issues the operation that
// failed: a retry whose wait is the interval (fixed, and jittered only if it draws a random
// term), however often the caller runs. A time stamp set on success or on every pass is a
// period (a heartbeat, a report), not a retry: nothing failed.
#include <map>
#include <regex>
#include <string>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

// A clock read: `millis()`, `BlynkMillis()`, `GetTickCount()`, `std::chrono::steady_clock::now()`.
bool clockCall(const Tokens &t, size_t name) {
  if (!isIdent(t[name]) || !t.is(name + 1, "(")) return false;
  static const std::regex more("millis|micros|uptime", std::regex::icase);
  return isClockName(t[name].text) || std::regex_search(t[name].text, more);
}

// The unit a bare number compared with the clock's difference is in, as the sleep of that unit
// reads it: Arduino's millis() counts milliseconds, micros() microseconds.
std::string unitOf(const std::string &clock) {
  const std::string l = lower(clock);
  if (l.find("micros") != std::string::npos) return "usleep";
  if (l.find("millis") != std::string::npos || l.find("tick") != std::string::npos) return "SleepForMilliseconds";
  return "";
}

// The `{` of the innermost block around token k, within [b, k).
size_t enclosingOpen(const Tokens &t, size_t b, size_t k) {
  int depth = 0;
  for (size_t i = k; i-- > b;) {
    if (t.is(i, "}")) ++depth;
    else if (t.is(i, "{")) {
      if (depth == 0) return i;
      --depth;
    }
  }
  return SIZE_MAX;
}

// Whether the block opened at `open` runs only after an operation failed: the then-block of
// `if (!op(…))` / `if (op(…) < 0)`, or the else-block of `if (op(…))`; an operation is a call
// that is not the clock's.
bool failureBlock(const Tokens &t, size_t open) {
  auto opCall = [&](Range r) {
    for (size_t i = r.b; i + 1 < r.e; ++i)
      if (isIdent(t[i]) && t.is(i + 1, "(") && !clockCall(t, i)) return true;
    return false;
  };
  if (open >= 1 && t.is(open - 1, ")")) {
    const size_t o = t.opening(open - 1);
    if (o < 1 || o >= open || !t.is(o - 1, "if")) return false;
    Range c{o + 1, open - 1};
    if (t.is(c.b, "!") && opCall(c)) return true;
    for (size_t i = c.b; i < c.e; ++i)
      if ((t.is(i, "<") && t.is(i + 1, "0")) || (t.is(i, "==") && (t[i + 1].text == "false" || t[i + 1].text == "-1")))
        return opCall({c.b, i});
    return false;
  }
  if (open >= 2 && t.is(open - 1, "else") && t.is(open - 2, "}")) {
    const size_t thenOpen = t.opening(open - 2);
    if (thenOpen < 1 || !t.is(thenOpen - 1, ")")) return false;
    const size_t o = t.opening(thenOpen - 1);
    if (o < 1 || !t.is(o - 1, "if")) return false;
    Range c{o + 1, thenOpen - 1};
    return !t.is(c.b, "!") && opCall(c);
  }
  return false;
}

} // namespace

void analyseTimeGates(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  // Most files read no clock: they are not walked function by function.
  bool readsClock = false;
  for (size_t i = 0; i + 1 < t.size() && !readsClock; ++i) readsClock = clockCall(t, i);
  if (!readsClock) return;
  std::map<std::string, int> perFunction;
  for (const Function &f : functionsOf(t)) {
    const Range body = f.body;
    // Locals that hold a clock read: `const millis_time_t t = BlynkMillis();`.
    std::map<std::string, std::string> clockVars; // name -> the clock it read
    for (size_t i = body.b + 1; i + 2 < body.e; ++i)
      if (isIdent(t[i]) && t.is(i + 1, "=") && clockCall(t, i + 2)) clockVars[t[i].text] = t[i + 2].text;
    auto clockAt = [&](size_t i, std::string &clock) -> bool { // a clock read ending at token i
      if (isIdent(t[i]) && clockVars.count(t[i].text)) return clock = clockVars[t[i].text], true;
      if (t.is(i, ")")) {
        const size_t o = t.opening(i);
        if (o >= 1 && o < i && clockCall(t, o - 1)) return clock = t[o - 1].text, true;
      }
      return false;
    };
    for (size_t i = body.b + 1; i + 3 < body.e; ++i) {
      // clock - last, then a comparison (directly or after a closing parenthesis)
      std::string clock;
      if (!t.is(i, "-") || !clockAt(i - 1, clock) || !isIdent(t[i + 1]) || t.is(i + 2, "(") || t.is(i + 2, ".") ||
          t.is(i + 2, "->"))
        continue;
      const std::string last = t[i + 1].text;
      size_t rel = i + 2;
      if (t.is(rel, ")")) ++rel;
      const std::string &op = t[rel].text;
      if (op != ">" && op != ">=" && op != "<" && op != "<=") continue;
      size_t e = rel + 1;
      while (e < body.e && !t.is(e, ")") && !t.is(e, "&&") && !t.is(e, "||") && !t.is(e, ";")) {
        if (t.is(e, "(")) e = t.close(e);
        ++e;
      }
      const Range interval{rel + 1, e};
      if (interval.e <= interval.b) continue;
      // The failure branch of an operation stamps `last` with the clock.
      size_t stamp = SIZE_MAX;
      for (size_t k = body.b + 1; k + 2 < body.e && stamp == SIZE_MAX; ++k) {
        if (t[k].text != last || !t.is(k + 1, "=") || t.is(k - 1, ".") || t.is(k - 1, "->")) continue;
        if (!(clockCall(t, k + 2) || (isIdent(t[k + 2]) && clockVars.count(t[k + 2].text)))) continue;
        const size_t open = enclosingOpen(t, body.b, k);
        if (open != SIZE_MAX && failureBlock(t, open)) stamp = k;
      }
      if (stamp == SIZE_MAX) continue;
      // … and the gate opens only while something is not so (`!conn.connected() && …`, inside
      // `if (!clientIsConnected(&c)) {`): the state the attempt is to restore. A cool-down on a
      // server's side (`if (lastAuthFailure != 0 && millis() - lastAuthFailure < kCooldown)
      // reject;`) restores nothing of its own.
      bool whileNot = false;
      for (size_t k = i; k > body.b && !whileNot; --k) {
        if (!t.is(k, "(") || !t.is(k - 1, "if")) continue;
        const size_t c = t.close(k);
        if (c < i && !(t.is(c + 1, "{") && t.close(c + 1) > i)) continue; // an earlier if, not around the gate
        for (size_t m = k + 1; m + 1 < c && !whileNot; ++m)
          whileNot = t.is(m, "!") && (isIdent(t[m + 1]) || t.is(m + 1, "("));
      }
      if (!whileNot) continue;
      // The gate that guards the stamped attempt, when there are several (`if (tconn && t - last >
      // kLoginTimeout) {…} else if (!tconn && t - last > 5000UL) { if (!connect()) last = t; }`).
      bool guards = false;
      for (size_t k = i; k > body.b && !guards; --k)
        if (t.is(k, "(") && k >= 1 && t.is(k - 1, "if") && t.close(k) > i) {
          const size_t c = t.close(k);
          const size_t thenEnd = t.is(c + 1, "{") ? t.close(c + 1) : t.statementEnd(c + 1);
          guards = stamp > c && stamp < thenEnd;
          break;
        }
      bool later = false; // another gate on `last` further on guards it
      for (size_t k = i + 2; k + 1 < stamp && !later; ++k) {
        std::string c3;
        later = t.is(k, "-") && t[k + 1].text == last && clockAt(k - 1, c3);
      }
      if (!guards && later) continue;
      const std::string shown = shownName(t, f);
      RetryPolicy p = schedulePolicy(t, cx, f, "gate", "the re-attempt " + shown + "() makes after " + last,
                                     spanOf(cx, t, i - 1, interval.e), perFunction);
      p.schedule_only = false;
      p.max_attempts.origin = Origin::Unknown; // as often as the caller runs: not this file's to say
      LoopView lv{t, {}, body, body, "", {}, facts.constants, &facts, {}, false};
      lv.accessor_settings = true;
      analyseDelay(lv, cx, p, interval, p.where, unitOf(clock));
      if (!p.backoff.growth.known() || p.backoff.growth.value == Growth::NoWait) continue;
      p.backoff.description = "the time " + shown + "() waits after a failure (" + last + ") before it tries again";
      cx.model.policies.push_back(std::move(p));
      break; // one gate per function
    }
  }
}

} // namespace retrylint::cpp
