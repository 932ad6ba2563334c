#include "rules/rule.h"

namespace retrylint {
namespace {

// Background retries whose waits add up to no more than this are advice. Reviewers judged catch-alls
// whose waits end within 20 s, 3 min and 5 min 10 s (a scheduled start/stop job) threshold cases,
// 8.5 min and more worth fixing (docs/accuracy.md): the line sits between.
constexpr Duration kQuickRetries = Duration::s(360);

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (p.retries() == 0 && p.max_attempts.value) continue;
    // Background work with three retries or fewer: a permanent failure costs a few extra runs that
    // nobody waits on; advice, at note severity.
    // So is background work whose retries all end within a few minutes (kQuickRetries): the failure
    // is reported that much later.
    Reporter advice = out;
    const auto r = p.boundedRetries();
    const auto waits = r ? worstCaseWaits(p.backoff, *r) : std::nullopt;
    std::string quick;
    if (r && p.workload == Workload::Background) {
      if (*r <= 3) advice.capSeverity(Severity::Note);
      else if (waits && *waits <= kQuickRetries) {
        advice.capSeverity(Severity::Note);
        quick = " (background work whose waits add up to " + formatDuration(*waits) + " at most: the failure is reported that much later)";
      }
    }
    const std::string cut = p.boundedRetriesNote();
    for (const Condition &c : p.retry_on) {
      if (!c.catch_all) continue;
      std::string msg = "'" + c.text + "' retries every failure";
      if (c.origin == Origin::Defaulted) msg += " (by default)";
      msg += ": permanent errors (bad input, missing permission, a bug) are retried " +
             (r.value_or(0) > 0 ? std::to_string(*r) + (*r == 1 ? " more time" : " more times") + cut : std::string("again")) +
             (!cut.empty() ? ", then the run's deadline ends it with the real error hidden behind the timeout"
              : p.workload == Workload::Background ? " and reported late" : " and answered late") +
             "; retry only the failures a second try can fix" + quick;
      if (!c.catch_all_why.empty()) {
        Reporter note = advice;
        note.capSeverity(Severity::Note);
        note.report(p, c.where.known() ? c.where : p.where, "catchAll/" + c.text, msg + " (" + c.catch_all_why + ")");
        continue;
      }
      advice.report(p, c.where.known() ? c.where : p.where, "catchAll/" + c.text, msg);
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
        "a retrier, a Polly pipeline that handles every exception. In background work with three retries or "
        "fewer, or whose waits add up to 6 minutes at most, it is a note: a permanent failure then costs a few "
        "extra runs nobody waits on, reported a few minutes late. So is a Step Functions "
        "catch-all after a retrier that takes errors out with MaxAttempts 0 (the author sorted the permanent "
        "ones out first), and States.TaskFailed on a `.sync` task, whose job's failure has no other name. Argo's "
        "`retryPolicy: Always` is no catch-all here (OnFailure, the default, already retries every non-zero "
        "exit), nor is a Dapr policy without `matching` (Dapr's default).",
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
