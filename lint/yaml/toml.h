// TOML documents (toml.io v1.0.0), read into the same tree as YAML and JSON so that a dialect
// written for one reads the others (Traefik's file provider takes all three).
//
// The parser is toml++ (Debian libtomlplusplus-dev, header-only). Each table becomes a map, each
// array a sequence; strings and dates are quoted scalars (Tag "!"), integers, floats and booleans
// plain ones (Tag "?"), as YAML would read them; every key and value keeps its line and column.
#pragma once
#include <string>
#include <string_view>

#include "lint/yaml/document.h"

namespace retrylint::yaml {

struct TomlError {
  int line = 0, column = 0; // 1-based
  std::string message;
};

// Reads `text` as one document; false (and *error) when it is not TOML or nests deeper than
// `maxNesting` tables and arrays.
bool readToml(std::string_view text, int maxNesting, Stream &out, TomlError *error);

} // namespace retrylint::yaml
