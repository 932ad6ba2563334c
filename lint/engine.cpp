#include "lint/engine.h"
#include "lint/discover/identity.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <regex>
#include <set>
#include <numeric>
#include <optional>
#include <tuple>

#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "lint/discover/discover.h"
#include "lint/discover/read.h"
#include "lint/extract/extractors.h"
#include "lint/fix/apply_fixes.h"
#include "lint/parallel.h"
#include "lint/discover/shard.h"
#include "lint/suppress/suppressions.h"
#include "lint/yaml/read_config.h"
#include "lint/yaml/templates.h"

namespace retrylint {

namespace {

// A file over the size limit found while walking is an error only when its start looks like one of ours.
const std::function<bool(std::string_view)> headLooksLikeRetryConfig = [](std::string_view head) {
  return looksLikeRetryConfig(head);
};

bool isJsonPath(const std::string &path) {
  return llvm::sys::path::extension(path).equals_insensitive(".json") || yaml::isJsonTemplatePath(path);
}

// Files whose syntax is YAML or JSON. Other files are only read by the text dialects, except
// a file named on the command line with an unknown extension, which is tried as YAML.
bool isYamlOrJsonPath(const std::string &path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  return ext.equals_insensitive(".yaml") || ext.equals_insensitive(".yml") || ext.equals_insensitive(".json") ||
         yaml::isJsonTemplatePath(path) || yaml::isYamlTemplatePath(path) || yaml::isBareTemplatePath(path);
}

// Strips a byte-order mark; refuses binary content. Returns false when there is nothing to read.
// A NUL byte never hides a file in silence: in a text dialect's file (C++, INI, .properties, .env)
// it is read as a space, as Clang reads one in a comment; a YAML or JSON file cannot hold one,
// so one that mentions a dialect is an error naming the line, and only other files (a real
// binary that happens to end in .json) are passed over.
bool prepare(const std::string &path, std::string &content, bool named, std::vector<Diagnostic> &errors) {
  if (content.size() >= 3 && content.compare(0, 3, "\xEF\xBB\xBF") == 0) content.erase(0, 3);
  size_t nul = content.find('\0');
  if (nul == std::string::npos) return true;
  if (isFileKindOfADialect(path)) {
    std::replace(content.begin(), content.end(), '\0', ' ');
    return true;
  }
  if (named || looksLikeRetryConfig(content)) {
    int line = 1 + static_cast<int>(std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    errors.push_back(Diagnostic{path, line, 0, named ? "binary file (a NUL byte), not a retry configuration"
                                                      : "a NUL byte: a YAML or JSON file cannot hold one; not analysed"});
  }
  return false;
}

// The rules' view of where `path` sits among the declared layers; a file matched by two layers
// that are not nested is an error once it turns out to hold retry policies.
// The config whose layers `path` is placed in: its nearest config when that declares layers (a
// monorepo's sub-project with call chains of its own), else the root config's; null when neither does.
const ProjectConfig *layerScope(const RunOptions &options, const std::string &path) {
  const ProjectConfig *c = options.configFor(path);
  if (c && !c->layers.empty()) return c;
  return options.config && !options.config->layers.empty() ? &*options.config : nullptr;
}

Settings settingsFor(const RunOptions &options, const std::string &path, FileResult &r, bool hasPolicies) {
  Settings s = options.settingsFor(path);
  r.layer_scope = layerScope(options, path);
  if (!r.layer_scope) return s;
  const ProjectConfig &c = *r.layer_scope;
  s.layer.configured = true;
  for (const Layer &l : c.layers)
    if (l.owns_retries) s.layer.owner = l.name;
  std::string ambiguous;
  r.layer = layerOf(c, path, &ambiguous);
  if (r.layer) {
    s.layer.layer = c.layers[*r.layer].name;
    s.layer.owns_retries = c.layers[*r.layer].owns_retries;
  }
  if (!ambiguous.empty() && hasPolicies) r.errors.push_back(Diagnostic{path, 0, 0, ambiguous});
  return s;
}

// After every file: the declared chains with their layers' policies, and the cross-file rules.
void chainPass(const RunOptions &options, std::vector<FileResult> &perFile, RunResult &result) {
  // Each config that declares layers is a scope of its own (the root's, a sub-project's), in path order.
  std::vector<const ProjectConfig *> scopes;
  for (const FileResult &r : perFile)
    if (r.layer_scope && std::find(scopes.begin(), scopes.end(), r.layer_scope) == scopes.end()) scopes.push_back(r.layer_scope);
  if (options.config && !options.config->layers.empty() && std::find(scopes.begin(), scopes.end(), &*options.config) == scopes.end())
    scopes.push_back(&*options.config);
  std::sort(scopes.begin(), scopes.end(), [](const ProjectConfig *a, const ProjectConfig *b) { return a->path < b->path; });
  std::vector<Settings> chainSettings; // per chain: its scope's settings
  for (const ProjectConfig *scope : scopes) {
    const ProjectConfig &c = *scope;
    std::vector<std::vector<const FileModel *>> byLayer(c.layers.size());
    for (const FileResult &r : perFile)
      if (r.layer_scope == scope && r.layer && r.model) byLayer[*r.layer].push_back(r.model.get());
    for (const LayerChain &declared : c.chains) {
      std::vector<ChainLayer> layers;
      for (size_t i : declared.layers) {
        ChainLayer layer{c.layers[i].name, c.layers[i].owns_retries, {}, {}};
        for (const FileModel *m : byLayer[i]) {
          layer.files.push_back(m->path);
          for (const RetryPolicy &p : m->policies) layer.policies.push_back(&p);
        }
        std::sort(layer.files.begin(), layer.files.end());
        std::stable_sort(layer.policies.begin(), layer.policies.end(), [](const RetryPolicy *a, const RetryPolicy *b) {
          return std::tie(a->where.path, a->where.line, a->where.column) < std::tie(b->where.path, b->where.line, b->where.column);
        });
        layers.push_back(std::move(layer));
      }
      result.chains.push_back(makeChain(std::move(layers), declared.line));
      chainSettings.push_back(options.settingsFor(c.path));
    }
  }
  for (const Rule *rule : allRules()) {
    if (!rule->checkChain) continue;
    std::vector<Finding> found;
    Reporter reporter(*rule, rule->severity, found);
    for (size_t i = 0; i < result.chains.size(); ++i) rule->checkChain(result.chains[i], chainSettings[i], reporter);
    for (Finding &f : found) {
      // Its fixes edit the file as it was analysed (a fix is refused on a file changed since).
      for (Fix &fix : f.fixes)
        for (const FileResult &r : perFile)
          if (r.model && r.model->path == f.where.path) fix.source_sha256 = r.model->source_sha256;
      // Severity and on/off as configured for the file the finding is in (overrides included).
      auto severity = ruleSeverities(options, f.where.path)[static_cast<size_t>(ruleIndex(f.rule))];
      if (!severity) continue;
      f.severity = *severity;
      // A policy shared by several chains is reported once per chain only if the messages differ.
      bool dup = std::any_of(result.findings.begin(), result.findings.end(), [&](const Finding &g) {
        return g.rule == f.rule && g.fingerprint == f.fingerprint && g.message == f.message;
      });
      if (!dup) result.findings.push_back(std::move(f));
    }
  }
}

// How a duplicate key's value reads in a message.
std::string describe(const yaml::Node &n) {
  if (n.IsMap()) return "map";
  if (n.IsSequence()) return "list";
  if (!n.IsScalar()) return "null";
  std::string_view v = n.view();
  return v.size() <= 40 ? std::string(v) : std::string(v.substr(0, 37)) + "...";
}

// Keys written twice in a document a dialect read. The tree holds the last value, as runtimes
// do (lint/yaml/document.h); the reviewer may have read the first: RL901 at the dead one.
// Only duplicates that touch the retry settings are this tool's business: a key named for retries,
// or one whose (kept) value is a setting the model read. `metadata.annotations` written twice in
// an Argo Workflow, or a Kong service's `routes`, is a YAML matter for other linters.
bool touchesRetrySettings(std::string_view key, int laterLine, const FileModel &model) {
  std::string lower(key);
  for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("retr") != std::string::npos) return true;
  for (const RetryPolicy &p : model.policies) {
    const Backoff &b = p.backoff;
    for (const Span *s : {&p.max_attempts.where, &p.per_try_timeout.where, &p.overall_deadline.where, &p.budget.where,
                          &b.growth.where, &b.initial.where, &b.multiplier.where, &b.cap.where, &b.jitter.where})
      if (s->line == laterLine) return true;
    for (const Condition &c : p.retry_on)
      if (c.where.line == laterLine) return true;
  }
  return false;
}

// Per line of the text (0-based), how many lines before it are template branch markers
// (`{{- else }}`, `{{ else if … }}`, `{{- end }}`, `{{ if … }}`): a marker lies in (first, second]
// when the counts at second + 1 and first + 1 differ. Built once per file, so a stranger's file of
// many duplicate keys costs linear time.
std::vector<int> templateBranchesBefore(std::string_view text) {
  static const std::regex branch(R"(\{\{-?\s*(else|end|if|with|range)\b)");
  std::vector<int> before{0};
  for (size_t b = 0; b <= text.size();) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    std::string_view l = text.substr(b, e - b);
    const bool marker = l.find("{{") != std::string_view::npos && std::regex_search(l.begin(), l.end(), branch);
    before.push_back(before.back() + (marker ? 1 : 0));
    b = e + 1;
  }
  return before;
}

void reportDuplicateKeys(const yaml::Stream &docs, const std::vector<bool> &recognised, ExtractContext &cx) {
  const yaml::Document &arena = *docs.arena;
  std::map<std::string, int> seen; // per key name, for anchors that survive line shifts
  std::vector<int> branches;       // templateBranchesBefore, built at the first duplicate
  for (const yaml::Document::Duplicate &d : arena.duplicates()) {
    if (d.document >= recognised.size() || !recognised[d.document]) continue;
    const yaml::Node key = arena.node(d.key), value = arena.node(d.value), later = arena.node(d.laterValue);
    if (!touchesRetrySettings(key.view(), later.Mark().line + 1, cx.model)) continue;
    // Written in the two branches of a template's `{{ if }} … {{ else }}` (Helm, Go templates):
    // only one is ever rendered, so neither is dead.
    if (branches.empty()) branches = templateBranchesBefore(cx.src.text());
    const auto markersBefore = [&](int line) { return branches[std::min<size_t>(static_cast<size_t>(line), branches.size() - 1)]; };
    if (markersBefore(arena.node(d.laterKey).Mark().line + 1) != markersBefore(key.Mark().line + 1)) continue;
    const std::string name(key.view()), was = describe(value), now = describe(later);
    const std::string line = std::to_string(arena.node(d.laterKey).Mark().line + 1);
    std::string msg = "duplicate key `" + name + "`: ";
    if (value.IsScalar() && later.IsScalar() && value.view() == later.view())
      msg += "written again with the same value at line " + line + "; remove one";
    else
      msg += "most loaders keep the last value (" + now + ", line " + line + "), so the " + was +
             " written here has no effect; remove one";
    cx.problem(cx.span(key), std::move(msg), "duplicate-key/" + name + "/" + std::to_string(seen[name]++));
  }
}

// Identical findings (same place, rule and message: a block reached through several aliases or
// merge keys) are reported once, in the order first found.
void dropRepeatedFindings(std::vector<Finding> &findings) {
  if (findings.size() < 2) return;
  auto key = [&](size_t i) {
    const Finding &f = findings[i];
    return std::tie(f.where.path, f.where.line, f.where.column, f.rule, f.message);
  };
  std::vector<size_t> order(findings.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::vector<bool> repeated(findings.size());
  bool any = false;
  for (size_t i = 1; i < order.size(); ++i)
    if (key(order[i]) == key(order[i - 1])) repeated[order[i]] = any = true;
  if (!any) return;
  size_t kept = 0;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (repeated[i]) continue;
    if (kept != i) findings[kept] = std::move(findings[i]);
    ++kept;
  }
  findings.resize(kept);
}

} // namespace

