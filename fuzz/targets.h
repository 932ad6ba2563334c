// The fuzz targets' bodies, by name: each takes the raw fuzzer input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace retrylint::fuzz {

int analyse(const uint8_t *data, size_t size);
int yamlJson(const uint8_t *data, size_t size);
int yamlFast(const uint8_t *data, size_t size);
int ini(const uint8_t *data, size_t size);
int properties(const uint8_t *data, size_t size);
int suppressions(const uint8_t *data, size_t size);
int config(const uint8_t *data, size_t size);
int duration(const uint8_t *data, size_t size);
int cppTokens(const uint8_t *data, size_t size);

using Target = int (*)(const uint8_t *, size_t);
// By fuzz target name without the `fuzz_` prefix: "analyse", "yaml_json", "ini" ...
inline const std::map<std::string, Target> &targets() {
  static const std::map<std::string, Target> all = {
      {"analyse", analyse},
      {"yaml_json", yamlJson},
      {"yaml_fast", yamlFast},
      {"ini", ini},
      {"properties", properties},
      {"suppressions", suppressions},
      {"config", config},
      {"duration", duration},
      {"cpp_tokens", cppTokens},
  };
  return all;
}

} // namespace retrylint::fuzz
