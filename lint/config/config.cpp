#include "lint/config/config.h"

#include <algorithm>
#include <map>
#include <set>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/GlobPattern.h>

#include <bitset>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <yaml-cpp/yaml.h>

#include <sys/stat.h>

#include "lint/yaml/nesting.h"

namespace retrylint {
namespace {

// A project config is a page of YAML; anything far bigger or deeper is not one.
constexpr size_t kMaxConfigBytes = 1u << 20;
constexpr int kMaxConfigNesting = 64;

struct ConfigError {
  int line, column;
  std::string message;
};
// Every error of a config in one run: each section, rule entry, unknown key and override is
// checked on its own, and what fails is collected rather than ending the parse.
struct ConfigErrors {
  std::vector<ConfigError> all;
  template <class F> void check(F &&f) {
    try {
      f();
    } catch (const ConfigError &e) {
      all.push_back(e);
    }
  }
};

int lineOf(const YAML::Node &n) { return n.Mark().is_null() ? 0 : n.Mark().line + 1; }
int colOf(const YAML::Node &n) { return n.Mark().is_null() ? 0 : n.Mark().column + 1; }
[[noreturn]] void fail(const YAML::Node &n, const std::string &msg) { throw ConfigError{lineOf(n), colOf(n), msg}; }

std::string scalar(const YAML::Node &n, const std::string &what) {
  if (!n.IsScalar()) fail(n, what + " must be a single value");
  return n.Scalar();
}

int positiveInt(const YAML::Node &n, const std::string &what) {
  std::string s = scalar(n, what);
  char *end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 1 || v > 1'000'000) fail(n, what + " must be a positive whole number, not '" + s + "'");
  return static_cast<int>(v);
}

// A wait such as "20s", "500ms" or "5m" (Go duration syntax), above zero.
Duration positiveDuration(const YAML::Node &n, const std::string &what) {
  std::string s = scalar(n, what);
  std::string error;
  auto d = parseGoDuration(s, &error);
  if (!d || d->nanos <= 0) fail(n, what + " must be a duration above zero such as 20s, 500ms or 5m, not '" + s + "'");
  return *d;
}

// max-attempts and max-wait of one workload.
void workloadLimits(const YAML::Node &n, const std::string &prefix, WorkloadLimits &limits) {
  if (auto v = n["max-attempts"]) limits.max_attempts = positiveInt(v, prefix + "max-attempts");
  if (auto v = n["max-wait"]) limits.max_wait = positiveDuration(v, prefix + "max-wait");
}

bool boolean(const YAML::Node &n, const std::string &what) {
  std::string s = scalar(n, what);
  if (s == "true") return true;
  if (s == "false") return false;
  fail(n, what + " must be true or false, not '" + s + "'");
}

std::vector<std::string> globList(const YAML::Node &n, const std::string &what) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.Scalar());
  } else if (n.IsSequence()) {
    for (const auto &item : n) out.push_back(scalar(item, what + " entries"));
  } else {
    fail(n, what + " must be a list of globs");
  }
  for (size_t i = 0; i < out.size(); ++i) {
    auto pat = llvm::GlobPattern::create(out[i]);
    if (!pat) fail(n.IsSequence() ? n[i] : n, what + ": '" + out[i] + "' is not a valid glob: " + llvm::toString(pat.takeError()));
  }
  return out;
}

RuleSettings ruleSettings(const YAML::Node &n, ConfigErrors &errors) {
  if (!n.IsMap()) fail(n, "rules must be a map of rule (code or name) to on, off, error, warning or note");
  RuleSettings out;
  // Keys select rules as the command line does (code, name, code prefix, ALL); the more specific
  // selector wins whatever the order of the keys.
  std::vector<std::tuple<int, std::vector<const Rule *>, RuleSetting>> selected;
  for (auto it = n.begin(); it != n.end(); ++it) errors.check([&] {
    std::string name = scalar(it->first, "a rule");
    int specificity = 0;
    auto rules = selectRules(name, &specificity);
    if (rules.empty()) fail(it->first, "'" + name + "' selects no rule (a code, a name, a code prefix such as RL1, or ALL; see retrylint --list-rules)");
    std::string v = it->second.IsScalar() ? it->second.Scalar() : "";
    RuleSetting s;
    if (v == "off" || v == "false") s.enabled = false;
    else if (v == "on" || v == "true") s.enabled = true;
    else if (auto sev = parseSeverity(v)) s.enabled = true, s.severity = sev;
    else fail(it->second, "rule " + name + ": '" + v + "' is not on, off, error, warning or note");
    selected.emplace_back(specificity, std::move(rules), s);
  });
  std::stable_sort(selected.begin(), selected.end(), [](const auto &a, const auto &b) { return std::get<0>(a) < std::get<0>(b); });
  for (const auto &[specificity, rules, s] : selected)
    for (const Rule *r : rules) out[std::string(r->code)] = s;
  return out;
}

