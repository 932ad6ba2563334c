// Which files to look at: the paths given, directories walked recursively.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/finding.h"

namespace retrylint {

struct Candidate {
  std::string path;            // as shown in reports: the given path, or given dir + relative path
  bool named = false;          // named on the command line (not found by walking)
};

// Files named on the command line are always candidates; in directories, files whose names a
// supported dialect can have (.yaml, .yml, .json). Version-control and build folders are skipped
// and symbolic links to directories are not followed. Missing paths become errors.
std::vector<Candidate> discover(const std::vector<std::string> &paths, std::vector<Diagnostic> &errors);

bool hasConfigExtension(std::string_view path);
bool isSkippedDirectory(std::string_view dirPath);

} // namespace retrylint
