// A quick yes to "is this strict JSON?", so that a valid .json file is not parsed twice (once
// by llvm::json to hold it to the JSON grammar, once into the tree the extractors read).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>

namespace retrylint::yaml {

// How deep a JSON text's arrays and objects nest (strings skipped), counted without recursion.
int jsonDepth(std::string_view text);

// The depth llvm::json::parse is handed at most: it recurses once per level, and a stranger's
// 60,000 '[' (120 KB) would overflow the stack. Reports, baselines and cache entries nest about 6.
inline constexpr int kMaxJsonDepth = 256;

// llvm::json::parse, or an error saying the text nests deeper than `maxDepth`.
llvm::Expected<llvm::json::Value> parseJsonWithin(std::string_view text, int maxDepth = kMaxJsonDepth);

// True only when llvm::json::parse accepts `text`. False means "not certain": the caller asks
// llvm::json, which gives the error message. Conservative on purpose: numbers outside JSON's
// own grammar, \u escapes and non-ASCII bytes answer false. No recursion: any depth is safe.
bool certainlyStrictJson(std::string_view text);

// llvm::json's error text ("[3:5, byte=40]: Expected , or }") without its position, which is
// returned (line, column and byte offset; 0 when absent).
struct JsonErrorPosition {
  int line = 0, column = 0;
  size_t byte = 0;
  bool found = false;
};
JsonErrorPosition liftJsonErrorPosition(std::string &message);

} // namespace retrylint::yaml
