// The project config, .retrylint.yaml: rules on/off and severities, settings, excludes,
// per-path overrides and layers. Validated strictly: an unknown key or a bad value is an error
// naming the file and line.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/finding.h"
#include "rules/rule.h"

namespace retrylint {

struct RuleSetting {
  std::optional<bool> enabled;
  std::optional<Severity> severity;
};
using RuleSettings = std::map<std::string, RuleSetting>; // by rule code

// Rules that apply to some paths only (for JSON files, which cannot hold suppression comments).
struct PathOverride {
  std::vector<std::string> paths; // globs, relative to the config's directory
  RuleSettings rules;
  int line = 0;
};

struct Layer {
  std::string name;
  std::vector<std::string> paths; // globs
  bool owns_retries = false;
  int line = 0;
};

// One call chain: layer indexes into ProjectConfig::layers, outermost first.
struct LayerChain {
  std::vector<size_t> layers;
  int line = 0;
};

struct ProjectConfig {
  std::string path; // the config file
  std::string root; // its directory: globs are relative to it
  // `extend: ../.retrylint.yaml`: the config this one builds on. Its rules, overrides and excludes
  // apply first (each relative to its own root) and its settings are the starting point; this
  // file's keys come on top. Layers and chains are never inherited.
  std::shared_ptr<const ProjectConfig> base;
  RuleSettings rules;
  Settings settings;
  std::vector<std::string> exclude;
  std::vector<PathOverride> overrides;
  std::vector<Layer> layers; // the call chain, outermost first
  // `chains:` (lists of layer names, outermost first); without it, `layers` in order is the one chain.
  std::vector<LayerChain> chains;
};

// Which layer a file belongs to: its index in `config.layers`, or nullopt. A file matched by
// two layers belongs to the one whose matching glob names the deeper directory (services/orders/db/**
// inside services/orders/**); when neither is nested in the other, `ambiguous` gets an error message.
std::optional<size_t> layerOf(const ProjectConfig &config, const std::string &path, std::string *ambiguous = nullptr);


// The nearest .retrylint.yaml in `startDir` or a parent directory (a regular file, or a symbolic
// link for loadFoundConfig to refuse by name), or "" if there is none. The
// search stops at the repository root (the first directory holding a `.git` directory or file)
// and at the edge of startDir's file system, so a file above the repository never applies to it.
// `stoppedAt` (when given and none is found): the last directory searched, and why it was the last.
std::string findProjectConfig(const std::string &startDir, std::string *stoppedAt = nullptr);

// Loads and validates a config; problems go to `errors` (with line numbers) and make it nullopt.
std::optional<ProjectConfig> loadProjectConfig(const std::string &path, std::vector<Diagnostic> &errors);
// The same for one findProjectConfig found (not named by the user): a symbolic link is refused.
std::optional<ProjectConfig> loadFoundConfig(const std::string &path, std::vector<Diagnostic> &errors);

// The same for a config's text (`path` names it in errors and sets the root).
std::optional<ProjectConfig> parseProjectConfig(const std::string &path, const std::string &text,
                                                std::vector<Diagnostic> &errors);

// Whether `path` is excluded by `config` or a config it extends (each glob relative to its root).
bool isExcluded(const ProjectConfig &config, const std::string &path);

// The configs of a monorepo: the nearest .retrylint.yaml to each file applies (ruff's rule). A
// file's directory and its parents are searched up to the repository root (a directory holding
// `.git`) or the top of the file system; the root config (found from the working directory) is
// used where it is the nearest, and for files that have none. Thread-safe: discovery and the
// analysis ask from several threads. A nested config that declares layers is a scope of its own:
// its files are placed in its layers and its chains are checked apart from the root's.
class ConfigResolver {
public:
  explicit ConfigResolver(const ProjectConfig *root);
  // The config that applies to `path` (a file or a directory), or nullptr when none does.
  const ProjectConfig *forFile(const std::string &path);
  // Problems with the nested configs read so far (each config once).
  std::vector<Diagnostic> errors() const;

private:
  const ProjectConfig *root_;
  std::string rootPath_; // the root config's real path
  mutable std::mutex mutex_;
  std::map<std::string, const ProjectConfig *> byDir_; // absolute directory -> its config
  std::vector<std::unique_ptr<ProjectConfig>> owned_;
  std::vector<Diagnostic> errors_;
};

// Whether `glob` matches `relPath` ('/'-separated, relative to the config root). Gitignore-like:
// a pattern without '/' matches any path component; `dir/` and `dir/**` match everything under
// dir; `*` and `**` match any characters; a leading '/' anchors at the root.
bool globMatches(const std::string &glob, const std::string &relPath);

// `path` relative to `root` with '/' separators, or "" when it is not under root.
std::string relativeTo(const std::string &root, const std::string &path);

} // namespace retrylint
