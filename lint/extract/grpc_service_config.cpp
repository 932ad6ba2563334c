// gRPC service config JSON: methodConfig[].retryPolicy / hedgingPolicy / timeout, retryThrottling.
//
// Field facts: grpc/grpc-proto grpc/service_config/service_config.proto and gRFC A6
// (A6-client-retries.md); validation as gRPC C-core does it (grpc/grpc
// src/core/client_channel/retry_service_config.cc) and grpc-go (service_config.go).
// See docs/formats.md §4.
#include <set>

#include "lint/extract/extractors.h"
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

std::string fieldPath(size_t i, std::string_view rest) {
  return "methodConfig[" + std::to_string(i) + "]" + (rest.empty() ? "" : "." + std::string(rest));
}

std::optional<Duration> readDuration(ExtractContext &cx, const yaml::Node &n, const std::string &field,
                                     const std::string &anchor, bool positive) {
  std::string text = requireString(cx, n, field);
  std::string err;
  auto d = parseProtoJsonDuration(text, &err);
  if (!d) {
    cx.problem(cx.span(n), field + ": " + err + ": gRPC rejects the service config", anchor);
    return std::nullopt;
  }
  if (positive && d->nanos <= 0) {
    cx.problem(cx.span(n), field + " " + text + " must be greater than 0: gRPC rejects the service config", anchor);
    return std::nullopt;
  }
  if (d->nanos < 0) {
    cx.problem(cx.span(n), field + " " + text + " is negative: gRPC rejects the service config", anchor);
    return std::nullopt;
  }
  return d;
}

