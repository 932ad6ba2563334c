#include "lint/extract/extractors.h"

#include <algorithm>

namespace retrylint {

const std::vector<Extractor> &extractors() {
  static const std::vector<Extractor> all = {
      istioExtractor(),         grpcServiceConfigExtractor(), envoyExtractor(),          envoyGatewayExtractor(),
      gatewayApiExtractor(),    linkerdExtractor(),           daprExtractor(),           argoExtractor(),
      otelCollectorExtractor(), kongExtractor(),              resilience4jExtractor(),   springGatewayExtractor(),
      dotnetResilienceExtractor(), awsSharedConfigExtractor(), stepFunctionsExtractor(), cppExtractor()};
  return all;
}

namespace {
bool isKubernetesList(const YAML::Node &doc) {
  auto kind = get(doc, "kind");
  auto items = get(doc, "items");
  return kind && kind->IsScalar() && kind->Scalar() == "List" && items && items->IsSequence();
}

bool extractOne(const YAML::Node &doc, ExtractContext &cx, int depth) {
  // A top-level list (Envoy Gateway writes RouteConfigurations as one) goes to the recognisers
  // whole; they decide whether its items are theirs.
  if (!doc.IsMap() && !doc.IsSequence()) return false;
  if (isKubernetesList(doc) && depth < 8) {
    bool any = false;
    const YAML::Node items = *get(doc, "items"); // named: `: *get(...)` would dangle
    for (const auto &item : items) any |= extractOne(item, cx, depth + 1);
    return any;
  }
  for (const auto &ex : extractors()) {
    if (!ex.recognise || !ex.recognise(doc)) continue;
    if (std::find(cx.model.formats.begin(), cx.model.formats.end(), ex.format) == cx.model.formats.end())
      cx.model.formats.emplace_back(ex.format);
    try {
      ex.extract(doc, cx);
    } catch (const TypeError &e) {
      cx.error(e);
    }
    return true;
  }
  return false;
}
} // namespace

const Extractor *textExtractorFor(const SourceFile &src) {
  for (const auto &ex : extractors())
    if (ex.recogniseText && ex.extractText && ex.recogniseText(src)) return &ex;
  return nullptr;
}

bool extractDocuments(const std::vector<YAML::Node> &docs, ExtractContext &cx) {
  bool any = false;
  for (const auto &doc : docs) any |= extractOne(doc, cx, 0);
  return any;
}

bool looksLikeRetryConfig(std::string_view text) {
  for (const auto &ex : extractors())
    for (auto m : ex.markers)
      if (text.find(m) != std::string_view::npos) return true;
  return false;
}

} // namespace retrylint
