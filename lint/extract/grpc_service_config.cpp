// gRPC service config JSON: methodConfig[].retryPolicy / hedgingPolicy / timeout, retryThrottling.
//
// Field facts: grpc/grpc-proto grpc/service_config/service_config.proto and gRFC A6
// (A6-client-retries.md); validation as gRPC C-core does it (grpc/grpc
// src/core/client_channel/retry_service_config.cc) and grpc-go (service_config.go).
// See docs/formats.md §4.
//
// Two consumers read this JSON. gRPC core (a channel's service config) and the GAPIC
// client-library generators, to which googleapis hands `*_grpc_service_config.json` from a
// `*_gapic_library` rule in the BUILD.bazel next to it. The generators turn each retryPolicy into
// the generated client's retry settings and read less: maxAttempts is not read (retries run until
// the method `timeout`, the total timeout), there is no clamp to 5 and retryThrottling is not read.
// Which consumer applies is decided from that BUILD file (consumerOf below).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

#include "lint/extract/extractors.h"
#include "lint/io/posix.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "grpc-service-config";

// gRPC clamps maxAttempts above 5 to 5: C-core MAX_MAX_RETRY_ATTEMPTS 5 in
// src/core/client_channel/retry_service_config.cc; grpc-go WithMaxCallAttempts default 5.
constexpr int kGrpcMaxAttemptsClamp = 5;
constexpr const char *kGrpcClampSource =
    "gRPC clamps maxAttempts to 5 (grpc/grpc retry_service_config.cc MAX_MAX_RETRY_ATTEMPTS; grpc-go WithMaxCallAttempts default 5)";
// ±20 % jitter on every backoff: gRFC A6 (since grpc/proposal dc9fd4f), C-core RETRY_BACKOFF_JITTER 0.2.
constexpr double kGrpcJitterUpper = 1.2;
constexpr const char *kGrpcJitterSource =
    "gRPC runtime: every backoff is jittered by ±20 % (gRFC A6; grpc/grpc RETRY_BACKOFF_JITTER 0.2)";

// GAPIC generators: sources of the facts used below.
// - gapic-generator-go internal/gengapic/gengrpc.go grpcCallOptions: the retryPolicy becomes
//   gax.WithRetry(gax.OnCodes(retryableStatusCodes, gax.Backoff{initialBackoff, maxBackoff,
//   backoffMultiplier})) with the comment "this ignores max_attempts"; the method `timeout` becomes
//   gax.WithTimeout, which bounds the call and its retries together.
// - gapic-generator-go internal/grpc_service_config/config.go New: a name listed in two
//   methodConfig entries takes the last one (a map assignment); retryThrottling is not read.
// - googleapis/google-cloud-java docs/retries.md: the generated RetrySettings carry the method
//   timeout as totalTimeout; retries stop when it is used up.
// - gax-go v2 Backoff.Pause: each wait is drawn from (0, current], current capped at Max.
constexpr const char *kGapicTimeBoundSource =
    "GAPIC client libraries retry until the method timeout (the total timeout); they do not read maxAttempts "
    "(gapic-generator-go gengrpc.go: \"this ignores max_attempts\"; google-cloud-java RetrySettings totalTimeout)";
constexpr const char *kGapicJitterSource =
    "GAPIC client libraries jitter every wait: gax-go Backoff.Pause draws it from (0, current wait]";
// BUILD files are small (googleapis' largest is tens of kilobytes); a larger one is not read.
constexpr size_t kMaxBuildFileBytes = 1u << 20;

// Who reads the file, and so whose facts the findings state.
struct Consumer {
  bool gapic = false;
  std::string name;  // for RetryPolicy::consumer: "GAPIC client-library generators (BUILD.bazel go_gapic_library x)"
  const char *rejects() const {
    return gapic ? "the GAPIC generators cannot read the file" : "gRPC rejects the service config";
  }
};

bool namedLikeGapicConfig(llvm::StringRef path) {
  return llvm::sys::path::filename(path).endswith("grpc_service_config.json");
}

