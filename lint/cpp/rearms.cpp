// Retries carried by the event loop instead of a loop. An asynchronous client does not write
// `while (!connect()) sleep(d);`: it issues the operation with a completion callback, and the
// callback, on failure, issues it again, at once or through a timer:
//
//   void Client::connect()  { socket_.async_connect(ep_, [this](error_code ec) { onConnect(ec); }); }
//   void Client::onConnect(error_code ec) {
//     if (ec) { timer_.expires_after(1s); timer_.async_wait([this](auto) { connect(); }); return; }
//     …
//   }
//
// What makes such code a retry is its shape, not its names: a cycle through the file's
// functions (connect → its callback → the timer → connect) that passes a failure (a catch
// handler, a branch on an error, the error or close callback a function registers) and an
// asynchronous step (a callback or a timer). A timer that re-arms itself with no failure on the
// way is periodic work (a heartbeat) and is left; a call that only recurses synchronously is
// recursion.cpp's.
//
// Two findings come from a cycle: the wait is the timer's delay (RL101 when it has no random
// term; RL102 at note when it never grows), or there is no timer and each failure re-issues the
// operation at once (RL104). A timer whose delay grows is a backoff wherever it is armed.
#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

// Calls that arm a timer to run a callback after a delay (event loops, asio, bthread, libuv):
// the delay is their first argument, except where a handle or loop comes first.
// `unit`: how a bare number given as the delay is read, as the sleep of that unit reads it
// (`sleep`: seconds, as muduo's, trantor's and drogon's runAfter(double seconds) take it;
// `SleepForMilliseconds`: milliseconds, as libuv and Qt take it); "" when the library does not say.
struct TimerCall {
  std::string_view name;
  size_t delay_arg;
  std::string_view unit;
};
const TimerCall *timerCall(std::string_view name) {
  static const TimerCall calls[] = {
      {"runAfter", 0, "sleep"},       {"RunAfter", 0, "sleep"},          {"run_after", 0, "sleep"},
      {"expires_after", 0, ""},       {"expires_from_now", 0, ""},       {"ScheduleAfter", 0, ""},
      {"schedule_after", 0, ""},      {"PostDelayed", 1, ""},            {"postDelayed", 1, ""},
      {"singleShot", 0, "SleepForMilliseconds"}, {"setTimeout", 1, "SleepForMilliseconds"},
      {"bthread_timer_add", 2, ""},   {"uv_timer_start", 2, "SleepForMilliseconds"}, {"add_timer", 0, ""},
      {"AddTimer", 0, ""},
      // folly: EventBase::runAfterDelay(cob, milliseconds), HHWheelTimer::scheduleTimeout(callback,
      // milliseconds); Telegram's base::Timer::callOnce(crl::time ms); GLib g_timeout_add(ms, …) and
      // g_timeout_add_seconds(s, …); ESP-IDF esp_timer_start_once(handle, µs); Arduino's Ticker
      // once_ms(ms, …) (each library's header documents the unit).
      {"runAfterDelay", 1, "SleepForMilliseconds"}, {"scheduleTimeout", 1, "SleepForMilliseconds"},
      {"callOnce", 0, "SleepForMilliseconds"},      {"g_timeout_add", 0, "SleepForMilliseconds"},
      {"g_timeout_add_seconds", 0, "sleep"},         {"esp_timer_start_once", 1, "usleep"},
      {"once_ms", 0, "SleepForMilliseconds"}};
  for (const TimerCall &c : calls)
    if (c.name == name) return &c;
  return nullptr;
}

// A scheduler's call that takes the delay among other arguments (`schedule("reconnect", task,
// std::chrono::seconds(1))`, `callLater(task, delay)`): the argument that is a duration.
std::optional<size_t> scheduledDelay(const Tokens &t, size_t name, const std::vector<Range> &args, Range fn) {
  static const std::regex scheduler("^(schedule|Schedule|scheduleAfter|schedule_delayed|ScheduleDelayed|callLater|call_later|"
                                    "post_after|PostAfter|runIn|run_in|delay|Delay|after|After)$");
  if (args.size() < 2 || !std::regex_match(t[name].text, scheduler)) return std::nullopt;
  for (size_t a = 0; a < args.size(); ++a) {
    if (firstDuration(t, args[a])) return a;
    // A variable that holds one: `constexpr auto kDelay = std::chrono::seconds(1);`
    if (args[a].e == args[a].b + 1 && isIdent(t[args[a].b]))
      for (const Write &w : writesOf(t, fn, t[args[a].b].text))
        if (firstDuration(t, w.value)) return a;
  }
  return std::nullopt;
}