const ProjectConfig *RunOptions::configFor(const std::string &path) const {
  if (nested)
    if (const ProjectConfig *c = nested->forFile(path)) return c;
  return config ? &*config : nullptr;
}

Settings RunOptions::settingsFor(const std::string &path) const {
  const ProjectConfig *c = configFor(path);
  if (!c || (config && (c == &*config || c->path == config->path))) return settings; // the root config's, the command line's applied
  Settings s = c->settings;
  if (cli_max_attempts) s.request.max_attempts = *cli_max_attempts;
  s.layer = settings.layer;
  return s;
}

RuleSeverities ruleSeverities(const RunOptions &options, const std::string &path) {
  return resolveRuleSeverities(options.configFor(path), options.cli_rules, path);
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
  // Lone "\r" line breaks (old Mac OS) are read as "\n" by the parsers: same length, so the same
  // offsets, and SourceFile splits lines the same way, so every position stays right.
  std::string_view text = src.text();
  std::string unixBreaks;
  for (size_t cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', cr + 1)) {
    if (cr + 1 < text.size() && text[cr + 1] == '\n') continue;
    if (unixBreaks.empty()) unixBreaks = src.text();
    unixBreaks[cr] = '\n';
  }
  if (!unixBreaks.empty()) text = unixBreaks;
  // A JSON template's `${name}` placeholders that templatefile() calls beside it fill with literals
  // are read as those values (same length: positions stay).
  std::string filled;
  const bool jsonTemplate = isTerraformJsonTemplate(path, text);
  if (jsonTemplate && yaml::hasJsonPlaceholders(text))
    if (auto values = terraformTemplateValues(path); !values.empty()) text = filled = yaml::fillJsonPlaceholders(std::string(text), values);
  // A file that does not parse is an error only when it was meant to be a retry config: a broken
  // Helm template or someone else's YAML is not ours to judge, even when pre-commit names it.
  // Found while walking, it must also mention a retry key of the dialect it looks like (an
  // invalid-on-purpose test workflow with no retryStrategy is nobody's retry config).
  // Scanning for every dialect's markers costs as much as parsing now: only done when needed.
  std::optional<bool> relevantMemo;
  auto relevant = [&] {
    if (!relevantMemo) relevantMemo = looksLikeRetryConfig(text, /*withRetryKey=*/!named);
    return *relevantMemo;
  };
  // Every dialect's markers hold one of its pre-filter words (tests/perf_test.cpp checks), so a
  // text the pre-filter drops never looks like a retry config either.
  if (options.prefilter && !mayHoldYamlRetryConfig(text)) return false;
  yaml::ConfigDocuments parsed;
  // A bare `.tpl`/`.tmpl` is JSON or YAML as its content says (a Go program's VirtualService
  // template is YAML; a templatefile() definition is JSON).
  const bool json = isJsonPath(path) && !(yaml::isBareTemplatePath(path) && !yaml::looksLikeJsonText(text));
  if (!yaml::readConfigDocuments(text, json, options.max_nesting, relevant, fail, parsed, jsonTemplate)) return false;
  const yaml::Stream &docs = parsed.docs;

  ExtractContext cx{src, model, errors, options};
  try {
    std::vector<bool> recognised;
    const bool any = extractDocuments(docs.documents, cx, &recognised);
    reportDuplicateKeys(docs, recognised, cx);
    return any;
  } catch (const std::exception &e) {
    fail(0, 0, std::string("could not analyse: ") + e.what());
  }
  return false;
}

