// The result cache: each file's result keyed by its content, the flags, the config and the tool
// version, in signed entries (a cache directory is input a stranger may have written).
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/engine.h"

namespace retrylint {

// One file's result as JSON (every field, anchors and fixes included), and back.
std::string fileResultToJson(const FileResult &r);
std::optional<FileResult> fileResultFromJson(const std::string &json);

// HMAC-SHA256 (RFC 2104) of `message` under `key`.
std::array<uint8_t, 32> hmacSha256(std::string_view key, std::string_view message);

// The secret that authenticates cache entries, kept outside the cache directory: the value of
// $RETRYLINT_CACHE_KEY (at least 16 characters; for CI, where it is a secret), else the key file
// $XDG_CONFIG_HOME/retrylint/cache-key (or $HOME/.config/retrylint/cache-key), created on first
// use with 32 random bytes, mode 0600. nullopt, with the reason in `why`, when there is none to
// be had or the key file would lie inside `cacheDir`: then the cache must not be used.
std::optional<std::string> cacheSecret(const std::string &cacheDir, std::string &why);

// Whether a result read back from the cache could be the result of analysing `text` read from
// `path`: every finding, fix edit and error names that path, with lines, columns and byte
// ranges inside the text.
bool resultFitsFile(const FileResult &r, const std::string &path, std::string_view text);

// Results of unchanged files, by content hash. Every entry carries an HMAC of the key it is
// stored under and its bytes, so an entry written by anyone without the secret (a crafted cache
// restored in CI, a file planted in a shared directory) is a miss, and is rewritten. The
// directories and files under `dir` are opened without following symbolic links.
class ResultCache : public ResultStore {
public:
  ResultCache(std::string dir, std::string secret);
  ~ResultCache() override;
  ResultCache(const ResultCache &) = delete;
  ResultCache &operator=(const ResultCache &) = delete;
  // The key of a file's result: tool version, path, whether it was named, the rules in force for
  // it, settings, extractor options, and the content itself.
  static std::string key(const Candidate &file, const std::string &content, const RunOptions &options,
                         const RuleSeverities &rules);
  // The entry under the key of these inputs, when there is one, its MAC verifies and it fits
  // `text` read from the file (resultFitsFile).
  std::optional<FileResult> load(const Candidate &file, const std::string &text, const RunOptions &options,
                                 const RuleSeverities &rules, std::string &key, bool &rejected) const override;
  void store(const std::string &key, const FileResult &r) const override; // best effort: failures ignored

private:
  int entriesDir(bool create) const; // the v2 directory under dir_, opened; -1 when missing
  std::string mac(const std::string &key, std::string_view body) const;
  std::string dir_, secret_;
  mutable std::mutex mu_; // guards the two descriptors, opened on first use
  mutable int rootFd_ = -1, entriesFd_ = -1;
};


} // namespace retrylint
