// The picture of a storm (SVG, no runtime dependency: renders in a browser and on GitHub), and
// the command that simulates the policies and chains of a run (`retrylint simulate`).
#pragma once
#include <string>
#include <vector>

#include <llvm/Support/raw_ostream.h>

#include "lint/engine.h"
#include "lint/simulate/storm.h"

namespace retrylint {

struct StormSeries {
  std::string label;  // "as configured", "with full jitter and a 20 s cap"
  std::string id;     // "configured", "full-jitter": the path's id in the SVG
  std::string color;
  StormResult result;
};

struct StormPicture {
  std::string title;    // what was simulated
  int clients = 1000;
  double outage_s = 10;
  std::vector<StormSeries> series; // one panel each, on the same axes
};

void writeStormSvg(llvm::raw_ostream &os, const StormPicture &p);

// The layers a declared chain makes, outermost first: each layer's policy with the most attempts,
// and one call per call where a layer has none. `blocker` says why the chain cannot be simulated
// ("layer: the wait between attempts is not known"), or stays "".
std::vector<StormLayer> stormLayersOf(const Chain &c, std::string &blocker);
// The same layers with full jitter and a cap (withFullJitterAndCap), simulated.
StormResult simulateWithFullJitter(const std::vector<StormLayer> &layers, const StormOptions &o);
// "with full jitter and a 20 s cap": the legend of that run, for the bottom layer `l`.
std::string fullJitterLabel(const StormLayer &l);

struct SimulateRequest {
  std::string svg;     // "" = no picture
  std::string policy;  // select policies: "path:line" or words of the component; "" = all
  std::string chain;   // select declared chains by words of their title; "" = all
  StormOptions storm;
  bool json = false;
};

// Simulates the run's chains and policies, writes the summary to `out` and the picture of the
// selected (or worst) one to req.svg. Returns the exit code: 0, or 2 for a selection that
// matches nothing, a picture that cannot be written, or analysis errors in the run.
int simulateCommand(const RunResult &result, const SimulateRequest &req, llvm::raw_ostream &out,
                    llvm::raw_ostream &err);

} // namespace retrylint