std::string readSibling(llvm::StringRef path, llvm::StringRef name, bool *found) {
  return io::readSibling(path.str(), name.str(), kMaxBuildFileBytes, found);
}

const char *const kBuildFileNames[] = {"BUILD.bazel", "BUILD"};

// The BUILD file of the directory `path` is in (BUILD.bazel, else BUILD), with its name; only
// for files named like a GAPIC service config, so other JSON costs no extra read.
std::pair<std::string, std::string> buildFileOf(llvm::StringRef path) {
  if (!namedLikeGapicConfig(path)) return {};
  for (const char *name : kBuildFileNames) {
    bool found = false;
    std::string text = readSibling(path, name, &found);
    if (found) return {name, std::move(text)};
  }
  return {};
}

// Whether Bazel label `label`, written in the BUILD file next to `path`, names that file:
// "x.json", ":x.json", or "//dir/of/path:x.json" when the package is the file's directory.
bool labelNames(llvm::StringRef label, llvm::StringRef path) {
  llvm::StringRef base = llvm::sys::path::filename(path);
  if (label == base || (label.startswith(":") && label.drop_front() == base)) return true;
  if (!label.startswith("//")) return false;
  auto [pkg, target] = label.drop_front(2).split(':');
  if (target != base || pkg.empty()) return false;
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(path));
  llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
  llvm::StringRef d = dir.str();
  return d == pkg || (d.endswith(pkg) && d.drop_back(pkg.size()).endswith("/"));
}

// The quoted value of `attr = "value"` when `line` (leading blanks removed) is that attribute;
// nullopt otherwise. A plain scan: the BUILD file is input like any other (no backtracking matcher
// on a line a stranger may have made a megabyte long).
std::optional<llvm::StringRef> attributeValue(llvm::StringRef line, llvm::StringRef attr) {
  line = line.ltrim();
  if (!line.consume_front(attr)) return std::nullopt;
  line = line.ltrim();
  if (!line.consume_front("=")) return std::nullopt;
  line = line.ltrim();
  if (!line.consume_front("\"")) return std::nullopt;
  size_t end = line.find('"');
  if (end == llvm::StringRef::npos) return std::nullopt;
  return line.take_front(end);
}

// The rule kind when `line` opens a top-level call, `kind(` from column 0; "" otherwise.
llvm::StringRef callKind(llvm::StringRef line) {
  size_t n = 0;
  while (n < line.size() && (std::isalnum(static_cast<unsigned char>(line[n])) || line[n] == '_')) ++n;
  if (n == 0 || std::isdigit(static_cast<unsigned char>(line[0]))) return {};
  return line.drop_front(n).ltrim().startswith("(") ? line.take_front(n) : llvm::StringRef();
}

// gRPC core, unless the BUILD file next to `path` hands it to a GAPIC rule: a top-level call of a
// rule whose kind ends in `gapic_library` (java_gapic_library, go_gapic_library, py_gapic_library,
// ...) with a line `grpc_service_config = "<label of this file>"`. Comment lines are skipped;
// buildifier writes each top-level call from column 0 and each attribute on a line of its own,
// which is how calls and attributes are told apart.
Consumer consumerOf(llvm::StringRef path) {
  Consumer c;
  auto [buildName, text] = buildFileOf(path);
  if (text.empty()) return c;
  std::vector<std::string> rules;
  llvm::StringRef kind, ruleName;
  bool names = false;
  auto finish = [&] {
    if (names && kind.endswith("gapic_library")) rules.push_back((kind + (ruleName.empty() ? "" : " " + ruleName)).str());
    kind = ruleName = {};
    names = false;
  };
  llvm::StringRef rest(text);
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    rest = next;
    if (line.ltrim().startswith("#")) continue;
    if (llvm::StringRef k = callKind(line); !k.empty()) {
      finish();
      kind = k;
    }
    if (kind.empty()) continue;
    if (auto v = attributeValue(line, "name"); v && ruleName.empty()) ruleName = *v;
    if (auto v = attributeValue(line, "grpc_service_config"); v && labelNames(*v, path)) names = true;
  }
  finish();
  if (rules.empty()) return c;
  c.gapic = true;
  c.name = "GAPIC client-library generators (" + buildName + " " + rules.front() +
           (rules.size() > 1 ? " and " + std::to_string(rules.size() - 1) + " more" : "") + ")";
  return c;
}

