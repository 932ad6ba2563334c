// Shared bits of the libFuzzer targets: the input's first byte picks a variant (a file name, a
// parser), the rest is the text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace retrylint::fuzz {

struct Input {
  uint8_t selector = 0;
  std::string text;
};

inline Input split(const uint8_t *data, size_t size) {
  Input in;
  if (size == 0) return in;
  in.selector = data[0];
  in.text.assign(reinterpret_cast<const char *>(data + 1), size - 1);
  return in;
}

} // namespace retrylint::fuzz
