#include "lint/engine.h"

#include <algorithm>
#include <regex>

#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <yaml-cpp/yaml.h>

#include "lint/discover/discover.h"
#include "lint/extract/extractors.h"
#include "lint/perf/cache.h"
#include "lint/suppress/suppressions.h"

namespace retrylint {
namespace {

// Inputs larger than this are not retry configs; reading them would only cost memory.
constexpr size_t kMaxFileBytes = 32u << 20;
// yaml-cpp parses recursively; refuse nesting that could exhaust the stack.
constexpr int kMaxNesting = 500;

// Deepest bracket nesting of flow collections and block indentation steps, roughly: enough to
// refuse pathological inputs before the recursive parser sees them.
int flowNestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool inDouble = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inDouble) {
      if (c == '\\') ++i;
      else if (c == '"') inDouble = false;
      continue;
    }
    if (c == '"') inDouble = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

bool isJsonPath(const std::string &path) {
  return llvm::sys::path::extension(path).equals_insensitive(".json");
}

// Files whose syntax is YAML or JSON. Other files are only read by the text dialects, except
// a file named on the command line with an unknown extension, which is tried as YAML.
bool isYamlOrJsonPath(const std::string &path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  return ext.equals_insensitive(".yaml") || ext.equals_insensitive(".yml") || ext.equals_insensitive(".json");
}

void apply(const RuleSettings &settings, std::map<std::string, std::optional<Severity>> &out) {
  for (const auto &[code, setting] : settings) {
    auto &slot = out[code];
    if (setting.enabled && !*setting.enabled) {
      slot.reset();
      continue;
    }
    if (setting.severity) slot = setting.severity;
    else if (setting.enabled && !slot) slot = findRule(code)->severity;
  }
}

// Strips a byte-order mark; refuses binary content. Returns false when there is nothing to read.
bool prepare(const std::string &path, std::string &content, bool named, std::vector<Diagnostic> &errors) {
  if (content.size() >= 3 && content.compare(0, 3, "\xEF\xBB\xBF") == 0) content.erase(0, 3);
  if (content.find('\0') != std::string::npos) {
    if (named) errors.push_back(Diagnostic{path, 0, 0, "binary file, not a retry configuration"});
    return false;
  }
  return true;
}

} // namespace

std::map<std::string, std::optional<Severity>> effectiveRules(const RunOptions &options, const std::string &path) {
  std::map<std::string, std::optional<Severity>> out;
  for (const Rule *r : allRules()) out[std::string(r->code)] = r->severity;
  if (options.config) {
    apply(options.config->rules, out);
    if (!options.config->overrides.empty()) {
      std::string rel = relativeTo(options.config->root, path);
      for (const PathOverride &o : options.config->overrides)
        for (const std::string &glob : o.paths)
          if (!rel.empty() && globMatches(glob, rel)) {
            apply(o.rules, out);
            break;
          }
    }
  }
  apply(options.cli_rules, out);
  return out;
}

bool extractText(const std::string &path, std::string content, bool named, FileModel &model,
                 std::vector<Diagnostic> &errors, const ExtractOptions &options) {
  if (!prepare(path, content, named, errors)) return false;
  return extractFrom(SourceFile(path, std::move(content)), named, model, errors, options);
}

bool extractFrom(const SourceFile &src, bool named, FileModel &model, std::vector<Diagnostic> &errors,
                 const ExtractOptions &options) {
  const std::string &path = src.path();
  auto fail = [&](int line, int col, std::string msg) { errors.push_back(Diagnostic{path, line, col, std::move(msg)}); };
  model.path = path;
  if (const Extractor *ex = textExtractorFor(src)) {
    ExtractContext cx{src, model, errors, options};
    model.formats.emplace_back(ex->format);
    try {
      ex->extractText(src, cx);
    } catch (const TypeError &e) {
      cx.error(e);
    } catch (const std::exception &e) {
      fail(0, 0, std::string("could not analyse: ") + e.what());
    }
    return true;
  }
  if (!isYamlOrJsonPath(path) && (!named || hasKnownNonYamlExtension(path))) return false;
  const std::string &text = src.text();
  // A file that does not parse is an error only when it was meant to be a retry config: a broken
  // Helm template or someone else's YAML is not ours to judge, even when pre-commit names it.
  const bool relevant = looksLikeRetryConfig(text);
  if (options.prefilter && !relevant && !mayHoldYamlRetryConfig(text)) return false;
  if (flowNestingDepth(text) > kMaxNesting) {
    if (relevant) fail(0, 0, "nesting deeper than " + std::to_string(kMaxNesting) + " levels; not analysed");
    return false;
  }

  std::vector<YAML::Node> docs;
  const bool json = isJsonPath(path);
  if (json) {
    // Strict JSON first: yaml-cpp would accept things JSON parsers (and gRPC) reject.
    auto parsed = llvm::json::parse(text);
    if (!parsed) {
      std::string msg = llvm::toString(parsed.takeError());
      if (!relevant) return false;
      // llvm::json reports "[3:5, byte=40]: Expected , or }"; lift the position out.
      int line = 0, col = 0;
      std::smatch m;
      if (std::regex_search(msg, m, std::regex(R"(\[(\d+):(\d+), byte=\d+\]:?\s*)"))) {
        line = std::stoi(m[1]);
        col = std::stoi(m[2]);
        msg = m.prefix().str() + m.suffix().str();
      }
      fail(line, col, "invalid JSON: " + msg);
      return false;
    }
  }
  try {
    if (json) {
      // JSON allows tabs wherever it allows spaces; YAML does not. Same length, same columns.
      std::string yamlText = text;
      std::replace(yamlText.begin(), yamlText.end(), '\t', ' ');
      docs.push_back(YAML::Load(yamlText));
    } else {
      docs = YAML::LoadAll(text);
    }
  } catch (const YAML::Exception &e) {
    if (!relevant) return false;
    if (e.mark.is_null()) fail(0, 0, "invalid YAML: " + e.msg);
    else fail(e.mark.line + 1, e.mark.column + 1, "invalid YAML: " + e.msg);
    return false;
  }

  ExtractContext cx{src, model, errors, options};
  try {
    return extractDocuments(docs, cx);
  } catch (const std::exception &e) {
    fail(0, 0, std::string("could not analyse: ") + e.what());
  }
  return false;
}