// Attempts that fit in `timeout` when every attempt fails at once and each wait is its nominal
// value min(initial x multiplier^(n-1), cap): an estimate for messages, not a configured limit.
std::optional<int> attemptsWithin(Duration timeout, Duration initial, double multiplier, Duration cap) {
  if (initial.nanos <= 0 || timeout.nanos <= 0) return std::nullopt;
  Duration wait = initial, elapsed{0};
  int attempts = 1;
  while (attempts < 100000) {
    Duration w = cap.nanos > 0 && cap < wait ? cap : wait;
    if (elapsed + w > timeout) return attempts;
    elapsed = elapsed + w;
    ++attempts;
    wait = wait * multiplier;
  }
  return std::nullopt;
}

std::string fieldPath(size_t i, std::string_view rest) {
  return "methodConfig[" + std::to_string(i) + "]" + (rest.empty() ? "" : "." + std::string(rest));
}

std::optional<Duration> readDuration(ExtractContext &cx, const Consumer &who, const yaml::Node &n, const std::string &field,
                                     const std::string &anchor, bool positive) {
  std::string text = requireString(cx, n, field);
  std::string err;
  auto d = parseProtoJsonDuration(text, &err);
  if (!d) {
    cx.problem(cx.span(n), field + ": " + err + ": " + who.rejects(), anchor);
    return std::nullopt;
  }
  if (positive && d->nanos <= 0) {
    cx.problem(cx.span(n), field + " " + text + " must be greater than 0: " + who.rejects(), anchor);
    return std::nullopt;
  }
  if (d->nanos < 0) {
    cx.problem(cx.span(n), field + " " + text + " is negative: " + who.rejects(), anchor);
    return std::nullopt;
  }
  return d;
}

void readCodes(ExtractContext &cx, const Consumer &who, const yaml::Node &codes, const std::string &field, const std::string &anchor,
               RetryPolicy &p) {
  requireSequence(cx, codes, field);
  // A code the list already names: rewriting this entry would write it twice, so no fix is offered.
  auto namedElsewhere = [&](int code, const yaml::Node &self) {
    for (const auto &o : codes)
      if (o.IsScalar() && isQuoted(o) && !(cx.span(o).line == cx.span(self).line && cx.span(o).column == cx.span(self).column))
        if (auto k = grpcCodeFromAnyCase(o.Scalar()); k && *k == code) return true;
    return false;
  };
  auto respell = [&](int code, const yaml::Node &c) -> std::optional<Fix> {
    if (namedElsewhere(code, c)) return std::nullopt;
    return Fix{"write the status code as \"" + grpcCodeName(code) + "\"", {cx.src.replace(cx.span(c), "\"" + grpcCodeName(code) + "\"")}};
  };
  for (const auto &c : codes) {
    if (!c.IsScalar()) throw TypeError(cx.span(c), field + " entries must be status code names");
    std::string text = c.Scalar();
    std::optional<int> code;
    if (!isQuoted(c)) {
      long long v = requireInt(cx, c, field + " entry", false);
      if (v >= 0 && v <= 16) code = static_cast<int>(v);
      // The generators parse the file as protobuf JSON, which takes an enum's number too.
      if (code && !who.gapic)
        cx.problem(cx.span(c), field + " entry " + text + " is a number: gRPC C++ reads status codes only as upper-case names and rejects the service config; write \"" + grpcCodeName(*code) + "\"",
                   anchor + "/" + text, respell(*code, c));
    } else if ((code = grpcCodeFromName(text))) {
      // canonical spelling
    } else if ((code = grpcCodeFromAnyCase(text)) && text.find('-') == std::string::npos) {
      cx.problem(cx.span(c), field + " entry \"" + text + "\" is not upper-case: " +
                     (who.gapic ? std::string("protobuf JSON compares enum names case-sensitively, so the GAPIC generators cannot read the file")
                                : std::string("gRPC C++ compares names case-sensitively and rejects the service config")) +
                     "; write \"" + grpcCodeName(*code) + "\"",
                 anchor + "/" + text, respell(*code, c));
    } else {
      code.reset();
    }
    if (!code) {
      cx.problem(cx.span(c), field + " entry " + (isQuoted(c) ? "\"" + text + "\"" : text) + " is not a gRPC status code (OK, CANCELLED, UNKNOWN, … UNAUTHENTICATED, 0-16): " + who.rejects(),
                 anchor + "/" + text);
      continue;
    }
    Condition cond;
    cond.kind = Condition::Kind::GrpcStatus;
    cond.text = grpcCodeName(*code);
    cond.grpc_code = *code;
    cond.may_have_been_processed = grpcCodeMayHaveBeenProcessed(*code);
    if (cond.may_have_been_processed) cond.why_processed = cond.text + " can follow a call the server already acted on";
    cond.where = cx.span(c);
    p.retry_on.push_back(std::move(cond));
  }
}