void checkKeys(const YAML::Node &map, const std::set<std::string> &allowed, const std::string &where, ConfigErrors &errors);
void checkKeys(const YAML::Node &map, const std::set<std::string> &allowed, const std::string &where) {
  ConfigErrors errors;
  checkKeys(map, allowed, where, errors);
  if (!errors.all.empty()) throw errors.all.front();
}

void checkKeys(const YAML::Node &map, const std::set<std::string> &allowed, const std::string &where, ConfigErrors &errors) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (!allowed.count(key)) {
      std::string list;
      for (const auto &k : allowed) list += (list.empty() ? "" : ", ") + k;
      errors.check([&] { fail(it->first, "unknown key '" + key + "' in " + where + " (allowed: " + list + ")"); });
    }
  }
}

// A glob without its anchor and its "everything under" suffix: the same set of files for the
// purpose of comparing two layers' globs.
std::string normalisedGlob(std::string g) {
  if (!g.empty() && g[0] == '/') g.erase(0, 1);
  if (g.size() >= 3 && g.compare(g.size() - 3, 3, "/**") == 0) g.resize(g.size() - 3);
  while (!g.empty() && g.back() == '/') g.pop_back();
  return g;
}

void parseLayers(const YAML::Node &n, ProjectConfig &c) {
  if (!n.IsSequence()) fail(n, "layers must be a list, outermost layer first");
  if (n.size() == 0) fail(n, "layers is empty: declare at least one layer with name and paths");
  std::map<std::string, std::pair<std::string, int>> globOwner; // normalised glob -> (layer, line)
  int owner = -1;
  for (const auto &l : n) {
    if (!l.IsMap()) fail(l, "each layer must be a map with name and paths");
    checkKeys(l, {"name", "paths", "owns-retries"}, "a layer");
    Layer layer;
    layer.line = lineOf(l);
    if (!l["name"]) fail(l, "a layer needs a name");
    layer.name = scalar(l["name"], "layers[].name");
    if (layer.name.empty()) fail(l["name"], "a layer name must not be empty");
    for (const Layer &other : c.layers)
      if (other.name == layer.name)
        fail(l["name"], "layer '" + layer.name + "' is declared twice (first on line " + std::to_string(other.line) + ")");
    if (!l["paths"]) fail(l, "layer '" + layer.name + "' needs paths");
    layer.paths = globList(l["paths"], "layer '" + layer.name + "' paths");
    if (layer.paths.empty()) fail(l["paths"], "layer '" + layer.name + "' has no paths");
    for (size_t i = 0; i < layer.paths.size(); ++i) {
      const YAML::Node g = l["paths"].IsSequence() ? l["paths"][i] : l["paths"];
      auto [it, fresh] = globOwner.emplace(normalisedGlob(layer.paths[i]), std::make_pair(layer.name, lineOf(g)));
      if (!fresh)
        fail(g, "'" + layer.paths[i] + "' is already a path of layer '" + it->second.first + "' (line " +
                    std::to_string(it->second.second) + "); a file belongs to one layer");
    }
    if (auto o = l["owns-retries"]) layer.owns_retries = boolean(o, "owns-retries");
    if (layer.owns_retries) {
      if (owner >= 0)
        fail(l["owns-retries"], "layers '" + c.layers[owner].name + "' (line " + std::to_string(c.layers[owner].line) +
                                    ") and '" + layer.name + "' both own retries; at most one layer may");
      owner = static_cast<int>(c.layers.size());
    }
    c.layers.push_back(layer);
  }
}

