// Speed for large trees and hooks: a result cache keyed by content, flags, config and tool
// version; deterministic sharding of the inputs; reading JSON reports back to merge shards.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lint/engine.h"

namespace retrylint {

// One file's result as JSON (every field, anchors and fixes included), and back.
std::string fileResultToJson(const FileResult &r);
std::optional<FileResult> fileResultFromJson(const std::string &json);

class ResultCache {
public:
  explicit ResultCache(std::string dir) : dir_(std::move(dir)) {}
  // The key of a file's result: tool version, path, whether it was named, the rules in force for
  // it, settings, extractor options, and the content itself.
  static std::string key(const std::string &path, bool named, const std::string &content, const RunOptions &options);
  std::optional<FileResult> load(const std::string &key) const;
  void store(const std::string &key, const FileResult &r) const; // best effort: failures ignored

private:
  std::string file(const std::string &key) const;
  std::string dir_;
};

// --shard K/N: whether `path` belongs to shard k (1-based) of n. A stable hash of the path, so
// every machine agrees and adding a file moves no other file to a different shard.
bool inShard(const std::string &path, unsigned k, unsigned n);
// "K/N" -> (K, N); nullopt unless 1 <= K <= N.
std::optional<std::pair<unsigned, unsigned>> parseShard(const std::string &text);

// A `--format json` report read back; false (and `error`) when it is not one.
bool readJsonReport(const std::string &text, RunResult &out, std::string &error);

// `retrylint merge [--format F] [-o FILE] [--fail-on S] REPORT.json...`: one report from the
// shards' JSON reports, with the exit code a single run would have had.
int mergeMain(int argc, char **argv);

} // namespace retrylint
