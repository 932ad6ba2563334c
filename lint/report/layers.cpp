// `retrylint --report layers`: per declared call chain, the arithmetic behind RL204 and RL301
// across layers, as a table people can paste into an incident review.
#include <cstdio>
#include <set>

#include <algorithm>
#include <tuple>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

#include "lint/report/report.h"

namespace retrylint {
namespace {

std::string fmt(std::optional<Duration> d) {
  if (!d) return "unknown";
  return *d >= Duration::s(1) ? formatSeconds(*d) : formatDuration(*d);
}

std::string calls(const LayerFigures &f) {
  if (!f.calls) return "unbounded";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", *f.calls);
  return buf;
}

std::string attempts(const LayerFigures &f) {
  if (f.unbounded) return "unbounded";
  return std::to_string(f.attempts) + " " + f.attempts_origin;
}

void pad(llvm::raw_ostream &os, const std::string &s, size_t width) {
  os << s;
  for (size_t i = s.size(); i < width; ++i) os << ' ';
}

// Policies in files that no declared layer holds.
std::vector<const RetryPolicy *> unplaced(const RunResult &result) {
  std::set<const RetryPolicy *> placed;
  for (const Chain &c : result.chains)
    for (const ChainLayer &l : c.layers) placed.insert(l.policies.begin(), l.policies.end());
  std::vector<const RetryPolicy *> out;
  for (const auto &m : result.models)
    for (const RetryPolicy &p : m->policies)
      if (!placed.count(&p)) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(), [](const RetryPolicy *a, const RetryPolicy *b) {
    return std::tie(a->where.path, a->where.line) < std::tie(b->where.path, b->where.line);
  });
  return out;
}

std::string attemptsOf(const RetryPolicy &p) {
  if (!p.max_attempts.known()) return "unknown";
  if (!p.max_attempts.value) return "unbounded";
  return std::to_string(*p.effectiveAttempts()) + (p.max_attempts.written() ? " written" : " defaulted");
}

void writeUndeclared(llvm::raw_ostream &os, const RunResult &result) {
  os << "No layers are declared, so retrylint cannot multiply attempts across a call chain (RL204) or\n"
        "compare a layer's worst-case time with its caller's timeout.\n";
  std::vector<const RetryPolicy *> policies = unplaced(result);
  if (policies.empty()) {
    os << "No retry policies were found.\n";
    return;
  }
  os << "\nRetry policies found (attempts per call, the first try included):\n\n";
  std::set<std::string> dirs;
  size_t width = 0;
  for (const RetryPolicy *p : policies) width = std::max(width, placeOf(p->where).size());
  for (const RetryPolicy *p : policies) {
    os << "  ";
    pad(os, placeOf(p->where), width + 2);
    os << attemptsOf(*p) << "  " << p->component << "\n";
    std::string dir = llvm::sys::path::parent_path(p->where.path.str()).str();
    dirs.insert(dir.empty() ? "." : dir);
  }
  os << "\nTo check them as a call chain, declare the layers in .retrylint.yaml, outermost first\n"
        "(paths are globs relative to that file; at most one layer owns retries):\n\n  layers:\n";
  int n = 0;
  for (const std::string &d : dirs) {
    os << "    - name: layer-" << ++n << "\n      paths: [" << d << "/**]\n";
  }
  os << "      owns-retries: true   # the one layer that should retry; set the others to 1 attempt\n";
}

} // namespace

