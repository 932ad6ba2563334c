// The fast YAML/JSON parser against yaml-cpp: whatever it accepts must give yaml-cpp's tree.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::yamlFast(data, size);
}
