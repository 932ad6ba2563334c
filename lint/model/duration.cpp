#include "lint/model/duration.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>
#include <cstdio>

namespace retrylint {

std::string formatDuration(Duration d) {
  // Arithmetic on durations saturates (a wait doubled 98 times): say so, not "9223372036.855 s".
  if (d.nanos == std::numeric_limits<int64_t>::max()) return "more than 292 years";
  char buf[64];
  if (d.nanos != 0 && std::llabs(d.nanos) < 1'000'000'000) {
    std::snprintf(buf, sizeof buf, "%.3f", d.millis());
  } else {
    std::snprintf(buf, sizeof buf, "%.3f", d.seconds());
  }
  std::string s(buf);
  // Trim trailing zeros and a trailing dot: "1.500" -> "1.5", "25.000" -> "25".
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  bool small = d.nanos != 0 && std::llabs(d.nanos) < 1'000'000'000;
  return s + (small ? " ms" : " s");
}

std::string formatSeconds(Duration d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", d.seconds());
  std::string s(buf);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s + " s";
}

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
} // namespace

std::optional<Duration> parseGoDuration(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not a duration (" + why + ")";
    return std::nullopt;
  };
  std::string_view s = text;
  if (s.empty()) return fail("empty");
  bool negative = false;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration{0};
  if (s.empty()) return fail("no number");
  long double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && isDigit(s[i])) ++i;
    size_t intDigits = i;
    size_t fracDigits = 0;
    if (i < s.size() && s[i] == '.') {
      ++i;
      size_t start = i;
      while (i < s.size() && isDigit(s[i])) ++i;
      fracDigits = i - start;
    }
    if (intDigits == 0 && fracDigits == 0) return fail("expected a number");
    long double number = std::strtold(std::string(s.substr(0, i)).c_str(), nullptr);
    s.remove_prefix(i);
    size_t u = 0;
    while (u < s.size() && !isDigit(s[u]) && s[u] != '.') ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    long double scale;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else if (unit == "m") scale = 60e9;
    else if (unit == "h") scale = 3600e9;
    else if (unit.empty()) return fail("missing unit; use ms, s, m or h");
    else return fail("unknown unit '" + std::string(unit) + "'");
    total += number * scale;
    if (total > 9.2e18L) return fail("too large");
  }
  auto nanos = static_cast<int64_t>(std::llround(static_cast<double>(total)));
  return Duration{negative ? -nanos : nanos};
}

std::optional<Duration> parseProtoJsonDuration(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not a protobuf JSON duration (" + why + ")";
    return std::nullopt;
  };
  std::string_view s = text;
  if (s.empty() || s.back() != 's') {
    return fail("it must be decimal seconds ending in 's', e.g. \"0.1s\"");
  }
  s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  size_t i = 0;
  while (i < s.size() && isDigit(s[i])) ++i;
  if (i == 0) return fail("it must be decimal seconds ending in 's', e.g. \"0.1s\"");
  if (i > 12) return fail("too large");
  int64_t secs = std::stoll(std::string(s.substr(0, i)));
  int64_t frac = 0;
  if (i < s.size()) {
    if (s[i] != '.') return fail("it must be decimal seconds ending in 's', e.g. \"0.1s\"");
    size_t start = ++i;
    while (i < s.size() && isDigit(s[i])) ++i;
    size_t digits = i - start;
    if (i != s.size() || digits == 0) return fail("it must be decimal seconds ending in 's', e.g. \"0.1s\"");
    if (digits > 9) return fail("more than 9 fractional digits");
    std::string f(s.substr(start, digits));
    f.resize(9, '0');
    frac = std::stoll(f);
  }
  // Nanoseconds in int64 reach 292 years; proto allows 10000, but no retry setting needs them.
  if (secs > std::numeric_limits<int64_t>::max() / 1'000'000'000 - 1) return fail("too large (more than 292 years)");
  int64_t nanos = secs * 1'000'000'000 + frac;
  return Duration{negative ? -nanos : nanos};
}

std::optional<Duration> parseArgoDuration(std::string_view text, std::string *error) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  bool allDigits = !digits.empty() && digits.size() <= 9;
  for (char c : digits) allDigits = allDigits && isDigit(c);
  if (allDigits) {
    int64_t secs = std::stoll(std::string(digits));
    return Duration{(negative ? -secs : secs) * 1'000'000'000};
  }
  std::string err;
  auto d = parseGoDuration(text, &err);
  if (!d && error) *error = "'" + std::string(text) + "' is not a duration (a whole number of seconds such as \"10\", or a number with a unit such as \"2m\")";
  return d;
}

