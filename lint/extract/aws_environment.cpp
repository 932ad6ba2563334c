// AWS SDK retry settings in environment variables, where most deployments set them:
// AWS_RETRY_MODE, AWS_MAX_ATTEMPTS and AWS_NEW_RETRIES_2026 in
//   - Kubernetes `env:` lists ({name, value}) of any container, at any depth (Deployments, Jobs,
//     CronJobs, Pods, Argo and Knative templates), and ECS task definitions' `environment` lists;
//   - Docker Compose `environment:` (a map, or a list of KEY=VALUE);
//   - `.env` files (KEY=VALUE, `export KEY=VALUE`) and Dockerfile `ENV` lines.
// They feed the same model as a shared-config profile (aws::applyRetrySettings), so every rule that
// applies to `retry_mode` / `max_attempts` applies here, and a declared layer sees them.
//
// Field facts: AWS SDKs and Tools Reference Guide, "Retry behavior" (environment variables
// AWS_RETRY_MODE, AWS_MAX_ATTEMPTS; the environment wins over the shared config file) and the 2026
// behaviour (AWS_NEW_RETRIES_2026; aws/aws-sdk-cpp#3832, AWS Developer Tools Blog "Updated default
// retry behavior for AWS SDKs and tools"). See docs/formats.md §5.
//
// A value the file does not write literally (`valueFrom`, `${VAR}`, `$(VAR)`) is unknown: the
// setting is read as present with an unknown value, never as the default.
#include <algorithm>
#include <cctype>

#include "lint/extract/aws_common.h"
#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "aws-environment";
constexpr std::string_view kMode = "AWS_RETRY_MODE", kAttempts = "AWS_MAX_ATTEMPTS", kNewRetries = "AWS_NEW_RETRIES_2026";

bool isRetryVariable(std::string_view k) { return k == kMode || k == kAttempts || k == kNewRetries; }
bool isInterpolated(std::string_view v) { return v.find('$') != std::string_view::npos; }

// One environment: the variables it sets that matter here, where, and who it belongs to.
struct Environment {
  std::string owner;  // "container api", "service worker", ".env"
  std::string anchor; // logical location
  Span where;         // the block (env:, environment:, the first line)
  Workload workload = Workload::Request;
  struct Var {
    std::string value;
    Span at;
    bool literal = true;
  };
  std::optional<Var> mode, attempts, new_retries;
  void set(std::string_view name, Var v) {
    (name == kMode ? mode : name == kAttempts ? attempts : new_retries) = std::move(v);
  }
  bool any() const { return mode || attempts || new_retries; }
};

void emit(ExtractContext &cx, const Environment &e) {
  if (!e.any()) return;
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.component = "AWS SDK environment of " + e.owner;
  p.anchor = e.anchor;
  p.where = e.where;
  p.workload = e.workload;
  aws::RetrySettings s;
  s.mode_name = std::string(kMode);
  s.attempts_name = std::string(kAttempts);
  s.holder = "the client";
  if (e.mode && e.mode->literal) s.mode = e.mode->value, s.mode_at = e.mode->at;
  if (e.attempts && e.attempts->literal) s.attempts = e.attempts->value, s.attempts_at = e.attempts->at;
  if (e.new_retries && e.new_retries->literal) s.new_retries = e.new_retries->value, s.new_retries_at = e.new_retries->at;
  aws::applyRetrySettings(cx, s, p);
  // A variable set from elsewhere: what it holds is not in this file.
  if ((e.attempts && !e.attempts->literal) || (!e.attempts && e.mode && !e.mode->literal)) {
    p.max_attempts = {};
    p.max_attempts.origin = Origin::Unknown;
  }
  if (e.mode && !e.mode->literal) {
    p.backoff = Backoff{};
    p.backoff.growth.origin = p.backoff.jitter.origin = p.backoff.cap.origin = p.backoff.initial.origin = Origin::Unknown;
    p.budget.origin = Origin::Unknown;
  }
  cx.model.policies.push_back(std::move(p));
}

// ---- YAML and JSON: Kubernetes env lists, ECS environment lists, Compose environment ----

std::string scalarOf(const yaml::Node &map, std::string_view key) {
  auto n = get(map, key);
  return n && n->IsScalar() ? n->Scalar() : std::string();
}

// An env block as Kubernetes and ECS write it: [{name, value | valueFrom}].
void readNameValueList(ExtractContext &cx, const yaml::Node &list, Environment &e) {
  for (const auto &item : list) {
    if (!item.IsMap()) continue;
    std::string name = scalarOf(item, "name");
    if (!isRetryVariable(name)) continue;
    auto v = get(item, "value");
    if (v && v->IsScalar()) e.set(name, {v->Scalar(), cx.span(*v), !isInterpolated(v->Scalar())});
    else e.set(name, {"", cx.span(item), false}); // valueFrom: a ConfigMap or Secret this file does not hold
  }
}

