// Suppression comments, applied to findings on every line.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::suppressions(data, size);
}
