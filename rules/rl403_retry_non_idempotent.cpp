#include "rules/rule.h"

namespace retrylint {
namespace {

bool nonIdempotent(const std::string &method) { return method == "POST" || method == "PATCH"; }

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.mayRetry() || p.idempotency_key) continue; // an unknown count still retries
    const Setting<std::string> *method = nullptr;
    for (const auto &mt : p.methods)
      if (nonIdempotent(mt.value)) { method = &mt; break; }
    if (!method) continue;
    const Condition *first = nullptr;
    std::string list;
    bool refusalsOnly = true; // every such condition a status the server sends to refuse
    for (const Condition &c : p.retry_on) {
      if (!c.may_have_been_processed) continue;
      if (!first) first = &c;
      list += (list.empty() ? "" : ", ") + c.text;
      refusalsOnly = refusalsOnly && !c.refusal_why.empty();
    }
    if (!first) continue;
    // Where the method comes from: a route's match, or the setting that lets it through.
    const std::string from = method->source.empty() ? "matched at line " + std::to_string(method->where.line) : method->source;
    const std::string runs = "one user action can run " +
                             (p.exactRetries() ? "up to " + std::to_string(p.retries() + 1) + " times" : std::string("several times")) +
                             " (a second payment, a duplicate order)";
    const Span at = first->where.known() ? first->where : p.where;
    const std::string head = method->value + " requests (" + from + ") are retried on " + list + " with no idempotency key: ";
    if (refusalsOnly) { // what the replay costs rests on what stands between, which no file shows: advice
      Reporter advice = out;
      advice.capSeverity(Severity::Note);
      advice.report(p, at, "nonIdempotent", head + first->refusal_why + "; there " + runs);
      continue;
    }
    out.report(p, at, "nonIdempotent", head + first->why_processed + ", so " + runs);
  }
}

} // namespace

extern const Rule kRL403 = {
    "RL403", "retry-non-idempotent", Severity::Warning,
    "a non-idempotent operation (POST, PATCH) is retried on failures it may already have processed",
    {
        "A retry policy that applies to non-idempotent requests (a route matching POST or PATCH, a method "
        "marked non-idempotent) and retries on conditions after which the first attempt may already have "
        "taken effect: timeouts (408, 504, DEADLINE_EXCEEDED, per-try timeouts), `5xx`, `gateway-error`, "
        "`reset`, INTERNAL, UNKNOWN — with no idempotency key in evidence (an `Idempotency-Key` header match). "
        "Conditions where nothing was sent (connect-failure, refused-stream, reset-before-request) are safe. "
        "Where the only such condition is a 503 that NGINX (`http_503`) or HAProxy (`retry-on 503`) takes "
        "from the server itself, which sends it to refuse a request, the finding is a note: only a proxy "
        "between them (a mesh sidecar) answers 503 after the request was processed.",
        "A timeout does not say whether the server acted. Retrying a payment capture or a stock reservation "
        "after the first attempt succeeded but its answer was lost runs it twice. Istio retried 503s on POSTs "
        "by default until istio/istio#50506 (a double payout) made it stop.",
        "    http:\n"
        "    - match:\n"
        "      - method: {exact: POST}\n"
        "      retries:\n"
        "        attempts: 2\n"
        "        retryOn: 5xx,reset",
        "Retry only where nothing was sent, or send a client-made Idempotency-Key reused on every retry:\n"
        "      retries:\n"
        "        attempts: 2\n"
        "        retryOn: connect-failure,refused-stream,reset-before-request",
        "None.",
        "istio/istio#13851, #27340, #50506 and PR #52111; IETF draft \"The Idempotency-Key HTTP Header Field\"; "
        "Envoy router filter (x-envoy-retry-on conditions).",
    },
    check,
};

} // namespace retrylint