// Compose: `environment: {KEY: value}` or `environment: [KEY=value]`.
void readCompose(ExtractContext &cx, const yaml::Node &env, Environment &e) {
  if (env.IsMap()) {
    for (const auto &kv : env) {
      if (!kv.first.IsScalar() || !isRetryVariable(kv.first.Scalar())) continue;
      if (kv.second.IsScalar() && !isNull(kv.second))
        e.set(kv.first.Scalar(), {kv.second.Scalar(), cx.span(kv.second), !isInterpolated(kv.second.Scalar())});
      else e.set(kv.first.Scalar(), {"", cx.keySpan(env, kv.first.Scalar()), false}); // passed through from the host
    }
    return;
  }
  for (const auto &item : env) {
    if (!item.IsScalar()) continue;
    const std::string text = item.Scalar();
    size_t eq = text.find('=');
    std::string name = text.substr(0, eq);
    if (!isRetryVariable(name)) continue;
    if (eq == std::string::npos) {
      e.set(name, {"", cx.span(item), false});
      continue;
    }
    std::string value = text.substr(eq + 1);
    e.set(name, {value, cx.tokenSpan(item, eq + 1, std::max<size_t>(1, value.size())), !isInterpolated(value)});
  }
}

bool mentionsRetryVariable(const yaml::Node &env) {
  if (env.IsMap()) {
    for (const auto &kv : env)
      if (kv.first.IsScalar() && isRetryVariable(kv.first.Scalar())) return true;
    return false;
  }
  if (!env.IsSequence()) return false;
  for (const auto &item : env) {
    if (item.IsMap() && isRetryVariable(scalarOf(item, "name"))) return true;
    if (item.IsScalar()) {
      const std::string t = item.Scalar();
      if (isRetryVariable(t.substr(0, t.find('=')))) return true;
    }
  }
  return false;
}

// Calls each(block, key, holder, holderKey) for every `env`/`environment` block that sets one of
// the variables: `holder` is the map that has the key (a container, a Compose service),
// `holderKey` the key that map sits under (a Compose service's name).
template <class Each> void forEachEnvironment(const yaml::Node &n, const std::string &holderKey, int depth, Each &&each) {
  if (depth > 32) return;
  if (n.IsMap()) {
    for (const auto &kv : n) {
      if (!kv.first.IsScalar()) continue;
      const std::string key = kv.first.Scalar();
      if ((key == "env" || key == "environment") && mentionsRetryVariable(kv.second)) each(kv.second, key, n, holderKey);
      else if (kv.second.IsMap() || kv.second.IsSequence()) forEachEnvironment(kv.second, key, depth + 1, each);
    }
  } else if (n.IsSequence()) {
    for (const auto &item : n) forEachEnvironment(item, holderKey, depth + 1, each);
  }
}

bool recognise(const yaml::Node &doc) {
  bool found = false;
  forEachEnvironment(doc, "", 0, [&](const yaml::Node &, const std::string &, const yaml::Node &, const std::string &) { found = true; });
  return found;
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const ObjectMeta meta = objectMeta(doc);
  forEachEnvironment(doc, "", 0, [&](const yaml::Node &block, const std::string &key, const yaml::Node &holder, const std::string &holderKey) {
    Environment e;
    std::string name = scalarOf(holder, "name");
    const bool compose = key == "environment" && (block.IsMap() || (block.size() > 0 && block[0].IsScalar()));
    if (compose) e.owner = "service " + holderKey;
    else e.owner = "container " + (name.empty() ? std::string("(unnamed)") : name) + (get(doc, "kind") ? " in " + meta.name : "");
    e.anchor = "env/" + meta.ns + "/" + meta.name + "/" + (compose ? holderKey : name);
    e.where = cx.keySpan(holder, key);
    // A Job's, a CronJob's or a workflow's containers do work nobody waits on.
    const std::string kind = scalarOf(doc, "kind");
    if (kind == "Job" || kind == "CronJob" || kind == "Workflow" || kind == "WorkflowTemplate" || kind == "ClusterWorkflowTemplate" ||
        kind == "CronWorkflow")
      e.workload = Workload::Background;
    if (compose) readCompose(cx, block, e);
    else if (block.IsSequence()) readNameValueList(cx, block, e);
    emit(cx, e);
  });
}

// ---- Text: .env files and Dockerfiles ----

bool isDockerfile(std::string_view path) {
  return isFileKind(path, {"Dockerfile", "Containerfile", ".dockerfile", "Dockerfile.*", "Containerfile.*"});
}
bool isDotEnv(std::string_view path) { return isFileKind(path, {".env", ".env.*"}); }

