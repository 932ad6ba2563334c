#include "lint/extract/extractors.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>

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
bool isKubernetesList(const yaml::Node &doc) {
  auto kind = get(doc, "kind");
  auto items = get(doc, "items");
  return kind && kind->IsScalar() && kind->Scalar() == "List" && items && items->IsSequence();
}

bool extractOne(const yaml::Node &doc, ExtractContext &cx, int depth) {
  // A top-level list (Envoy Gateway writes RouteConfigurations as one) goes to the recognisers
  // whole; they decide whether its items are theirs.
  if (!doc.IsMap() && !doc.IsSequence()) return false;
  if (isKubernetesList(doc) && depth < 8) {
    bool any = false;
    const yaml::Node items = *get(doc, "items"); // named: `: *get(...)` would dangle
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

bool extractDocuments(const std::vector<yaml::Node> &docs, ExtractContext &cx) {
  bool any = false;
  for (const auto &doc : docs) any |= extractOne(doc, cx, 0);
  return any;
}

namespace {
// Words one of which every document a YAML/JSON dialect recognises must contain, compared after
// folding case and dropping '-' and '_' (so camelCase, snake_case, kebab-case and Spring's
// relaxed names all match). Derived from each extractor's `recognise`: keep them in step.
const std::map<std::string_view, std::vector<std::string_view>> &requiredWords() {
  static const std::map<std::string_view, std::vector<std::string_view>> words = {
      {"istio-virtualservice", {"networking.istio.io"}},
      {"grpc-service-config", {"methodconfig", "retrythrottling"}},
      {"envoy-route", {"staticresources", "virtualhosts", "routeconfiguration"}},
      {"envoy-gateway-backendtrafficpolicy", {"gateway.envoyproxy.io"}},
      {"gateway-api-route", {"gateway.networking.k8s.io"}},
      {"linkerd-serviceprofile", {"linkerd.io", "retrybudget", "isretryable", "condition"}},
      {"dapr-resiliency", {"dapr.io", "retries"}},
      {"argo-workflows", {"argoproj.io"}},
      {"otel-collector", {"exporters", "retryonfailure"}},
      {"kong", {"formatversion", "konghq.com"}},
      {"resilience4j", {"resilience4j"}},
      {"spring-cloud-gateway", {"gateway"}},
      {"dotnet-resilience", {"retry"}},
      {"aws-step-functions", {"startat", "statemachine", "stepfunctions"}},
  };
  return words;
}

std::string fold(std::string_view text) {
  // Written through a pointer: appending byte by byte cost as much as the searches.
  std::string out(text.size(), '\0');
  char *o = out.data();
  for (char c : text) {
    if (c == '-' || c == '_') continue;
    *o++ = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  out.resize(static_cast<size_t>(o - out.data()));
  return out;
}
// Every YAML/JSON dialect's words, indexed by their first two letters, so that one pass over the
// folded text finds whether any occurs (searching word by word was most of the pre-filter's cost).
struct WordIndex {
  bool always = false; // a dialect without words: no pre-filter
  // By the first two bytes: 0, or 1 + the index in `buckets` of the words starting so.
  std::array<uint8_t, 1u << 16> slot{};
  std::vector<std::vector<std::string_view>> buckets;
  std::vector<std::string_view> short_; // words of one letter (none so far): searched one by one
};

uint16_t startOf(char a, char b) {
  return static_cast<uint16_t>(static_cast<unsigned char>(a) << 8 | static_cast<unsigned char>(b));
}

const WordIndex &wordIndex() {
  static const WordIndex index = [] {
    WordIndex ix;
    for (const auto &ex : extractors()) {
      if (!ex.recognise) continue;
      auto it = requiredWords().find(ex.format);
      if (it == requiredWords().end()) {
        ix.always = true;
        continue;
      }
      for (std::string_view w : it->second) {
        if (w.size() < 2) {
          ix.short_.push_back(w);
          continue;
        }
        uint8_t &slot = ix.slot[startOf(w[0], w[1])];
        if (slot == 0) {
          ix.buckets.emplace_back();
          slot = static_cast<uint8_t>(ix.buckets.size()); // far fewer than 255 words
        }
        ix.buckets[slot - 1].push_back(w);
      }
    }
    return ix;
  }();
  return index;
}
} // namespace

bool hasPrefilterWords(const Extractor &ex) { return requiredWords().count(ex.format) > 0; }

bool mayHoldYamlRetryConfig(std::string_view text) {
  // An escape in a quoted scalar could spell a key we look for: let the parser decide.
  if (text.find('\\') != std::string_view::npos) return true;
  const WordIndex &ix = wordIndex();
  if (ix.always) return true;
  const std::string folded = fold(text);
  for (std::string_view w : ix.short_)
    if (folded.find(w) != std::string::npos) return true;
  const std::string_view f = folded;
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    const uint8_t slot = ix.slot[startOf(f[i], f[i + 1])];
    if (slot == 0) continue;
    for (std::string_view w : ix.buckets[slot - 1])
      if (f.substr(i, w.size()) == w) return true;
  }
  return false;
}

bool looksLikeRetryConfig(std::string_view text) {
  for (const auto &ex : extractors())
    for (auto m : ex.markers)
      if (text.find(m) != std::string_view::npos) return true;
  return false;
}

} // namespace retrylint