void parseChains(const YAML::Node &n, ProjectConfig &c) {
  if (!n.IsSequence() || n.size() == 0)
    fail(n, "chains must be a list of call chains, each a list of layer names, outermost first");
  for (const auto &ch : n) {
    if (!ch.IsSequence() || ch.size() == 0) fail(ch, "each chain must be a non-empty list of layer names, outermost first");
    LayerChain chain;
    chain.line = lineOf(ch);
    for (const auto &item : ch) {
      std::string name = scalar(item, "a chain entry");
      size_t i = 0;
      while (i < c.layers.size() && c.layers[i].name != name) ++i;
      if (i == c.layers.size()) {
        std::string known;
        for (const Layer &l : c.layers) known += (known.empty() ? "" : ", ") + l.name;
        fail(item, "unknown layer '" + name + "' in a chain (declared layers: " + known + ")");
      }
      if (std::find(chain.layers.begin(), chain.layers.end(), i) != chain.layers.end())
        fail(item, "layer '" + name + "' appears twice in one chain");
      chain.layers.push_back(i);
    }
    c.chains.push_back(chain);
  }
}

ProjectConfig parse(const YAML::Node &root, const std::string &path, std::shared_ptr<const ProjectConfig> base) {
  ProjectConfig c;
  c.path = path;
  if (base) c.settings = base->settings;
  c.base = std::move(base);
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  c.root = llvm::sys::path::parent_path(abs).str();
  if (root.IsNull()) return c;
  if (!root.IsMap()) fail(root, "the config must be a map with rules, settings, exclude, overrides, layers, chains");
  ConfigErrors errors;
  checkKeys(root, {"rules", "settings", "exclude", "overrides", "layers", "chains", "extend"}, "the config", errors);
  if (auto n = root["rules"]) errors.check([&] { c.rules = ruleSettings(n, errors); });
  if (auto n = root["settings"]) errors.check([&] {
    if (!n.IsMap()) fail(n, "settings must be a map");
    checkKeys(n, {"max-attempts", "max-wait", "max-amplification", "background"}, "settings", errors);
    errors.check([&] { workloadLimits(n, "settings.", c.settings.request); });
    if (auto b = n["background"]) errors.check([&] {
      if (!b.IsMap()) fail(b, "settings.background must be a map with max-attempts and max-wait");
      checkKeys(b, {"max-attempts", "max-wait"}, "settings.background", errors);
      workloadLimits(b, "settings.background.", c.settings.background);
    });
    if (auto v = n["max-amplification"]) errors.check([&] { c.settings.max_amplification = positiveInt(v, "settings.max-amplification"); });
  });
  if (auto n = root["exclude"]) errors.check([&] { c.exclude = globList(n, "exclude"); });
  if (auto n = root["overrides"]) errors.check([&] {
    if (!n.IsSequence()) fail(n, "overrides must be a list of {paths, rules}");
    for (const auto &o : n) errors.check([&] {
      if (!o.IsMap()) fail(o, "each override must be a map with paths and rules");
      checkKeys(o, {"paths", "rules"}, "an override", errors);
      if (!o["paths"] || !o["rules"]) fail(o, "each override needs both paths and rules");
      c.overrides.push_back(PathOverride{globList(o["paths"], "overrides[].paths"), ruleSettings(o["rules"], errors), lineOf(o)});
    });
  });
  if (auto n = root["layers"]) errors.check([&] { parseLayers(n, c); });
  if (auto n = root["chains"]) {
    errors.check([&] {
      if (!root["layers"]) fail(n, "chains name layers, but no layers are declared");
      parseChains(n, c);
    });
  } else if (!c.layers.empty()) {
    LayerChain all;
    all.line = lineOf(root["layers"]);
    for (size_t i = 0; i < c.layers.size(); ++i) all.layers.push_back(i);
    c.chains.push_back(all);
  }
  if (!errors.all.empty()) throw errors;
  return c;
}

// A glob in LLVM GlobPattern's syntax (`*` crossing '/', `?`, `[a-z]`, `[!x]`/`[^x]`, `\x`), matched in
// O(pattern x path) steps: LLVM 14's matcher backtracks at every '*', so an 18-character pattern
// of a stranger's config (`*?*?*?*?*?*?*?*?*Z`) could take minutes on one path.
struct GlobToken {
  enum Kind { Byte, AnyOne, Class, Star } kind = Byte;
  std::bitset<256> set; // Byte: the one byte; Class: the bytes it takes
};

