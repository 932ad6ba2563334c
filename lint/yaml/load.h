// Loading YAML and JSON into the arena tree (lint/yaml/document.h).
//
// The fast parser (fast_parser.cpp) reads the YAML that configuration files actually use, and
// JSON. Whatever it is not certain to read exactly as yaml-cpp does (anchors, tags, block scalars,
// multi-line scalars, any syntax error ...) makes it give up, and yaml-cpp's parser reads the text
// instead, its events building the same tree. So results and error messages are yaml-cpp's;
// the fast path only saves time. tests/yaml_fast_test.cpp and fuzz/fuzz_yaml_fast.cpp hold the
// two to the same trees.
#pragma once
#include <cstdint>
#include <string_view>

#include <yaml-cpp/exceptions.h>

#include "lint/yaml/document.h"

namespace retrylint::yaml {

// Every document, as yaml-cpp's LoadAll reads them. Syntax errors throw yaml-cpp's exceptions,
// and so does a ',' after a document's content, on which yaml-cpp 0.7's LoadAll never returns.
Stream loadAll(std::string_view text);
// The first document only (YAML::Load): documents holds exactly one node, null for an empty text.
Stream loadFirst(std::string_view text);

// Aliases are shared nodes, never copies, but the extractors walk the tree: a text yaml-cpp reads
// is refused (this exception, a YAML::ParserException with the alias's mark) when an alias sits
// inside the node it names (a cycle: the walk would never end), or when its aliases, expanded,
// would make more than max(kMinAliasBudget, kAliasBudgetFactor x the nodes written) nodes, or
// add more than kMaxAliasNodes to those written (the walkers spend up to ~250 bytes a node)
// ("billion laughs": the walk would take forever, and the findings repeat without end). Counted
// over the whole text as it is read (so many small bombs in many documents add up), and checked
// at each alias: the error names the one that crossed the budget. Likewise an alias that would
// nest the tree deeper than the nesting limit (a chain of anchors, each holding the last one,
// nests deep in a flat text; the walkers recurse, and some keep a path per level).
struct AliasError : YAML::ParserException {
  using YAML::ParserException::ParserException;
};
constexpr uint64_t kMinAliasBudget = 100000;
constexpr uint64_t kAliasBudgetFactor = 16;
constexpr uint64_t kMaxAliasNodes = 1000000;

// The two ways, for the differential tests. parseFast returns false when it gives up (and then
// `out` holds nothing meaningful); the yaml-cpp ones throw YAML::Exception.
enum class Mode { All, First };
// The fast parser gives up on texts nested deeper than this, so a tree it builds is at most this
// deep; the engine estimates the depth (--max-nesting) only of the texts it leaves to yaml-cpp,
// whose parser recurses without a limit, unless the limit asked for is lower than this one.
constexpr int kFastParserMaxDepth = 200;
bool parseFast(std::string_view text, Mode mode, Stream &out);
// maxNesting: the deepest the tree may get through aliases (collections counted; --max-nesting).
constexpr int kDefaultMaxNesting = 256;
Stream parseWithYamlCpp(std::string_view text, Mode mode, int maxNesting = kDefaultMaxNesting);

} // namespace retrylint::yaml
