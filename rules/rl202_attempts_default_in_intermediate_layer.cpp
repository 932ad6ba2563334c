#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &settings, Reporter &out) {
  const LayerContext &lc = settings.layer;
  if (lc.owns_retries) return; // the owner is where retries belong, defaults included
  // Without layers (or for a file in no declared layer) nothing says whether this component is the
  // one that should retry: a default there is the platform working as designed, and a note on every
  // route and profile of a repository is noise. Declared layers are what make a default a finding.
  if (!lc.configured || lc.layer.empty()) return;
  for (const RetryPolicy &p : m.policies) {
    if (p.max_attempts.origin != Origin::Defaulted && !(p.implicit && p.max_attempts.known())) continue;
    auto n = p.effectiveAttempts();
    if (!n || *n <= 1) continue;
    std::string msg = p.component + " retries with its library's default attempt count: " +
                      (p.max_attempts.source.empty() ? std::to_string(*n) + " attempts" : p.max_attempts.source) + ". ";
    std::string setTo = p.attempts_count_retries ? p.attempts_field + " to 0 (it counts retries: 0 = a single attempt)"
                                                 : (p.attempts_field.empty() ? "attempts" : p.attempts_field) + " to 1";
    msg += "Layer '" + lc.layer + "' does not own retries" + (lc.owner.empty() ? "" : " ('" + lc.owner + "' does)") +
           ", so each of its " + std::to_string(*n) + " attempts multiplies the retries of the layers around it; set " +
           setTo + " explicitly";
    out.report(p, p.max_attempts.where, "attempts/default", msg, p.max_attempts.fix);
  }
}

} // namespace

extern const Rule kRL202 = {
    "RL202", "attempts-default-in-intermediate-layer", Severity::Warning,
    "a layer that does not own retries retries with its library's default attempt count",
    {
        "A retry policy whose attempt count is a library default (Istio's 2 retries on a route without a "
        "retries block, the AWS SDKs' 3 attempts, Resilience4j's maxAttempts 3, Kong's 5 retries …) in a "
        "component of a layer that does not own retries. Layers come from `layers` in .retrylint.yaml; "
        "without them (or for a file in no layer) the rule is silent: nothing then says whether the component "
        "is the one that should retry, and a default is the platform working as designed. Files in the owning "
        "layer are not reported. This is the only rule that looks at objects with no retry block at all.",
        "Retries multiply across layers: gateway, service and datastore client at 3 attempts each give up "
        "to 3 x 3 x 3 = 27 calls on the bottom layer per user request during an outage. Retry in one layer, "
        "the one that can best judge the failure, and set the others to 1 attempt. Defaults are the classic "
        "amplifier because nobody chose them: the setting is not in the file to be reviewed.",
        "Istio route of an intermediate layer, no retries block (Istio retries twice by default):\n"
        "    - route:\n"
        "      - destination: {host: orders}",
        "    - retries: {attempts: 0}\n"
        "      route:\n"
        "      - destination: {host: orders}",
        "layers (with owns-retries) and chains in .retrylint.yaml.",
        "AWS SDKs and Tools Reference Guide, retry behavior (max_attempts default 3, 1 disables retries); "
        "istio/istio pilot/pkg/networking/core/route/retry/retry.go (2 retries by default); Resilience4j "
        "RetryConfig (maxAttempts 3).",
    },
    check,
    nullptr,
    /*checks_implicit=*/true,
};

} // namespace retrylint
