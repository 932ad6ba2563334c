#include "lint/model/chain.h"

namespace retrylint {

std::string Chain::title() const {
  std::string t;
  for (const ChainLayer &l : layers) t += (t.empty() ? "" : " > ") + l.name;
  return t;
}

std::string placeOf(const Span &s) { return s.path + ":" + std::to_string(s.line); }

namespace {
std::string fmt(Duration d) { return d >= Duration::s(1) ? formatSeconds(d) : formatDuration(d); }
std::optional<Duration> valueOf(const Setting<std::optional<Duration>> &s) {
  return s.known() && s.value ? s.value : std::nullopt;
}
} // namespace

std::optional<Duration> worstCaseTime(const RetryPolicy &p, std::optional<Duration> below, std::string *arithmetic) {
  auto attempts = p.max_attempts.known() ? p.effectiveAttempts() : std::nullopt;
  if (!attempts) return std::nullopt;
  auto perTry = valueOf(p.per_try_timeout);
  auto deadline = valueOf(p.overall_deadline);
  std::string deadlineText = (p.deadline_name.empty() ? "deadline" : p.deadline_name) + " " + (deadline ? fmt(*deadline) : "");
  std::string text;
  std::optional<Duration> total;
  if (perTry || below) {
    Duration each = perTry ? *perTry : *below;
    auto waits = worstCaseWaits(p.backoff, *attempts - 1);
    total = each * static_cast<double>(*attempts) + waits.value_or(Duration{0});
    // One unit for the whole sum: seconds when it reaches a second.
    auto unit = [&](Duration d) { return *total >= Duration::s(1) ? formatSeconds(d) : formatDuration(d); };
    text = std::to_string(*attempts) + " x " + unit(each) + (perTry ? " per try" : " (the layer below)");
    if (waits && waits->nanos > 0) text += " + " + unit(*waits) + " backoff";
    text += " = " + unit(*total);
    if (deadline && *total > *deadline) {
      text += ", cut to the " + deadlineText;
      total = deadline;
    }
  } else if (deadline) {
    total = deadline;
    text = "at most the " + deadlineText;
  }
  if (arithmetic) *arithmetic = text;
  return total;
}

namespace {
std::vector<LayerFigures> analyseChain(const Chain &chain) {
  std::vector<LayerFigures> out(chain.layers.size());
  std::optional<double> calls = 1.0;
  for (size_t i = 0; i < chain.layers.size(); ++i) {
    LayerFigures &f = out[i];
    const ChainLayer &layer = chain.layers[i];
    f.attempts_origin = "no retry policy";
    for (const RetryPolicy *p : layer.policies) {
      const auto &a = p->max_attempts;
      if (!a.known()) continue; // the count is not known: leave it out rather than guess
      if (!a.value) {
        if (!f.unbounded) f.worst = p;
        f.unbounded = true;
        continue;
      }
      int n = *p->effectiveAttempts();
      if (!f.unbounded && (!f.worst || n > f.attempts)) {
        f.worst = p;
        f.attempts = n;
      }
    }
    if (f.unbounded) {
      f.attempts_origin = "unbounded";
      f.attempts_source = f.worst->component + " retries without limit [" + placeOf(f.worst->max_attempts.where) + "]";
      calls.reset();
    } else if (f.worst) {
      const auto &a = f.worst->max_attempts;
      if (a.origin == Origin::Written) {
        f.attempts_origin = "written";
        f.attempts_source = f.worst->describeAttempts() + " [" + placeOf(a.where) + "]";
      } else {
        f.attempts_origin = a.origin == Origin::Defaulted ? "defaulted" : "built in";
        f.attempts_source = a.source + " [" + placeOf(a.where) + "]";
      }
      if (calls) *calls *= f.attempts;
    } else {
      f.attempts_source = layer.files.empty() ? "no retry policy found in this layer's paths: one attempt per call" : "no known attempt count";
    }
    f.calls = calls;

    // The limit this layer puts on one call to the layer below.
    bool allLimited = !layer.policies.empty();
    for (const RetryPolicy *p : layer.policies) {
      auto perTry = valueOf(p->per_try_timeout);
      auto deadline = valueOf(p->overall_deadline);
      if (deadline && (!f.deadline || *deadline > *f.deadline)) f.deadline = deadline;
      auto lim = perTry ? perTry : deadline;
      if (!lim) {
        allLimited = false;
        continue;
      }
      if (!f.limit_below || *lim > *f.limit_below) {
        f.limit_below = lim;
        f.limit_below_text = (perTry ? (p->per_try_field.empty() ? std::string("per-try timeout") : p->per_try_field)
                                     : (p->deadline_name.empty() ? std::string("deadline") : p->deadline_name)) +
                             " " + fmt(*lim) + " (" + placeOf(perTry ? p->per_try_timeout.where : p->overall_deadline.where) + ")";
      }
    }
    if (!allLimited) f.limit_below.reset();
  }
  // Worst-case time, innermost first: an attempt without its own timeout lasts as long as the layer below.
  std::optional<Duration> below;
  for (size_t i = chain.layers.size(); i-- > 0;) {
    LayerFigures &f = out[i];
    if (chain.layers[i].policies.empty()) {
      f.worst_time = below;
      if (below) f.time_arithmetic = "no retry policy: as the layer below";
    }
    for (const RetryPolicy *p : chain.layers[i].policies) {
      std::string text;
      auto t = worstCaseTime(*p, below, &text);
      if (t && (!f.worst_time || *t > *f.worst_time)) {
        f.worst_time = t;
        f.time_arithmetic = text;
        f.time_policy = p;
      }
    }
    below = f.worst_time;
  }
  return out;
}

} // namespace

Chain makeChain(std::vector<ChainLayer> layers, int line) {
  Chain chain;
  chain.layers = std::move(layers);
  chain.line = line;
  chain.figures = analyseChain(chain);
  return chain;
}

} // namespace retrylint
