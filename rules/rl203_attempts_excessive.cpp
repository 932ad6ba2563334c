#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &settings, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.max_attempts.known() || !p.max_attempts.value || p.attempts_restate_default) continue;
    // A default in a layer that does not own retries is RL202's finding: one cause, one finding.
    const LayerContext &lc = settings.layer;
    if (p.max_attempts.origin == Origin::Defaulted && lc.configured && !lc.layer.empty() && !lc.owns_retries) continue;
    // A limit the runtime keeps by design (NGINX: the servers' count) is the count that runs.
    const bool byDesign = p.runtime_max_by_design && p.runtime_max_attempts && *p.runtime_max_attempts < *p.max_attempts.value;
    int n = byDesign ? *p.runtime_max_attempts : *p.max_attempts.value;
    const int ceiling = settings.limitsFor(p.workload).max_attempts;
    // Only the attempts that can start count: an overall deadline (an Express workflow's 5 minutes)
    // ends the retries whose waits alone pass it, and RL301 says so.
    if (auto reach = p.boundedRetries(); reach && p.exactRetries() && *reach < *p.exactRetries() && *reach + 1 <= ceiling &&
                                         !(p.runtime_max_attempts && n > *p.runtime_max_attempts))
      continue;
    // In background work a retry that starts after max-wait (15 min) of waits is rather a
    // scheduled rerun than part of the storm: count the attempts an outage sees, those that start
    // within it (docs/accuracy.md: 21 attempts spread over 3 hours were judged a threshold case).
    const Duration window = settings.limitsFor(p.workload).max_wait;
    std::optional<int> early;
    if (p.workload == Workload::Background && p.exactRetries())
      if (auto fit = retriesThatFit(p.backoff, *p.exactRetries(), window); fit && *fit < *p.exactRetries()) early = *fit + 1;
    const int counted = early.value_or(n);
    bool aboveCeiling = counted > ceiling;
    bool clamped = !byDesign && p.runtime_max_attempts && n > *p.runtime_max_attempts;
    if (!aboveCeiling && !clamped) continue;
    // Only connections that failed are retried: the failing server sees connection attempts.
    const bool unsent = p.retriesOnlyUnsent();
    // The field as written ("attempts 8"), else a description ("30 attempts": a C++ loop has no field).
    const bool quoteField = p.max_attempts.written() && !p.attempts_count_retries && !byDesign && !p.attempts_field.empty();
    const bool plural = !quoteField;
    std::string msg = quoteField ? p.attempts_field + " " + std::to_string(n) : p.describeAttempts();
    if (aboveCeiling) {
      int runs = p.effectiveAttempts().value_or(n);
      msg += plural ? " exceed" : " exceeds";
      msg += " the ceiling of " + std::to_string(ceiling) + " attempts on a " + workloadName(p.workload);
      if (clamped) {
        msg += "; " + p.runtime_max_source + ", so " + std::to_string(runs) + " attempts run, not " + std::to_string(n);
      } else {
        msg += std::string(": during an outage each ") + (p.workload == Workload::Background ? "task" : "request") + " becomes " +
               (p.runtime_max_by_design && !p.runtime_max_attempts ? "up to " : "") + std::to_string(counted) + (unsent ? " connection attempts to the failing server" : " calls to the failing service");
        if (early) {
          msg += " within the first " + formatDuration(window) + " (the other " + std::to_string(n - counted) + " attempts start later";
          if (auto all = worstCaseWaits(p.backoff, n - 1)) msg += ", " + formatDuration(*all) + " of waits in all";
          msg += ")";
        }
      }
    } else {
      msg += std::string(plural ? " are" : " is") + " above what the runtime allows: " + p.runtime_max_source + ", so " +
             std::to_string(*p.runtime_max_attempts) + " attempts run, not " + std::to_string(n);
    }
    if (p.max_attempts.origin == Origin::Defaulted) msg += " (" + p.max_attempts.source + ")";
    // The request is never sent: worth a look (the client waits through them), not a storm.
    if (aboveCeiling && unsent) {
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, p.max_attempts.where, "attempts", msg + " (only failed connections are retried: the request is never sent)");
      continue;
    }
    // An upper bound only, the runtime's own limit not being in the file: worth a look.
    if (p.runtime_max_by_design && !p.runtime_max_attempts) {
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, p.max_attempts.where, "attempts", msg + " (" + p.runtime_max_source + ")");
      continue;
    }
    // A retry budget the runtime keeps (the AWS SDKs' retry quota, Envoy's retry_budget, gRPC's
    // retryThrottling) stops retrying once an outage spends it: the storm is bounded by the budget,
    // not by these attempts, which still lengthen each failing call while it lasts. Advice.
    if (aboveCeiling && !clamped && p.budget.known() && p.budget.value) {
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, p.max_attempts.where, "attempts",
                    msg + " only until the retry budget is spent (" +
                        (p.budget.source.empty() ? "a retry budget is configured" : p.budget.source) +
                        "): in an outage the budget, not these attempts, bounds the extra load");
      continue;
    }
    // A read polled at a fixed interval: its count is a waiting time (RL103, RL402 still speak of
    // the waits and the errors it retries). Advice.
    if (aboveCeiling && !clamped && !p.polls_by_reading.empty()) {
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, p.max_attempts.where, "attempts", msg + " (" + p.polls_by_reading + ")");
      continue;
    }
    // A little above the ceiling (one attempt, or up to a quarter of it) is a threshold case: advice
    // (docs/accuracy.md: reviewers judged 6 attempts on a route and 12 or 13 in a workflow so).
    if (aboveCeiling && !clamped && counted <= ceiling + std::max(1, ceiling / 4)) {
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, p.max_attempts.where, "attempts", msg + " (near the ceiling: worth a look, not a storm)");
      continue;
    }
    out.report(p, p.max_attempts.where, "attempts", msg);
  }
}

} // namespace

