#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (p.retries() == 0 && p.max_attempts.value) continue;
    for (const Condition &c : p.retry_on) {
      if (!c.catch_all) continue;
      std::string msg = "'" + c.text + "' retries every failure";
      if (c.origin == Origin::Defaulted) msg += " (by default)";
      msg += ": permanent errors (bad input, missing permission, a bug) are retried " +
             (p.exactRetries().value_or(0) > 0 ? std::to_string(p.retries()) + " more times" : std::string("again")) +
             " and answered late; retry only the failures a second try can fix";
      out.report(p, c.where.known() ? c.where : p.where, "catchAll/" + c.text, msg);
    }
  }
}

} // namespace

extern const Rule kRL402 = {
    "RL402", "retry-on-generic-exception", Severity::Error,
    "the retry condition is a catch-all (catch (...), java.lang.Exception, States.ALL)",
    {
        "A retry whose condition matches every failure: C++ `catch (...)` or `catch (const std::exception&)` that "
        "leads to another attempt, Resilience4j `retryExceptions` holding `java.lang.Exception`, `Throwable`, "
        "`RuntimeException` or a generic HTTP-client exception, Step Functions `ErrorEquals: [\"States.ALL\"]` in "
        "a retrier, a Polly pipeline that handles every exception.",
        "A catch-all cannot tell a timeout from a validation error or a bug. Permanent failures are retried with "
        "their full backoff, multiplying load and delaying the answer; a bug becomes N identical failures.",
        "    \"Retry\": [{\"ErrorEquals\": [\"States.ALL\"], \"MaxAttempts\": 3}]",
        "    \"Retry\": [{\"ErrorEquals\": [\"Lambda.ServiceException\", \"Lambda.TooManyRequestsException\"],\n"
        "               \"MaxAttempts\": 3, \"JitterStrategy\": \"FULL\"}]",
        "None.",
        "AWS Step Functions, error handling (States.ALL); Resilience4j retry configuration (retryExceptions).",
    },
    check,
};

} // namespace retrylint
