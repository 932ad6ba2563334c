#include "lint/engine.h"
#include "lint/discover/identity.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <cerrno>
#include <numeric>
#include <optional>
#include <regex>
#include <tuple>

#include <llvm/Support/Errno.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>
#include <yaml-cpp/exceptions.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lint/discover/discover.h"
#include "lint/extract/extractors.h"
#include "lint/fix/apply_fixes.h"
#include "lint/parallel.h"
#include "lint/cache/cache.h"
#include "lint/discover/shard.h"
#include "lint/suppress/suppressions.h"
#include "lint/yaml/json_strict.h"
#include "lint/yaml/load.h"
#include "lint/yaml/nesting.h"
#include "lint/yaml/templates.h"

namespace retrylint {

namespace {

bool isJsonPath(const std::string &path) {
  return llvm::sys::path::extension(path).equals_insensitive(".json");
}

// Files whose syntax is YAML or JSON. Other files are only read by the text dialects, except
// a file named on the command line with an unknown extension, which is tried as YAML.
bool isYamlOrJsonPath(const std::string &path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  return ext.equals_insensitive(".yaml") || ext.equals_insensitive(".yml") || ext.equals_insensitive(".json");
}

// Index of a rule in allRules(), or -1.
int ruleIndex(std::string_view code) {
  const auto &rules = allRules();
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i]->code == code) return static_cast<int>(i);
  return -1;
}