FileResult analyseText(const std::string &path, std::string text, bool named, const RunOptions &options) {
  return analyseText(path, std::move(text), named, options, ruleSeverities(options, path));
}

FileResult analyseText(const std::string &path, std::string text, bool named, const RunOptions &options,
                       const RuleSeverities &rules) {
  FileResult r;
  if (!prepare(path, text, named, r.errors)) return r;
  const SourceFile src(path, std::move(text));
  FileModel model;
  r.analysed = extractFrom(src, named, model, r.errors, options.extract);
  r.without_full_types = model.without_full_types;
  r.policies = model.policies.size();

  const Settings settings = settingsFor(options, path, r, !model.policies.empty());
  for (size_t i = 0; i < allRules().size(); ++i) {
    const Rule *rule = allRules()[i];
    const auto &severity = rules[i];
    if (!severity || !rule->check) continue;
    Reporter reporter(*rule, *severity, r.findings);
    rule->check(model, settings, reporter);
  }

  std::vector<Suppression> suppressions = parseSuppressions(src);
  std::vector<Suppression> unused = applySuppressions(r.findings, suppressions);
  std::string format = model.formats.empty() ? "" : model.formats.front();
  for (size_t i = 0; i < allRules().size() && !unused.empty(); ++i) {
    const Rule *rule = allRules()[i];
    if (!rules[i] || !rule->checkSuppressions) continue;
    Reporter reporter(*rule, *rules[i], r.findings);
    rule->checkSuppressions(unused, format, reporter);
  }
  dropRepeatedFindings(r.findings);
  stampFixes(r.findings, src.text());
  if ((r.layer_scope || options.keep_models) && !model.policies.empty()) {
    model.source_sha256 = textDigest(src.text());
    r.model = std::make_shared<const FileModel>(std::move(model));
  }
  return r;
}

