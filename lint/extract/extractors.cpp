#include "lint/extract/extractors.h"
#include "lint/yaml/templates.h"

#include <llvm/Support/Path.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <map>
#include <tuple>

#include <llvm/ADT/StringExtras.h>

namespace retrylint {

namespace {
std::vector<const Extractor &(*)()> &registered() {
  static std::vector<const Extractor &(*)()> all; // filled before main, by each dialect's file
  return all;
}
} // namespace

ExtractorRegistration::ExtractorRegistration(const Extractor &(*describe)()) { registered().push_back(describe); }

const std::vector<Extractor> &extractors() {
  static const std::vector<Extractor> all = [] {
    std::vector<Extractor> v;
    for (auto describe : registered()) v.push_back(describe());
    std::sort(v.begin(), v.end(), [](const Extractor &a, const Extractor &b) {
      return std::tie(a.priority, a.format) < std::tie(b.priority, b.format);
    });
    return v;
  }();
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
  bool any = false;
  for (const auto &ex : extractors()) {
    if (!ex.recognise || !ex.recognise(doc)) continue;
    if (std::find(cx.model.formats.begin(), cx.model.formats.end(), ex.format) == cx.model.formats.end())
      cx.model.formats.emplace_back(ex.format);
    try {
      ex.extract(doc, cx);
    } catch (const TypeError &e) {
      cx.error(e);
    }
    any = true;
    if (!ex.alongside) break;
  }
  return any;
}
} // namespace

namespace {
// A kind is an extension (".ini", compared without case), a whole name ("credentials"), a name
// and what follows it ("Dockerfile.*": Dockerfile.prod; ".env.*": .env.local), an ending of
// several parts ("*.conf.template": default.conf.template), or any file of a directory so named
// ("sites-available/*": sites-available/example.com, as Debian's nginx package lays them out).
bool matchesKind(llvm::StringRef path, std::string_view k) {
  const llvm::StringRef name = llvm::sys::path::filename(path), ext = llvm::sys::path::extension(path);
  llvm::StringRef kind(k.data(), k.size());
  if (kind.endswith("/*")) return llvm::sys::path::filename(llvm::sys::path::parent_path(path)) == kind.drop_back(2);
  if (kind.startswith("*")) return name.endswith(kind.drop_front()) && name.size() > kind.size() - 1;
  if (kind.endswith(".*")) return name.startswith(kind.drop_back()) && name.size() > kind.size() - 1;
  if (kind.startswith(".")) return ext.equals_insensitive(kind) || name == kind;
  return name == kind;
}
} // namespace

bool isFileKind(std::string_view path, const std::vector<std::string_view> &kinds) {
  const llvm::StringRef p(path.data(), path.size());
  for (std::string_view k : kinds)
    if (matchesKind(p, k)) return true;
  return false;
}

bool isFileKindOfADialect(std::string_view path, bool byExtension) {
  const llvm::StringRef p(path.data(), path.size());
  for (const Extractor &ex : extractors())
    for (std::string_view k : ex.file_kinds)
      if ((!byExtension || (k.substr(0, 1) == "." && k.substr(k.size() - 2) != ".*")) && matchesKind(p, k)) return true;
  return false;
}

const Extractor *textExtractorFor(const SourceFile &src) {
  for (const auto &ex : extractors())
    if (ex.recogniseText && ex.extractText && ex.recogniseText(src)) return &ex;
  return nullptr;
}

bool mayCacheResultOf(const std::string &path) {
  const Extractor *ex = textExtractorFor(SourceFile(path, ""));
  return !ex || ex->cacheable;
}

bool extractDocuments(const std::vector<yaml::Node> &docs, ExtractContext &cx, std::vector<bool> *recognised) {
  bool any = false;
  for (const auto &doc : docs) {
    const bool one = extractOne(doc, cx, 0);
    if (recognised) recognised->push_back(one);
    any |= one;
  }
  return any;
}

