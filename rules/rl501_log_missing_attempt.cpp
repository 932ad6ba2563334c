#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    for (const LogSite &log : p.logs) {
      if (log.has_attempt) continue;
      std::string msg = log.call + " inside the retry loop does not log the attempt number";
      if (!p.attempt_variable.empty()) msg += " ('" + p.attempt_variable + "')";
      msg += ": during an incident nobody can tell from the logs how often each request was retried, so "
             "amplification stays invisible";
      out.report(p, log.where, "log/" + log.call + "/" + std::to_string(log.where.line - p.where.line), msg);
    }
  }
}

} // namespace

extern const Rule kRL501 = {
    "RL501", "log-missing-attempt", Severity::Warning,
    "a log statement inside a retry loop does not include the attempt number",
    {
        "A log call inside a retry loop, its catch block or a retry callback (glog/absl `LOG`, spdlog, fmt, "
        "`printf`, `std::cerr`, project `LOG_*` macros) whose arguments do not include the attempt counter or a "
        "value derived from it.",
        "Retries multiply load silently. The attempt number in each failure line is what lets an incident review "
        "see that one user request became 27 backend calls, and which layer multiplied it.",
        "    LOG(WARNING) << \"fetch failed: \" << status;",
        "    LOG(WARNING) << \"fetch failed (attempt \" << attempt << \"/\" << kMaxAttempts << \"): \" << status;",
        "None.",
        "Amazon Builders' Library, \"Timeouts, retries, and backoff with jitter\" (observability of retries).",
    },
    check,
};

} // namespace retrylint