std::vector<GlobToken> compileGlob(llvm::StringRef pat) {
  std::vector<GlobToken> out;
  for (size_t i = 0; i < pat.size(); ++i) {
    GlobToken t;
    unsigned char c = static_cast<unsigned char>(pat[i]);
    if (c == '*') {
      if (out.empty() || out.back().kind != GlobToken::Star) out.push_back({GlobToken::Star, {}});
      continue;
    }
    if (c == '?') {
      t.kind = GlobToken::AnyOne;
    } else if (c == '[' && pat.find(']', i + 2) != llvm::StringRef::npos) {
      size_t j = i + 1;
      bool negate = pat[j] == '!' || pat[j] == '^';
      if (negate) ++j;
      size_t close = pat.find(']', j + 1); // a ']' first in the class is one of its bytes
      if (close == llvm::StringRef::npos) {
        t.set.set(c); // '[' with no end: a byte, as GlobPattern::create already refused it
      } else {
        t.kind = GlobToken::Class;
        for (size_t k = j; k < close; ++k) {
          unsigned char lo = static_cast<unsigned char>(pat[k]), hi = lo;
          if (k + 2 < close && pat[k + 1] == '-') hi = static_cast<unsigned char>(pat[k += 2]);
          for (unsigned b = lo; b <= hi; ++b) t.set.set(b);
        }
        if (negate) t.set.flip();
        i = close;
      }
    } else {
      if (c == '\\' && i + 1 < pat.size()) c = static_cast<unsigned char>(pat[++i]);
      t.set.set(c);
    }
    out.push_back(t);
  }
  return out;
}

bool matchOne(const std::string &pattern, const std::string &text) {
  const std::vector<GlobToken> toks = compileGlob(pattern);
  // Every token but '*' takes one byte: on a mismatch only the last '*' needs to take one more.
  size_t p = 0, t = 0, star = std::string::npos, starAt = 0;
  while (t < text.size()) {
    if (p < toks.size() && toks[p].kind == GlobToken::Star) {
      star = p++;
      starAt = t;
    } else if (p < toks.size() && (toks[p].kind == GlobToken::AnyOne || toks[p].set.test(static_cast<unsigned char>(text[t])))) {
      ++p, ++t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++starAt;
    } else {
      return false;
    }
  }
  while (p < toks.size() && toks[p].kind == GlobToken::Star) ++p;
  return p == toks.size();
}

} // namespace

std::string findProjectConfig(const std::string &startDir, std::string *stoppedAt) {
  llvm::SmallString<256> dir(startDir);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
  auto stop = [&](const char *why) {
    if (stoppedAt) *stoppedAt = dir.str().str() + " (" + why + ")";
    return std::string();
  };
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return stop("cannot be read");
  while (true) {
    llvm::SmallString<256> candidate(dir);
    llvm::sys::path::append(candidate, ".retrylint.yaml");
    struct stat link;
    if (llvm::sys::fs::is_regular_file(candidate) || (::lstat(candidate.c_str(), &link) == 0 && S_ISLNK(link.st_mode)))
      return candidate.str().str(); // a link too, for the caller to refuse by name
    llvm::SmallString<256> git(dir);
    llvm::sys::path::append(git, ".git");
    struct stat gitSt;
    if (::lstat(git.c_str(), &gitSt) == 0) return stop("the repository root");
    llvm::SmallString<256> parent(llvm::sys::path::parent_path(dir));
    if (parent.empty() || parent == dir) return stop("the top directory");
    struct stat parentSt;
    if (::stat(parent.c_str(), &parentSt) != 0) return stop("its parent cannot be read");
    if (parentSt.st_dev != st.st_dev) return stop("the top of its file system");
    dir = parent;
    st = parentSt;
  }
}

