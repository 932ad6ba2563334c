// One tree for Spring Boot configuration, whatever its syntax: YAML (`application.yml`, with
// dotted keys such as `resilience4j.retry:` split into levels) and `.properties` (flat keys,
// `[n]` list indices). The Spring dialects (Resilience4j, Spring Cloud Gateway) read this tree
// only, so their logic is written once. Property names are compared the way Spring's relaxed
// binding does: case-insensitively, ignoring '-' and '_' (`max-attempts` = `maxAttempts`).
#pragma once
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>


#include "lint/extract/yaml_util.h"

namespace retrylint {

struct SpringNode {
  enum class Kind { Null, Scalar, Map, List };
  Kind kind = Kind::Null;
  std::string key;       // this node's key as written (the last segment)
  std::string scalar;    // Kind::Scalar
  bool quoted = false;
  Span where;            // a scalar's text, or the first character of a block
  Span keyWhere;         // the key that introduced the node (for missing fields)
  int line0 = -1, col0 = -1; // a scalar's first character, for token spans
  bool singleLine = true;
  std::vector<SpringNode> children; // map entries (by `key`) or list items
  // A map's entries by relaxed name (the first entry of each name): lookups stay constant-time
  // however wide a map a file writes. Kept by the tree builder in spring_tree.cpp.
  std::unordered_map<std::string, size_t> byName;

  // Where a fix may add a child entry: YAML after `insertAfterLine0` with `childIndent`,
  // .properties as a new `path.child=value` line after `insertAfterLine0`. -1: no fix.
  bool properties = false;
  std::string path;          // dotted path as written (.properties)
  int insertAfterLine0 = -1;
  std::string childIndent;

  bool isMap() const { return kind == Kind::Map; }
  bool isList() const { return kind == Kind::List; }
  bool isScalar() const { return kind == Kind::Scalar; }
  bool isNull() const { return kind == Kind::Null || (kind == Kind::Scalar && scalar.empty() && !quoted); }
};

// Spring's relaxed-binding form of a property name: lower case, without '-' and '_'.
std::string relaxedName(std::string_view name);
// The child named `name` (relaxed), or nullptr.
const SpringNode *child(const SpringNode &n, std::string_view name);
// Follows a dotted path of relaxed names: at(root, "resilience4j.retry").
const SpringNode *at(const SpringNode &root, std::string_view dottedPath);

// Only the parts the Spring dialects read are converted: `resilience4j.*` and
// `spring.cloud.gateway.*` (an application.yml's other settings are skipped, not copied).
SpringNode springTreeFromYaml(const yaml::Node &doc, const ExtractContext &cx);
SpringNode springTreeFromProperties(const SourceFile &src);

// Whether a YAML document has the dotted path (keys compared relaxed; dotted YAML keys such as
// `resilience4j.retry:` are followed too). Cheap: no tree is built.
bool yamlHasPath(const yaml::Node &doc, std::string_view dottedPath);

// One item of a list value: an item of a YAML/indexed list, or a token of a comma-separated
// string ("GET,POST"), with its span.
struct SpringItem {
  std::string text;
  Span where;
  const SpringNode *node = nullptr;
};
// The items of a list-valued property. Throws TypeError for a map.
std::vector<SpringItem> listItems(const ExtractContext &cx, const SpringNode &n, std::string_view what);

// Typed reads of scalars (TypeError when the value is not of that kind).
std::string springString(const SpringNode &n, std::string_view what);
long long springInt(const SpringNode &n, std::string_view what);
double springNumber(const SpringNode &n, std::string_view what);
bool springBool(const SpringNode &n, std::string_view what);

// A fix that adds `name: value` (YAML) or `path.name=value` (.properties) to the block `n`;
// nullopt when the block cannot take a new line (flow maps, dotted YAML keys).
std::optional<TextEdit> addEntry(const SourceFile &src, const SpringNode &n, std::string_view name, std::string_view value);

} // namespace retrylint

namespace retrylint {

// The Spring dialects over one tree (resilience4j.cpp, spring_gateway.cpp).
bool hasResilience4jRetry(const SpringNode &root);
void resilience4jFromTree(const SpringNode &root, ExtractContext &cx);
bool hasGatewayRetry(const SpringNode &root);
void springGatewayFromTree(const SpringNode &root, ExtractContext &cx);
// Runs every Spring dialect present in the tree and records its format.
void extractSpringTree(const SpringNode &root, ExtractContext &cx);
// A `.properties` file that holds Resilience4j retry or Spring Cloud Gateway route keys.
bool recogniseSpringProperties(const SourceFile &src);
void extractSpringProperties(const SourceFile &src, ExtractContext &cx);

} // namespace retrylint
