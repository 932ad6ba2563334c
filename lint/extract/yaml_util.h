// Reading the YAML/JSON document tree (lint/yaml/, YAML and JSON alike) with positions, for the extractors.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lint/yaml/document.h"

#include "lint/model/finding.h"
#include "lint/model/policy.h"
#include "lint/source.h"

namespace retrylint {

// A value of the wrong kind where a dialect needs a specific one (a list where a map must be,
// "three" where a number must be). The block it is in cannot be analysed: it becomes an error
// (exit code 2) naming the file and line, and extraction goes on with the next block.
struct TypeError : std::runtime_error {
  Span where;
  TypeError(Span w, const std::string &msg) : std::runtime_error(msg), where(std::move(w)) {}
};

// ASCII lower case (llvm::StringRef::lower), for keywords compared without case.
std::string lower(std::string_view s);

// Run-wide inputs an extractor may need.
struct ExtractOptions {
  std::string compile_commands_dir; // -p BUILD_DIR, for the C++ front end
  // Resource limits (--max-file-size, --max-nesting, --cpp-timeout): one hostile file must not
  // exhaust memory, the stack or the CI run's time.
  size_t max_file_bytes = 32u << 20;  // larger files are not read
  int max_nesting = 256;              // YAML/JSON block + bracket nesting
  unsigned cpp_timeout_seconds = 60;  // the C++ front end abandons a file after this (0: no limit)
  uint64_t cpp_memory_bytes = 4ull << 30; // address space of the process parsing one C++ file (--cpp-memory)
  // The executable that parses each C++ file in a process of its own (`EXE --cpp-worker`), so a
  // file that crashes Clang, hangs it or exhausts its memory costs that file only; empty: parse
  // in this process (library use and tests of the analysis).
  std::string cpp_worker;
  bool prefilter = true;            // skip files that cannot hold a retry policy (tests turn it off)
};

// What an extractor writes into while it reads one file.
struct ExtractContext {
  const SourceFile &src;
  FileModel &model;
  std::vector<Diagnostic> &errors;
  const ExtractOptions &options;

  // The span of a node: a scalar's whole text, or the first character of a map or list.
  Span span(const yaml::Node &n) const;
  // The key of `map[key]`, for findings about a block or a missing field.
  Span keySpan(const yaml::Node &map, std::string_view key) const;
  // A token inside a single-line scalar (an item of a comma-separated list).
  Span tokenSpan(const yaml::Node &scalar, size_t offset, size_t length) const;

  void problem(Span where, std::string message, std::string anchor, std::optional<Fix> fix = std::nullopt);
  // Whether the value at `where` (to the end of its line, or a comment) is written as a template
  // expression (`{{ .Spec.Timeout }}`, `"{{inputs.parameters.limit}}"`): YAML with templates is read
  // masked, so such a value is unknown until rendered, in every dialect. problem() drops what it
  // would say of one.
  bool templatedAt(const Span &where) const;
  bool templated(const yaml::Node &n) const { return templatedAt(span(n)); }
  void error(const TypeError &e);
};

// map[key] if `map` is a map that has it (keys are unique in the tree: the last one written wins).
std::optional<yaml::Node> get(const yaml::Node &map, std::string_view key);
// A Kubernetes object's metadata.name and metadata.namespace ("(unnamed)", "default" when absent).
struct ObjectMeta {
  std::string name = "(unnamed)", ns = "default";
};
ObjectMeta objectMeta(const yaml::Node &doc);
// A Kubernetes object's apiVersion and kind, when both are scalars.
struct TypeMeta {
  std::string api_version, kind;
  // Whether apiVersion is of the API group `group` ("networking.istio.io" for "networking.istio.io/v1").
  bool inGroup(std::string_view group) const;
};
std::optional<TypeMeta> typeMeta(const yaml::Node &doc);
// Whether `doc` is an object of one of `kinds` in the API group `group`.
bool isKubernetesObject(const yaml::Node &doc, std::string_view group, std::initializer_list<std::string_view> kinds);

// HTTP statuses as retry conditions: one code (Istio's bare codes, retriable_status_codes, …) or a
// range written as `text` ("5xx", "SERVER_ERROR", "status 500-504"), with whether the server may
// have processed the request first (RL403).
Condition httpStatusCondition(int code, Origin origin, Span where);
Condition httpStatusRange(std::string text, int lo, int hi, Origin origin, Span where);

// The entries of a comma-separated scalar ("5xx, reset"), as the dialects that split on ','
// read them: each as written, without the `blanks` around it, and where it stands in the scalar.
struct ListEntry {
  std::string raw;    // between the commas
  std::string text;   // without the blanks around it
  size_t offset = 0;  // of `raw` in the value
  size_t lead = 0;    // of `text` in `raw`
};
std::vector<ListEntry> commaList(std::string_view value, std::string_view blanks = " \t");
// The span of an entry's text in a single-line scalar (one column when the entry is empty).
Span entrySpan(const ExtractContext &cx, const yaml::Node &scalar, const ListEntry &e);

// The map (or sequence) at `key` in `parent`: nullopt when absent or null (nothing to read); a
// value of another kind is a TypeError naming `what` ("spec.http").
std::optional<yaml::Node> mapAt(const ExtractContext &cx, const yaml::Node &parent, std::string_view key, std::string_view what);
std::optional<yaml::Node> sequenceAt(const ExtractContext &cx, const yaml::Node &parent, std::string_view key, std::string_view what);
// Calls each(item, index) for every item of `seq`: a TypeError in one item is reported, and the
// other items are still read.
template <class Each> void forEachItem(ExtractContext &cx, const yaml::Node &seq, Each &&each) {
  size_t i = 0;
  for (const auto &item : seq) {
    try {
      each(item, i);
    } catch (const TypeError &e) {
      cx.error(e);
    }
    ++i;
  }
}

// A duration field as a dialect's runtime reads it. A text `syntax.parse` cannot read (or a
// negative one, when `syntax.negative_refused`) is a problem saying what the runtime does then
// (`syntax.refused`: "Istio rejects the VirtualService"), anchored at anchor/field; it reads as nullopt.
struct DurationSyntax {
  std::optional<Duration> (*parse)(std::string_view text, std::string *error);
  std::string refused;
  bool negative_refused = true;
};
std::optional<Duration> readDuration(ExtractContext &cx, const yaml::Node &n, std::string_view field, const std::string &anchor,
                                     const DurationSyntax &syntax);

bool isScalarString(const yaml::Node &n); // a scalar, quoted or not
bool isQuoted(const yaml::Node &n);       // a quoted scalar ("3" rather than 3)
bool isNull(const yaml::Node &n);         // `~`, `null` or empty

// Typed reads. Each throws TypeError naming the field when the node is of another kind.
std::string requireString(const ExtractContext &cx, const yaml::Node &n, std::string_view what);
long long requireInt(const ExtractContext &cx, const yaml::Node &n, std::string_view what, bool allowQuoted);
double requireNumber(const ExtractContext &cx, const yaml::Node &n, std::string_view what, bool allowQuoted);
void requireMap(const ExtractContext &cx, const yaml::Node &n, std::string_view what);
void requireSequence(const ExtractContext &cx, const yaml::Node &n, std::string_view what);

} // namespace retrylint
