// Log calls inside a retry loop (and its catch blocks), read from tokens so that log macros from
// headers that are absent (glog's LOG(WARNING) << …) are still seen.
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

} // namespace

void findLogs(const LoopView &lv, ExtractContext &cx, RetryPolicy &p) {
  const Tokens &t = lv.t;
  static const std::regex attemptish("attempt|retr|tries", std::regex::icase);
  for (size_t i = lv.body.b; i + 1 < lv.body.e; ++i) {
    if (!isIdent(t[i])) continue;
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
}

} // namespace retrylint::cpp
