#include <algorithm>

#include <llvm/Support/JSON.h>

#include "lint/io/write_file.h"
#include "lint/report/report.h"
#include "lint/simulate/picture.h"
#include "lint/model/chain.h"

namespace retrylint {
namespace {

struct Target {
  std::string kind;  // "chain" or "policy"
  std::string title; // "gateway > orders > db", or the policy's component
  std::string place; // "path:line" of the policy or of the chain's declaration
  std::vector<StormLayer> layers;
  std::string blocker; // why it cannot be simulated, or ""
  StormResult configured, jittered;
};

bool containsWords(const std::string &text, const std::string &words) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  return lower(text).find(lower(words)) != std::string::npos;
}

std::vector<Target> targetsOf(const RunResult &result, const SimulateRequest &req) {
  std::vector<Target> out;
  const bool any = req.policy.empty() && req.chain.empty();
  if (any || !req.chain.empty())
    for (const Chain &c : result.chains) {
      if (!req.chain.empty() && !containsWords(c.title(), req.chain)) continue;
      Target t;
      t.kind = "chain";
      t.title = c.title();
      t.place = ".retrylint.yaml:" + std::to_string(c.line);
      t.layers = stormLayersOf(c, t.blocker);
      out.push_back(std::move(t));
    }
  if (any || !req.policy.empty())
    for (const auto &m : result.models)
      for (const RetryPolicy &p : m->policies) {
        if (p.implicit) continue;
        std::string place = placeOf(p.where);
        if (!req.policy.empty() && place != req.policy && !containsWords(p.component, req.policy) &&
            !containsWords(place, req.policy))
          continue;
        Target t;
        t.kind = "policy";
        t.title = p.component;
        t.place = place;
        t.layers.push_back(stormLayerOf(p, p.component));
        t.blocker = stormBlocker(t.layers[0]);
        out.push_back(std::move(t));
      }
  return out;
}

void resultJson(llvm::json::OStream &j, const StormResult &r) {
  j.attribute("calls", r.calls);
  j.attribute("amplification", r.amplification);
  j.attribute("calls_during_outage", r.during_outage);
  j.attribute("last_call_s", r.last_call_s);
  j.attribute("requests_failed", r.gave_up);
  j.attribute("truncated", r.truncated);
}

} // namespace

std::vector<StormLayer> stormLayersOf(const Chain &c, std::string &blocker) {
  std::vector<StormLayer> layers;
  const std::vector<LayerFigures> &figures = c.figures;
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const RetryPolicy *p = i < figures.size() ? figures[i].worst : nullptr;
    StormLayer l;
    if (p) l = stormLayerOf(*p, c.layers[i].name);
    else {
      l.name = c.layers[i].name;
      l.attempts = 1; // no retry policy: one call per call
    }
    if (std::string why = stormBlocker(l); blocker.empty() && !why.empty()) blocker = c.layers[i].name + ": " + why;
    layers.push_back(std::move(l));
  }
  return layers;
}

StormResult simulateWithFullJitter(const std::vector<StormLayer> &layers, const StormOptions &o) {
  std::vector<StormLayer> jittered;
  for (const StormLayer &l : layers) jittered.push_back(l.attempts == 1 ? l : withFullJitterAndCap(l));
  return simulateStorm(jittered, o);
}

std::string fullJitterLabel(const StormLayer &l) {
  return "with full jitter and a " + formatDuration(*withFullJitterAndCap(l).backoff.cap.value) + " cap";
}

