#include <cmath>

#include "lint/model/chain.h"
#include "rules/rule.h"

namespace retrylint {
namespace {

std::string callsText(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", c);
  return buf;
}

void checkChain(const Chain &chain, const Settings &settings, Reporter &out) {
  const std::vector<LayerFigures> &f = chain.figures;
  // Where to report: the deepest layer that retries and whose calls exceed the ceiling, preferring
  // a layer that does not own retries (that is where the fix belongs).
  int at = -1;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!f[i].calls || *f[i].calls <= settings.max_amplification || f[i].attempts <= 1 || !f[i].worst) continue;
    if (at < 0 || !chain.layers[i].owns_retries || chain.layers[at].owns_retries) at = static_cast<int>(i);
  }
  if (at < 0) return;
  std::string terms;
  double total = 1;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!f[i].calls) break; // an unbounded layer: RL201's finding
    terms += (i ? " x " : "") + chain.layers[i].name + " " + std::to_string(f[i].attempts) + " (" +
             (f[i].worst ? f[i].attempts_origin + ": " + f[i].attempts_source : f[i].attempts_source) + ")";
    total = *f[i].calls;
  }
  const LayerFigures &here = f[at];
  const RetryPolicy &p = *here.worst;
  std::string msg = "retries multiply along the chain " + chain.title() + ": " + terms + " = up to " + callsText(total) +
                    " calls from '" + chain.layers.back().name + "' per user request, above the ceiling of " +
                    std::to_string(settings.max_amplification) + " (settings.max-amplification); retry in one layer " +
                    "(owns-retries) and set the others to 1 attempt";
  const Span &where = p.max_attempts.where.known() ? p.max_attempts.where : p.where;
  out.report(p, where, "amplification", msg, chain.layers[at].owns_retries ? std::nullopt : p.max_attempts.fix);
}

} // namespace

extern const Rule kRL204 = {
    "RL204", "retry-amplification", Severity::Error,
    "along a declared call chain, the product of attempts per layer exceeds the ceiling (default 10)",
    {
        "For every call chain declared in .retrylint.yaml (`layers`, and `chains` when several chains share "
        "layers), the worst-case number of calls each layer makes per user request: the product of the "
        "attempts of that layer and every layer above it, taking in each layer the policy with the most "
        "attempts. When it exceeds `settings.max-amplification` (default 10) the finding lists every layer "
        "with its attempts and where that number comes from (written, or which library default), and the "
        "product. It is reported at the deepest retrying layer that does not own retries. "
        "`retrylint --report layers` prints the same arithmetic as a table.",
        "During an outage every layer retries: gateway, service and datastore client at 3 attempts each send "
        "up to 27 calls to the datastore for one user request, just when it is least able to take them. "
        "That is how a short blip becomes a retry storm. Retry in one layer and set the others to 1.",
        ".retrylint.yaml with layers gateway, orders-service, datastore-client, each left at 3 attempts.",
        "The same with owns-retries: true on datastore-client and attempts set to 1 (Istio: attempts: 0) in the others.",
        "settings.max-amplification in .retrylint.yaml (default 10); layers, owns-retries and chains.",
        "AWS Builders' Library, \"Timeouts, retries and backoff with jitter\" (retries at every layer multiply); "
        "AWS SDKs and Tools Reference Guide, retry behavior.",
    },
    nullptr,
    checkChain,
    /*checks_implicit=*/true, // a declared chain makes a default a finding
};

} // namespace retrylint
