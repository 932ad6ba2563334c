// The whole per-file analysis (parse, extract, rules, suppressions) and the report writers, with
// the file name chosen by the first byte so every dialect is reached. C++ is left out: the Clang
// front end is too slow per input (fuzz_cpp_tokens covers its token-level analysis).
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::analyse(data, size);
}