std::optional<Duration> parseGatewayDuration(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not a Gateway API duration (" + why + ")";
    return std::nullopt;
  };
  std::string_view s = text;
  if (s.empty()) return fail("empty");
  int64_t total = 0;
  int parts = 0;
  while (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i < s.size() && s[i] == '.') return fail("no decimals allowed: write 500ms, not 0.5s");
    if (i == 0) return fail("expected a whole number followed by h, m, s or ms");
    if (i > 5) return fail("at most 5 digits per component");
    int64_t n = std::stoll(std::string(s.substr(0, i)));
    s.remove_prefix(i);
    int64_t scale;
    if (s.substr(0, 2) == "ms") { scale = 1'000'000; s.remove_prefix(2); }
    else if (!s.empty() && s[0] == 'h') { scale = 3'600'000'000'000; s.remove_prefix(1); }
    else if (!s.empty() && s[0] == 'm') { scale = 60'000'000'000; s.remove_prefix(1); }
    else if (!s.empty() && s[0] == 's') { scale = 1'000'000'000; s.remove_prefix(1); }
    else return fail("a unit is required: h, m, s or ms");
    if (++parts > 4) return fail("at most 4 components");
    total += n * scale;
  }
  return Duration{total};
}

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!isDigit(c)) return false;
  return true;
}

// ISO-8601 as java.time.Duration.parse reads it: [+-]P[nD][T[nH][nM][n[.f]S]], signs allowed
// per component, a fraction only on seconds.
std::optional<long double> parseIsoDuration(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || (s[0] != 'P' && s[0] != 'p')) return std::nullopt;
  s.remove_prefix(1);
  long double total = 0;
  bool inTime = false, any = false;
  std::string order = "DHMS";
  size_t lastUnit = 0;
  while (!s.empty()) {
    if (s[0] == 'T' || s[0] == 't') {
      if (inTime) return std::nullopt;
      inTime = true;
      s.remove_prefix(1);
      if (s.empty()) return std::nullopt;
      continue;
    }
    size_t i = 0;
    if (s[i] == '+' || s[i] == '-') ++i;
    size_t digitsStart = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == digitsStart) return std::nullopt;
    size_t fracStart = i;
    if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
      ++i;
      while (i < s.size() && isDigit(s[i])) ++i;
    }
    if (i >= s.size()) return std::nullopt;
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
    std::string number(s.substr(0, i));
    for (char &c : number)
      if (c == ',') c = '.';
    bool hasFraction = i > fracStart;
    size_t pos = order.find(unit);
    if (pos == std::string::npos || (unit == 'D') == inTime || (hasFraction && unit != 'S') || pos < lastUnit)
      return std::nullopt;
    lastUnit = pos + 1;
    long double v = std::strtold(number.c_str(), nullptr);
    long double scale = unit == 'D' ? 86400e9L : unit == 'H' ? 3600e9L : unit == 'M' ? 60e9L : 1e9L;
    total += v * scale;
    any = true;
    s.remove_prefix(i + 1);
  }
  if (!any) return std::nullopt;
  return negative ? -total : total;
}
} // namespace

std::optional<Duration> parseSpringDuration(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not a Spring duration (" + why + ")";
    return std::nullopt;
  };
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return fail("empty");
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') body.remove_prefix(1);
  if (!body.empty() && (body[0] == 'P' || body[0] == 'p')) {
    auto v = parseIsoDuration(s);
    if (!v) return fail("malformed ISO-8601 duration; e.g. PT2S, PT0.5S");
    if (*v > 9.2e18L || *v < -9.2e18L) return fail("too large");
    return Duration{static_cast<int64_t>(std::llround(static_cast<double>(*v)))};
  }
  // DurationStyle.SIMPLE: ^([+-]?\d+)([a-zA-Z]{0,2})$
  size_t i = 0;
  while (i < body.size() && isDigit(body[i])) ++i;
  if (i == 0) return fail("expected a whole number with an optional unit ns, us, ms, s, m, h or d");
  std::string unit = lower(body.substr(i));
  if (!unit.empty() && !std::all_of(unit.begin(), unit.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
    return fail(unit.find('.') != std::string::npos ? "decimals are not allowed; write 1500ms or PT1.5S"
                                                    : "expected a whole number with an optional unit ns, us, ms, s, m, h or d");
  long double scale;
  if (unit.empty() || unit == "ms") scale = 1e6L;
  else if (unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3L;
  else if (unit == "s") scale = 1e9L;
  else if (unit == "m") scale = 60e9L;
  else if (unit == "h") scale = 3600e9L;
  else if (unit == "d") scale = 86400e9L;
  else return fail("unknown unit '" + unit + "'; use ns, us, ms, s, m, h or d");
  if (i > 15) return fail("too large");
  long double v = std::strtold(std::string(body.substr(0, i)).c_str(), nullptr) * scale;
  if (v > 9.2e18L) return fail("too large");
  auto nanos = static_cast<int64_t>(v);
  return Duration{s[0] == '-' ? -nanos : nanos};
}

std::optional<Duration> parseTimeSpan(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not a .NET TimeSpan (" + why + "); write hh:mm:ss, e.g. \"00:00:02\"";
    return std::nullopt;
  };
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return fail("empty");
  constexpr long double kDay = 86400e9L;
  long double total = 0;
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) {
    if (!allDigits(s) || s.size() > 8) return fail("expected a number of days or hh:mm:ss");
    total = std::strtold(std::string(s).c_str(), nullptr) * kDay;
  } else {
    std::string_view head = s.substr(0, colon);
    size_t dot = head.find('.');
    if (dot != std::string_view::npos) {
      std::string_view days = head.substr(0, dot);
      if (!allDigits(days) || days.size() > 8) return fail("malformed days");
      total += std::strtold(std::string(days).c_str(), nullptr) * kDay;
      s.remove_prefix(dot + 1);
    }
    // hh:mm[:ss[.fffffff]]
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
      size_t c = s.find(':', start);
      parts.push_back(s.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start));
      if (c == std::string_view::npos) break;
      start = c + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) return fail("expected hh:mm or hh:mm:ss");
    std::string_view secPart = parts.size() == 3 ? parts[2] : std::string_view("0");
    std::string_view frac;
    if (size_t d = secPart.find('.'); d != std::string_view::npos) {
      frac = secPart.substr(d + 1);
      secPart = secPart.substr(0, d);
      if (!allDigits(frac) || frac.size() > 7) return fail("at most 7 fractional digits");
    }
    if (!allDigits(parts[0]) || !allDigits(parts[1]) || !allDigits(secPart) || parts[0].size() > 2 ||
        parts[1].size() > 2 || secPart.size() > 2)
      return fail("malformed hh:mm:ss");
    int h = std::stoi(std::string(parts[0])), m = std::stoi(std::string(parts[1])), sec = std::stoi(std::string(secPart));
    if (h > 23 || m > 59 || sec > 59) return fail("hours 0-23, minutes and seconds 0-59");
    total += h * 3600e9L + m * 60e9L + sec * 1e9L;
    if (!frac.empty()) {
      std::string f(frac);
      f.resize(9, '0');
      total += std::strtold(f.c_str(), nullptr);
    }
  }
  if (total > 9.2e18L) return fail("too large");
  auto nanos = static_cast<int64_t>(total);
  return Duration{negative ? -nanos : nanos};
}

