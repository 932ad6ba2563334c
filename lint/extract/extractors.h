// The dialect extractors, recognised by content, and the loop that feeds them documents.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>


#include "lint/extract/yaml_util.h"

namespace retrylint {

// A dialect: everything the engine knows of it, in the one file that reads it
// (lint/extract/<dialect>.cpp, lint/cpp/driver.cpp), registered there with
// `const ExtractorRegistration registered(descriptor);` so that adding a dialect is adding a file.
// YAML/JSON dialects set `recognise` and `extract` and are handed parsed documents; dialects with
// their own syntax (INI, .properties, C++) set `recogniseText` and `extractText` and are handed the
// raw file. A text dialect that claims a file gets it alone.
struct Extractor {
  std::string_view format = {};                                // "istio-virtualservice"
  bool (*recognise)(const yaml::Node &doc) = nullptr;          // by content, never by file name
  void (*extract)(const yaml::Node &doc, ExtractContext &cx) = nullptr;
  // Words whose presence in an unparsable file says it was meant to be this dialect, so a
  // syntax error there is reported rather than the file skipped as someone else's.
  std::vector<std::string_view> markers = {};
  bool (*recogniseText)(const SourceFile &src) = nullptr;
  void (*extractText)(const SourceFile &src, ExtractContext &cx) = nullptr;
  // Where it is asked, lowest first: the first dialect that recognises a document gets it.
  int priority = 0;
  // Reads a part of an object that another dialect does not (Linkerd's retry annotations in the
  // metadata of an HTTPRoute whose spec the Gateway API dialect reads): it is handed every
  // document it recognises, and the search for the dialect that owns the document goes on.
  bool alongside = false;
  // The pre-filter: words one of which every document `recognise` accepts contains, compared
  // after folding case and dropping '-' and '_' (camelCase, snake_case, kebab-case and Spring's
  // relaxed names all match). Written lower case without '-' or '_'.
  std::vector<std::string_view> prefilter_words = {};
  // Substrings of the keys that hold its retry settings, as written (case matters; camelCase and
  // snake_case where the dialect has both); empty: its markers alone count.
  std::vector<std::string_view> retry_keys = {};
  // The files besides YAML and JSON that discovery walks into for it: extensions (".ini", compared
  // without case), whole file names ("credentials"), names with any ending ("Dockerfile.*") and
  // endings of several parts ("*.conf.template").
  // A text dialect recognises among those.
  std::vector<std::string_view> file_kinds = {};
  // Whether a file's result depends on its text (and extractionInputsBesides) alone, so the
  // result cache may keep it. C++ depends on headers and the compile database: not cached.
  bool cacheable = true;
};

// Registers a dialect's descriptor (a function returning it, so registration order does not matter).
struct ExtractorRegistration {
  explicit ExtractorRegistration(const Extractor &(*describe)());
};

// Every registered dialect, by priority.
const std::vector<Extractor> &extractors();

// The gRPC service-config reader on its own, for configs embedded in other files (C++ string
// literals passed to grpc::ChannelArguments::SetServiceConfigJSON).
bool isGrpcServiceConfig(const yaml::Node &doc);
void extractGrpcServiceConfig(const yaml::Node &doc, ExtractContext &cx);

// An Express workflow ends every execution after 5 minutes: the policy's overall deadline, unless
// the machine's own TimeoutSeconds is shorter (lint/extract/step_functions.cpp). `express` says
// where the type was read ("type = \"EXPRESS\""), for messages.
void applyExpressLimit(RetryPolicy &p, const std::string &express);

// What a file's result depends on besides its own text, for the result cache key: the BUILD file
// next to a `*grpc_service_config.json` (which says whether a GAPIC generator or gRPC core reads
// it), the SAM template or main.tf that may make an ASL file an Express workflow, as read by the
// extractors; empty when nothing else is read.
std::string extractionInputsBesides(const std::string &path, std::string_view text);
std::string grpcConfigInputsBesides(const std::string &path);     // lint/extract/grpc_service_config.cpp
std::string stepFunctionsInputsBesides(const std::string &path);  // lint/extract/step_functions.cpp
std::string terraformInputsBesides(const std::string &path, std::string_view text); // lint/extract/terraform_sfn.cpp: the module's locals and variables
std::string terraformTemplateInputsBesides(const std::string &templatePath); // lint/extract/terraform_templatefile.cpp: its callers
// The literal values Terraform's templatefile() calls beside a JSON template (or one directory up)
// give its `${name}` placeholders, by name; a variable the calls give differently is left out.
std::map<std::string, std::string> terraformTemplateValues(const std::string &templatePath);
// Whether a JSON file is read as a templatefile() template (`%{…}` directives blanked, `${…}` values
// unknown or filled): a template's name (`*.json.tpl`, `*.tftpl`, …), or a `.json` with `${` or `%{`
// that a templatefile() call beside it or one directory up names. mayBe…: whether it could be one
// (its callers' texts then matter), without reading them.
bool isTerraformJsonTemplate(const std::string &path, std::string_view text);
bool mayBeTerraformJsonTemplate(const std::string &path, std::string_view text);
// The names (relative to the file's directory) of those other files, for a file at `path`: what
// `retrylint review` writes beside the base's version of the file so both sides read alike.
std::vector<std::string> extractionInputNamesBesides(const std::string &path);
std::vector<std::string> grpcConfigInputNamesBesides(const std::string &path);
std::vector<std::string> stepFunctionsInputNamesBesides(const std::string &path);
std::vector<std::string> terraformInputNamesBesides(const std::string &path);
std::vector<std::string> terraformTemplateInputNamesBesides(const std::string &templatePath);

// Whether some dialect's file_kinds name this file (discovery reads it, besides YAML and JSON);
// `byExtension`: only the kinds that are extensions (a file named `config` may be YAML).
bool isFileKindOfADialect(std::string_view path, bool byExtension = false);
// Whether the file's extension or name is among `kinds` (an Extractor's file_kinds).
bool isFileKind(std::string_view path, const std::vector<std::string_view> &kinds);

// The text dialect (INI, .properties, C++) that claims this file, if any.
const Extractor *textExtractorFor(const SourceFile &src);
// Whether the result of the file at `path` may be kept in the result cache: not when the text
// dialect that claims files of that name is not `cacheable`.
bool mayCacheResultOf(const std::string &path);

// Feed every document (and every item of a Kubernetes `kind: List`) to the extractor that
// recognises it. Returns whether any document was recognised; `recognised`, when given, gets
// whether each document was (a list: any of its items).
bool extractDocuments(const std::vector<yaml::Node> &docs, ExtractContext &cx, std::vector<bool> *recognised = nullptr);

// Whether the raw text mentions any dialect's markers (used for files that do not parse); with
// `withRetryKey`, only a dialect whose retry keys (Extractor::retry_keys) the text mentions too counts.
bool looksLikeRetryConfig(std::string_view text, bool withRetryKey = false);

// The pre-filter: false only when no YAML/JSON dialect could recognise any document of `text`
// (each declares words one of which its documents must contain), so the parser can be skipped.
// The engine also parses files that mention a dialect's markers, so their syntax errors show.
bool mayHoldYamlRetryConfig(std::string_view text);

} // namespace retrylint