void writeLayersText(llvm::raw_ostream &os, const RunResult &result, const Settings &settings) {
  if (result.chains.empty()) {
    writeUndeclared(os, result);
    return;
  }
  size_t index = 0;
  for (const Chain &chain : result.chains) {
    const std::vector<LayerFigures> &f = chain.figures;
    if (index++) os << "\n";
    os << "Call chain " << index << " of " << result.chains.size() << ": " << chain.title() << "\n\n";
    std::vector<std::vector<std::string>> rows = {{"layer", "policy files", "attempts", "calls per request", "worst-case time", "deadline"}};
    for (size_t i = 0; i < f.size(); ++i) {
      std::string c = calls(f[i]);
      if (f[i].calls && *f[i].calls > settings.max_amplification) c += " > " + std::to_string(settings.max_amplification);
      std::string t = fmt(f[i].worst_time);
      if (f[i].worst_time && f[i].deadline && *f[i].worst_time > *f[i].deadline) t += " > deadline";
      rows.push_back({chain.layers[i].name + (chain.layers[i].owns_retries ? " *" : ""), std::to_string(chain.layers[i].files.size()),
                      attempts(f[i]), c, t, f[i].deadline ? fmt(f[i].deadline) : "none"});
    }
    std::vector<size_t> widths(rows[0].size(), 0);
    for (const auto &r : rows)
      for (size_t k = 0; k < r.size(); ++k) widths[k] = std::max(widths[k], r[k].size());
    for (const auto &r : rows) {
      os << "  ";
      for (size_t k = 0; k < r.size(); ++k) {
        if (k + 1 == r.size()) os << r[k];
        else pad(os, r[k], widths[k] + 2);
      }
      os << "\n";
    }
    bool owner = false;
    for (const ChainLayer &l : chain.layers) owner |= l.owns_retries;
    os << "\n  " << (owner ? "* owns retries (owns-retries: true)" : "No layer owns retries (owns-retries: true)") << "\n";

    // The arithmetic, with where each number comes from.
    std::string product;
    for (size_t i = 0; i < f.size() && f[i].calls; ++i) product += (i ? " x " : "") + std::to_string(f[i].attempts);
    if (!f.empty() && f.back().calls) {
      os << "  Calls from " << chain.layers.back().name << " per user request: " << product << " = " << calls(f.back())
         << " (ceiling " << settings.max_amplification << ", settings.max-amplification)\n";
    } else {
      os << "  Calls per user request are unbounded: a layer retries without limit (RL201)\n";
    }
    size_t nameWidth = 0;
    for (const ChainLayer &l : chain.layers) nameWidth = std::max(nameWidth, l.name.size());
    os << "\n  Where the attempts come from:\n";
    for (size_t i = 0; i < f.size(); ++i) {
      os << "    ";
      pad(os, chain.layers[i].name, nameWidth + 2);
      os << f[i].attempts_source << "\n";
    }
    bool anyTime = false;
    for (const LayerFigures &x : f) anyTime |= !x.time_arithmetic.empty();
    if (anyTime) {
      os << "\n  Worst-case time of one call when every attempt times out (innermost first):\n";
      for (size_t i = f.size(); i-- > 0;) {
        os << "    ";
        pad(os, chain.layers[i].name, nameWidth + 2);
        os << (f[i].time_arithmetic.empty() ? "unknown: no per-try timeout or deadline" : f[i].time_arithmetic) << "\n";
      }
    }
  }
  std::vector<const RetryPolicy *> rest = unplaced(result);
  if (!rest.empty()) {
    os << "\nRetry policies in no declared layer:\n";
    for (const RetryPolicy *p : rest) os << "  " << placeOf(p->where) << "  " << attemptsOf(*p) << "  " << p->component << "\n";
  }
}

void writeLayersJson(llvm::raw_ostream &os, const RunResult &result, const Settings &settings) {
  llvm::json::OStream j(os, 2);
  auto seconds = [&](const char *key, std::optional<Duration> d) {
    if (d) j.attribute(key, d->seconds());
    else j.attribute(key, nullptr);
  };
  j.object([&] {
    j.attribute("version", 1);
    j.attribute("layers_declared", !result.chains.empty());
    j.attribute("max_amplification", settings.max_amplification);
    j.attributeArray("chains", [&] {
      for (const Chain &chain : result.chains) {
        const std::vector<LayerFigures> &f = chain.figures;
        j.object([&] {
          j.attribute("chain", chain.title());
          j.attributeArray("layers", [&] {
            for (size_t i = 0; i < f.size(); ++i) {
              j.object([&] {
                j.attribute("name", chain.layers[i].name);
                j.attribute("owns_retries", chain.layers[i].owns_retries);
                j.attributeArray("files", [&] {
                  for (const std::string &file : chain.layers[i].files) j.value(file);
                });
                if (f[i].unbounded) j.attribute("attempts", nullptr);
                else j.attribute("attempts", f[i].attempts);
                j.attribute("attempts_origin", f[i].attempts_origin);
                j.attribute("attempts_source", f[i].attempts_source);
                if (f[i].worst) {
                  j.attributeObject("attempts_at", [&] {
                    j.attribute("path", f[i].worst->max_attempts.where.path.str());
                    j.attribute("line", f[i].worst->max_attempts.where.line);
                  });
                }
                if (f[i].calls) j.attribute("calls_per_request", static_cast<int64_t>(*f[i].calls));
                else j.attribute("calls_per_request", nullptr);
                j.attribute("exceeds_max_amplification", f[i].calls && *f[i].calls > settings.max_amplification);
                seconds("worst_case_seconds", f[i].worst_time);
                j.attribute("worst_case_arithmetic", f[i].time_arithmetic);
                seconds("deadline_seconds", f[i].deadline);
              });
            }
          });
        });
      }
    });
    j.attributeArray("unplaced_policies", [&] {
      for (const RetryPolicy *p : unplaced(result)) {
        j.object([&] {
          j.attribute("path", p->where.path.str());
          j.attribute("line", p->where.line);
          j.attribute("component", p->component);
          j.attribute("attempts", attemptsOf(*p));
        });
      }
    });
  });
  os << "\n";
}

} // namespace retrylint