namespace {

constexpr int kMaxExtendDepth = 8;

// The configs being loaded, outermost first (real paths): `extend` may not lead back to one.
using ExtendChain = std::vector<std::string>;

std::optional<ProjectConfig> loadConfig(const std::string &path, std::vector<Diagnostic> &errors, ExtendChain &chain);

// The repository root above `dir` (the nearest directory holding `.git`), or "".
std::string repositoryRootOf(llvm::StringRef dir) {
  llvm::SmallString<256> d(dir);
  while (!d.empty()) {
    llvm::SmallString<256> git(d);
    llvm::sys::path::append(git, ".git");
    struct stat st;
    if (::lstat(git.c_str(), &st) == 0) return d.str().str();
    llvm::StringRef parent = llvm::sys::path::parent_path(d);
    if (parent == d) break;
    d = parent;
  }
  return {};
}

// The config `extend` names, loaded, or nullptr with the reason in `errors`.
std::shared_ptr<const ProjectConfig> loadBase(const YAML::Node &n, const std::string &path, std::vector<Diagnostic> &errors,
                                             ExtendChain &chain) {
  auto bad = [&](const std::string &msg) {
    errors.push_back(Diagnostic{path, lineOf(n), colOf(n), msg});
    return nullptr;
  };
  if (!n.IsScalar() || n.Scalar().empty()) return bad("extend must be the path of another .retrylint.yaml (relative to this file)");
  if (chain.size() > kMaxExtendDepth) return bad("extend goes more than " + std::to_string(kMaxExtendDepth) + " configs deep");
  llvm::SmallString<256> self(path);
  llvm::sys::fs::make_absolute(self);
  llvm::sys::path::remove_dots(self, true);
  llvm::SmallString<256> target(n.Scalar());
  if (!llvm::sys::path::is_absolute(target)) {
    target = llvm::sys::path::parent_path(self);
    llvm::sys::path::append(target, n.Scalar());
  }
  llvm::sys::path::remove_dots(target, true);
  if (!llvm::sys::fs::is_regular_file(target)) return bad("extend names " + target.str().str() + ", which is not a readable file");
  llvm::SmallString<256> realTarget;
  if (llvm::sys::fs::real_path(target, realTarget)) return bad("extend names " + target.str().str() + ", which cannot be read");
  // A config in a checkout builds only on configs of the same checkout (links followed).
  llvm::SmallString<256> realDir;
  std::string repo = llvm::sys::fs::real_path(llvm::sys::path::parent_path(self), realDir) ? std::string()
                                                                                            : repositoryRootOf(realDir);
  if (!repo.empty() && relativeTo(repo, realTarget.str().str()).empty())
    return bad("extend names " + target.str().str() + ", outside the repository " + repo);
  if (std::find(chain.begin(), chain.end(), realTarget.str().str()) != chain.end())
    return bad(realTarget.str().str() == chain.back() ? std::string("extend names this file itself")
                                                      : "extend leads back to " + realTarget.str().str() + ": a cycle");
  auto base = loadConfig(target.str().str(), errors, chain);
  if (!base) return bad("extend names " + target.str().str() + ", which has errors (above)");
  return std::make_shared<const ProjectConfig>(std::move(*base));
}

std::optional<ProjectConfig> parseConfig(const std::string &path, const std::string &text, std::vector<Diagnostic> &errors,
                                         ExtendChain &chain) {
  if (text.size() > kMaxConfigBytes || nestingDepth(text) > kMaxConfigNesting) {
    errors.push_back(Diagnostic{path, 0, 0, "the config is too large or too deeply nested to be a retrylint config"});
    return std::nullopt;
  }
  try {
    YAML::Node root = YAML::Load(text);
    std::shared_ptr<const ProjectConfig> base;
    if (root.IsMap())
      if (auto e = root["extend"]) {
        llvm::SmallString<256> real;
        chain.push_back(llvm::sys::fs::real_path(path, real) ? path : real.str().str());
        base = loadBase(e, path, errors, chain);
        chain.pop_back();
        if (!base) return std::nullopt;
      }
    return parse(root, path, std::move(base));
  } catch (const ConfigError &e) {
    errors.push_back(Diagnostic{path, e.line, e.column, e.message});
  } catch (const ConfigErrors &all) {
    std::vector<ConfigError> sorted = all.all;
    std::stable_sort(sorted.begin(), sorted.end(), [](const ConfigError &a, const ConfigError &b) {
      return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
    for (const ConfigError &e : sorted) errors.push_back(Diagnostic{path, e.line, e.column, e.message});
  } catch (const YAML::Exception &e) {
    errors.push_back(Diagnostic{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1,
                                "invalid YAML: " + e.msg});
  }
  return std::nullopt;
}

std::optional<ProjectConfig> loadConfig(const std::string &path, std::vector<Diagnostic> &errors, ExtendChain &chain) {
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st) && st.type() != llvm::sys::fs::file_type::regular_file) {
    errors.push_back(Diagnostic{path, 0, 0, "cannot read the config: not a regular file"});
    return std::nullopt;
  }
  if (st.getSize() > kMaxConfigBytes) {
    errors.push_back(Diagnostic{path, 0, 0, "the config is " + std::to_string(st.getSize()) + " bytes, too large to be a retrylint config"});
    return std::nullopt;
  }
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    errors.push_back(Diagnostic{path, 0, 0, "cannot read the config: " + buf.getError().message()});
    return std::nullopt;
  }
  return parseConfig(path, (*buf)->getBuffer().str(), errors, chain);
}

} // namespace