void apply(const RuleSettings &settings, RuleSeverities &out) {
  for (const auto &[code, setting] : settings) {
    int i = ruleIndex(code);
    if (i < 0) continue; // the config loader reports unknown codes
    auto &slot = out[static_cast<size_t>(i)];
    if (setting.enabled && !*setting.enabled) {
      slot.reset();
      continue;
    }
    if (setting.severity) slot = setting.severity;
    else if (setting.enabled && !slot) slot = allRules()[static_cast<size_t>(i)]->severity;
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
      Chain chain;
      chain.line = declared.line;
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
        chain.layers.push_back(std::move(layer));
      }
      result.chains.push_back(std::move(chain));
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

void reportDuplicateKeys(const yaml::Stream &docs, const std::vector<bool> &recognised, ExtractContext &cx) {
  const yaml::Document &arena = *docs.arena;
  std::map<std::string, int> seen; // per key name, for anchors that survive line shifts
  for (const yaml::Document::Duplicate &d : arena.duplicates()) {
    if (d.document >= recognised.size() || !recognised[d.document]) continue;
    const yaml::Node key = arena.node(d.key), value = arena.node(d.value), later = arena.node(d.laterValue);
    if (!touchesRetrySettings(key.view(), later.Mark().line + 1, cx.model)) continue;
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
  RuleSeverities out;
  out.reserve(allRules().size());
  for (const Rule *r : allRules()) out.push_back(r->severity);
  // The configs it extends first, then the config itself: each its rules, then its overrides.
  std::vector<const ProjectConfig *> levels;
  for (const ProjectConfig *c = options.configFor(path); c; c = c->base.get()) levels.insert(levels.begin(), c);
  for (const ProjectConfig *c : levels) {
    apply(c->rules, out);
    if (c->overrides.empty()) continue;
    std::string rel = relativeTo(c->root, path);
    for (const PathOverride &o : c->overrides)
      for (const std::string &glob : o.paths)
        if (!rel.empty() && globMatches(glob, rel)) {
          apply(o.rules, out);
          break;
        }
  }
  apply(options.cli_rules, out);
  return out;
}

std::map<std::string, std::optional<Severity>> effectiveRules(const RunOptions &options, const std::string &path) {
  RuleSeverities bySlot = ruleSeverities(options, path);
  std::map<std::string, std::optional<Severity>> out;
  for (size_t i = 0; i < bySlot.size(); ++i) out[std::string(allRules()[i]->code)] = bySlot[i];
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
  // Recursive parsers must not meet a text nested beyond --max-nesting. The fast parser stops
  // at its own limit by itself; the estimate is needed before any other parser only.
  bool depthEstimated = false;
  auto tooDeep = [&] {
    depthEstimated = true;
    int depth = nestingDepth(text);
    if (depth <= options.max_nesting) return false;
    if (relevant())
      fail(0, 0, "nested " + std::to_string(depth) + " levels deep, more than the limit of " +
                     std::to_string(options.max_nesting) + " (--max-nesting); not analysed");
    return true;
  };
  if (options.max_nesting < yaml::kFastParserMaxDepth && tooDeep()) return false;

  yaml::Stream docs;
  std::string jsonText; // a JSON text with tabs made spaces: the documents point into it
  std::string maskedText; // a template's text with its expressions masked: likewise
  const bool json = isJsonPath(path);
  if (json && !yaml::certainlyStrictJson(text)) {
    // Strict JSON first: yaml-cpp would accept things JSON parsers (and gRPC) reject.
    if (!depthEstimated && tooDeep()) return false;
    auto parsed = llvm::json::parse(text);
    if (!parsed) {
      std::string msg = llvm::toString(parsed.takeError());
      // A Go template of a JSON file (`*.tmpl.json`) is not JSON until rendered: not an error.
      if (!relevant() || yaml::hasTemplateMarkers(text)) return false;
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
    std::string_view yamlText = text;
    if (json && text.find('\t') != std::string::npos) {
      // JSON allows tabs wherever it allows spaces; YAML does not. Same length, same columns.
      jsonText = text;
      std::replace(jsonText.begin(), jsonText.end(), '\t', ' ');
      yamlText = jsonText;
    }
    const yaml::Mode mode = json ? yaml::Mode::First : yaml::Mode::All;
    if (!yaml::parseFast(yamlText, mode, docs)) {
      if (!depthEstimated && tooDeep()) return false;
      try {
        docs = yaml::parseWithYamlCpp(yamlText, mode, options.max_nesting);
      } catch (const yaml::AliasError &) {
        throw;
      } catch (const YAML::Exception &) {
        // A template (a Helm chart): read what is literal, its expressions masked (same length,
        // so positions stay exact); when even that is not YAML, the file is not ours to judge.
        if (!yaml::hasTemplateMarkers(yamlText)) throw;
        maskedText = yaml::maskTemplates(yamlText);
        try {
          docs = yaml::parseWithYamlCpp(maskedText, mode, options.max_nesting);
        } catch (const yaml::AliasError &) {
          throw;
        } catch (const YAML::Exception &) {
          return false;
        }
      }
    }
  } catch (const yaml::AliasError &e) {
    if (!relevant()) return false;
    fail(e.mark.line + 1, e.mark.column + 1, e.msg);
    return false;
  } catch (const YAML::Exception &e) {
    if (!relevant()) return false;
    if (e.mark.is_null()) fail(0, 0, "invalid YAML: " + e.msg);
    else fail(e.mark.line + 1, e.mark.column + 1, "invalid YAML: " + e.msg);
    return false;
  }

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
  FileResult r;
  if (!prepare(path, text, named, r.errors)) return r;
  const SourceFile src(path, std::move(text));
  FileModel model;
  r.analysed = extractFrom(src, named, model, r.errors, options.extract);
  r.without_full_types = model.without_full_types;
  r.policies = model.policies.size();

  const RuleSeverities rules = ruleSeverities(options, path);
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
  static const size_t kRL902 = static_cast<size_t>(ruleIndex("RL902"));
  if (const auto &sev = rules[kRL902]; sev && !unused.empty()) {
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
  dropRepeatedFindings(r.findings);
  stampFixes(r.findings, src.text());
  if ((r.layer_scope || options.keep_models) && !model.policies.empty()) {
    model.source_sha256 = textDigest(src.text());
    r.model = std::make_shared<const FileModel>(std::move(model));
  }
  return r;
}

bool readInput(const Candidate &c, const ExtractOptions &limits, std::string &text, std::vector<Diagnostic> &errors,
               std::vector<Diagnostic> *warnings) {
  auto fail = [&](std::string msg) {
    errors.push_back(Diagnostic{c.path, 0, 0, std::move(msg)});
    return false;
  };
  // Never open what is not a regular file: a FIFO would block the run, a device never end. A
  // file found while walking is already known regular from its directory entry; a named one is
  // checked before it is opened.
  if (c.named) {
    llvm::sys::fs::file_status st;
    if (std::error_code ec = llvm::sys::fs::status(c.path, st)) return fail("cannot read: " + ec.message());
    if (st.type() != llvm::sys::fs::file_type::regular_file) return fail("not a regular file (a FIFO, socket or device); not read");
  }
  // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer;
  // O_NOFOLLOW for walked files: links met while walking are never followed. Plain POSIX calls:
  // this runs once per file, and LLVM's close blocks and unblocks signals around each close.
  const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (c.named ? 0 : O_NOFOLLOW);
  int fd = ::open(c.path.c_str(), flags);
  if (fd < 0) {
    if (!c.named && errno == ELOOP) return false; // swapped for a link since the walk
    return fail("cannot read: " + llvm::sys::StrError(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  // The file read is the file checked (it may have been swapped for a FIFO since the status).
  struct stat opened;
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) return c.named ? fail("not a regular file; not read") : false;
  const auto size = static_cast<uint64_t>(opened.st_size);
  if (size > limits.max_file_bytes) {
    std::string msg = std::to_string(size) + " bytes, more than the limit of " +
                      std::to_string(limits.max_file_bytes) + " (--max-file-size); not analysed";
    if (c.named) return fail(msg);
    // Found while walking: an error when its start looks like a retry config; otherwise (a data
    // dump, a lock file) a warning, so that no file is skipped without a word, but no failed run.
    std::string head(std::min<uint64_t>(size, 64 * 1024), '\0');
    ssize_t got = ::pread(fd, head.data(), head.size(), 0);
    head.resize(got > 0 ? static_cast<size_t>(got) : 0);
    if (looksLikeRetryConfig(head)) return fail(msg);
    if (warnings)
      warnings->push_back(Diagnostic{c.path, 0, 0, std::to_string(size) + " bytes, more than the limit of " +
                                                       std::to_string(limits.max_file_bytes) +
                                                       " (--max-file-size); skipped: its first 64 KiB hold no retry settings"});
    return false;
  }
  // The size fstat gave (a file that grows meanwhile is read as it was; one that shrinks, to its end).
  text.resize(static_cast<size_t>(size));
  size_t have = 0;
  while (have < text.size()) {
    ssize_t got = ::read(fd, text.data() + have, text.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail("cannot read: " + llvm::sys::StrError(errno));
    if (got == 0) break;
    have += static_cast<size_t>(got);
  }
  text.resize(have);
  return true;
}

void aggregateNotes(std::vector<Finding> &findings) {
  // Notes that hold for most objects of a kind: a rule's notes when the rule says so (RL303), and
  // any rule's notes on workflow retriers for which nothing shows a crowd (kCrowdNotShown). Each
  // group is reported once, at its first finding, with the count.
  const std::string crowdSuffix = "(" + std::string(kCrowdNotShown) + ")";
  auto keyOf = [&](const Finding &f) -> std::string {
    if (f.severity != Severity::Note) return {};
    const Rule *rule = findRule(f.rule);
    if (rule && rule->aggregate_notes) return f.rule;
    if (llvm::StringRef(f.message).endswith(crowdSuffix)) return f.rule + "/crowd";
    return {};
  };
  struct Group { size_t first; size_t count = 0; std::set<std::string> files; };
  std::map<std::string, Group> groups;
  std::vector<std::string> keys(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    keys[i] = keyOf(findings[i]);
    if (keys[i].empty()) continue;
    auto [it, fresh] = groups.try_emplace(keys[i], Group{i});
    ++it->second.count;
    it->second.files.insert(findings[i].where.path.str());
  }
  if (groups.empty()) return;
  std::vector<bool> drop(findings.size());
  for (size_t i = 0; i < findings.size(); ++i)
    if (!keys[i].empty() && groups.at(keys[i]).first != i) drop[i] = true;
  for (auto &[key, g] : groups) {
    if (g.count < 2) continue;
    Finding &f = findings[g.first];
    const bool crowd = key.size() > f.rule.size();
    std::string where = std::to_string(g.count) + " retry policies in " + std::to_string(g.files.size()) +
                        (g.files.size() == 1 ? " file" : " files");
    f.message = crowd ? where + " for which " + std::string(kCrowdNotShown) +
                            " (reported once; a template beside a definition that shows what starts it, or a Map running "
                            "iterations at once, makes each its own finding). The first: " +
                            f.message.substr(0, f.message.size() - crowdSuffix.size() - 1)
                      : where + " (reported once; set " + f.rule + " to warning to see each). The first: " + f.message;
    f.anchor += "/aggregate";
    f.fingerprint = fingerprintOf(f.rule, "", crowd ? "aggregate/crowd" : "aggregate");
    f.fixes.clear();
  }
  size_t out = 0;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (drop[i]) continue;
    if (out != i) findings[out] = std::move(findings[i]);
    ++out;
  }
  findings.resize(out);
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
  std::optional<ResultCache> cache;
  const bool layered = options.config && !options.config->layers.empty();
  if (!options.cache_dir.empty() && !options.cache_secret.empty() && !layered && !options.keep_models)
    cache.emplace(options.cache_dir, options.cache_secret);
  std::atomic<size_t> hits{0}, misses{0}, rejected{0};

  auto analyseOne = [&](size_t i) {
    const Candidate &c = files[i];
    FileResult &r = perFile[i];
    std::string text;
    if (options.text_input) text = options.text_input->text;
    else if (!readInput(c, options.extract, text, r.errors, &r.warnings)) return;
    // Some results depend on more than the key sees (C++: headers and compile flags).
    std::string key;
    if (cache && !options.text_input && mayCacheResultOf(c.path) && !layerScope(options, c.path)) {
      key = ResultCache::key(c.path, c.named, text, options);
      bool bad = false;
      if (auto hit = cache->load(key, c.path, text, &bad)) {
        ++hits;
        r = std::move(*hit);
        return;
      }
      ++misses;
      if (bad) ++rejected;
    }
    try {
      r = analyseText(c.path, std::move(text), c.named, options);
      if (!key.empty()) cache->store(key, r);
    } catch (const std::exception &e) {
      r.errors.push_back(Diagnostic{c.path, 0, 0, std::string("internal error: ") + e.what()});
    }
  };

  forEachIndex(files.size(), options.jobs, analyseOne);

  result.stats.files_seen = files.size();
  result.stats.cache_used = cache.has_value();
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