// The bodies of the lambdas in [r.b, r.e): `[captures](params) specifiers { … }`.
std::vector<Range> lambdaBodies(const Tokens &t, Range r) {
  std::vector<Range> out;
  for (size_t i = r.b; i < r.e; ++i) {
    if (!t.is(i, "[") || (i > 0 && (isIdent(t[i - 1]) || t.is(i - 1, "]") || t.is(i - 1, ")")))) continue; // an index
    size_t j = t.close(i) + 1;
    if (t.is(j, "(")) j = t.close(j) + 1;
    while (j < r.e && (t[j].text == "mutable" || t[j].text == "noexcept" || t[j].text == "->" || isIdent(t[j]) || t.is(j, "::"))) ++j;
    if (t.is(j, "{") && j < r.e) out.push_back({j, std::min(t.close(j) + 1, r.e)});
  }
  return out;
}

// A callback registered for a failure: `setConnectionErrorCallback(…)`, `onError(…)`,
// `thenError(…)`, `on_close(…)`. The registration's name is the library's API, read as such.
bool failureRegistration(std::string_view name) {
  static const std::regex re("error|fail|close|disconnect|lost|broken|exception|abort", std::regex::icase);
  return std::regex_search(name.begin(), name.end(), re);
}

// One step of a cycle: function `from` names function `to` at token `at`.
struct Step {
  size_t from = 0;        // index into the file's functions
  std::string to;
  size_t at = 0;
  bool async = false;     // in a callback (a lambda, a bound member, a timer's task): runs later
  bool failure = false;   // after a failure: a catch handler, an error branch, a failure callback
  // A self re-issue from the callback's own failure branch (`[..](Status st) { if (!st.ok()) send(); }`
  // inside send()), not waiting for I/O readiness: the shape read as "no wait" (RL104).
  bool reissue = false;
  size_t timer = SIZE_MAX; // the timer or scheduler call whose task it is
  Range delay{0, 0};
  std::string_view unit;
};

struct FileGraph {
  std::vector<Function> fns;
  std::vector<Step> steps;
  std::map<std::string, std::vector<size_t>> out; // function name -> its steps
};

// The places in f's body that run after a failure.
struct FailureRanges {
  std::vector<Range> ranges;
  std::vector<bool> readiness; // the failure is "not ready yet" (EAGAIN, WANT_READ): the caller waits for I/O
  bool contains(size_t i) const {
    return std::any_of(ranges.begin(), ranges.end(), [&](Range r) { return r.b <= i && i < r.e; });
  }
  void add(Range r, bool ready = false) {
    ranges.push_back(r);
    readiness.push_back(ready);
  }
};

// A condition that asks whether non-blocking I/O would block: the retry follows readiness, not a clock.
bool readinessTest(const Tokens &t, Range cond) {
  static const std::regex re("again|would_?block|want_?(read|write)|in_?progress|pending|interrupted|eintr", std::regex::icase);
  for (size_t k = cond.b; k < cond.e; ++k)
    if (isIdent(t[k]) && std::regex_search(t[k].text, re)) return true;
  return false;
}

FailureRanges failureRanges(const Tokens &t, const Function &f, const std::vector<Range> &lambdas, const FileFacts &facts) {
  FailureRanges fr;
  const Range body = f.body;
  // A part of a condition speaks of a result when it names one (`ec`, `!st.ok()`, `failed`,
  // `rc == ECONNREFUSED`): `id != expected` alone compares data.
  auto result = [&](Range r) {
    for (size_t k = r.b; k < r.e; ++k)
      if (isIdent(t[k]) && statusName(t[k].text)) return true;
    return false;
  };
  for (size_t i = body.b + 1; i + 1 < body.e; ++i) {
    if (t.is(i, "catch") && t.is(i + 1, "(")) {
      size_t hb = t.close(i + 1) + 1;
      if (t.is(hb, "{")) fr.add({hb, t.close(hb)});
      continue;
    }
    if (!t.is(i, "if") || !t.is(i + 1, "(")) continue;
    Range cond{i + 2, t.close(i + 1)};
    Outcome o = conditionOutcome(t, cond, result, &facts);
    if (o == Outcome::Unknown) continue;
    size_t thenB = cond.e + 1, thenE = t.statementEnd(thenB);
    const bool ready = readinessTest(t, cond);
    if (o == Outcome::Failure) fr.add({thenB, thenE}, ready);
    if (t.is(thenE, "else") && o == Outcome::Success) fr.add({thenE + 1, t.statementEnd(thenE + 1)}, ready);
  }
  // A lambda registered as a failure callback runs after a failure, all of it.
  for (Range l : lambdas) {
    size_t depth = 0;
    for (size_t j = l.b; j-- > body.b;) {
      if (t.is(j, ")")) ++depth;
      else if (t.is(j, "(")) {
        if (depth == 0) {
          if (j > 0 && isIdent(t[j - 1]) && failureRegistration(t[j - 1].text)) fr.add(l);
          break;
        }
        --depth;
      } else if (t.is(j, ";") || t.is(j, "{") || t.is(j, "}")) {
        if (depth == 0) break;
      }
    }
  }
  return fr;
}