int simulateCommand(const RunResult &result, const SimulateRequest &req, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  std::vector<Target> targets = targetsOf(result, req);
  if (targets.empty()) {
    err << "retrylint simulate: "
        << (req.policy.empty() && req.chain.empty() ? std::string("no retry policy found in the given paths")
                                                     : "nothing matches " + (req.chain.empty() ? "--policy '" + req.policy : "--chain '" + req.chain) + "'")
        << "\n";
    return 2;
  }
  Target *worst = nullptr;
  int64_t budget = kRunSimulationBudget;
  StormOptions storm = req.storm;
  storm.run_budget = &budget;
  for (Target &t : targets) {
    if (t.blocker.empty()) t.blocker = stormTooLarge(t.layers, storm);
    if (!t.blocker.empty()) continue;
    t.configured = simulateStorm(t.layers, storm);
    t.jittered = simulateWithFullJitter(t.layers, storm);
    // Only the worst one's calls are drawn: the others keep their counts, not every call's time.
    Target *drop = &t;
    if (!worst || t.configured.amplification > worst->configured.amplification) std::swap(worst, drop);
    if (drop) {
      std::vector<double>().swap(drop->configured.call_times);
      std::vector<double>().swap(drop->jittered.call_times);
    }
  }
  if (req.json) {
    llvm::json::OStream j(out, 2);
    j.object([&] {
      j.attribute("clients", req.storm.clients);
      j.attribute("outage_s", req.storm.outage_s);
      j.attribute("seed", static_cast<int64_t>(req.storm.seed));
      j.attributeArray("targets", [&] {
        for (const Target &t : targets)
          j.object([&] {
            j.attribute("kind", t.kind);
            j.attribute("title", t.title);
            j.attribute("place", t.place);
            if (!t.blocker.empty()) {
              j.attribute("not_simulated", t.blocker);
              return;
            }
            j.attributeObject("configured", [&] { resultJson(j, t.configured); });
            j.attributeObject("full_jitter_and_cap", [&] { resultJson(j, t.jittered); });
          });
      });
    });
    out << "\n";
  } else {
    out << "storm: " << req.storm.clients << " clients failing together at t = 0, the dependency down for "
        << formatDuration(Duration::s(req.storm.outage_s)) << " (seed " << req.storm.seed << ")\n";
    for (const Target &t : targets) {
      out << t.place << ": " << t.kind << " " << t.title << "\n";
      if (!t.blocker.empty()) {
        out << "  not simulated: " << t.blocker << "\n";
        continue;
      }
      auto line = [&](const char *label, const StormResult &r) {
        char amp[32];
        std::snprintf(amp, sizeof amp, "%.1f", r.amplification);
        out << "  " << label << ": " << r.calls << (r.truncated ? "+ (stopped there)" : "") << " calls reach the failing service (" << amp
            << "x the requests), " << r.during_outage << " of them during the outage, the last at "
            << formatDuration(Duration::s(r.last_call_s)) << "; " << r.gave_up << " requests fail\n";
      };
      line("as configured", t.configured);
      line(fullJitterLabel(t.layers.back()).c_str(), t.jittered);
    }
  }
  int code = 0;
  if (!req.svg.empty()) {
    if (!worst) {
      err << "retrylint simulate: no picture: none of the " << targets.size() << " selected can be simulated\n";
      return 2;
    }
    StormPicture pic;
    pic.title = "Retry storm: " + worst->title + " (" + worst->place + ")";
    pic.clients = req.storm.clients;
    pic.outage_s = req.storm.outage_s;
    pic.series.push_back({"as configured", "configured", "#c0392b", worst->configured});
    pic.series.push_back({fullJitterLabel(worst->layers.back()), "full-jitter", "#2471a3", worst->jittered});
    std::string error;
    if (!writeOutputFile(req.svg, [&](llvm::raw_ostream &os) { writeStormSvg(os, pic); }, error)) {
      err << "retrylint simulate: cannot write " << req.svg << ": " << error << "\n";
      return 2;
    }
    if (req.svg != "-") err << "retrylint simulate: drew " << worst->title << " in " << req.svg << "\n";
  }
  if (!result.errors.empty()) {
    writeErrorsText(err, result, false);
    code = 2;
  }
  return code;
}

} // namespace retrylint
