// The pipeline: discover -> classify -> extract -> rules -> sort. Knows no rule by name.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lint/config/config.h"
#include "lint/discover/discover.h"
#include "lint/extract/yaml_util.h"
#include "lint/model/finding.h"
#include "rules/chain.h"
#include "rules/rule.h"

namespace retrylint {

struct RunOptions {
  std::vector<std::string> paths;
  Settings settings;
  std::optional<ProjectConfig> config; // .retrylint.yaml: rules, per-path overrides, excludes
  RuleSettings cli_rules;              // --enable/--disable/--severity: win over the config
  unsigned jobs = 0;                   // 0 = one per core
  ExtractOptions extract;              // -p BUILD_DIR and other extractor inputs
  bool keep_models = false;            // keep every file's policies in RunResult (--report layers)
  std::string cache_dir;                // results by content hash (lint/cache/cache.h); "" = no cache
  std::string cache_secret;             // authenticates its entries (cacheSecret()); "" = no cache
  unsigned shard = 1, shards = 1;      // --shard K/N: analyse only this share of the inputs
  // `retrylint -`: standard input's text, analysed as if read from `path` (--stdin-filename) and
  // named on the command line; `paths` is then ignored.
  struct TextInput {
    std::string path, text;
  };
  std::optional<TextInput> text_input;
  // The files to analyse, as if found by walking (`retrylint review`: the files a change touched);
  // `paths` is then ignored, and the configs' `exclude` still applies.
  std::optional<std::vector<Candidate>> files;
  // The nearest .retrylint.yaml to each file (monorepos); null with --config, which names the one
  // config for every file.
  std::shared_ptr<ConfigResolver> nested;
  std::optional<int> cli_max_attempts; // --max-attempts: over every config's settings

  // The config that applies to `path`: the nearest one, else `config`; nullptr when none does.
  const ProjectConfig *configFor(const std::string &path) const;
  // The settings for `path`: its config's, with the command line's on top.
  Settings settingsFor(const std::string &path) const;
};

struct Stats {
  size_t files_seen = 0;     // files considered
  size_t files_analysed = 0; // files holding a recognised retry config
  size_t policies = 0;       // retry policies extracted
  std::vector<std::string> cpp_without_full_types; // C++ files parsed with headers missing
  bool cache_used = false;   // the result cache was read and written
  size_t cache_hits = 0, cache_misses = 0;
  size_t cache_rejected = 0; // of the misses: entries there that did not verify or fit the file
};

struct RunResult {
  // Where identities are counted from (lint/discover/identity.h): fingerprints, baselines, SARIF.
  std::string project_root;
  std::vector<Finding> findings;  // sorted by path, line, column, rule
  std::vector<Diagnostic> errors; // inputs that could not be (fully) analysed
  std::vector<Diagnostic> warnings; // inputs skipped that are worth a word (not an error: exit code unchanged)
  Stats stats;
  // With layers declared (or keep_models): the files holding policies, and the declared chains,
  // whose policies point into `models`.
  std::vector<std::shared_ptr<const FileModel>> models;
  std::vector<Chain> chains;
};

// One file's share of a run.
struct FileResult {
  std::vector<Finding> findings;
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings; // see RunResult
  bool analysed = false;
  bool without_full_types = false; // a C++ file parsed with headers missing (--verbose, JSON stats)
  size_t policies = 0;
  std::optional<size_t> layer;              // index into layer_scope's layers
  const ProjectConfig *layer_scope = nullptr; // the config whose layers the file is placed in
  std::shared_ptr<const FileModel> model;   // kept for the chain pass and --report layers
};

// Findings at note severity of rules with Rule::aggregate_notes become one note per rule for the
// whole run: the first one (in report order), its message prefixed with how many policies in how
// many files it holds for. Called last, after baselines and --diff narrowed the findings.
void aggregateNotes(std::vector<Finding> &findings);

// Parse text read from `path` and extract its retry policies into `model`; returns whether any
// document was a recognised retry config. Problems that stop the analysis go to `errors`.
bool extractText(const std::string &path, std::string text, bool named, FileModel &model,
                 std::vector<Diagnostic> &errors, const ExtractOptions &options = {});
bool extractFrom(const SourceFile &src, bool named, FileModel &model, std::vector<Diagnostic> &errors,
                 const ExtractOptions &options);

// The severity each rule reports at for `path` (nullopt: off): defaults, then the config's
// rules, then its overrides matching the path, then the command line. By rule, in allRules()
// order (computed for every file: no strings, one allocation), or by rule code.
using RuleSeverities = std::vector<std::optional<Severity>>;
RuleSeverities ruleSeverities(const RunOptions &options, const std::string &path);
std::map<std::string, std::optional<Severity>> effectiveRules(const RunOptions &options, const std::string &path);

// Analyse text as if read from `path` (`named`: the user named the file, so a file that does
// not parse is an error even when it does not look like a retry config).
FileResult analyseText(const std::string &path, std::string text, bool named, const RunOptions &options);

// Reads a candidate within the limits: regular files only (a FIFO or device is never opened),
// at most options.max_file_bytes. Returns false (with an error when it matters, else perhaps a
// warning) when not read.
bool readInput(const Candidate &c, const ExtractOptions &options, std::string &text, std::vector<Diagnostic> &errors,
               std::vector<Diagnostic> *warnings = nullptr);


RunResult run(const RunOptions &options);

} // namespace retrylint
