// Before -> after: findings matched by rule, path and anchor (the logical place, not the line);
// policies by path and anchor; chains by their layers' names.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "lint/review/review.h"
#include "lint/simulate/picture.h"

namespace retrylint {

const char *directionName(Direction d) {
  switch (d) {
  case Direction::Same: return "same";
  case Direction::Better: return "better";
  case Direction::Worse: return "worse";
  case Direction::Changed: return "changed";
  case Direction::Mixed: return "mixed";
  case Direction::Added: return "added";
  case Direction::Removed: return "removed";
  }
  return "same";
}

namespace {

std::string jitterText(const Backoff &b, int &rank) {
  if (b.growth.known() && b.growth.value == Growth::NoWait) {
    rank = 0;
    return "no wait";
  }
  if (!b.jitter.known()) {
    rank = -1;
    return "unknown";
  }
  switch (b.jitter.value) {
  case Jitter::None: rank = 0; return "none";
  case Jitter::Full: rank = 2; return "full";
  case Jitter::Proportional: {
    rank = 1;
    double spread = std::max(b.jitter_upper - 1, 1 - b.jitter_lower);
    if (spread <= 0 || spread > 10) return "proportional";
    char buf[32];
    std::snprintf(buf, sizeof buf, "±%.0f %%", spread * 100);
    return buf;
  }
  }
  rank = -1;
  return "unknown";
}

void simulate(Posture &p, const std::vector<StormLayer> &layers, const std::string &blocker, const StormOptions &o) {
  p.not_simulated = blocker.empty() ? stormTooLarge(layers, o) : blocker;
  if (!p.not_simulated.empty()) return;
  p.storm = simulateStorm(layers, o);
  p.full_jitter = simulateWithFullJitter(layers, o);
  p.full_jitter_label = fullJitterLabel(layers.back());
}

Posture postureOf(const RetryPolicy &p, const StormOptions &o) {
  Posture s;
  s.attempts_known = p.max_attempts.known();
  s.attempts = p.effectiveAttempts();
  s.calls_known = s.attempts_known;
  if (s.attempts) s.calls = *s.attempts;
  s.attempts_text = !s.attempts_known ? "unknown"
                    : !s.attempts     ? "unbounded"
                                      : std::to_string(*s.attempts) + (p.max_attempts.written() ? "" : " (default)");
  s.worst_time = worstCaseTime(p, std::nullopt, nullptr);
  if (p.overall_deadline.known()) s.deadline = p.overall_deadline.value;
  s.jitter = jitterText(p.backoff, s.jitter_rank);
  if (p.budget.known()) s.budget = p.budget.value;
  std::vector<StormLayer> layers{stormLayerOf(p, p.component)};
  simulate(s, layers, stormBlocker(layers[0]), o);
  return s;
}

Posture postureOf(const Chain &c, const StormOptions &o) {
  Posture s;
  const std::vector<LayerFigures> &figures = c.figures;
  s.attempts_known = true;
  for (const LayerFigures &f : figures) {
    if (f.worst && !f.worst->max_attempts.known()) s.attempts_known = false;
    if (!s.attempts_text.empty()) s.attempts_text += " × ";
    s.attempts_text += f.unbounded ? "unbounded" : std::to_string(f.attempts);
  }
  if (!figures.empty()) {
    s.calls = figures.back().calls;
    s.calls_known = s.attempts_known;
    s.worst_time = figures.front().worst_time;
    s.deadline = figures.front().deadline;
  }
  // The weakest jitter of the layers that retry, and a budget only where every one has one.
  bool anyRetry = false, allBudget = true, budgetUnknown = false;
  for (const LayerFigures &f : figures) {
    if (!f.worst || f.attempts <= 1) continue;
    anyRetry = true;
    int rank = -1;
    std::string text = jitterText(f.worst->backoff, rank);
    if (s.jitter.empty() || rank < s.jitter_rank) {
      s.jitter_rank = rank;
      s.jitter = text;
    }
    if (!f.worst->budget.known()) budgetUnknown = true;
    else if (!f.worst->budget.value) allBudget = false;
  }
  if (!anyRetry) {
    s.jitter = "no retries";
    s.jitter_rank = 2;
  }
  if (!anyRetry || !allBudget) s.budget = anyRetry ? std::optional<bool>(false) : std::nullopt;
  else if (!budgetUnknown) s.budget = true;
  std::string blocker;
  std::vector<StormLayer> layers = stormLayersOf(c, blocker);
  simulate(s, layers, blocker, o);
  return s;
}

// +1: larger is worse. -1: smaller is worse.
Direction compareNumbers(std::optional<double> a, std::optional<double> b, bool aKnown, bool bKnown) {
  if (!aKnown || !bKnown) return aKnown == bKnown ? Direction::Same : Direction::Changed;
  double x = a ? *a : INFINITY, y = b ? *b : INFINITY;
  if (x == y || (std::isfinite(x) && std::isfinite(y) && std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), 1.0)))
    return Direction::Same;
  return y > x ? Direction::Worse : Direction::Better;
}