// Returns the number of attempts when valid (>= 2), else reports and returns nullopt.
std::optional<int> readMaxAttempts(ExtractContext &cx, const yaml::Node &block, const std::string &field,
                                   const std::string &anchor, Span blockKey) {
  auto n = get(block, "maxAttempts");
  if (!n) {
    cx.problem(blockKey, field + " has no maxAttempts, which is required: gRPC rejects the service config", anchor + "/maxAttempts");
    return std::nullopt;
  }
  long long v = requireInt(cx, *n, field + ".maxAttempts", true);
  if (v < 2) {
    cx.problem(cx.span(*n), field + ".maxAttempts " + std::to_string(v) + " must be at least 2 (1 means no retry; remove the policy instead): gRPC rejects the service config",
               anchor + "/maxAttempts");
    return std::nullopt;
  }
  return static_cast<int>(std::min<long long>(v, 1'000'000));
}

void extractRetryPolicy(ExtractContext &cx, const Consumer &who, const yaml::Node &rp, Span rpKey, size_t i, RetryPolicy p) {
  std::string field = fieldPath(i, "retryPolicy");
  requireMap(cx, rp, field);
  p.where = rpKey;
  p.anchor += "/retryPolicy";
  p.attempts_field = "maxAttempts";
  if (!who.gapic) {
    auto attempts = readMaxAttempts(cx, rp, field, p.anchor, rpKey);
    if (!attempts) return;
    p.max_attempts = written(std::optional<int>(*attempts), cx.span(*get(rp, "maxAttempts")));
    p.runtime_max_attempts = kGrpcMaxAttemptsClamp;
    p.runtime_max_source = kGrpcClampSource;
  } else if (auto n = get(rp, "maxAttempts")) {
    requireInt(cx, *n, field + ".maxAttempts", true); // a number still, or the file does not parse as protobuf JSON
  }

  Backoff &b = p.backoff;
  bool scheduleKnown = true;
  auto missing = [&](const std::string &name) {
    cx.problem(rpKey, field + " has no " + name + (who.gapic ? ", which gRPC core requires: the GAPIC generators read it as 0" : ", which is required: gRPC rejects the service config"),
               p.anchor + "/" + name);
    scheduleKnown = false;
  };
  for (auto name : {"initialBackoff", "maxBackoff"}) {
    auto n = get(rp, name);
    if (!n) {
      missing(name);
      continue;
    }
    auto d = readDuration(cx, who, *n, field + "." + name, p.anchor + "/" + name, true);
    if (!d) { scheduleKnown = false; continue; }
    if (std::string_view(name) == "initialBackoff") b.initial = written(std::optional<Duration>(d), cx.span(*n));
    else b.cap = written(std::optional<Duration>(d), cx.span(*n));
  }
  double mult = 0;
  Span multWhere = rpKey;
  if (auto n = get(rp, "backoffMultiplier")) {
    mult = requireNumber(cx, *n, field + ".backoffMultiplier", true);
    multWhere = cx.span(*n);
    if (mult <= 0) {
      cx.problem(multWhere, field + ".backoffMultiplier " + n->Scalar() + " must be greater than 0: " + who.rejects(), p.anchor + "/backoffMultiplier");
      scheduleKnown = false;
    }
  } else {
    missing("backoffMultiplier");
  }
  if (scheduleKnown) {
    b.multiplier = written(mult, multWhere);
    b.growth = written(mult == 1.0 ? Growth::Constant : Growth::Exponential, multWhere);
    if (who.gapic) {
      b.jitter = builtIn(Jitter::Full, rpKey, kGapicJitterSource);
      b.jitter_upper = 1.0;
      b.jitter_lower = 0.0;
      b.jitter_order = builtIn(JitterOrder::AfterCap, rpKey, "gax-go Backoff.Pause draws the wait below the already capped current wait");
      b.description = "GAPIC client-library backoff";
    } else {
      b.jitter = builtIn(Jitter::Proportional, rpKey, kGrpcJitterSource);
      b.jitter_upper = kGrpcJitterUpper;
      b.jitter_lower = 2.0 - kGrpcJitterUpper;
      // RL105: after the cap. gRFC A6: retry n waits random(0, min(initialBackoff * multiplier^(n-1),
      // maxBackoff)); C-core BackOff (grpc/grpc src/core/lib/backoff/backoff.cc, doc/connection-backoff.md):
      // current_backoff = min(current_backoff * multiplier, max_backoff), then the ±20 % jitter on it.
      b.jitter_order = builtIn(JitterOrder::AfterCap, rpKey, "gRPC jitters the already capped backoff (gRFC A6; grpc/grpc backoff.cc)");
      b.description = "gRPC backoff";
    }
    if (*b.cap.value < *b.initial.value)
      cx.problem(b.cap.where, field + ".maxBackoff " + formatDuration(*b.cap.value) + " is below initialBackoff " + formatDuration(*b.initial.value) + ": every wait is cut to maxBackoff",
                 p.anchor + "/maxBackoff");
  }

  if (who.gapic) {
    // The generated client retries these codes until the method timeout runs out: the count is
    // bounded by time (an estimate, for messages), or not at all when there is no timeout.
    if (p.overall_deadline.written() && p.overall_deadline.value) {
      const Duration timeout = *p.overall_deadline.value;
      std::optional<int> est;
      if (scheduleKnown) est = attemptsWithin(timeout, *b.initial.value, mult, *b.cap.value);
      p.max_attempts = Setting<std::optional<int>>{est, Origin::Unknown, p.overall_deadline.where,
                                                   std::string(kGapicTimeBoundSource) + "; here the method timeout " + formatSeconds(timeout), {}};
    } else {
      p.max_attempts = Setting<std::optional<int>>{std::nullopt, Origin::Unknown, rpKey,
                                                   std::string(kGapicTimeBoundSource) + "; this method has no timeout, so only the caller's deadline ends the retries", {}};
    }
  }

  if (auto codes = get(rp, "retryableStatusCodes")) {
    readCodes(cx, who, *codes, field + ".retryableStatusCodes", p.anchor + "/retryableStatusCodes", p);
    if (codes->IsSequence() && codes->size() == 0 && !get(rp, "perAttemptRecvTimeout") && !who.gapic)
      cx.problem(cx.span(*codes), field + ".retryableStatusCodes is empty: gRPC rejects the service config (nothing would be retried)", p.anchor + "/retryableStatusCodes");
  } else if (!who.gapic) {
    cx.problem(rpKey, field + " has no retryableStatusCodes, which is required: gRPC rejects the service config", p.anchor + "/retryableStatusCodes");
  }
  // GAPIC: gax.OnCodes with no code retries nothing; an empty list is how such a file says "no retry".
  if (who.gapic && p.retry_on.empty()) return;

  if (auto n = get(rp, "perAttemptRecvTimeout")) {
    auto d = readDuration(cx, who, *n, field + ".perAttemptRecvTimeout", p.anchor + "/perAttemptRecvTimeout", true);
    if (d && !who.gapic) p.per_try_timeout = written(std::optional<Duration>(d), cx.span(*n));
  }
  cx.model.policies.push_back(std::move(p));
}

