#include "lint/model/duration.h"

#include <cmath>
#include <cstdio>

namespace retrylint {

std::string formatDuration(Duration d) {
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

} // namespace retrylint
