// Every duration parser, and the formatting of what they accept.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::duration(data, size);
}