void extractHedgingPolicy(ExtractContext &cx, const Consumer &who, const yaml::Node &hp, Span hpKey, size_t i, RetryPolicy p) {
  std::string field = fieldPath(i, "hedgingPolicy");
  requireMap(cx, hp, field);
  p.where = hpKey;
  p.anchor += "/hedgingPolicy";
  auto attempts = readMaxAttempts(cx, hp, field, p.anchor, hpKey);
  if (!attempts) return;
  p.max_attempts = written(std::optional<int>(*attempts), cx.span(*get(hp, "maxAttempts")));
  p.attempts_field = "hedgingPolicy.maxAttempts";
  p.runtime_max_attempts = kGrpcMaxAttemptsClamp;
  p.runtime_max_source = kGrpcClampSource;
  if (auto n = get(hp, "hedgingDelay")) readDuration(cx, who, *n, field + ".hedgingDelay", p.anchor + "/hedgingDelay", false);
  if (auto codes = get(hp, "nonFatalStatusCodes")) readCodes(cx, who, *codes, field + ".nonFatalStatusCodes", p.anchor + "/nonFatalStatusCodes", p);
  cx.model.policies.push_back(std::move(p));
}

bool recognise(const yaml::Node &doc) {
  auto mc = get(doc, "methodConfig");
  auto rt = get(doc, "retryThrottling");
  return (mc && mc->IsSequence()) || (rt && rt->IsMap());
}