std::optional<double> secondsOf(std::optional<Duration> d) {
  if (!d) return std::nullopt;
  return d->seconds();
}

std::vector<Direction> moves(const Posture &a, const Posture &b) {
  std::vector<Direction> m;
  // attempts: more tries per call is worse
  m.push_back(compareNumbers(a.attempts ? std::optional<double>(*a.attempts) : std::nullopt,
                             b.attempts ? std::optional<double>(*b.attempts) : std::nullopt, a.attempts_known, b.attempts_known));
  m.push_back(compareNumbers(a.calls, b.calls, a.calls_known, b.calls_known));
  // worst-case time: nullopt means not known here
  m.push_back(compareNumbers(secondsOf(a.worst_time), secondsOf(b.worst_time), a.worst_time.has_value(), b.worst_time.has_value()));
  // deadline: losing one is worse, gaining one better, another value a change
  if (a.deadline.has_value() != b.deadline.has_value()) m.push_back(b.deadline ? Direction::Better : Direction::Worse);
  else m.push_back(a.deadline == b.deadline ? Direction::Same : Direction::Changed);
  if (a.jitter_rank < 0 || b.jitter_rank < 0) m.push_back(a.jitter == b.jitter ? Direction::Same : Direction::Changed);
  else if (a.jitter_rank != b.jitter_rank) m.push_back(b.jitter_rank > a.jitter_rank ? Direction::Better : Direction::Worse);
  else m.push_back(a.jitter == b.jitter ? Direction::Same : Direction::Changed);
  if (a.budget.has_value() && b.budget.has_value() && *a.budget != *b.budget) m.push_back(*b.budget ? Direction::Better : Direction::Worse);
  else m.push_back(a.budget == b.budget ? Direction::Same : Direction::Changed);
  // storm: the amplification at the failing service, within 1 %
  if (a.storm && b.storm) {
    double x = a.storm->amplification, y = b.storm->amplification;
    m.push_back(std::fabs(x - y) <= 0.01 * std::max(x, 1.0) ? Direction::Same : y > x ? Direction::Worse : Direction::Better);
  } else {
    m.push_back(a.storm.has_value() == b.storm.has_value() ? Direction::Same : Direction::Changed);
  }
  return m;
}

Direction overall(const std::vector<Direction> &m) {
  bool worse = false, better = false, changed = false;
  for (Direction d : m) {
    worse |= d == Direction::Worse;
    better |= d == Direction::Better;
    changed |= d == Direction::Changed;
  }
  if (worse && better) return Direction::Mixed;
  if (worse) return Direction::Worse;
  if (better) return Direction::Better;
  return changed ? Direction::Changed : Direction::Same;
}

int rankOf(Direction d) {
  switch (d) {
  case Direction::Worse: return 0;
  case Direction::Mixed: return 1;
  case Direction::Added: return 2;
  case Direction::Changed: return 3;
  case Direction::Better: return 4;
  case Direction::Removed: return 5;
  case Direction::Same: return 6;
  }
  return 6;
}

using FindingKey = std::tuple<std::string, std::string, std::string>; // rule, path, anchor

FindingKey keyOf(const Finding &f) { return {f.rule, f.where.path.str(), f.anchor}; }

} // namespace

