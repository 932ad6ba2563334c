// The project config (.retrylint.yaml) loader, from text.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::config(data, size);
}
