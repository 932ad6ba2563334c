// One identity per file, however its path was typed (`x.yaml`, `./x.yaml`, `/abs/x.yaml`) and
// wherever the command runs: fingerprints, baselines and SARIF URIs use it.
#pragma once
#include <string>

namespace retrylint {

// The run's project root: the git repository holding the current directory (the nearest parent
// with a .git), else the directory of the project config (`configRoot`, may be ""), else the
// current directory. Absolute, without dots.
std::string projectRoot(const std::string &configRoot);

// `path` relative to `root` ('/'-separated, no dots) when it is inside it; else absolute.
std::string identityPath(const std::string &root, const std::string &path);

} // namespace retrylint