void compareRuns(Review &review, const StormOptions &storm) {
  review.storm = storm;
  // ---- findings: a multiset match by key; a match whose message moved is "changed"
  auto reviewed = [&](const FilePath &path) { return review.reviewed.count(path.str()) > 0; };
  std::map<FindingKey, std::vector<const Finding *>> before;
  for (const Finding &f : review.before.findings)
    if (reviewed(f.where.path)) before[keyOf(f)].push_back(&f);
  for (const Finding &f : review.after.findings) {
    if (!reviewed(f.where.path)) continue;
    auto it = before.find(keyOf(f));
    if (it == before.end() || it->second.empty()) {
      review.introduced.push_back({&f, ""});
      continue;
    }
    // The same message if there is one, else the first.
    auto &list = it->second;
    auto same = std::find_if(list.begin(), list.end(), [&](const Finding *g) { return g->message == f.message; });
    const Finding *g = same != list.end() ? *same : list.front();
    list.erase(same != list.end() ? same : list.begin());
    if (g->message == f.message && g->severity == f.severity) ++review.unchanged;
    else review.changed.push_back({&f, g->message});
  }
  for (auto &[key, list] : before)
    for (const Finding *g : list) review.fixed.push_back({g, ""});
  std::sort(review.fixed.begin(), review.fixed.end(),
            [](const FindingChange &a, const FindingChange &b) { return findingLess(*a.finding, *b.finding); });

  // ---- policies, by path and anchor
  using PolicyKey = std::pair<std::string, std::string>;
  std::map<PolicyKey, const RetryPolicy *> beforePolicies, afterPolicies;
  for (const auto &m : review.before.models)
    for (const RetryPolicy &p : m->policies)
      if (reviewed(p.where.path)) beforePolicies.emplace(PolicyKey{p.where.path.str(), p.anchor}, &p);
  for (const auto &m : review.after.models)
    for (const RetryPolicy &p : m->policies)
      if (reviewed(p.where.path)) afterPolicies.emplace(PolicyKey{p.where.path.str(), p.anchor}, &p);
  std::set<PolicyKey> keys;
  for (auto &[k, p] : beforePolicies) keys.insert(k);
  for (auto &[k, p] : afterPolicies) keys.insert(k);
  std::set<const RetryPolicy *> touched; // of either side
  std::vector<PostureRow> policyRows;
  for (const PolicyKey &k : keys) {
    auto b = beforePolicies.find(k), a = afterPolicies.find(k);
    const RetryPolicy *bp = b == beforePolicies.end() ? nullptr : b->second, *ap = a == afterPolicies.end() ? nullptr : a->second;
    PostureRow row;
    row.kind = "policy";
    row.title = (ap ? ap : bp)->component;
    row.place = placeOf((ap ? ap : bp)->where);
    if (bp) row.before = postureOf(*bp, storm);
    if (ap) row.after = postureOf(*ap, storm);
    if (bp && ap) {
      row.moves = moves(*row.before, *row.after);
      row.direction = overall(row.moves);
      if (row.direction == Direction::Same) continue;
    } else {
      row.direction = ap ? Direction::Added : Direction::Removed;
    }
    if (bp) touched.insert(bp);
    if (ap) touched.insert(ap);
    policyRows.push_back(std::move(row));
  }

  // ---- chains, by title: those holding a touched policy or whose figures moved
  auto holdsTouched = [&](const Chain &c) {
    for (const ChainLayer &l : c.layers)
      for (const RetryPolicy *p : l.policies)
        if (touched.count(p)) return true;
    return false;
  };
  std::map<std::string, const Chain *> beforeChains, afterChains;
  for (const Chain &c : review.before.chains) beforeChains.emplace(c.title(), &c);
  for (const Chain &c : review.after.chains) afterChains.emplace(c.title(), &c);
  std::set<std::string> titles;
  for (auto &[t, c] : beforeChains) titles.insert(t);
  for (auto &[t, c] : afterChains) titles.insert(t);
  std::vector<PostureRow> chainRows;
  for (const std::string &t : titles) {
    auto b = beforeChains.find(t), a = afterChains.find(t);
    const Chain *bc = b == beforeChains.end() ? nullptr : b->second, *ac = a == afterChains.end() ? nullptr : a->second;
    PostureRow row;
    row.kind = "chain";
    row.title = t;
    row.place = ".retrylint.yaml:" + std::to_string((ac ? ac : bc)->line);
    if (bc) row.before = postureOf(*bc, storm);
    if (ac) row.after = postureOf(*ac, storm);
    if (bc && ac) {
      row.moves = moves(*row.before, *row.after);
      // A chain's attempts are its layers' ("3 × 3 × 3"): they move as the calls at the bottom do.
      row.moves[0] = row.before->attempts_text == row.after->attempts_text ? Direction::Same
                     : row.moves[1] == Direction::Same                      ? Direction::Changed
                                                                            : row.moves[1];
      row.direction = overall(row.moves);
      if (row.direction == Direction::Same && !holdsTouched(*bc) && !holdsTouched(*ac)) continue;
    } else {
      row.direction = ac ? Direction::Added : Direction::Removed;
    }
    chainRows.push_back(std::move(row));
  }
  // Worst first; then by file, and by line as a number ("x.json:7" before "x.json:18").
  auto placeKey = [](const PostureRow &r) {
    llvm::StringRef place(r.place);
    auto [path, line] = place.rsplit(':');
    unsigned n = 0;
    if (line.getAsInteger(10, n)) return std::make_pair(place.str(), 0u);
    return std::make_pair(path.str(), n);
  };
  auto order = [&](const PostureRow &a, const PostureRow &b) {
    return std::make_tuple(rankOf(a.direction), placeKey(a), a.title) < std::make_tuple(rankOf(b.direction), placeKey(b), b.title);
  };
  std::stable_sort(chainRows.begin(), chainRows.end(), order);
  std::stable_sort(policyRows.begin(), policyRows.end(), order);
  review.posture = std::move(chainRows);
  review.posture.insert(review.posture.end(), std::make_move_iterator(policyRows.begin()), std::make_move_iterator(policyRows.end()));
}

} // namespace retrylint