void readCodes(ExtractContext &cx, const yaml::Node &codes, const std::string &field, const std::string &anchor,
               RetryPolicy &p) {
  requireSequence(cx, codes, field);
  for (const auto &c : codes) {
    if (!c.IsScalar()) throw TypeError(cx.span(c), field + " entries must be status code names");
    std::string text = c.Scalar();
    std::optional<int> code;
    if (!isQuoted(c)) {
      long long v = requireInt(cx, c, field + " entry", false);
      if (v >= 0 && v <= 16) code = static_cast<int>(v);
      if (code)
        cx.problem(cx.span(c), field + " entry " + text + " is a number: gRPC C++ reads status codes only as upper-case names and rejects the service config; write \"" + grpcCodeName(*code) + "\"",
                   anchor + "/" + text,
                   Fix{"write the status code as \"" + grpcCodeName(*code) + "\"", {cx.src.replace(cx.span(c), "\"" + grpcCodeName(*code) + "\"")}});
    } else if ((code = grpcCodeFromName(text))) {
      // canonical spelling
    } else if ((code = grpcCodeFromAnyCase(text)) && text.find('-') == std::string::npos) {
      cx.problem(cx.span(c), field + " entry \"" + text + "\" is not upper-case: gRPC C++ compares names case-sensitively and rejects the service config; write \"" + grpcCodeName(*code) + "\"",
                 anchor + "/" + text,
                 Fix{"write the status code as \"" + grpcCodeName(*code) + "\"", {cx.src.replace(cx.span(c), "\"" + grpcCodeName(*code) + "\"")}});
    } else {
      code.reset();
    }
    if (!code) {
      cx.problem(cx.span(c), field + " entry " + (isQuoted(c) ? "\"" + text + "\"" : text) + " is not a gRPC status code (OK, CANCELLED, UNKNOWN, … UNAUTHENTICATED, 0-16): gRPC rejects the service config",
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

void extractRetryPolicy(ExtractContext &cx, const yaml::Node &rp, Span rpKey, size_t i, RetryPolicy p) {
  std::string field = fieldPath(i, "retryPolicy");
  requireMap(cx, rp, field);
  p.where = rpKey;
  p.anchor += "/retryPolicy";
  auto attempts = readMaxAttempts(cx, rp, field, p.anchor, rpKey);
  if (!attempts) return;
  p.max_attempts = written(std::optional<int>(*attempts), cx.span(*get(rp, "maxAttempts")));
  p.attempts_field = "maxAttempts";
  p.runtime_max_attempts = kGrpcMaxAttemptsClamp;
  p.runtime_max_source = kGrpcClampSource;

  Backoff &b = p.backoff;
  bool scheduleKnown = true;
  for (auto name : {"initialBackoff", "maxBackoff"}) {
    auto n = get(rp, name);
    if (!n) {
      cx.problem(rpKey, field + " has no " + name + ", which is required: gRPC rejects the service config", p.anchor + "/" + name);
      scheduleKnown = false;
      continue;
    }
    auto d = readDuration(cx, *n, field + "." + name, p.anchor + "/" + name, true);
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
      cx.problem(multWhere, field + ".backoffMultiplier " + n->Scalar() + " must be greater than 0: gRPC rejects the service config", p.anchor + "/backoffMultiplier");
      scheduleKnown = false;
    }
  } else {
    cx.problem(rpKey, field + " has no backoffMultiplier, which is required: gRPC rejects the service config", p.anchor + "/backoffMultiplier");
    scheduleKnown = false;
  }
  if (scheduleKnown) {
    b.multiplier = written(mult, multWhere);
    b.growth = written(mult == 1.0 ? Growth::Constant : Growth::Exponential, multWhere);
    b.jitter = builtIn(Jitter::Proportional, rpKey, kGrpcJitterSource);
    b.jitter_upper = kGrpcJitterUpper;
    b.jitter_lower = 2.0 - kGrpcJitterUpper;
    // RL105: after the cap. gRFC A6: retry n waits random(0, min(initialBackoff * multiplier^(n-1),
    // maxBackoff)); C-core BackOff (grpc/grpc src/core/lib/backoff/backoff.cc, doc/connection-backoff.md):
    // current_backoff = min(current_backoff * multiplier, max_backoff), then the ±20 % jitter on it.
    b.jitter_order = builtIn(JitterOrder::AfterCap, rpKey, "gRPC jitters the already capped backoff (gRFC A6; grpc/grpc backoff.cc)");
    b.description = "gRPC backoff";
    if (*b.cap.value < *b.initial.value)
      cx.problem(b.cap.where, field + ".maxBackoff " + formatDuration(*b.cap.value) + " is below initialBackoff " + formatDuration(*b.initial.value) + ": every wait is cut to maxBackoff",
                 p.anchor + "/maxBackoff");
  }

  if (auto codes = get(rp, "retryableStatusCodes")) {
    readCodes(cx, *codes, field + ".retryableStatusCodes", p.anchor + "/retryableStatusCodes", p);
    if (codes->IsSequence() && codes->size() == 0 && !get(rp, "perAttemptRecvTimeout"))
      cx.problem(cx.span(*codes), field + ".retryableStatusCodes is empty: gRPC rejects the service config (nothing would be retried)", p.anchor + "/retryableStatusCodes");
  } else {
    cx.problem(rpKey, field + " has no retryableStatusCodes, which is required: gRPC rejects the service config", p.anchor + "/retryableStatusCodes");
  }

  if (auto n = get(rp, "perAttemptRecvTimeout")) {
    auto d = readDuration(cx, *n, field + ".perAttemptRecvTimeout", p.anchor + "/perAttemptRecvTimeout", true);
    if (d) p.per_try_timeout = written(std::optional<Duration>(d), cx.span(*n));
  }
  cx.model.policies.push_back(std::move(p));
}

void extractHedgingPolicy(ExtractContext &cx, const yaml::Node &hp, Span hpKey, size_t i, RetryPolicy p) {
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
  if (auto n = get(hp, "hedgingDelay")) readDuration(cx, *n, field + ".hedgingDelay", p.anchor + "/hedgingDelay", false);
  if (auto codes = get(hp, "nonFatalStatusCodes")) readCodes(cx, *codes, field + ".nonFatalStatusCodes", p.anchor + "/nonFatalStatusCodes", p);
  cx.model.policies.push_back(std::move(p));
}

bool recognise(const yaml::Node &doc) {
  auto mc = get(doc, "methodConfig");
  auto rt = get(doc, "retryThrottling");
  return (mc && mc->IsSequence()) || (rt && rt->IsMap());
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  Setting<bool> budget;
  if (auto rt = get(doc, "retryThrottling")) {
    requireMap(cx, *rt, "retryThrottling");
    Span key = cx.keySpan(doc, "retryThrottling");
    bool valid = true;
    if (auto n = get(*rt, "maxTokens")) {
      long long v = requireInt(cx, *n, "retryThrottling.maxTokens", true);
      if (v <= 0 || v > 1000) {
        cx.problem(cx.span(*n), "retryThrottling.maxTokens " + std::to_string(v) + " must be in (0, 1000]: gRPC rejects the service config", "retryThrottling/maxTokens");
        valid = false;
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
  std::set<std::string> seen;
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
            cx.problem(cx.span(nm), fieldPath(index, "name") + " names method '" + method + "' without a service: gRPC rejects the service config", "methodConfig/" + method);
          std::string full = service.empty() ? "(all services)" : service + "/" + (method.empty() ? "*" : method);
          if (!seen.insert(full).second)
            cx.problem(cx.span(nm), full + " is named in more than one methodConfig: gRPC rejects the service config", "methodConfig/" + full + "/duplicate");
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
      p.deadline_name = "method timeout";
      p.per_try_field = "perAttemptRecvTimeout";
      p.budget_field = "retryThrottling";
      // gRPC has no per-attempt timeout for plain retries; `timeout` covers all attempts.
      p.per_try_timeout.origin = Origin::NotApplicable;
      if (auto t = get(mc, "timeout")) {
        auto d = readDuration(cx, *t, fieldPath(index, "timeout"), p.anchor + "/timeout", false);
        if (d) p.overall_deadline = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t));
      } else {
        p.overall_deadline = defaulted(std::optional<Duration>(), cx.span(mc), "gRPC: no method timeout; only the caller's deadline limits the call");
      }
      if (rp && hp) {
        cx.problem(cx.keySpan(mc, "hedgingPolicy"), fieldPath(index, "") + " has both retryPolicy and hedgingPolicy: they are mutually exclusive and gRPC rejects the service config",
                   p.anchor + "/hedgingPolicy");
      }
      if (rp && !isNull(*rp)) extractRetryPolicy(cx, *rp, cx.keySpan(mc, "retryPolicy"), index, p);
      else if (hp && !isNull(*hp)) extractHedgingPolicy(cx, *hp, cx.keySpan(mc, "hedgingPolicy"), index, p);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

} // namespace

bool isGrpcServiceConfig(const yaml::Node &doc) { return recognise(doc); }
void extractGrpcServiceConfig(const yaml::Node &doc, ExtractContext &cx) { extract(doc, cx); }

const Extractor &grpcServiceConfigExtractor() {
  static const Extractor e{kFormat, recognise, extract, {"methodConfig", "retryThrottling"}};
  return e;
}

} // namespace retrylint