FileGraph graphOf(const Tokens &t, const FileFacts &facts) {
  FileGraph g;
  g.fns = functionsOf(t);
  std::set<std::string> names;
  for (const Function &f : g.fns) names.insert(f.name);
  for (size_t fi = 0; fi < g.fns.size(); ++fi) {
    const Function &f = g.fns[fi];
    const Range body = f.body;
    // A function nested in another one's range (a local class's method) is read on its own.
    const std::vector<Range> lambdas = lambdaBodies(t, {body.b + 1, body.e});
    const FailureRanges failed = failureRanges(t, f, lambdas, facts);
    // The timers armed in the body and the arguments that are their tasks.
    struct Armed { size_t call; Range task; Range delay; std::string_view unit; };
    std::vector<Armed> armed;
    for (size_t i = body.b + 1; i + 1 < body.e; ++i) {
      if (!isIdent(t[i]) || !t.is(i + 1, "(")) continue;
      auto args = callArgs(t, i + 1);
      std::optional<size_t> d;
      std::string_view unit;
      if (const TimerCall *tc = timerCall(t[i].text)) {
        if (args.size() > tc->delay_arg) d = tc->delay_arg;
        unit = tc->unit;
      } else {
        d = scheduledDelay(t, i, args, body);
      }
      if (!d) continue;
      for (size_t a = 0; a < args.size(); ++a)
        if (a != *d) armed.push_back({i, args[a], args[*d], unit});
      // asio: `timer_.expires_after(d); timer_.async_wait(task);` — the task is the next call's.
      if (args.size() == 1 && (t[i].text == "expires_after" || t[i].text == "expires_from_now")) {
        size_t e = t.statementEnd(i);
        for (size_t k = e; k + 1 < body.e && k < e + 8; ++k)
          if (isIdent(t[k]) && t[k].text == "async_wait" && t.is(k + 1, "(")) {
            for (Range a : callArgs(t, k + 1)) armed.push_back({i, a, args[0], unit});
            break;
          }
      }
    }
    for (size_t i = body.b + 1; i + 1 < body.e; ++i) {
      if (!isIdent(t[i]) || !names.count(t[i].text)) continue;
      const bool call = t.is(i + 1, "(");
      const bool bound = t.is(i - 1, "::") && i >= 3 && t.is(i - 3, "&"); // &Class::member
      const bool bareRef = t.is(i - 1, "&");                              // &function
      if (!call && !bound && !bareRef) continue;
      // `other.close()` on an object the call names is often another class's method; `this->`,
      // a pointer to the same kind (thisPtr->, self->, c->) is kept: the name is all there is.
      if (call && t.is(i - 1, ".") && i >= 2 && t.is(i - 2, ")")) continue;
      Step s;
      s.from = fi;
      s.to = t[i].text;
      s.at = i;
      s.async = bound || bareRef ||
                std::any_of(lambdas.begin(), lambdas.end(), [&](Range l) { return l.b < i && i < l.e; });
      s.failure = failed.contains(i);
      if (s.failure && call && s.to == f.name) {
        // The innermost lambda around the call, and a failure branch that opens inside it.
        Range inner{0, 0};
        for (Range l : lambdas)
          if (l.b < i && i < l.e && (inner.e == 0 || l.b > inner.b)) inner = l;
        for (size_t r = 0; r < failed.ranges.size() && inner.e; ++r)
          if (failed.ranges[r].b <= i && i < failed.ranges[r].e && inner.b < failed.ranges[r].b && !failed.readiness[r])
            s.reissue = true;
      }
      for (const Armed &a : armed)
        if (a.task.b <= i && i < a.task.e) {
          s.async = true;
          s.timer = a.call;
          s.delay = a.delay;
          s.unit = a.unit;
        }
      g.out[f.name].push_back(g.steps.size());
      g.steps.push_back(std::move(s));
    }
  }
  return g;
}

