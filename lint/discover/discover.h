// Which files to look at: the paths given, directories walked recursively.
#pragma once
#include <functional>
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
// supported dialect can have (see hasConfigExtension). Version-control and build folders found while
// walking are skipped and symbolic links met while walking are not followed; a directory named on
// the command line is always walked, through a link if it is one. Missing paths become errors, and
// so does each directory that cannot be read, under its own path.
// `excluded` (optional) drops files and whole directories (the project config's `exclude`).
// `jobs` > 1 walks the subdirectories of each given directory in parallel; the result is the same.
std::vector<Candidate> discover(const std::vector<std::string> &paths, std::vector<Diagnostic> &errors,
                                const std::function<bool(const std::string &)> &excluded = {}, unsigned jobs = 1);

// Whether a file found while walking may hold a retry config or retry code: YAML/JSON, or a file
// kind a dialect's descriptor declares (INI and .properties files, AWS's extension-less `config`,
// C++ sources and headers).
bool hasConfigExtension(std::string_view path);
// Extensions a dialect declares that are never YAML (INI, .properties, C++): a text dialect reads
// them or nothing does.
bool hasKnownNonYamlExtension(std::string_view path);
// Directories never walked, by name (.git, node_modules, cmake-build-*, …). A directory holding a
// CMakeCache.txt, a build tree whatever its name, is dropped by discover() as well (unless named).
bool isSkippedDirectory(std::string_view dirPath);
// Whether walking would take the file at `relPath` (relative to where the walk starts): a name a
// dialect can have, under no skipped directory. Files a change lists are chosen by this.
bool walkable(const std::string &relPath);

} // namespace retrylint