FileResult analyseText(const std::string &path, std::string text, bool named, const RunOptions &options) {
  FileResult r;
  if (!prepare(path, text, named, r.errors)) return r;
  const SourceFile src(path, std::move(text));
  FileModel model;
  r.analysed = extractFrom(src, named, model, r.errors, options.extract);
  r.policies = model.policies.size();

  auto rules = effectiveRules(options, path);
  for (const Rule *rule : allRules()) {
    const auto &severity = rules[std::string(rule->code)];
    if (!severity) continue;
    Reporter reporter(*rule, *severity, r.findings);
    rule->check(model, options.settings, reporter);
  }

  std::vector<Suppression> suppressions = parseSuppressions(src);
  std::vector<Suppression> unused = applySuppressions(r.findings, suppressions);
  if (const auto &sev = rules["RL902"]; sev && !unused.empty()) {
    Reporter reporter(*findRule("RL902"), *sev, r.findings);
    std::string format = model.formats.empty() ? "" : model.formats.front();
    for (const Suppression &s : unused) {
      std::string anchor = "suppression/" + std::to_string(s.target_line) + "/" + s.reason;
      for (const std::string &name : s.unknown)
        reporter.report(s.where, format, anchor + "/" + name, "suppression names '" + name + "', which is no retrylint rule (see --list-rules)");
      bool onlyUnknownNames = s.codes.empty() && !s.unknown.empty();
      if (!s.used && !onlyUnknownNames) reporter.report(s.where, format, anchor, "this suppression silences no finding; remove it");
    }
  }
  return r;
}

RunResult run(const RunOptions &options) {
  RunResult result;
  std::function<bool(const std::string &)> excluded;
  if (options.config && !options.config->exclude.empty()) {
    excluded = [&config = *options.config](const std::string &path) {
      std::string rel = relativeTo(config.root, path);
      if (rel.empty()) return false;
      for (const std::string &glob : config.exclude)
        if (globMatches(glob, rel)) return true;
      return false;
    };
  }
  std::vector<Candidate> files =
      discover(options.paths.empty() ? std::vector<std::string>{"."} : options.paths, result.errors, excluded);
  if (options.shards > 1)
    files.erase(std::remove_if(files.begin(), files.end(),
                               [&](const Candidate &c) { return !inShard(c.path, options.shard, options.shards); }),
                files.end());
  std::vector<FileResult> perFile(files.size());
  std::optional<ResultCache> cache;
  if (!options.cache_dir.empty()) cache.emplace(options.cache_dir);

  auto analyseOne = [&](size_t i) {
    const Candidate &c = files[i];
    FileResult &r = perFile[i];
    auto buf = llvm::MemoryBuffer::getFile(c.path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buf) {
      r.errors.push_back(Diagnostic{c.path, 0, 0, "cannot read: " + buf.getError().message()});
      return;
    }
    if ((*buf)->getBufferSize() > kMaxFileBytes) {
      if (c.named) r.errors.push_back(Diagnostic{c.path, 0, 0, "larger than 32 MiB; not analysed"});
      return;
    }
    std::string text = (*buf)->getBuffer().str();
    buf->reset(); // read once, held once
    // C++ results also depend on headers and compile flags, which the key does not see.
    std::string key;
    if (cache && !cppExtractor().recogniseText(SourceFile(c.path, ""))) {
      key = ResultCache::key(c.path, c.named, text, options);
      if (auto hit = cache->load(key)) {
        r = std::move(*hit);
        return;
      }
    }
    try {
      r = analyseText(c.path, std::move(text), c.named, options);
      if (!key.empty()) cache->store(key, r);
    } catch (const std::exception &e) {
      r.errors.push_back(Diagnostic{c.path, 0, 0, std::string("internal error: ") + e.what()});
    }
  };

  unsigned jobs = options.jobs;
  if (jobs == 1 || files.size() < 2) {
    for (size_t i = 0; i < files.size(); ++i) analyseOne(i);
  } else {
    llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(jobs);
    llvm::ThreadPool pool(strategy);
    for (size_t i = 0; i < files.size(); ++i) pool.async([&analyseOne, i] { analyseOne(i); });
    pool.wait();
  }

  result.stats.files_seen = files.size();
  for (FileResult &r : perFile) {
    if (r.analysed) ++result.stats.files_analysed;
    result.stats.policies += r.policies;
    std::move(r.findings.begin(), r.findings.end(), std::back_inserter(result.findings));
    std::move(r.errors.begin(), r.errors.end(), std::back_inserter(result.errors));
  }
  std::sort(result.findings.begin(), result.findings.end(), findingLess);
  std::sort(result.errors.begin(), result.errors.end(), diagnosticLess);
  return result;
}

} // namespace retrylint
