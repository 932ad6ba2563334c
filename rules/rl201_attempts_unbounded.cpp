#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.max_attempts.known() || p.max_attempts.value) continue;
    std::string msg = "nothing limits the number of attempts";
    if (p.max_attempts.origin == Origin::Defaulted) msg += " (" + p.max_attempts.source + ")";
    msg += ": a dependency that stays down is retried forever, and every waiting caller adds to the storm";
    if (p.waits_for_lock) { // lock() waits until the holder lets go: its contract, advice only
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, p.max_attempts.where, "attempts", msg + " (a lock wait: the holder decides how long)");
      continue;
    }
    out.report(p, p.max_attempts.where, "attempts", msg);
  }
}

} // namespace

extern const Rule kRL201 = {
    "RL201", "attempts-unbounded", Severity::Error,
    "nothing limits the number of attempts",
    {
        "Retries with no attempt limit: `while (true)` retry loops, Dapr `maxRetries: -1` or absent, a limit "
        "of 0 that a library reads as \"forever\". A loop that waits for a lock another holder has "
        "(`while (!m.try_lock()) sleep`) is a note: how long it waits is up to the holder.",
        "An unbounded retry turns every request in flight during an outage into a permanent source of load. "
        "The callers never fail, so nothing upstream sheds load or falls back, and the dependency cannot "
        "recover under the accumulated retries.",
        "    while (true) {\n"
        "      if (client.Call(req).ok()) break;\n"
        "      sleep_for(backoff());\n"
        "    }",
        "Bound the attempts (and the total time):\n"
        "    for (int attempt = 1; attempt <= 3; ++attempt) { … }",
        "None.",
        "Amazon Builders' Library, \"Timeouts, retries, and backoff with jitter\".",
    },
    check,
};

} // namespace retrylint
