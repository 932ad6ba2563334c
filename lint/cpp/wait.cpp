// The wait between attempts: which sleep, how its delay grows, whether it is capped and jittered.
#include <algorithm>
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {

// Sleeps and timed waits (std::this_thread, POSIX, absl, Windows, condition variables).
bool isSleep(std::string_view n) {
  static const std::set<std::string_view> s = {"sleep_for", "sleep_until", "usleep", "sleep", "nanosleep",
                                               "SleepFor", "SleepUntil", "Sleep", "SleepForMilliseconds",
                                               "SleepForSeconds", "SleepMs", "SleepMillis", "msleep",
                                               "wait_for", "wait_until"};
  return s.count(n) > 0;
}

namespace {

bool isRandom(std::string_view n) {
  static const std::regex re("rand|jitter|uniform|distribution|mt19937|minstd|ranlux|knuth_b|random",
                             std::regex::icase);
  return std::regex_search(n.begin(), n.end(), re);
}

// Functions whose result is known from their arguments (units, arithmetic, caps).
bool isPure(std::string_view n) {
  static const std::set<std::string_view> s = {
      "milliseconds", "seconds", "microseconds", "nanoseconds", "minutes", "hours", "duration", "duration_cast",
      "Milliseconds", "Seconds", "Microseconds", "Nanoseconds", "Minutes", "Hours", "min", "max", "clamp", "pow",
      "exp2", "ldexp", "static_cast", "count", "int64_t", "double", "int", "long", "uint64_t", "size_t", "timespec",
      "chrono", "std", "absl", "this_thread"};
  return s.count(n) > 0 || isRandom(n);
}

std::optional<Duration> unitDuration(std::string_view unit, double v) {
  if (unit == "ns" || unit == "nanoseconds" || unit == "Nanoseconds") return Duration{static_cast<int64_t>(v)};
  if (unit == "us" || unit == "microseconds" || unit == "Microseconds") return Duration{static_cast<int64_t>(v * 1e3)};
  if (unit == "ms" || unit == "milliseconds" || unit == "Milliseconds") return Duration::ms(v);
  if (unit == "s" || unit == "seconds" || unit == "Seconds") return Duration::s(v);
  if (unit == "min" || unit == "minutes" || unit == "Minutes") return Duration::s(v * 60);
  if (unit == "h" || unit == "hours" || unit == "Hours") return Duration::s(v * 3600);
  return std::nullopt;
}

} // namespace

// The first duration written in r: 100ms, std::chrono::milliseconds(100), absl::Seconds(1).
std::optional<Duration> firstDuration(const Tokens &t, Range r) {
  static const std::regex lit(R"(^([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s|min|h)$)");
  for (size_t i = r.b; i < r.e; ++i) {
    std::smatch m;
    if (t[i].kind == Tok::Number && std::regex_match(t[i].text, m, lit)) return unitDuration(m[2].str(), std::stod(m[1]));
    if (isIdent(t[i]) && (t.is(i + 1, "(") || t.is(i + 1, "{")) && i + 2 < r.e && t[i + 2].kind == Tok::Number &&
        (t.is(i + 3, ")") || t.is(i + 3, "}"))) {
      try {
        if (auto d = unitDuration(t[i].text, std::stod(t[i + 2].text))) return d;
      } catch (...) {}
    }
  }
  return std::nullopt;
}

namespace {

// RL105: where the loop caps its wait, and whether the random term is drawn before that cap.
struct CapOrder {
  bool found = false;      // a cap whose other side is random: min(grown + jitter, cap)
  Range cap;               // the cap's expression
  Range varying;           // the capped side
  Span where;              // the min/clamp call, the ternary or the `if`
};

class OrderAnalysis {
public:
  OrderAnalysis(const LoopView &lv, ExtractContext &cx) : lv_(lv), t_(lv.t), cx_(cx) {}

  // Random in r, directly or through the variables r reads (their writes in the function).
  bool random(Range r, int depth = 0) const {
    if (depth > 4) return false;
    for (size_t i = r.b; i < r.e; ++i) {
      if (!isIdent(t_[i])) continue;
      if (isRandomSource(t_[i].text)) return true;
      if (t_.is(i - 1, ".") || t_.is(i - 1, "->") || t_.is(i + 1, "::")) continue;
      for (const Write &w : writesOf(t_, lv_.fn, t_[i].text))
        if (w.op != "++" && (w.value.b > r.e || w.value.e < r.b) && random(w.value, depth + 1)) return true;
    }
    return false;
  }

  // Looks for a cap applied to a random value in r: std::min(x, cap), std::clamp(x, lo, cap),
  // `x > cap ? cap : x`.
  void scan(Range r) {
    for (size_t i = r.b; i < r.e && !order_.found; ++i) {
      const std::string &k = t_[i].text;
      if ((k == "min" || k == "Min" || k == "clamp") && t_.is(i + 1, "(")) {
        auto as = callArgs(t_, i + 1);
        Span where = spanOf(cx_, t_, i, t_.close(i + 1) + 1);
        if (k == "clamp" && as.size() == 3 && random(as[0]) && !random(as[2])) set(as[2], as[0], where);
        else if (as.size() == 2 && random(as[0]) != random(as[1])) set(random(as[0]) ? as[1] : as[0], random(as[0]) ? as[0] : as[1], where);
        else anyCap_ = true;
      } else if (k == "?") {
        size_t colon = i + 1;
        while (colon < r.e && !t_.is(colon, ":")) {
          if (t_.is(colon, "(") || t_.is(colon, "[") || t_.is(colon, "{")) colon = t_.close(colon);
          ++colon;
        }
        if (colon >= r.e) continue;
        Range a{i + 1, colon}, b{colon + 1, r.e};
        size_t condB = r.b;
        for (size_t j = i; j > r.b; --j)
          if (t_.is(j - 1, "(") || t_.is(j - 1, ",")) { condB = j; break; }
        bool cmp = false;
        for (size_t j = condB; j < i; ++j) cmp |= t_.is(j, ">") || t_.is(j, "<") || t_.is(j, ">=") || t_.is(j, "<=");
        if (cmp && random(a) != random(b)) set(random(a) ? b : a, random(a) ? a : b, spanOf(cx_, t_, condB, b.e));
      }
    }
  }

  // `if (v > cap) v = cap;` in the loop, v random.
  void scanIfs(const std::set<std::string> &vars) {
    for (size_t i = lv_.body.b; i + 1 < lv_.body.e && !order_.found; ++i) {
      if (t_[i].text != "if" || !t_.is(i + 1, "(")) continue;
      Range cond{i + 2, t_.close(i + 1)};
      size_t te = t_.statementEnd(cond.e + 1);
      for (const auto &v : vars) {
        if (!mentions(t_, cond, v)) continue;
        for (const Write &w : writesOf(t_, {cond.e + 1, te}, v)) {
          if (w.op != "=" || random(w.value)) continue;
          for (const Write &o : writesOf(t_, lv_.fn, v))
            if (o.name_index != w.name_index && o.op != "++" && random(o.value)) {
              set(w.value, o.value, spanOf(cx_, t_, i, te));
              break;
            }
          if (order_.found) return;
        }
      }
    }
  }

  const CapOrder &order() const { return order_; }
  bool anyCap() const { return anyCap_ || order_.found; }

  // A duration the range denotes: a chrono value, a variable initialised with one, or a plain
  // number in `unit` (the unit the sleep call wraps the delay in, if any).
  std::optional<Duration> duration(Range r, const std::optional<std::string> &unit, int depth = 0) const {
    if (depth > 3 || r.b >= r.e) return std::nullopt;
    if (auto d = firstDuration(t_, r)) return d;
    if (r.e == r.b + 1) {
      const Tok &k = t_[r.b];
      if (k.kind == Tok::Number && unit) {
        try {
          return unitDuration(*unit, std::stod(k.text));
        } catch (...) { return std::nullopt; }
      }
      if (isIdent(k)) {
        if (auto c = lv_.constants.find(k.text); c != lv_.constants.end() && unit) return unitDuration(*unit, static_cast<double>(c->second));
        // the initial value: the one plain assignment (a `delay *= 2` in the loop grows it)
        auto ws = writesOf(t_, lv_.fn, k.text);
        const Write *init = nullptr;
        for (const Write &w : ws) {
          if (w.op != "=") continue;
          if (init) return std::nullopt;
          init = &w;
        }
        if (init) return duration(init->value, unit, depth + 1);
      }
    }
    return std::nullopt;
  }

  // The distribution `name` was declared with two literal bounds: uniform_real_distribution<> d(0.5, 1.5).
  std::optional<std::pair<double, double>> bounds(std::string_view name) const {
    for (const Write &w : writesOf(t_, lv_.fn, name)) {
      if (!w.declared) continue;
      std::vector<double> v;
      for (size_t i = w.value.b; i < w.value.e; ++i) {
        if (t_[i].kind == Tok::Number) {
          try { v.push_back((t_.is(i - 1, "-") ? -1 : 1) * std::stod(t_[i].text)); } catch (...) { return std::nullopt; }
        } else if (!t_.is(i, ",") && !t_.is(i, "-")) {
          return std::nullopt;
        }
      }
      if (v.size() == 2 && v[0] <= v[1]) return std::pair{v[0], v[1]};
    }
    return std::nullopt;
  }

private:
  void set(Range cap, Range varying, Span where) {
    order_.found = true;
    order_.cap = cap;
    order_.varying = varying;
    order_.where = where;
  }
  const LoopView &lv_;
  const Tokens &t_;
  ExtractContext &cx_;
  CapOrder order_;
  bool anyCap_ = false;
};

} // namespace

std::vector<Range> callArgs(const Tokens &t, size_t open) {
  std::vector<Range> out;
  size_t c = t.close(open), b = open + 1;
  for (size_t i = b; i < c; ++i) {
    if (t.is(i, "(") || t.is(i, "[") || t.is(i, "{")) { i = t.close(i); continue; }
    // Template arguments hold commas too: duration<double, std::milli>(wait).
    if (t.is(i, "<") && i > b && isIdent(t[i - 1])) {
      static const std::set<std::string_view> templates = {"duration", "duration_cast", "time_point", "static_cast",
                                                           "pair", "tuple", "map", "array", "function", "ratio"};
      if (templates.count(t[i - 1].text)) {
        int depth = 0;
        size_t j = i;
        for (; j < c; ++j) {
          if (t.is(j, "(") || t.is(j, "[") || t.is(j, "{")) { j = t.close(j); continue; }
          if (t.is(j, "<")) ++depth;
          else if (t.is(j, ">")) { if (--depth == 0) break; }
          else if (t.is(j, ">>")) { depth -= 2; if (depth <= 0) break; }
        }
        if (j < c) { i = j; continue; }
      }
    }
    if (t.is(i, ",")) { out.push_back({b, i}); b = i + 1; }
  }
  if (b < c) out.push_back({b, c});
  return out;
}

bool isRandomSource(std::string_view n) { return isRandom(n); }

bool randomWaitIn(const Tokens &t, Range before) {
  auto random = [&](Range r) {
    for (size_t k = r.b; k < r.e; ++k)
      if (isIdent(t[k]) && isRandom(t[k].text)) return true;
    return false;
  };
  for (size_t i = before.b; i + 1 < before.e; ++i) {
    if (!isIdent(t[i]) || !t.is(i + 1, "(") || !isWaitName(t[i].text)) continue;
    Range args{i + 2, std::min(t.close(i + 1), before.e)};
    if (random(args)) return true;
    for (size_t k = args.b; k < args.e; ++k) // `init_sleep = base + rand() % base; usleep(init_sleep)`
      if (isIdent(t[k]) && !t.is(k + 1, "("))
        for (const Write &w : writesOf(t, {before.b, i}, t[k].text))
          if (random(w.value)) return true;
  }
  return false;
}

// A setting read through an accessor: `owner_->reconnect_interval()`, `options.retry_delay_ms()`,
// `config_->GetRetryInterval()`. It takes nothing, so it cannot grow with the attempt or draw at
// random; the name, a noun for a duration, adds the confidence that it is a setting and not a
// calculator's `next()` (which is never matched: it names no duration).
static bool configuredDelay(const Tokens &t, size_t i) {
  // A word before the duration (reconnect_interval, RetryDelayMs): a bare `delay()` or
  // `interval()` is as often a backoff object's computed next wait (LaunchDarkly's
  // `backoff_.delay()`, capped and jittered) as a setting.
  static const std::regex setting("^(get_?)?[A-Za-z]+_?(interval|delay|period|timeout|duration)(_?(ms|us|s|sec|secs|seconds|millis|msec))?$",
                                  std::regex::icase);
  static const std::regex calculator("^(get_?)?(next|calc|compute|random|jitter|backoff)", std::regex::icase);
  return isIdent(t[i]) && t.is(i + 1, "(") && t.is(i + 2, ")") && std::regex_match(t[i].text, setting) &&
         !std::regex_search(t[i].text, calculator);
}

bool isWaitName(std::string_view n) {
  static const std::regex re("sleep|backoff|wait|delay|pause", std::regex::icase);
  return std::regex_search(n.begin(), n.end(), re);
}

namespace {

// RL105: the order of the random term and the cap. Clipped, `min(cap, randomize(grown))`:
//   std::min(base * (1 << attempt) + jitter(rng), cap), std::min(delay * dist(rng), max_delay),
//   `d > cap ? cap : d` and `if (d > cap) d = cap;` with d random.
// Full jitter, `random(0, min(cap, grown))`: the min has no random side, the draw is made over it.
void analyseOrder(const LoopView &lv, ExtractContext &cx, RetryPolicy &p, const std::vector<Range> &parts,
                  const std::set<std::string> &vars, Range delay) {
  const Tokens &t = lv.t;
  Backoff &b = p.backoff;
  OrderAnalysis oa(lv, cx);
  for (Range r : parts) oa.scan(r);
  if (!oa.order().found) oa.scanIfs(vars);
  Span delaySpan = spanOf(cx, t, delay.b, delay.e);
  if (!oa.order().found) {
    if (oa.anyCap()) b.jitter_order = written(JitterOrder::AfterCap, delaySpan);
    return;
  }
  const CapOrder &o = oa.order();
  b.jitter_order = written(JitterOrder::BeforeCap, o.where);
  b.full_jitter_instead = "draw after the cap (full jitter): std::uniform_int_distribution<long> pick(0, std::min(cap, base << attempt).count())";
  if (!b.cap.value) b.cap.origin = Origin::Unknown; // capped (a ternary is not seen above); read below

  // The unit a plain number is in: the chrono call the sleep wraps the delay in.
  std::optional<std::string> unit;
  for (size_t i = delay.b; i < delay.e && !unit; ++i)
    if (isIdent(t[i]) && t.is(i + 1, "(") && unitDuration(t[i].text, 1)) unit = t[i].text;
  if (auto c = oa.duration(o.cap, unit)) b.cap = written(std::optional<Duration>(c), o.where);

  // The random range around the grown wait: `x * d(rng)` with d's bounds written, or `x + jitter`.
  b.jitter_shape = JitterShape::Unknown;
  Range varying = o.varying;
  if (varying.e == varying.b + 1 && isIdent(t[varying.b]))
    for (const Write &w : writesOf(t, lv.fn, t[varying.b].text))
      if (w.op == "=" && oa.random(w.value)) {
        varying = w.value;
        break;
      }
  // The first wait, read from the capped side only (the cap's own duration is not the base).
  for (size_t i = varying.b; i < varying.e; ++i) {
    std::optional<Duration> d;
    if (isIdent(t[i]) && !t.is(i + 1, "(") && !t.is(i + 1, "::") && !t.is(i - 1, "::") && !oa.random({i, i + 1})) d = oa.duration({i, i + 1}, unit);
    else if (t[i].kind == Tok::Number || (isIdent(t[i]) && t.is(i + 1, "(") && unitDuration(t[i].text, 1))) d = firstDuration(t, {i, std::min(i + 4, varying.e)});
    // A plain number in the unit the sleep wraps the delay in (`milliseconds(100 * (1 << n) + j)`),
    // not the 1 a shift grows.
    if (!d && t[i].kind == Tok::Number && !t.is(i + 1, "<<") && !t.is(i - 1, "<<")) d = oa.duration({i, i + 1}, unit);
    if (d) {
      b.initial = written(std::optional<Duration>(d), o.where);
      break;
    }
  }

  for (size_t i = varying.b; i < varying.e; ++i) {
    if (!isIdent(t[i]) || !t.is(i + 1, "(")) continue;
    size_t close = t.close(i + 1);
    if (!oa.random({i, close + 1})) continue;
    size_t first = i; // the start of a qualified name: std::chrono::milliseconds
    while (first >= 2 && t.is(first - 1, "::") && isIdent(t[first - 2])) first -= 2;
    bool times = t.is(first - 1, "*") || t.is(close + 1, "*");
    bool plus = t.is(first - 1, "+") || t.is(close + 1, "+");
    // the draw itself, inside a chrono wrapper: milliseconds(jitter(rng))
    std::string_view draw = t[i].text;
    if (unitDuration(draw, 1) && isIdent(t[i + 2]) && t.is(i + 3, "(")) draw = t[i + 2].text;
    if (times) {
      if (auto bd = oa.bounds(draw); bd && bd->first >= 0) {
        b.jitter_shape = JitterShape::Uniform;
        b.jitter_lower = bd->first;
        b.jitter_upper = bd->second;
      }
    } else if (plus) {
      auto bd = oa.bounds(draw);
      if (!bd || bd->first >= 0) b.jitter_shape = JitterShape::AddedUnknown;
    }
    break;
  }
}

} // namespace

void analyseWait(const LoopView &lv, ExtractContext &cx, RetryPolicy &p) {
  const Tokens &t = lv.t;
  Backoff &b = p.backoff;
  b.description = "the loop's wait";
  size_t call = std::string::npos;
  // `sleep_for(end_time - now)` beside `sleep_for(delay)`: the first only shortens the last wait to
  // the deadline; the schedule is the other one. What is subtracted is a clock read, or a variable
  // that holds one.
  auto readsClock = [&](Range r) {
    for (size_t k = r.b; k < r.e; ++k)
      if (isIdent(t[k]) && t.is(k + 1, "(") && isClockName(t[k].text)) return true;
    return false;
  };
  auto untilDeadline = [&](size_t i) {
    auto as = callArgs(t, i + 1);
    if (as.size() != 1) return false;
    for (size_t k = as[0].b; k < as[0].e; ++k)
      if (t.is(k, "-"))
        for (size_t m = k + 1; m < as[0].e; ++m) {
          if (!isIdent(t[m])) continue;
          if (t.is(m + 1, "(") && isClockName(t[m].text)) return true;
          for (const Write &w : writesOf(t, lv.fn, t[m].text))
            if (readsClock(w.value)) return true;
        }
    return false;
  };
  for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
    if (isIdent(t[i]) && isSleep(t[i].text) && t.is(i + 1, "(")) {
      if (call == std::string::npos) call = i;
      if (!untilDeadline(i)) { call = i; break; }
    }
  // `do { … } while (++n < kMax && THRIFT_SLEEP_SEC(delay) == 0);`: a wait in the condition, or a
  // sleep-named macro there, runs between the passes too.
  for (size_t i = lv.header.b; call == std::string::npos && i + 1 < lv.header.e; ++i)
    if (isIdent(t[i]) && t.is(i + 1, "(") && (isSleep(t[i].text) || lower(t[i].text).find("sleep") != std::string::npos)) call = i;
  if (call == std::string::npos) {
    // A helper or macro named like a wait (Backoff(), WaitBeforeRetry(), RETRY_SLEEP()) may sleep.
    // Given the delay (waitTimeoutOrShutdown(i * i * 1000)), it is read as a sleep of that delay.
    for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
      if (isIdent(t[i]) && t.is(i + 1, "(") && isWaitName(t[i].text)) {
        // cv.wait(lock), sem_wait(&s): a wait for a notification, not a delay.
        if (lower(t[i].text) == "wait" || lower(t[i].text) == "sem_wait") continue;
        auto as = callArgs(t, i + 1);
        bool delayLike = as.size() == 1 && !(as[0].e == as[0].b + 1 && isIdent(t[as[0].b]) &&
                                             lower(t[as[0].b].text).find("lock") != std::string::npos);
        if (delayLike) {
          call = i;
          break;
        }
        b.growth.origin = Origin::Unknown;
        return;
      }
  }
  if (call == std::string::npos) {
    b.growth = written(Growth::NoWait, p.where);
    b.jitter.origin = b.cap.origin = Origin::NotApplicable;
    return;
  }
  std::string name = t[call].text;
  // The Win32 `Sleep(ms)` is a free function; a project's own `Utility::Sleep(2)` or
  // `clock->Sleep(0.5)` says nothing of its unit (Icinga's takes seconds): a bare number is then
  // not read as a duration at all.
  if (name == "Sleep" && call >= 2 && (t.is(call - 1, ".") || t.is(call - 1, "->") || (t.is(call - 1, "::") && isIdent(t[call - 2]))))
    name = "Sleep (a project's own)";
  // `if (shutdown_.WaitFor(delay)) return s;`: a wait that its owner can end early, and the loop
  // leaves when it does. A worker thread waits so; a request path does not wait on a stop signal.
  if (call >= 2 && (t.is(call - 1, ".") || t.is(call - 1, "->"))) {
    size_t open = std::string::npos;
    for (size_t j = call, depth = 0; j-- > lv.body.b;) {
      if (t.is(j, ")")) ++depth;
      else if (t.is(j, "(")) {
        if (depth == 0) { open = j; break; }
        --depth;
      }
    }
    if (open != std::string::npos && open > 0 && t.is(open - 1, "if") && t.close(call + 1) + 1 == t.close(open)) {
      size_t then = t.close(open) + 1;
      if (t.is(then, "{")) ++then;
      if (t.is(then, "return") || t.is(then, "break")) {
        p.workload = Workload::Background;
        p.workload_why = "the loop waits on " + t[call - 2].text + "." + name + "(), which its owner can end to stop it: a worker's wait";
      }
    }
  }
  auto as = callArgs(t, call + 1);
  Span callSpan = spanOf(cx, t, call, t.close(call + 1) + 1);
  if (as.empty()) { b.growth.origin = Origin::Unknown; return; }
  Range delay = ((name == "wait_for" || name == "wait_until") && as.size() >= 2) ? as[1] : as[0];
  analyseDelay(lv, cx, p, delay, callSpan, name);
}

void analyseDelay(const LoopView &lv, ExtractContext &cx, RetryPolicy &p, Range delay, Span callSpan, const std::string &name) {
  const Tokens &t = lv.t;
  Backoff &b = p.backoff;
  Span delaySpan = spanOf(cx, t, delay.b, delay.e);

  // The delay and everything it is computed from, in this function.
  std::vector<Range> parts{delay};
  std::set<std::string> vars;
  std::vector<Write> loopWrites;
  for (size_t k = 0; k < parts.size() && k < 24; ++k) {
    Range r = parts[k];
    for (size_t i = r.b; i < r.e; ++i) {
      if (!isIdent(t[i]) || t.is(i - 1, ".") || t.is(i - 1, "->") || t.is(i + 1, "::")) continue;
      auto ws = writesOf(t, lv.fn, t[i].text);
      if (t.is(i + 1, "(") && ws.empty()) continue; // a function, not a variable (a distribution is both)
      if (!vars.insert(t[i].text).second) continue;
      for (const Write &w : ws) {
        if (w.op == "++") continue;
        parts.push_back(w.value);
        bool inLoop = w.name_index >= lv.body.b && w.name_index < lv.body.e;
        if (inLoop) loopWrites.push_back(w);
      }
    }
  }
  bool random = false, unknownCall = false, capped = false, shifts = false, usesCounter = false, times = false;
  std::optional<double> factor;
  std::vector<std::string> counterNames = lv.derived;
  if (!lv.counter.empty()) counterNames.push_back(lv.counter);
  for (Range r : parts) {
    for (size_t i = r.b; i < r.e; ++i) {
      const Tok &k = t[i];
      if (!isIdent(k) && k.text != "<<" && k.text != "*") continue;
      if (isIdent(k) && isRandom(k.text)) random = true;
      if (k.text == "min" || k.text == "clamp" || k.text == "Min") capped = true;
      // `w * 2 > 800 ? 800 : w * 2`: a comparison chooses between the grown value and a bound.
      if (k.text == "*" || isIdent(k)) {
        for (size_t q = r.b; q < r.e; ++q)
          if (t.is(q, "?"))
            for (size_t c = r.b; c < q; ++c)
              if (t.is(c, ">") || t.is(c, ">=") || t.is(c, "<") || t.is(c, "<=")) capped = true;
      }
      if (k.text == "<<" || k.text == "pow" || k.text == "exp2" || k.text == "ldexp") {
        shifts = true;
        if (k.text == "pow" && t.is(i + 1, "(") && t[i + 2].kind == Tok::Number) factor = std::stod(t[i + 2].text);
      }
      if (k.text == "*") times = true;
      for (const auto &c : counterNames) if (k.text == c && isIdent(k)) usesCounter = true;
      if (isIdent(k) && t.is(i + 1, "(") && !isPure(k.text) && !isSleep(k.text) && !vars.count(k.text) &&
          !(lv.accessor_settings && configuredDelay(t, i)))
        unknownCall = true;
    }
  }
  bool grows = false, linear = false;
  for (const Write &w : loopWrites) {
    const std::string &v = t[w.name_index].text;
    if (w.op == "*=" || w.op == "<<=") {
      grows = true;
      if (w.op == "*=" && w.value.e == w.value.b + 1 && t[w.value.b].kind == Tok::Number) {
        try { factor = std::stod(t[w.value.b].text); } catch (...) {}
      }
    } else if (w.op == "+=") {
      linear = true;
    } else if (w.op == "=" && mentions(t, w.value, v)) {
      for (size_t i = w.value.b; i < w.value.e; ++i) {
        if (t[i].text == "*" || t[i].text == "<<") grows = true;
        if (t[i].text == "*" && i + 1 < w.value.e && t[i + 1].kind == Tok::Number)
          try { factor = std::stod(t[i + 1].text); } catch (...) {}
      }
      if (!grows) linear = true;
    }
  }
  // An `if (delay > cap) delay = cap;` in the loop caps the growth too.
  for (size_t i = lv.body.b; i + 1 < lv.body.e && !capped; ++i) {
    if (t[i].text != "if" || !t.is(i + 1, "(")) continue;
    Range cond{i + 2, t.close(i + 1)};
    size_t te = t.statementEnd(cond.e + 1);
    for (const auto &v : vars)
      if (mentions(t, cond, v) && !writesOf(t, {cond.e + 1, te}, v).empty()) capped = true;
  }

  Growth g;
  if (shifts && (usesCounter || !loopWrites.empty())) g = Growth::Exponential;
  else if (grows) g = Growth::Exponential;
  else if (usesCounter && times) g = Growth::Linear;
  else if (linear) g = Growth::Linear;
  else if (!usesCounter && loopWrites.empty() && !unknownCall) g = Growth::Constant;
  else {
    b.growth.origin = Origin::Unknown;
    b.jitter = random ? written(Jitter::Full, delaySpan) : Setting<Jitter>{Jitter::None, Origin::Unknown, delaySpan, {}, {}};
    return;
  }
  b.growth = written(g, callSpan);
  if (g == Growth::Exponential) b.multiplier = written(factor.value_or(2.0), callSpan);
  b.jitter = written(random ? Jitter::Full : Jitter::None, delaySpan);
  if (auto d = firstDuration(t, delay)) b.initial = written(std::optional<Duration>(d), delaySpan);
  else if (name == "sleep" || name == "usleep" || name == "SleepForMilliseconds" || name == "Sleep") {
    if (delay.e == delay.b + 1 && t[delay.b].kind == Tok::Number) {
      double v = std::stod(t[delay.b].text);
      auto d = name == "sleep" ? Duration::s(v) : name == "usleep" ? Duration{static_cast<int64_t>(v * 1e3)} : Duration::ms(v);
      b.initial = written(std::optional<Duration>(d), delaySpan);
    }
  } else {
    // The start is what the wait's variables hold before the loop: `milliseconds delay(10)`,
    // `int wait = 100` slept as milliseconds(wait) or duration<double, std::milli>(wait). Values
    // assigned inside the loop are later waits or caps (std::min(delay * 2, 500ms)), never the start.
    std::optional<std::string> unit;
    for (size_t i = delay.b; i < delay.e && !unit; ++i) {
      if (isIdent(t[i]) && (t.is(i + 1, "(") || t.is(i + 1, "{")) && unitDuration(t[i].text, 1)) unit = t[i].text;
      if (t[i].text == "milli") unit = "ms";
      else if (t[i].text == "micro") unit = "us";
      else if (t[i].text == "nano") unit = "ns";
    }
    for (const std::string &v : vars) {
      if (b.initial.value) break;
      // The attempt counter's start (`for (int attempt = 1; …)`) is a count, not a wait: in
      // `milliseconds(100 * (1 << (attempt - 1)))` the start is 100 ms, not 1 ms.
      if (std::find(counterNames.begin(), counterNames.end(), v) != counterNames.end()) continue;
      for (const Write &w : writesOf(t, {lv.fn.b, lv.body.b}, v)) {
        if (w.op != "=") continue;
        std::optional<Duration> d = firstDuration(t, w.value);
        if (!d && w.value.e == w.value.b + 1 && t[w.value.b].kind == Tok::Number) {
          std::optional<std::string> u = unit;
          if (w.declared && w.name_index > 0 && unitDuration(t[w.name_index - 1].text, 1)) u = t[w.name_index - 1].text;
          if (u) try { d = unitDuration(*u, std::stod(t[w.value.b].text)); } catch (...) {}
        }
        if (d) b.initial = written(std::optional<Duration>(d), delaySpan);
      }
    }
    for (size_t k = 1; k < parts.size() && !b.initial.value; ++k) {
      bool inLoop = false;
      for (const Write &w : loopWrites) inLoop |= w.value.b == parts[k].b;
      if (inLoop) continue;
      if (auto d = firstDuration(t, parts[k])) b.initial = written(std::optional<Duration>(d), delaySpan);
    }
  }
  if (!b.initial.value) b.initial.origin = Origin::Unknown;
  if (capped) {
    b.cap.origin = Origin::Unknown; // capped; the maximum is read below where RL105 needs it
  } else {
    b.cap = written(std::optional<Duration>(), delaySpan);
  }
  if (random) analyseOrder(lv, cx, p, parts, vars, delay);
}

} // namespace retrylint::cpp
