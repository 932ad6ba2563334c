// A configuration text's documents, read as every input is read: for a .json path strict JSON
// first (yaml-cpp accepts what JSON parsers and gRPC reject); then the fast parser; then yaml-cpp
// within the nesting limit; then, for a template (a Helm chart), its literal text with the
// expressions masked. Limits hold throughout: nothing recursive meets a text nested beyond
// --max-nesting, and aliases are budgeted (lint/yaml/load.h).
#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "lint/yaml/document.h"

namespace retrylint::yaml {

struct ConfigDocuments {
  Stream docs;
  // The texts the documents point into when they are not the input's own: a JSON text with tabs
  // made spaces, a template with its expressions masked (same lengths, so positions stay exact).
  // Filled in place: a ConfigDocuments is not moved once read.
  std::string json_text, masked_text;
  std::string template_text; // a JSON template with its `%{ … }` directives blanked
};

// Where reading failed, and why ("invalid YAML: …"); line and column 1-based, 0 when unknown.
using ReadFailure = std::function<void(int line, int column, std::string message)>;

// Reads `text` into `out`; false when there is nothing to analyse. A text that does not parse is
// reported through `fail` only when `relevant()` says it was meant to be a retry config (a broken
// Helm template or someone else's YAML is not ours to judge); it is asked at most once, and only
// then (its scan costs as much as a parse). `templated`: a JSON template file (isJsonTemplatePath),
// which may not be JSON until rendered: its `%{ … }` directives are blanked first, and one that is
// still not JSON is not analysed, and not an error either.
bool readConfigDocuments(std::string_view text, bool json, int maxNesting, const std::function<bool()> &relevant,
                         const ReadFailure &fail, ConfigDocuments &out, bool templated = false);

} // namespace retrylint::yaml
