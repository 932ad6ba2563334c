// The pipeline: discover -> classify -> extract -> rules -> sort. Knows no rule by name.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lint/config/config.h"
#include "lint/config/severities.h"
#include "lint/discover/discover.h"
#include "lint/extract/yaml_util.h"
#include "lint/model/finding.h"
#include "lint/model/chain.h"
#include "rules/rule.h"

namespace retrylint {

struct RunOptions;
struct FileResult;

// Per-file results kept between runs. The engine knows only this interface; main wires in the
// signed, content-addressed store of lint/cache/.
class ResultStore {
public:
  virtual ~ResultStore() = default;
  // The result stored for analysing `text`, read from `file`, with these options and rule
  // severities, when there is one that verifies and fits the text. `key` is set to what a result
  // for these inputs is stored under; `rejected` says whether an entry was there but failed.
  virtual std::optional<FileResult> load(const Candidate &file, const std::string &text, const RunOptions &options,
                                         const RuleSeverities &rules, std::string &key, bool &rejected) const = 0;
  virtual void store(const std::string &key, const FileResult &result) const = 0; // best effort
};

struct RunOptions {
  std::vector<std::string> paths;
  Settings settings;
  std::optional<ProjectConfig> config; // .retrylint.yaml: rules, per-path overrides, excludes
  RuleSettings cli_rules;              // --enable/--disable/--severity: win over the config
  unsigned jobs = 0;                   // 0 = one per core
  ExtractOptions extract;              // -p BUILD_DIR and other extractor inputs
  bool keep_models = false;            // keep every file's policies in RunResult (--report layers)
  std::shared_ptr<const ResultStore> cache; // results of unchanged files; null = none
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
  // `retrylint -`: the text analysed for its path, so that excerpts and columns come from what
  // was analysed, never from a file of that name on disk.
  std::optional<RunOptions::TextInput> text_input;
  // The rules that ran: on for at least one file read (the root's, when none was), by allRules()
  // index. Empty when not known (`retrylint merge`): every rule counts as run. SARIF lists these.
  std::vector<bool> rules_run;
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

// Parse text read from `path` and extract its retry policies into `model`; returns whether any
// document was a recognised retry config. Problems that stop the analysis go to `errors`.
bool extractText(const std::string &path, std::string text, bool named, FileModel &model,
                 std::vector<Diagnostic> &errors, const ExtractOptions &options = {});
bool extractFrom(const SourceFile &src, bool named, FileModel &model, std::vector<Diagnostic> &errors,
                 const ExtractOptions &options);

// The severity each rule reports at for `path` (nullopt: off; lint/config/severities.h), by rule
// in allRules() order.
RuleSeverities ruleSeverities(const RunOptions &options, const std::string &path);

// Analyse text as if read from `path` (`named`: the user named the file, so a file that does
// not parse is an error even when it does not look like a retry config).
FileResult analyseText(const std::string &path, std::string text, bool named, const RunOptions &options);
// The same with the file's rule severities already resolved (ruleSeverities(options, path)).
FileResult analyseText(const std::string &path, std::string text, bool named, const RunOptions &options,
                       const RuleSeverities &rules);

RunResult run(const RunOptions &options);

} // namespace retrylint