void extractFor(const yaml::Node &doc, ExtractContext &cx, const Consumer &who) {
  Setting<bool> budget;
  if (who.gapic) {
    // The generators do not read retryThrottling (gapic-generator-go grpc_service_config/config.go).
    budget.origin = Origin::NotApplicable;
  } else if (auto rt = get(doc, "retryThrottling")) {
    requireMap(cx, *rt, "retryThrottling");
    Span key = cx.keySpan(doc, "retryThrottling");
    bool valid = true;
    if (auto n = get(*rt, "maxTokens")) {
      // grpc-java reads maxTokens as a float (ServiceConfigUtil.getThrottlePolicy,
      // JsonUtil.getNumberAsFloat) and grpc-go as a float64 (service_config.go); gRPC's C core,
      // under C++, Python, Ruby, PHP and C#, loads it as a uint32 (retry_service_config.cc). A
      // fraction is the C core's to reject, not every client's.
      const double d = requireNumber(cx, *n, "retryThrottling.maxTokens", true);
      if (d <= 0 || d > 1000) {
        cx.problem(cx.span(*n), "retryThrottling.maxTokens " + n->Scalar() + " must be in (0, 1000]: gRPC rejects the service config", "retryThrottling/maxTokens");
        valid = false;
      } else if (d != std::floor(d)) {
        const size_t before = cx.model.problems.size();
        cx.problem(cx.span(*n),
                   "retryThrottling.maxTokens " + n->Scalar() +
                       " is not an integer: gRPC's C core (C++, Python, Ruby, PHP, C#) rejects the service config; "
                       "grpc-java and grpc-go take it as a number",
                   "retryThrottling/maxTokens");
        if (cx.model.problems.size() > before) cx.model.problems.back().one_consumer = true;
      }
    } else {
      cx.problem(key, "retryThrottling has no maxTokens, which is required: gRPC rejects the service config", "retryThrottling/maxTokens");
      valid = false;
    }
    if (auto n = get(*rt, "tokenRatio")) {
      double v = requireNumber(cx, *n, "retryThrottling.tokenRatio", true);
      if (v <= 0) {
        cx.problem(cx.span(*n), "retryThrottling.tokenRatio " + n->Scalar() + " must be greater than 0: gRPC rejects the service config", "retryThrottling/tokenRatio");
        valid = false;
      }
    } else {
      cx.problem(key, "retryThrottling has no tokenRatio, which is required: gRPC rejects the service config", "retryThrottling/tokenRatio");
      valid = false;
    }
    // An invalid block makes gRPC reject the config (RL901); whether a budget would apply is moot.
    if (valid) budget = written(true, key);
    else budget.origin = Origin::Unknown;
  } else {
    budget = defaulted(false, Span{cx.src.path(), 1, 1, 1, 2},
                       "gRPC: no retry throttling unless retryThrottling is set (gRFC A6)");
  }

  auto mcs = get(doc, "methodConfig");
  if (!mcs || isNull(*mcs)) return;
  requireSequence(cx, *mcs, "methodConfig");
  std::map<std::string, size_t> seen; // method name -> the methodConfig that named it first
  size_t i = 0;
  for (const auto &mc : *mcs) {
    size_t index = i++;
    try {
      requireMap(cx, mc, fieldPath(index, ""));
      // Names: which methods the entry applies to.
      std::vector<std::string> names;
      auto nameList = get(mc, "name");
      if (nameList && !isNull(*nameList)) {
        requireSequence(cx, *nameList, fieldPath(index, "name"));
        for (const auto &nm : *nameList) {
          requireMap(cx, nm, fieldPath(index, "name[]"));
          std::string service, method;
          if (auto s = get(nm, "service")) service = requireString(cx, *s, fieldPath(index, "name[].service"));
          if (auto m = get(nm, "method")) method = requireString(cx, *m, fieldPath(index, "name[].method"));
          if (!method.empty() && service.empty())
            cx.problem(cx.span(nm), fieldPath(index, "name") + " names method '" + method + "' without a service: " + who.rejects(), "methodConfig/" + method);
          std::string full = service.empty() ? "(all services)" : service + "/" + (method.empty() ? "*" : method);
          auto [first, fresh] = seen.try_emplace(full, index);
          // Named twice in one entry: the same settings either way, so only gRPC core (which
          // rejects any repeated name) cares; across entries the generators keep the last.
          if (!fresh && (!who.gapic || first->second != index))
            cx.problem(cx.span(nm), full + (first->second == index ? " is named twice in this methodConfig: "
                                                                   : " is named in more than one methodConfig: ") +
                                        (who.gapic ? std::string("the GAPIC generators take the last entry naming it and ignore the others (gapic-generator-go grpc_service_config/config.go)")
                                                   : std::string("gRPC rejects the service config")),
                       "methodConfig/" + full + "/duplicate");
          names.push_back(full);
        }
      }
      auto rp = get(mc, "retryPolicy");
      auto hp = get(mc, "hedgingPolicy");
      if (names.empty()) {
        if (rp || hp)
          cx.problem(nameList ? cx.keySpan(mc, "name") : cx.span(mc), fieldPath(index, "") + " has no name entries: gRPC skips it, so its retry policy never applies", "methodConfig[" + std::to_string(index) + "]/name");
        continue;
      }
      RetryPolicy p;
      p.format = std::string(kFormat);
      p.component = names.front() + (names.size() > 1 ? " and " + std::to_string(names.size() - 1) + " more" : "");
      p.anchor = "methodConfig/" + names.front();
      p.budget = budget;
      p.consumer = who.name;
      p.deadline_name = "method timeout";
      p.per_try_field = "perAttemptRecvTimeout";
      p.budget_field = "retryThrottling";
      // gRPC has no per-attempt timeout for plain retries; `timeout` covers all attempts.
      p.per_try_timeout.origin = Origin::NotApplicable;
      if (auto t = get(mc, "timeout")) {
        auto d = readDuration(cx, who, *t, fieldPath(index, "timeout"), p.anchor + "/timeout", false);
        if (d) p.overall_deadline = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t));
      } else {
        p.overall_deadline = defaulted(std::optional<Duration>(), cx.span(mc), "gRPC: no method timeout; only the caller's deadline limits the call");
      }
      if (rp && hp && !who.gapic) {
        cx.problem(cx.keySpan(mc, "hedgingPolicy"), fieldPath(index, "") + " has both retryPolicy and hedgingPolicy: they are mutually exclusive and gRPC rejects the service config",
                   p.anchor + "/hedgingPolicy");
      }
      if (rp && !isNull(*rp)) extractRetryPolicy(cx, who, *rp, cx.keySpan(mc, "retryPolicy"), index, p);
      else if (hp && !isNull(*hp) && !who.gapic) extractHedgingPolicy(cx, who, *hp, cx.keySpan(mc, "hedgingPolicy"), index, p); // the generators read retryPolicy only
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

// A file: its consumer decided by the BUILD file next to it.
// With no BUILD file to ask (a package whose BUILD names the file from elsewhere, a copy), a
// `*_grpc_service_config.json` whose retry policies leave out maxAttempts is GAPIC input: gRPC core
// rejects such a config, and the googleapis convention is exactly to leave it out (a third of its
// retry policies do). The consumer's name says it was inferred.
// Whether a BUILD.bazel or BUILD entry of any kind (a link, a FIFO included) sits next to `path`:
// then that file decides, and nothing is inferred.
bool hasBuildFile(llvm::StringRef path) {
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  for (const char *name : kBuildFileNames) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0) return true;
  }
  return false;
}

