// The INI reader and its span helpers.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::ini(data, size);
}