extern const Rule kRL203 = {
    "RL203", "attempts-excessive", Severity::Warning,
    "more attempts than the ceiling for the workload (request path 5, background 11, i.e. 10 retries; a note up to 6 and 13); also gRPC maxAttempts above 5, which gRPC clamps",
    {
        "A retry policy that allows more attempts in total (the first try included) than the ceiling for its "
        "workload: 5 on a request path (mesh and gateway routes, RPC, HTTP and SDK clients), 11 (10 retries) in a background "
        "workload (Step Functions, Argo Workflows, telemetry exporters, queue consumers), where a job can afford "
        "to wait and nobody holds a connection open. Counts are compared after normalisation: Istio "
        "`attempts: 5` means 5 retries, so 6 attempts. One attempt above the ceiling, or up to a quarter above it "
        "(6 on a request path, 12 and 13 in background work), is a note: a threshold case, worth a look, not a "
        "storm. In background work only the attempts that start within settings.background.max-wait (15 min) "
        "of waits count: a retry that starts later is rather a scheduled rerun than part of the storm, and the "
        "message says how many start later. Also any gRPC "
        "`maxAttempts` above 5, which gRPC silently clamps to 5. Also notes: a count that is only an upper bound "
        "(NGINX tries each server of the upstream once, and the servers are not in the file: ingress-nginx's "
        "`proxy-next-upstream-tries`, a `proxy_pass` to a name), and retries of connections that never carried "
        "the request (HAProxy's `conn-failure`), which cost the failing server connection attempts, not requests. "
        "Where a retry budget applies (the AWS SDKs' retry quota in standard and adaptive mode, Envoy's "
        "retry_budget, gRPC's retryThrottling) it is a note: once an outage spends the budget the client "
        "stops retrying, so the budget, not the attempt count, bounds the extra load. "
        "A platform default is reported only inside a retry block the author wrote; "
        "objects with no retry block at all are RL202's concern.",
        "Each attempt is another request on a service that is already failing. Beyond a handful, extra "
        "attempts rarely succeed where the earlier ones failed, but they multiply the load by the attempt "
        "count during every outage, and more again where layers each retry. A value the runtime clamps "
        "misleads readers about how the system behaves.",
        "Istio:\n"
        "    retries:\n"
        "      attempts: 10\n"
        "      perTryTimeout: 1s",
        "    retries:\n"
        "      attempts: 2\n"
        "      perTryTimeout: 1s",
        "settings.max-attempts (default 5, also --max-attempts) and settings.background.max-attempts (default "
        "10) in .retrylint.yaml: the largest total number of attempts allowed per workload.",
        "gRFC A6 client retries (maxAttempts limit 5); grpc/grpc retry_service_config.cc; AWS SDKs and Tools "
        "Reference Guide (max_attempts default 3).",
    },
    check,
    nullptr,
    /*checks_implicit=*/false,
    /*aggregate_notes=*/false,
    /*needs_a_crowd=*/true,
};

} // namespace retrylint