// A path from function `from` back to `target` (at most `depth` steps), and what it passes.
struct Path {
  bool found = false, failure = false, async = false;
  size_t timerStep = SIZE_MAX;
};
Path pathBack(const FileGraph &g, const std::string &from, const std::string &target, int depth) {
  // Breadth first over (function, failure seen, async seen).
  struct State { std::string fn; bool failure, async; size_t timer; int d; };
  std::vector<State> queue{{from, false, false, SIZE_MAX, 0}};
  std::set<std::tuple<std::string, bool, bool>> seen;
  Path best;
  for (size_t q = 0; q < queue.size() && q < 4096; ++q) {
    const State s = queue[q];
    if (s.fn == target) {
      Path p{true, s.failure, s.async, s.timer};
      // Prefer a path that passes a failure, then one with a timer.
      if (!best.found || (p.failure && !best.failure) || (p.failure == best.failure && p.timerStep != SIZE_MAX && best.timerStep == SIZE_MAX))
        best = p;
      continue;
    }
    if (s.d >= depth || !seen.insert({s.fn, s.failure, s.async}).second) continue;
    auto it = g.out.find(s.fn);
    if (it == g.out.end()) continue;
    for (size_t si : it->second) {
      const Step &st = g.steps[si];
      queue.push_back({st.to, s.failure || st.failure, s.async || st.async,
                       s.timer != SIZE_MAX ? s.timer : (st.timer != SIZE_MAX ? si : SIZE_MAX), s.d + 1});
    }
  }
  return best;
}

// A timer that bounds an attempt instead of spacing attempts: `connect_deadline_.expires_after(
// options_.connect_timeout)`. Its task gives up on the attempt; the next one is the connect
// handler's to start, and that handler's wait (if any) is the retry's.
bool deadlineTimer(const Tokens &t, size_t call, Range delay) {
  static const std::regex re("timeout|deadline|time_?out|expir|ttl", std::regex::icase);
  // `m_ReconnectTimer.expires_after(m_RetryTimeout)`: the wait before the next attempt, whatever
  // its unit is called.
  auto retrying = [&](const std::string &s) { return speaksOfRetrying(lower(s)) || lower(s).find("reconnect") != std::string::npos; };
  const bool onObject = call >= 2 && (t.is(call - 1, ".") || t.is(call - 1, "->")) && isIdent(t[call - 2]);
  for (size_t k = delay.b; k < delay.e; ++k)
    if (isIdent(t[k]) && retrying(t[k].text)) return false;
  if (onObject && retrying(t[call - 2].text)) return false;
  for (size_t k = delay.b; k < delay.e; ++k)
    if (isIdent(t[k]) && std::regex_search(t[k].text, re)) return true;
  // The timer object the call is made on: `deadline_timer_.expires_after(…)`.
  return onObject && std::regex_search(t[call - 2].text, re);
}

// A timer re-armed with a delay that grows (a connector's `retry()` that runs `startInLoop` again
// after `retryDelayMs_`, then doubles it under a cap): the backoff of a retry, carried by the
// event loop, wherever it is armed.
void analyseGrowingTimers(const Tokens &t, const FileFacts &facts, ExtractContext &cx, const FileGraph &g,
                          std::set<size_t> &reported, std::map<std::string, int> &perFunction) {
  for (const Function &f : g.fns) {
    const Range body = f.body;
    for (size_t i = body.b + 1; i + 1 < body.e; ++i) {
      if (!isIdent(t[i]) || !t.is(i + 1, "(")) continue;
      const TimerCall *timer = timerCall(t[i].text);
      if (!timer || reported.count(i)) continue;
      auto args = callArgs(t, i + 1);
      if (args.size() <= timer->delay_arg || deadlineTimer(t, i, args[timer->delay_arg])) continue;
      const std::string shown = shownName(t, f);
      RetryPolicy p = schedulePolicy(t, cx, f, "timer", "the timer " + shown + "() re-arms",
                                     spanOf(cx, t, i, t.close(i + 1) + 1), perFunction);
      LoopView lv{t, {}, body, body, "", {}, facts.constants, &facts, {}, false};
      analyseDelay(lv, cx, p, args[timer->delay_arg], p.where, std::string(timer->unit));
      if (!(p.backoff.growth.known() && p.backoff.growth.value == Growth::Exponential)) continue;
      p.backoff.description = "the delay " + shown + "() re-arms its timer with";
      reported.insert(i);
      cx.model.policies.push_back(std::move(p));
    }
  }
}