bool recogniseText(const SourceFile &src) {
  if (!isDockerfile(src.path().str()) && !isDotEnv(src.path().str())) return false;
  const std::string_view t = src.text();
  return t.find(kMode) != std::string_view::npos || t.find(kAttempts) != std::string_view::npos || t.find(kNewRetries) != std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// One KEY=VALUE at `col0` of line `line0`: the value unquoted, and its span.
void readAssignment(const SourceFile &src, int line0, size_t col0, std::string_view assignment, Environment &e) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) return;
  std::string name(trim(assignment.substr(0, eq)));
  if (!isRetryVariable(name)) return;
  std::string_view v = assignment.substr(eq + 1);
  size_t vcol = col0 + eq + 1;
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
    ++vcol;
  }
  int c = static_cast<int>(vcol) + 1;
  e.set(name, {std::string(v), Span{src.path(), line0 + 1, c, line0 + 1, c + std::max<int>(1, static_cast<int>(v.size()))},
               !isInterpolated(v)});
}

// The words of a Dockerfile ENV line after ENV, with their columns (quotes kept together).
std::vector<std::pair<size_t, std::string_view>> words(std::string_view line, size_t from) {
  std::vector<std::pair<size_t, std::string_view>> out;
  size_t i = from;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] == '\\') break;
    size_t start = i;
    char quote = 0;
    while (i < line.size() && (quote || (line[i] != ' ' && line[i] != '\t'))) {
      if (!quote && (line[i] == '"' || line[i] == '\'')) quote = line[i];
      else if (quote && line[i] == quote) quote = 0;
      ++i;
    }
    out.emplace_back(start, line.substr(start, i - start));
  }
  return out;
}

void extractText(const SourceFile &src, ExtractContext &cx) {
  const bool docker = isDockerfile(src.path().str());
  Environment e;
  e.owner = docker ? "the image (Dockerfile ENV)" : "the .env file";
  e.anchor = docker ? "Dockerfile/ENV" : ".env";
  bool continued = false; // a Dockerfile ENV line ending in '\' goes on on the next line
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view raw = src.line(l);
    std::string_view line = trim(raw);
    const size_t indent = line.empty() ? 0 : raw.find_first_not_of(" \t");
    if (line.empty() || line[0] == '#') {
      continued = continued && !line.empty();
      continue;
    }
    if (docker) {
      size_t from = 0;
      if (!continued) {
        if (line.size() < 4 || !std::equal(line.begin(), line.begin() + 3, "ENV", [](char a, char b) { return std::toupper(a) == b; }) ||
            (line[3] != ' ' && line[3] != '\t'))
          continue;
        from = 4;
      }
      continued = line.back() == '\\';
      auto ws = words(line, from);
      if (ws.size() == 2 && ws[0].second.find('=') == std::string_view::npos && isRetryVariable(ws[0].second)) {
        // The old form `ENV KEY value` sets one variable to the rest of the line.
        std::string assignment = std::string(ws[0].second) + "=" + std::string(trim(line.substr(ws[1].first)));
        readAssignment(src, l, indent + ws[1].first - ws[0].second.size() - 1, assignment, e);
        continue;
      }
      for (const auto &[col, w] : ws) readAssignment(src, l, indent + col, w, e);
      if (!e.where.known() && e.any()) e.where = Span{src.path(), l + 1, static_cast<int>(indent) + 1, l + 1, static_cast<int>(indent) + 4};
    } else {
      size_t from = 0;
      if (line.rfind("export ", 0) == 0) from = 7;
      readAssignment(src, l, indent + from, line.substr(from), e);
      if (!e.where.known() && e.any()) e.where = Span{src.path(), l + 1, static_cast<int>(indent) + 1, l + 1, static_cast<int>(indent + line.size()) + 1};
    }
  }
  if (!e.where.known()) e.where = Span{src.path(), 1, 1, 1, 2};
  emit(cx, e);
}

} // namespace

namespace {
const Extractor &awsEnvironmentExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS", "AWS_NEW_RETRIES_2026"},
      .recogniseText = recogniseText,
      .extractText = extractText,
      // Asked first: the containers of an Argo Workflow or a Kubernetes Job are read alongside the
      // dialect that reads the object's own retries.
      .priority = 5,
      .alongside = true,
      .prefilter_words = {"awsretrymode", "awsmaxattempts", "awsnewretries2026"},
      .retry_keys = {"AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS"},
      .file_kinds = {".env", ".env.*", "Dockerfile", "Containerfile", ".dockerfile", "Dockerfile.*", "Containerfile.*"},
  };
  return e;
}
const ExtractorRegistration registered(&awsEnvironmentExtractor);
} // namespace

} // namespace retrylint
