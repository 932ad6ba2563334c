// Configurations embedded in a Kubernetes ConfigMap: an OpenTelemetry Collector config, an Envoy
// bootstrap, a Kong declarative file, a Spring Boot application.yml … written as a `data:` value.
// Each value written as a literal block scalar (`key: |`) is read as a file of its own by every
// YAML/JSON dialect, and what they find points at the line and column inside the ConfigMap.
//
// A literal block keeps every line of its content as written, less the block's indentation, so
// the inner line n is the outer line of the key + n and its columns shift by the indentation.
// Folded (`>`), quoted and plain values re-flow their lines and are not read; nor is a block with
// an explicit indentation indicator (`|2`), whose content may start left of its first line.
#include <algorithm>
#include <cctype>

#include "lint/extract/extractors.h"
#include "lint/yaml/read_config.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "kubernetes-configmap";

bool recognise(const yaml::Node &doc) {
  auto t = typeMeta(doc);
  if (!t || t->kind != "ConfigMap" || t->api_version != "v1") return false;
  auto data = get(doc, "data");
  if (!data || !data->IsMap()) return false;
  for (const auto &kv : *data)
    if (kv.second.IsScalar() && kv.second.Scalar().find('\n') != std::string::npos && mayHoldYamlRetryConfig(kv.second.Scalar())) return true;
  return false;
}

// Where a literal block's content starts in the outer file: (0-based line of its first content
// line, its indentation), or nullopt when the value is no literal block this can map.
std::optional<std::pair<int, int>> literalBlock(const SourceFile &src, const Span &key) {
  if (!key.known() || key.line > src.lineCount()) return std::nullopt;
  std::string_view line = src.line(key.line - 1);
  size_t colon = line.find(':', static_cast<size_t>(std::max(0, key.column - 1)));
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(colon + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty() || rest.front() != '|') return std::nullopt;
  rest.remove_prefix(1);
  if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) rest.remove_prefix(1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.empty() && rest.front() != '#') return std::nullopt; // |2, |-2: an indentation indicator
  for (int l = key.line; l < src.lineCount(); ++l) {
    std::string_view content = src.line(l);
    size_t indent = content.find_first_not_of(' ');
    if (indent == std::string_view::npos || content[indent] == '\r') continue; // blank lines come first
    return std::make_pair(l, static_cast<int>(indent));
  }
  return std::nullopt;
}

struct Shift {
  int line0, column0; // of the content's first character in the outer file
  Span operator()(Span s) const {
    if (!s.known()) return s;
    s.line += line0;
    s.end_line += line0;
    s.column += column0;
    s.end_column += column0;
    return s;
  }
};

void shiftPolicy(RetryPolicy &p, const Shift &at) {
  forEachSpan(p, [&](Span &s) { s = at(s); });
  dropFixes(p); // the edits' offsets are the inner text's; not worth guessing in the outer one
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  auto data = mapAt(cx, doc, "data", "data");
  if (!data) return;
  for (const auto &kv : *data) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) continue;
    const std::string key = kv.first.Scalar(), text = kv.second.Scalar();
    if (text.find('\n') == std::string::npos || !mayHoldYamlRetryConfig(text)) continue;
    auto block = literalBlock(cx.src, cx.keySpan(*data, key));
    if (!block) continue;
    const Shift at{block->first, block->second};

    const SourceFile inner(cx.src.path(), text);
    FileModel innerModel;
    std::vector<Diagnostic> innerErrors;
    ExtractContext icx{inner, innerModel, innerErrors, cx.options};
    yaml::ConfigDocuments docs;
    const bool json = key.size() > 5 && key.compare(key.size() - 5, 5, ".json") == 0;
    bool read = yaml::readConfigDocuments(
        text, json, cx.options.max_nesting, [&] { return looksLikeRetryConfig(text, true); },
        [&](int line, int column, std::string message) {
          Span s = at(Span{cx.src.path(), std::max(1, line), std::max(1, column), std::max(1, line), std::max(1, column) + 1});
          cx.errors.push_back(Diagnostic{cx.src.path(), s.line, s.column, message + " (in ConfigMap " + meta.name + " data." + key + ")"});
        },
        docs);
    if (!read) continue;
    if (!extractDocuments(docs.docs.documents, icx)) continue;
    for (const std::string &f : innerModel.formats)
      if (std::find(cx.model.formats.begin(), cx.model.formats.end(), f) == cx.model.formats.end()) cx.model.formats.push_back(f);
    const std::string where = "ConfigMap " + meta.ns + "/" + meta.name + " data." + key;
    for (RetryPolicy &p : innerModel.policies) {
      shiftPolicy(p, at);
      p.anchor = "ConfigMap/" + meta.ns + "/" + meta.name + "/" + key + "/" + p.anchor;
      p.component += " (in " + where + ")";
      cx.model.policies.push_back(std::move(p));
    }
    for (ConfigProblem &pr : innerModel.problems) cx.problem(at(pr.where), pr.message, "ConfigMap/" + meta.name + "/" + key + "/" + pr.anchor);
    for (const Diagnostic &d : innerErrors) {
      Span s = at(Span{d.path, d.line, d.column, d.line, d.column + 1});
      cx.errors.push_back(Diagnostic{cx.src.path(), s.line, s.column, d.message + " (in " + where + ")"});
    }
  }
}

} // namespace

namespace {
const Extractor &configMapExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .priority = 45,
      .prefilter_words = {"configmap"},
  };
  return e;
}
const ExtractorRegistration registered(&configMapExtractor);
} // namespace

} // namespace retrylint