std::optional<Duration> parseNginxTime(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not an NGINX time (" + why + ")";
    return std::nullopt;
  };
  // The units in the order NGINX requires them, each at most once, with its length in ms.
  struct Unit {
    std::string_view name;
    int64_t ms;
  };
  static constexpr Unit units[] = {{"w", 7 * 86'400'000LL}, {"d", 86'400'000LL}, {"h", 3'600'000LL},
                                   {"ms", 1}, {"m", 60'000LL}, {"s", 1'000LL}};
  static constexpr int order[] = {0, 1, 2, 5, 3, 4}; // w d h m s ms: the rank of each entry above
  std::string_view s = text;
  int64_t total = 0;
  int last = -1;
  bool any = false;
  while (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == 0) return fail("expected a whole number, optionally followed by w, d, h, m, s or ms");
    if (i > 12) return fail("too large");
    const int64_t n = std::stoll(std::string(s.substr(0, i)));
    s.remove_prefix(i);
    any = true;
    int k = -1;
    for (int u = 0; u < 6 && k < 0; ++u)
      if (s.substr(0, units[u].name.size()) == units[u].name) k = u;
    int64_t scale = 1000; // no unit: seconds, and nothing may follow
    if (k >= 0) {
      if (order[k] <= last) return fail("units must go from the largest to the smallest, each once");
      last = order[k];
      scale = units[k].ms;
      s.remove_prefix(units[k].name.size());
    } else if (!s.empty() && s[0] != ' ') {
      return fail("unknown unit '" + std::string(s.substr(0, 1)) + "'");
    } else if (!s.empty()) {
      s.remove_prefix(1);
      while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
      if (!s.empty()) return fail("a number without a unit must come last");
    }
    total += n * scale;
    while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
  }
  if (!any) return fail("empty");
  return Duration::ms(static_cast<double>(total));
}

std::optional<Duration> parseHaproxyTime(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<Duration> {
    if (error) *error = "'" + std::string(text) + "' is not an HAProxy time (" + why + ")";
    return std::nullopt;
  };
  size_t i = 0;
  while (i < text.size() && isDigit(text[i])) ++i;
  if (i == 0) return fail("expected a whole number, optionally followed by us, ms, s, m, h or d");
  if (i > 12) return fail("too large");
  const double n = static_cast<double>(std::stoll(std::string(text.substr(0, i))));
  const std::string_view unit = text.substr(i);
  if (unit.empty() || unit == "ms") return Duration::ms(n);
  if (unit == "us") return Duration{Duration::clamp(n * 1e3)};
  if (unit == "s") return Duration::s(n);
  if (unit == "m") return Duration::s(n * 60);
  if (unit == "h") return Duration::s(n * 3600);
  if (unit == "d") return Duration::s(n * 86400);
  return fail("unknown unit '" + std::string(unit) + "'");
}

} // namespace retrylint