bool leavesOutMaxAttempts(const yaml::Node &doc) {
  auto mcs = get(doc, "methodConfig");
  if (!mcs || !mcs->IsSequence()) return false;
  for (const auto &mc : *mcs) {
    if (!mc.IsMap()) continue;
    if (auto rp = get(mc, "retryPolicy"); rp && rp->IsMap() && !get(*rp, "maxAttempts")) return true;
  }
  return false;
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  const std::string path = cx.src.path().str();
  Consumer who = consumerOf(path);
  if (!who.gapic && llvm::StringRef(path).endswith("_grpc_service_config.json") && !hasBuildFile(path) &&
      leavesOutMaxAttempts(doc)) {
    who.gapic = true;
    who.name = "GAPIC client-library generators (inferred: no BUILD file here, and retry policies without maxAttempts, "
               "which only they accept)";
  }
  extractFor(doc, cx, who);
}

} // namespace

bool isGrpcServiceConfig(const yaml::Node &doc) { return recognise(doc); }
// A config embedded in C++ (grpc::ChannelArguments::SetServiceConfigJSON): gRPC core reads it.
void extractGrpcServiceConfig(const yaml::Node &doc, ExtractContext &cx) { extractFor(doc, cx, Consumer{}); }

std::string grpcConfigInputsBesides(const std::string &path) {
  auto [name, text] = buildFileOf(path);
  return name.empty() ? std::string() : name + '\0' + text;
}

std::vector<std::string> grpcConfigInputNamesBesides(const std::string &path) {
  if (!namedLikeGapicConfig(path)) return {};
  return {std::begin(kBuildFileNames), std::end(kBuildFileNames)};
}

namespace {
const Extractor &grpcServiceConfigExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"methodConfig", "retryThrottling"},
      .priority = 20,
      .prefilter_words = {"methodconfig", "retrythrottling"},
      .retry_keys = {"retryPolicy", "hedgingPolicy", "retryThrottling"},
  };
  return e;
}
const ExtractorRegistration registered(&grpcServiceConfigExtractor);
} // namespace

} // namespace retrylint
