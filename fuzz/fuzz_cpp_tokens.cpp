// The C++ front end's token-level parts without Clang: the tokenizer, bracket matching, the
// qualifier blanking and the loop analysis over every for/while/do the tokens hold.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::cppTokens(data, size);
}
