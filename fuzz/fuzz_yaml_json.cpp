// YAML and JSON loading and every YAML/JSON extractor (no rules), named and found by walking.
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return retrylint::fuzz::yamlJson(data, size);
}