std::optional<ProjectConfig> loadFoundConfig(const std::string &path, std::vector<Diagnostic> &errors) {
  struct stat link;
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // A checkout's link could point anywhere on the machine, and a config's values are quoted in
    // its errors: a config found by searching is a plain file, as nested ones are.
    errors.push_back(Diagnostic{path, 0, 0, "a .retrylint.yaml found by searching must be a regular file, not a symbolic link: not used (--config PATH names a config to use)"});
    return std::nullopt;
  }
  return loadProjectConfig(path, errors);
}

std::optional<ProjectConfig> loadProjectConfig(const std::string &path, std::vector<Diagnostic> &errors) {
  ExtendChain chain;
  return loadConfig(path, errors, chain);
}

std::optional<ProjectConfig> parseProjectConfig(const std::string &path, const std::string &text,
                                                std::vector<Diagnostic> &errors) {
  ExtendChain chain;
  return parseConfig(path, text, errors, chain);
}

bool isExcluded(const ProjectConfig &config, const std::string &path) {
  for (const ProjectConfig *c = &config; c; c = c->base.get()) {
    if (c->exclude.empty()) continue;
    std::string rel = relativeTo(c->root, path);
    if (rel.empty()) continue;
    for (const std::string &glob : c->exclude)
      if (globMatches(glob, rel)) return true;
  }
  return false;
}

ConfigResolver::ConfigResolver(const ProjectConfig *root) : root_(root) {
  llvm::SmallString<256> real;
  if (root && !llvm::sys::fs::real_path(root->path, real)) rootPath_ = real.str().str();
}

const ProjectConfig *ConfigResolver::forFile(const std::string &path) {
  llvm::SmallString<256> dir(path);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
  dir = llvm::sys::path::parent_path(dir);
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> visited;
  const ProjectConfig *found = root_;
  while (!dir.empty()) {
    if (auto it = byDir_.find(dir.str().str()); it != byDir_.end()) {
      found = it->second;
      break;
    }
    visited.push_back(dir.str().str());
    llvm::SmallString<256> candidate(dir);
    llvm::sys::path::append(candidate, ".retrylint.yaml");
    struct stat link;
    if (::lstat(candidate.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      // A checkout's link could point anywhere on the machine: a nested config is a plain file.
      errors_.push_back(Diagnostic{candidate.str().str(), 0, 0, "a nested .retrylint.yaml must be a regular file, not a symbolic link: not used"});
    } else if (llvm::sys::fs::is_regular_file(candidate)) {
      llvm::SmallString<256> real;
      if (!rootPath_.empty() && !llvm::sys::fs::real_path(candidate, real) && real == rootPath_) break; // the root config
      std::vector<Diagnostic> errs;
      std::optional<ProjectConfig> c = loadProjectConfig(candidate.str().str(), errs);
      errors_.insert(errors_.end(), errs.begin(), errs.end());
      if (c && errs.empty()) {
        owned_.push_back(std::make_unique<ProjectConfig>(std::move(*c)));
        found = owned_.back().get();
        break;
      }
      // A broken nested config: its files fall back to the config above it, and the run fails (exit 2).
    }
    llvm::SmallString<256> git(dir);
    llvm::sys::path::append(git, ".git");
    struct stat st;
    if (::lstat(git.c_str(), &st) == 0) break; // the repository root
    llvm::StringRef parent = llvm::sys::path::parent_path(dir);
    if (parent == dir) break;
    dir = parent;
  }
  for (const std::string &d : visited) byDir_[d] = found;
  return found;
}

std::vector<Diagnostic> ConfigResolver::errors() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return errors_;
}

