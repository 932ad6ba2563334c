// The wait between attempts: which sleep, how its delay grows, whether it is capped and jittered.
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

// Sleeps and timed waits (std::this_thread, POSIX, absl, Windows, condition variables).
bool isSleep(std::string_view n) {
  static const std::set<std::string_view> s = {"sleep_for", "sleep_until", "usleep", "sleep", "nanosleep",
                                               "SleepFor", "SleepUntil", "Sleep", "SleepForMilliseconds",
                                               "SleepForSeconds", "SleepMs", "SleepMillis", "msleep",
                                               "wait_for", "wait_until"};
  return s.count(n) > 0;
}

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


} // namespace

std::vector<Range> callArgs(const Tokens &t, size_t open) {
  std::vector<Range> out;
  size_t c = t.close(open), b = open + 1;
  for (size_t i = b; i < c; ++i) {
    if (t.is(i, "(") || t.is(i, "[") || t.is(i, "{")) { i = t.close(i); continue; }
    if (t.is(i, ",")) { out.push_back({b, i}); b = i + 1; }
  }
  if (b < c) out.push_back({b, c});
  return out;
}

bool isRandomSource(std::string_view n) { return isRandom(n); }

void analyseWait(const LoopView &lv, ExtractContext &cx, RetryPolicy &p) {
  const Tokens &t = lv.t;
  Backoff &b = p.backoff;
  b.description = "the loop's wait";
  size_t call = std::string::npos;
  for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
    if (isIdent(t[i]) && isSleep(t[i].text) && t.is(i + 1, "(")) { call = i; break; }
  if (call == std::string::npos) {
    // A helper or macro named like a wait (Backoff(), WaitBeforeRetry(), RETRY_SLEEP()) may sleep.
    static const std::regex waitish("sleep|backoff|wait|delay|pause", std::regex::icase);
    for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i)
      if (isIdent(t[i]) && t.is(i + 1, "(") && std::regex_search(t[i].text, waitish)) {
        b.growth.origin = Origin::Unknown;
        return;
      }
    b.growth = written(Growth::NoWait, p.where);
    b.jitter.origin = b.cap.origin = Origin::NotApplicable;
    return;
  }
  const std::string name = t[call].text;
  auto as = callArgs(t, call + 1);
  Span callSpan = spanOf(cx, t, call, t.close(call + 1) + 1);
  if (as.empty()) { b.growth.origin = Origin::Unknown; return; }
  Range delay = ((name == "wait_for" || name == "wait_until") && as.size() >= 2) ? as[1] : as[0];
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
      if (k.text == "<<" || k.text == "pow" || k.text == "exp2" || k.text == "ldexp") {
        shifts = true;
        if (k.text == "pow" && t.is(i + 1, "(") && t[i + 2].kind == Tok::Number) factor = std::stod(t[i + 2].text);
      }
      if (k.text == "*") times = true;
      for (const auto &c : counterNames) if (k.text == c && isIdent(k)) usesCounter = true;
      if (isIdent(k) && t.is(i + 1, "(") && !isPure(k.text) && !isSleep(k.text) && !vars.count(k.text)) unknownCall = true;
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
    for (size_t k = 1; k < parts.size() && !b.initial.value; ++k)
      if (auto d = firstDuration(t, parts[k])) b.initial = written(std::optional<Duration>(d), delaySpan);
  }
  if (!b.initial.value) b.initial.origin = Origin::Unknown;
  if (capped) {
    b.cap.origin = Origin::Unknown; // capped; the maximum is not read
  } else {
    b.cap = written(std::optional<Duration>(), delaySpan);
  }
}

} // namespace retrylint::cpp