RunResult run(const RunOptions &options) {
  RunResult result;
  std::function<bool(const std::string &)> excluded;
  if (options.nested || (options.config && (!options.config->exclude.empty() || options.config->base))) {
    excluded = [&options](const std::string &path) {
      const ProjectConfig *c = options.configFor(path);
      return c && isExcluded(*c, path);
    };
  }
  std::vector<Candidate> files;
  if (options.text_input) files = {Candidate{options.text_input->path, true}};
  else if (options.files) {
    for (const Candidate &c : *options.files)
      if (!excluded || !excluded(c.path)) files.push_back(c);
  } else {
    files = discover(options.paths.empty() ? std::vector<std::string>{"."} : options.paths, result.errors, excluded, options.jobs);
  }
  if (options.shards > 1)
    files.erase(std::remove_if(files.begin(), files.end(),
                               [&](const Candidate &c) { return !inShard(c.path, options.shard, options.shards); }),
                files.end());
  std::vector<FileResult> perFile(files.size());
  // The cache holds per-file results only: with layers declared (or the layers report asked for),
  // the chain pass needs every file's policies, so nothing is cached.
  const bool layered = options.config && !options.config->layers.empty();
  const ResultStore *cache = !layered && !options.keep_models ? options.cache.get() : nullptr;
  std::atomic<size_t> hits{0}, misses{0}, rejected{0};

  std::vector<RuleSeverities> ruleOn(files.size()); // per file read: its rules
  auto analyseOne = [&](size_t i) {
    const Candidate &c = files[i];
    FileResult &r = perFile[i];
    std::string text;
    if (options.text_input) text = options.text_input->text;
    else if (!readCandidate(c, options.extract.max_file_bytes, headLooksLikeRetryConfig, text, r.errors, &r.warnings)) return;
    const RuleSeverities rules = ruleSeverities(options, c.path);
    ruleOn[i] = rules;
    // Some results depend on more than the key sees (C++: headers and compile flags).
    std::string key;
    if (cache && !options.text_input && mayCacheResultOf(c.path) && !layerScope(options, c.path)) {
      bool bad = false;
      if (auto hit = cache->load(c, text, options, rules, key, bad)) {
        ++hits;
        r = std::move(*hit);
        return;
      }
      ++misses;
      if (bad) ++rejected;
    }
    try {
      r = analyseText(c.path, std::move(text), c.named, options, rules);
      if (!key.empty()) cache->store(key, r);
    } catch (const std::exception &e) {
      r.errors.push_back(Diagnostic{c.path, 0, 0, std::string("internal error: ") + e.what()});
    }
  };

  forEachIndex(files.size(), options.jobs, analyseOne);

  result.rules_run.assign(allRules().size(), false);
  bool anyRead = false;
  for (const RuleSeverities &rules : ruleOn) {
    anyRead |= !rules.empty();
    for (size_t k = 0; k < rules.size() && k < result.rules_run.size(); ++k)
      if (rules[k]) result.rules_run[k] = true;
  }
  if (!anyRead) {
    const RuleSeverities root = ruleSeverities(options, options.config ? options.config->root : std::string("."));
    for (size_t k = 0; k < root.size() && k < result.rules_run.size(); ++k) result.rules_run[k] = root[k].has_value();
  }
  result.stats.files_seen = files.size();
  result.stats.cache_used = cache != nullptr;
  result.stats.cache_hits = hits;
  result.stats.cache_misses = misses;
  result.stats.cache_rejected = rejected;
  for (FileResult &r : perFile) {
    if (r.analysed) ++result.stats.files_analysed;
    if (r.without_full_types) result.stats.cpp_without_full_types.push_back(files[static_cast<size_t>(&r - perFile.data())].path);
    result.stats.policies += r.policies;
    std::move(r.findings.begin(), r.findings.end(), std::back_inserter(result.findings));
    std::move(r.errors.begin(), r.errors.end(), std::back_inserter(result.errors));
    std::move(r.warnings.begin(), r.warnings.end(), std::back_inserter(result.warnings));
  }
  if (options.nested)
    for (const Diagnostic &d : options.nested->errors()) result.errors.push_back(d);
  if (std::any_of(perFile.begin(), perFile.end(), [](const FileResult &r) { return r.layer_scope != nullptr; }) ||
      (options.config && !options.config->layers.empty()))
    chainPass(options, perFile, result);
  // One identity per file however it was named: the fingerprint hashes the path from the root.
  result.project_root = projectRoot(options.config ? options.config->root : std::string());
  result.text_input = options.text_input;
  for (Finding &f : result.findings)
    if (!f.where.path.empty()) f.fingerprint = fingerprintOf(f.rule, identityPath(result.project_root, f.where.path), f.anchor);
  for (FileResult &r : perFile)
    if (r.model) result.models.push_back(std::move(r.model));
  std::sort(result.findings.begin(), result.findings.end(), findingLess);
  std::sort(result.stats.cpp_without_full_types.begin(), result.stats.cpp_without_full_types.end());
  std::sort(result.errors.begin(), result.errors.end(), diagnosticLess);
  std::sort(result.warnings.begin(), result.warnings.end(), diagnosticLess);
  return result;
}

} // namespace retrylint