bool globMatches(const std::string &globIn, const std::string &relPath) {
  std::string glob = globIn;
  bool anchored = false;
  if (!glob.empty() && glob[0] == '/') {
    anchored = true;
    glob.erase(0, 1);
  }
  if (!glob.empty() && glob.back() == '/') glob += "**";
  if (glob.size() >= 3 && glob.compare(glob.size() - 3, 3, "/**") == 0) {
    // dir/** : everything under dir (LLVM's '*' already crosses '/').
    std::string dir = glob.substr(0, glob.size() - 3);
    if (matchOne(dir + "/*", relPath)) return true;
    if (!anchored && dir.find('/') == std::string::npos && matchOne("*/" + dir + "/*", relPath)) return true;
    return false;
  }
  if (matchOne(glob, relPath)) return true;
  if (matchOne(glob + "/*", relPath)) return true; // a directory named by the pattern
  if (!anchored && glob.find('/') == std::string::npos) {
    // A bare name matches a component anywhere: "vendor" excludes a/vendor/b.yaml.
    return matchOne("*/" + glob, relPath) || matchOne("*/" + glob + "/*", relPath);
  }
  return false;
}

namespace {
// The directory a glob names before its first wildcard ("services/orders" for services/orders/**,
// "" for *.yaml or a bare name that matches anywhere).
std::string literalDir(const std::string &glob) {
  bool anchored = !glob.empty() && glob[0] == '/';
  std::string g = normalisedGlob(glob);
  size_t wild = g.find_first_of("*?[{");
  if (wild == std::string::npos) return (!anchored && g.find('/') == std::string::npos) ? "" : g;
  size_t slash = g.rfind('/', wild);
  return slash == std::string::npos ? "" : g.substr(0, slash);
}
bool dirContains(const std::string &outer, const std::string &inner) {
  return outer.empty() || (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}
} // namespace

std::optional<size_t> layerOf(const ProjectConfig &config, const std::string &path, std::string *ambiguous) {
  if (config.layers.empty()) return std::nullopt;
  std::string rel = relativeTo(config.root, path);
  if (rel.empty()) return std::nullopt;
  std::vector<std::pair<size_t, std::string>> hits; // layer, deepest literal dir of its matching globs
  for (size_t i = 0; i < config.layers.size(); ++i) {
    std::optional<std::string> best;
    for (const std::string &g : config.layers[i].paths)
      if (globMatches(g, rel)) {
        std::string d = literalDir(g);
        if (!best || d.size() > best->size()) best = d;
      }
    if (best) hits.emplace_back(i, *best);
  }
  if (hits.empty()) return std::nullopt;
  auto deepest = std::max_element(hits.begin(), hits.end(), [](const auto &a, const auto &b) { return a.second.size() < b.second.size(); });
  for (const auto &h : hits) {
    if (h.first == deepest->first || dirContains(h.second, deepest->second)) continue;
    if (ambiguous) {
      const Layer &a = config.layers[std::min(h.first, deepest->first)], &b = config.layers[std::max(h.first, deepest->first)];
      *ambiguous = "matched by the paths of layers '" + a.name + "' (" + config.path + ":" + std::to_string(a.line) + ") and '" +
                   b.name + "' (line " + std::to_string(b.line) + "); a file belongs to one layer: narrow one of the globs";
    }
    return std::nullopt;
  }
  return deepest->first;
}

std::string relativeTo(const std::string &root, const std::string &path) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  llvm::StringRef p(abs);
  llvm::StringRef r(root);
  if (!p.startswith(r)) return "";
  p = p.drop_front(r.size());
  if (!p.empty() && p[0] != '/') return "";
  return p.ltrim('/').str();
}

} // namespace retrylint
