// A quick yes to "is this strict JSON?", so that a valid .json file is not parsed twice (once
// by llvm::json to hold it to the JSON grammar, once into the tree the extractors read).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace retrylint::yaml {

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
