// Configurations embedded in a Kubernetes ConfigMap: an OpenTelemetry Collector config, an Envoy
// bootstrap, a Kong declarative file, a Spring Boot application.yml … written as a `data:` value.
// Each value written as a literal block scalar (`key: |`) is read as a file of its own by every
// YAML/JSON dialect, or, when its key names a file a text dialect claims (`nginx.conf`,
// `haproxy.cfg`), by that dialect; what they find points at the line and column inside the ConfigMap.
//
// A literal block keeps every line of its content as written, less the block's indentation, so
// the inner line n is the outer line of the key + n and its columns shift by the indentation.
// Folded (`>`), quoted and plain values re-flow their lines and are not read; nor is a block with
// an explicit indentation indicator (`|2`), whose content may start left of its first line.
#include <algorithm>
#include <cctype>

#include "lint/extract/embedded.h"
#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "kubernetes-configmap";

bool recognise(const yaml::Node &doc) {
  auto t = typeMeta(doc);
  if (!t || t->kind != "ConfigMap" || t->api_version != "v1") return false;
  auto data = get(doc, "data");
  if (!data || !data->IsMap()) return false;
  for (const auto &kv : *data)
    if (kv.first.IsScalar() && kv.second.IsScalar() && kv.second.Scalar().find('\n') != std::string::npos &&
        (mayHoldYamlRetryConfig(kv.second.Scalar()) || textDialectClaims(kv.first.Scalar(), kv.second.Scalar())))
      return true;
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

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  auto data = mapAt(cx, doc, "data", "data");
  if (!data) return;
  for (const auto &kv : *data) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) continue;
    const std::string key = kv.first.Scalar(), text = kv.second.Scalar();
    if (text.find('\n') == std::string::npos || !(mayHoldYamlRetryConfig(text) || textDialectClaims(key, text))) continue;
    auto block = literalBlock(cx.src, cx.keySpan(*data, key));
    if (!block) continue;
    extractEmbedded(cx, text, key.size() > 5 && key.compare(key.size() - 5, 5, ".json") == 0, block->first, block->second,
                    "ConfigMap " + meta.ns + "/" + meta.name + " data." + key, "ConfigMap/" + meta.ns + "/" + meta.name + "/" + key, key);
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
