#include "lint/discover/shard.h"

#include <llvm/ADT/StringRef.h>

namespace retrylint {

bool inShard(const std::string &path, unsigned k, unsigned n) {
  uint64_t h = 1469598103934665603ull; // FNV-1a, 64 bit
  for (unsigned char c : path) h = (h ^ c) * 1099511628211ull;
  return h % n == k - 1;
}

std::optional<std::pair<unsigned, unsigned>> parseShard(const std::string &text) {
  auto [a, b] = llvm::StringRef(text).split('/');
  unsigned k = 0, n = 0;
  if (a.getAsInteger(10, k) || b.getAsInteger(10, n) || k < 1 || n < 1 || k > n) return std::nullopt;
  return std::make_pair(k, n);
}

} // namespace retrylint