namespace {
unsigned char foldByte(char c) { return static_cast<unsigned char>(llvm::toLower(c)); }
bool isDropped(char c) { return c == '-' || c == '_'; }

// Every YAML/JSON dialect's words, found in one pass over the text without copying it: the
// last four bytes (case folded, '-' and '_' dropped) are hashed into a bitmap of the words'
// first four; only a hit compares whole words.
struct WordIndex {
  bool always = false; // a dialect without words: no pre-filter
  std::bitset<1u << 16> starts;
  struct Word {
    std::string_view text;
    uint32_t first4;
  };
  std::vector<Word> words;
  std::vector<std::string_view> short_; // words under four letters (none so far): searched one by one
};

uint16_t hash4(uint32_t w) { return static_cast<uint16_t>((w * 0x9E3779B1u) >> 16); }

// Whether `word` starts at text[i], compared as folded text (no '-' or '_' in words).
bool foldedMatchAt(std::string_view text, size_t i, std::string_view word) {
  size_t j = 0;
  for (; i < text.size() && j < word.size(); ++i) {
    if (isDropped(text[i])) continue;
    if (foldByte(text[i]) != static_cast<unsigned char>(word[j])) return false;
    ++j;
  }
  return j == word.size();
}

const WordIndex &wordIndex() {
  static const WordIndex index = [] {
    WordIndex ix;
    for (const auto &ex : extractors()) {
      if (!ex.recognise) continue;
      if (ex.prefilter_words.empty()) {
        ix.always = true;
        continue;
      }
      for (std::string_view w : ex.prefilter_words) {
        if (w.size() < 4) {
          ix.short_.push_back(w);
          continue;
        }
        uint32_t first4 = 0;
        for (size_t k = 0; k < 4; ++k) first4 = first4 << 8 | static_cast<unsigned char>(w[k]);
        ix.starts.set(hash4(first4));
        ix.words.push_back(WordIndex::Word{w, first4});
      }
    }
    return ix;
  }();
  return index;
}
} // namespace

bool mayHoldYamlRetryConfig(std::string_view text) {
  // An escape in a quoted scalar could spell a key we look for: let the parser decide.
  if (text.find('\\') != std::string_view::npos) return true;
  const WordIndex &ix = wordIndex();
  if (ix.always) return true;
  for (std::string_view w : ix.short_)
    for (size_t i = 0; i < text.size(); ++i)
      if (foldedMatchAt(text, i, w)) return true;
  uint32_t window = 0; // the last four kept bytes, folded (zeros before the text)
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (isDropped(c)) continue;
    window = window << 8 | foldByte(c);
    if (!ix.starts.test(hash4(window))) continue;
    // A hit (rare): the four kept bytes end at i; find where they start.
    size_t start = i, need = 3;
    while (need > 0 && start > 0)
      if (!isDropped(text[--start])) --need;
    if (need > 0) continue; // fewer than four bytes yet
    for (const WordIndex::Word &w : ix.words)
      if (w.first4 == window && foldedMatchAt(text, start, w.text)) return true;
  }
  return false;
}

bool looksLikeRetryConfig(std::string_view text, bool withRetryKey) {
  auto mentions = [&](std::string_view word) { return text.find(word) != std::string_view::npos; };
  for (const auto &ex : extractors()) {
    if (!std::any_of(ex.markers.begin(), ex.markers.end(), mentions)) continue;
    const auto &keys = ex.retry_keys;
    if (!withRetryKey || keys.empty() || std::any_of(keys.begin(), keys.end(), mentions)) return true;
  }
  return false;
}

std::string extractionInputsBesides(const std::string &path, std::string_view text) {
  std::string grpc = grpcConfigInputsBesides(path);
  if (!grpc.empty()) return grpc;
  if (std::string tf = terraformInputsBesides(path, text); !tf.empty()) return tf;
  std::string callers;
  if (mayBeTerraformJsonTemplate(path, text) && (!yaml::isJsonTemplatePath(path) || yaml::hasJsonPlaceholders(text)))
    callers = terraformTemplateInputsBesides(path);
  // Only a standalone state machine definition consults a template (and only its text says so).
  if (text.find("StartAt") == std::string_view::npos) return callers;
  return stepFunctionsInputsBesides(path) + callers;
}

std::vector<std::string> extractionInputNamesBesides(const std::string &path) {
  std::vector<std::string> names = grpcConfigInputNamesBesides(path);
  for (std::string &n : stepFunctionsInputNamesBesides(path)) names.push_back(std::move(n));
  for (std::string &n : terraformInputNamesBesides(path)) names.push_back(std::move(n));
  // (a `.json` too: templatefile() may name it, and only its text, not read here, says whether)
  if (yaml::isJsonTemplatePath(path) || llvm::sys::path::extension(path).equals_insensitive(".json"))
    for (std::string &n : terraformTemplateInputNamesBesides(path)) names.push_back(std::move(n));
  return names;
}

} // namespace retrylint
