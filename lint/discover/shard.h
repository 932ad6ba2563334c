// --shard K/N: a filter on the discovered inputs, so that N machines share a run.
#pragma once
#include <optional>
#include <string>
#include <utility>

namespace retrylint {

// --shard K/N: whether `path` belongs to shard k (1-based) of n. A stable hash of the path, so
// every machine agrees and adding a file moves no other file to a different shard.
bool inShard(const std::string &path, unsigned k, unsigned n);
// "K/N" -> (K, N); nullopt unless 1 <= K <= N.
std::optional<std::pair<unsigned, unsigned>> parseShard(const std::string &text);

} // namespace retrylint