// What the cycle counts its failures in: a variable the function increments (`++retries_`,
// `++(*failures)`, `attempt++`); "" when none.
std::string failureCount(const Tokens &t, Range body) {
  for (size_t i = body.b + 1; i + 1 < body.e; ++i) {
    if (t.is(i, "++")) {
      size_t k = i + 1;
      while (k < body.e && (t.is(k, "(") || t.is(k, "*"))) ++k;
      if (k < body.e && isIdent(t[k]) && !t.is(k + 1, "(") && !t.is(k + 1, ".") && !t.is(k + 1, "->")) return t[k].text;
    } else if (isIdent(t[i]) && t.is(i + 1, "++") && !t.is(i - 1, ".") && !t.is(i - 1, "->")) {
      return t[i].text;
    }
  }
  return "";
}

} // namespace

bool insideLambda(const Tokens &t, Range body, size_t i) {
  for (Range l : lambdaBodies(t, {body.b + 1, body.e}))
    if (l.b < i && i < l.e) return true;
  return false;
}

void analyseRearms(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  const FileGraph g = graphOf(t, facts);
  std::map<std::string, int> perFunction;
  std::set<size_t> reported; // timer calls and re-issuing calls already reported
  analyseGrowingTimers(t, facts, cx, g, reported, perFunction);
  for (size_t si = 0; si < g.steps.size(); ++si) {
    const Step &s = g.steps[si];
    if (!s.async && !s.failure) continue;
    const Function &f = g.fns[s.from];
    const Path back = pathBack(g, s.to, f.name, 4);
    if (!back.found) continue;
    const bool failure = s.failure || back.failure;
    const bool async = s.async || back.async;
    if (!failure || !async) continue; // periodic work, or plain recursion (recursion.cpp)
    // The wait: this step's timer, or one further round the cycle (reported from its own step).
    if (s.timer == SIZE_MAX && back.timerStep != SIZE_MAX) continue;
    const std::string shown = shownName(t, f);
    if (s.timer != SIZE_MAX) {
      if (reported.count(s.timer) || deadlineTimer(t, s.timer, s.delay)) continue;
      RetryPolicy p = schedulePolicy(t, cx, f, "timer", "the timer " + shown + "() arms to re-issue " + s.to + "()",
                                     spanOf(cx, t, s.timer, t.close(s.timer + 1) + 1), perFunction);
      // The function runs once per attempt: what it declares is fresh each time, and what it
      // carries over (a member doubled in place) was read by analyseGrowingTimers.
      LoopView lv{t, {}, {f.body.b, f.body.b}, f.body, failureCount(t, f.body), {}, facts.constants, &facts, {}, false};
      lv.accessor_settings = true;
      analyseDelay(lv, cx, p, s.delay, p.where, std::string(s.unit));
      if (!p.backoff.growth.known() || p.backoff.growth.value == Growth::NoWait) continue;
      // `QTimer::singleShot(0, …)`: a hop to the event loop, not a wait. The operation goes out
      // again at once.
      if (p.backoff.initial.known() && p.backoff.initial.value && p.backoff.initial.value->nanos == 0 &&
          p.backoff.growth.value != Growth::Exponential) {
        p.where = spanOf(cx, t, s.timer, s.timer + 1);
        p.backoff.growth = written(Growth::NoWait, p.where);
        p.backoff.jitter.origin = p.backoff.cap.origin = Origin::NotApplicable;
        p.backoff.description = "the re-issue of " + s.to + "() from its failure, through a timer of 0 s";
        reported.insert(s.timer);
        cx.model.policies.push_back(std::move(p));
        continue;
      }
      p.backoff.description = "the delay " + shown + "() waits before it re-issues " + s.to + "()";
      reported.insert(s.timer);
      cx.model.policies.push_back(std::move(p));
      continue;
    }
    if (!s.reissue || reported.count(s.at)) continue;
    // Re-issued at once from the failure: no wait at all. How many times is the callers' (a
    // counter the cycle tests, a flag) and stays unknown here.
    RetryPolicy p;
    p.format = "cpp";
    p.component = "re-issue of " + s.to + "() on failure in " + shown + "()";
    p.anchor = "cpp/" + shown + "/reissue[" + std::to_string(perFunction[shown]++) + "]";
    p.where = spanOf(cx, t, s.at, s.at + 1);
    markTestCode(cx, functionName(t, f.brace), p);
    setCodePolicyFields(p);
    p.backoff.description = "the re-issue of " + s.to + "() from its failure";
    p.backoff.growth = written(Growth::NoWait, p.where);
    p.backoff.jitter.origin = p.backoff.cap.origin = Origin::NotApplicable;
    reported.insert(s.at);
    cx.model.policies.push_back(std::move(p));
  }
}

} // namespace retrylint::cpp
