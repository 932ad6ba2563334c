// Library retry configuration written in C++ (docs/formats.md §5, §12.3), read from tokens so that
// it works when the AWS and gRPC headers are absent:
//
// - AWS SDK for C++ retry strategies (DefaultRetryStrategy, StandardRetryStrategy,
//   AdaptiveRetryStrategy, InitRetryStrategy("…"), custom subclasses of RetryStrategy) created with
//   Aws::MakeShared / std::make_shared / new and assigned to ClientConfiguration::retryStrategy,
//   with the client's per-try timeouts; a ClientConfiguration left with the default strategy is an
//   implicit policy (material for RL202, no finding by itself).
// - gRPC service configs in string literals passed to ChannelArguments::SetServiceConfigJSON or
//   SetString(GRPC_ARG_SERVICE_CONFIG, …): the literal is decoded (escapes, raw strings, adjacent
//   literals), read by the gRPC service-config extractor, and every position mapped back into the
//   C++ file. A literal that is not valid JSON, or holds a value of the wrong kind, is an RL901
//   finding rather than an analysis error: the C++ file compiles, gRPC rejects the config at run time.
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <yaml-cpp/exceptions.h>

#include "lint/yaml/json_strict.h"
#include "lint/yaml/load.h"
#include "lint/cpp/cpp_frontend.h"
#include "lint/extract/aws_common.h"
#include "lint/extract/extractors.h"

namespace retrylint::cpp {
namespace {

constexpr std::string_view kFormat = "cpp";

// ---- AWS SDK for C++ facts (aws/aws-sdk-cpp src/aws-cpp-sdk-core; docs/formats.md §5) ----
// DefaultRetryStrategy(long maxRetries = 10, long scaleFactor = 25): ShouldRetry is
// `attemptedRetries < maxRetries`; the delay is 0 before the first retry, then
// (1 << attemptedRetries) * scaleFactor ms, with no random term and no maximum
// (include/aws/core/client/DefaultRetryStrategy.h, source/client/DefaultRetryStrategy.cpp).
constexpr long kDefaultScaleFactorMs = 25;
constexpr const char *kDefaultStrategySource =
    "AWS SDK for C++ DefaultRetryStrategy: 0 ms before the first retry, then 2^n x scaleFactor (25 ms unless given), "
    "no jitter, no maximum (aws-sdk-cpp DefaultRetryStrategy.cpp)";
constexpr const char *kDefaultAttemptsSource =
    "AWS SDK for C++ DefaultRetryStrategy default: maxRetries 10 = 11 attempts (aws-sdk-cpp DefaultRetryStrategy.h)";
constexpr const char *kDefaultNoQuotaSource = "AWS SDK for C++ DefaultRetryStrategy has no retry quota";
constexpr const char *kStandardAttemptsSource =
    "AWS SDK for C++ StandardRetryStrategy/AdaptiveRetryStrategy default: maxAttempts 3 (aws-sdk-cpp RetryStrategy.h, "
    "AdaptiveRetryStrategy.h)";
constexpr const char *kInitModeAttemptsSource =
    "AWS SDK for C++ InitRetryStrategy: 3 attempts unless AWS_MAX_ATTEMPTS or the profile's max_attempts sets them "
    "(aws-sdk-cpp ClientConfiguration.cpp)";
// ClientConfiguration() leaves retryStrategy = InitRetryStrategy(): "standard"/"adaptive" from
// AWS_RETRY_MODE or the profile's retry_mode, anything else the legacy DefaultRetryStrategy.
constexpr const char *kImplicitSource =
    "AWS SDK for C++ ClientConfiguration default retryStrategy = InitRetryStrategy(): the legacy DefaultRetryStrategy, "
    "10 retries = 11 attempts, unless AWS_RETRY_MODE or the profile's retry_mode selects standard/adaptive "
    "(aws-sdk-cpp ClientConfiguration.cpp)";
// setLegacyClientConfigurationParameters: requestTimeoutMs 3000, connectTimeoutMs 1000,
// httpRequestTimeoutMs 0 (off) (aws-sdk-cpp source/client/ClientConfiguration.cpp).
constexpr long kRequestTimeoutMs = 3000;
constexpr const char *kRequestTimeoutSource =
    "AWS SDK for C++ ClientConfiguration default requestTimeoutMs 3000 ms (aws-sdk-cpp ClientConfiguration.cpp "
    "setLegacyClientConfigurationParameters)";
constexpr const char *kNoDeadlineSource = "AWS SDK for C++: no overall deadline per operation";

bool isSdkStrategy(std::string_view n) {
  return n == "DefaultRetryStrategy" || n == "StandardRetryStrategy" || n == "AdaptiveRetryStrategy";
}

// The first token of a qualified name ending at i (Aws::Client::X -> Aws).
size_t qualStart(const Tokens &t, size_t i) {
  while (i >= 2 && t.is(i - 1, "::") && isIdent(t[i - 2])) i -= 2;
  if (i >= 1 && t.is(i - 1, "::")) --i;
  return i;
}

std::optional<long long> intValue(const Tokens &t, Range r, const std::map<std::string, long long> &consts) {
  if (r.e != r.b + 1 && !(r.e > r.b && isIdent(t[r.e - 1]) && t.is(r.e - 2, "::"))) return std::nullopt;
  const Tok &k = t[r.e - 1];
  if (k.kind == Tok::Number) {
    try {
      size_t used = 0;
      long long v = std::stoll(k.text, &used, 0);
      std::string suffix = lower(k.text.substr(used));
      if (suffix.find_first_not_of("ul") != std::string::npos) return std::nullopt;
      return v;
    } catch (...) { return std::nullopt; }
  }
  if (isIdent(k)) {
    auto it = consts.find(k.text);
    if (it != consts.end()) return it->second;
  }
  return std::nullopt;
}

// The innermost `{` whose block holds token i, or npos for file scope.
size_t enclosingBrace(const Tokens &t, size_t i) {
  int depth = 0;
  for (size_t j = i; j-- > 0;) {
    if (t.is(j, "}")) ++depth;
    else if (t.is(j, "{")) {
      if (depth == 0) return j;
      --depth;
    }
  }
  return std::string::npos;
}

Range scopeOf(const Tokens &t, size_t i) {
  size_t b = enclosingBrace(t, i);
  if (b == std::string::npos) return {0, t.size()};
  return {b, std::min(t.close(b), t.size())};
}

// Start of the statement holding token i.
size_t statementStart(const Tokens &t, size_t i) {
  while (i > 0 && !t.is(i - 1, ";") && !t.is(i - 1, "{") && !t.is(i - 1, "}")) --i;
  return i;
}

// ---- string literals ----
struct Literal {
  std::string text;               // the decoded content
  std::vector<size_t> from, to;   // per decoded byte: the source bytes [from, to) that spell it
  std::vector<size_t> piece;      // per decoded byte: which literal token of a concatenation
  std::vector<std::string> rawDelims; // per piece: ")delim\"" for raw literals, "" for ordinary ones
  std::vector<bool> raw;
  size_t firstTok = 0, lastTok = 0;
};

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) out += static_cast<char>(cp);
  else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
  else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Appends one narrow (or u8) string literal token to `lit`; false for wide literals or odd text.
bool decode(const Tok &tok, Literal &lit) {
  const std::string &s = tok.text;
  size_t q = s.find('"');
  if (q == std::string::npos) return false;
  std::string prefix = s.substr(0, q);
  bool raw = !prefix.empty() && prefix.back() == 'R';
  if (raw) prefix.pop_back();
  if (!prefix.empty() && prefix != "u8") return false;
  const size_t piece = lit.raw.size();
  auto push = [&](const std::string &bytes, size_t b, size_t e) {
    for (char c : bytes) {
      lit.text += c;
      lit.from.push_back(tok.offset + b);
      lit.to.push_back(tok.offset + e);
      lit.piece.push_back(piece);
    }
  };
  if (raw) {
    size_t open = s.find('(', q + 1);
    if (open == std::string::npos) return false;
    std::string delim = s.substr(q + 1, open - q - 1);
    std::string closing = ")" + delim + "\"";
    size_t end = s.rfind(closing);
    if (end == std::string::npos || end < open) return false;
    for (size_t i = open + 1; i < end; ++i) push(std::string(1, s[i]), i, i + 1);
    lit.raw.push_back(true);
    lit.rawDelims.push_back(closing);
    return true;
  }
  size_t i = q + 1;
  while (i < s.size() && s[i] != '"') {
    if (s[i] != '\\' || i + 1 >= s.size()) { push(std::string(1, s[i]), i, i + 1); ++i; continue; }
    size_t b = i;
    char c = s[i + 1];
    i += 2;
    std::string out;
    switch (c) {
    case 'n': out = "\n"; break;
    case 't': out = "\t"; break;
    case 'r': out = "\r"; break;
    case 'a': out = "\a"; break;
    case 'b': out = "\b"; break;
    case 'f': out = "\f"; break;
    case 'v': out = "\v"; break;
    case 'x': {
      unsigned v = 0;
      while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i]))) v = v * 16 + std::stoi(std::string(1, s[i++]), nullptr, 16);
      out = std::string(1, static_cast<char>(v & 0xFF));
      break;
    }
    case 'u':
    case 'U': {
      size_t n = c == 'u' ? 4 : 8;
      if (i + n > s.size()) return false;
      uint32_t cp = static_cast<uint32_t>(std::stoul(s.substr(i, n), nullptr, 16));
      i += n;
      appendUtf8(out, cp);
      break;
    }
    default:
      if (c >= '0' && c <= '7') {
        unsigned v = c - '0';
        for (int k = 0; k < 2 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k) v = v * 8 + (s[i++] - '0');
        out = std::string(1, static_cast<char>(v & 0xFF));
      } else {
        out = std::string(1, c); // \" \' \\ \?
      }
    }
    push(out, b, i);
  }
  lit.raw.push_back(false);
  lit.rawDelims.emplace_back();
  return true;
}

// The literal (or adjacent literals) starting at token i.
std::optional<Literal> literalAt(const Tokens &t, size_t i) {
  if (i >= t.size() || t[i].kind != Tok::String) return std::nullopt;
  Literal lit;
  lit.firstTok = i;
  for (; i < t.size() && t[i].kind == Tok::String; ++i) {
    if (!decode(t[i], lit)) return std::nullopt;
    lit.lastTok = i;
  }
  return lit;
}

// The literal a name was initialised with: `const char kConfig[] = R"(…)";`,
// `std::string kConfig = "…" "…";`, `const std::string kConfig(R"(…)");`. The nearest one before `use`.
std::optional<Literal> literalOfName(const Tokens &t, const std::string &name, size_t use) {
  std::optional<Literal> best;
  for (size_t i = 1; i + 2 < t.size(); ++i) {
    if (!isIdent(t[i]) || t[i].text != name) continue;
    if (!(isIdent(t[i - 1]) || t.is(i - 1, ">") || t.is(i - 1, "*"))) continue;
    size_t j = i + 1;
    if (t.is(j, "[")) j = t.close(j) + 1;
    if (t.is(j, "=")) ++j;
    else if (t.is(j, "(") || t.is(j, "{")) ++j;
    else continue;
    auto lit = literalAt(t, j);
    if (!lit) continue;
    if (!best || i < use) best = lit;
    if (i > use) break;
  }
  return best;
}

// ---- gRPC service configs in literals ----
class LiteralMap {
public:
  LiteralMap(const ExtractContext &cx, const Literal &lit, const SourceFile &inner) : cx_(cx), lit_(lit), inner_(inner) {}

  Span fromOffsets(size_t b, size_t e) const { // decoded [b, e)
    if (lit_.text.empty()) return cx_.src.spanAt(0, 1);
    b = std::min(b, lit_.text.size() - 1);
    e = std::clamp(e, b + 1, lit_.text.size());
    Span first = cx_.src.spanAt(lit_.from[b], 1);
    Span last = cx_.src.spanAt(lit_.to[e - 1] - 1, 1);
    first.end_line = last.end_line;
    first.end_column = last.end_column;
    return first;
  }
  Span map(const Span &s) const {
    if (!s.known()) return fromOffsets(0, 1);
    size_t b = inner_.offsetOf(s.line - 1, s.column - 1);
    size_t e = inner_.offsetOf(s.end_line - 1, s.end_column - 1);
    return fromOffsets(b, e);
  }
  // An edit inside the literal, re-spelled for the literal's syntax; nullopt when it cannot be.
  std::optional<TextEdit> map(const TextEdit &e) const {
    if (e.length == 0 || e.offset + e.length > lit_.text.size()) return std::nullopt;
    size_t b = e.offset, last = e.offset + e.length - 1;
    size_t piece = lit_.piece[b];
    if (lit_.piece[last] != piece) return std::nullopt;
    std::string text;
    if (lit_.raw[piece]) {
      if ((e.replacement + "\"").find(lit_.rawDelims[piece]) != std::string::npos) return std::nullopt;
      text = e.replacement;
    } else {
      for (char c : e.replacement) {
        if (c == '"' || c == '\\') text += '\\';
        if (c == '\n') { text += "\\n"; continue; }
        text += c;
      }
    }
    TextEdit out;
    out.offset = lit_.from[b];
    out.length = lit_.to[last] - out.offset;
    out.where = fromOffsets(b, last + 1);
    out.replacement = std::move(text);
    return out;
  }
  std::optional<Fix> map(const std::optional<Fix> &f) const {
    if (!f) return std::nullopt;
    Fix out{f->description, {}};
    for (const TextEdit &e : f->edits) {
      auto m = map(e);
      if (!m) return std::nullopt;
      out.edits.push_back(*m);
    }
    return out;
  }
  template <class T> void map(Setting<T> &s) const {
    s.where = map(s.where);
    s.fix = map(s.fix);
  }

private:
  const ExtractContext &cx_;
  const Literal &lit_;
  const SourceFile &inner_;
};

void serviceConfigLiteral(const Literal &lit, const std::string &site, ExtractContext &cx) {
  const SourceFile inner(cx.src.path(), lit.text);
  LiteralMap m(cx, lit, inner);
  const std::string anchor = "service-config/" + site;
  auto parsed = yaml::parseJsonWithin(lit.text);
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    const size_t at = yaml::liftJsonErrorPosition(msg).byte;
    cx.problem(m.fromOffsets(at, at + 1),
               "the gRPC service config passed in " + site + " is not valid JSON (" + msg +
                   "): gRPC rejects it when the channel is created",
               anchor + "/json");
    return;
  }
  std::string yamlText = lit.text;
  std::replace(yamlText.begin(), yamlText.end(), '\t', ' ');
  yaml::Stream loaded; // `doc` points into it, and into `yamlText`
  try {
    loaded = yaml::loadFirst(yamlText);
  } catch (const YAML::Exception &) {
    return; // valid JSON that yaml-cpp cannot read: nothing to say
  }
  const yaml::Node doc = loaded.documents.front();
  if (!isGrpcServiceConfig(doc)) return;
  if (std::find(cx.model.formats.begin(), cx.model.formats.end(), "grpc-service-config") == cx.model.formats.end())
    cx.model.formats.emplace_back("grpc-service-config");

  FileModel innerModel;
  std::vector<Diagnostic> innerErrors;
  ExtractContext icx{inner, innerModel, innerErrors, cx.options};
  try {
    extractGrpcServiceConfig(doc, icx);
  } catch (const TypeError &e) {
    icx.error(e);
  }
  for (RetryPolicy &p : innerModel.policies) {
    p.anchor = anchor + "/" + p.anchor;
    p.component += " (service config in " + site + ")";
    forEachOtherSpan(p, [&](Span &s) { s = m.map(s); });
    forEachSetting(p, [&](auto &s) { m.map(s); });
    cx.model.policies.push_back(std::move(p));
  }
  for (ConfigProblem &pr : innerModel.problems)
    cx.problem(m.map(pr.where), pr.message, anchor + "/" + pr.anchor, m.map(pr.fix));
  // A value of the wrong kind in a .json file stops the analysis (exit 2); in a literal the file
  // still compiles and gRPC rejects the config at run time, so it is an RL901 finding.
  for (const Diagnostic &d : innerErrors) {
    Span s = m.map(Span{inner.path(), d.line, d.column, d.line, d.column + 1});
    cx.problem(s, d.message + ": gRPC rejects the service config", anchor + "/" + d.message);
  }
}

void serviceConfigs(const Tokens &t, ExtractContext &cx) {
  int index = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!isIdent(t[i]) || !t.is(i + 1, "(")) continue;
    const std::string &n = t[i].text;
    auto as = callArgs(t, i + 1);
    Range arg;
    if (n == "SetServiceConfigJSON" && as.size() == 1) arg = as[0];
    else if ((n == "SetString" || n == "SetChannelArg") && as.size() == 2 &&
             (t[as[0].b].text == "GRPC_ARG_SERVICE_CONFIG" || t[as[0].b].text == "\"grpc.service_config\""))
      arg = as[1];
    else continue;
    ++index;
    std::optional<Literal> lit;
    std::string site = n + "#" + std::to_string(index);
    if (t[arg.b].kind == Tok::String) {
      lit = literalAt(t, arg.b);
    } else {
      // a name, possibly wrapped: kConfig, std::string(kConfig), kConfig.c_str()
      for (size_t k = arg.b; k < arg.e; ++k)
        if (isIdent(t[k]) && !t.is(k + 1, "(") && !t.is(k + 1, "::") && !t.is(k - 1, ".") && t[k].text != "std") {
          lit = literalOfName(t, t[k].text, k);
          site = t[k].text;
          break;
        }
    }
    if (lit) serviceConfigLiteral(*lit, site, cx);
  }
}

// ---- AWS SDK for C++ ----
struct ClientTimeouts {
  Setting<std::optional<Duration>> perTry;
  bool known = false;
};

// The per-try timeout of the ClientConfiguration `name` in `scope`: httpRequestTimeoutMs (the
// whole request) when set above 0, else requestTimeoutMs (written, or the default 3000 ms).
ClientTimeouts timeoutsOf(const Tokens &t, ExtractContext &cx, const std::string &name, Range scope, Span declared,
                          const std::map<std::string, long long> &consts) {
  ClientTimeouts out;
  out.known = true;
  std::optional<Setting<std::optional<Duration>>> request, http;
  bool unknown = false;
  for (size_t i = scope.b; i + 4 < scope.e; ++i) {
    if (t[i].text != name || !isIdent(t[i]) || !(t.is(i + 1, ".") || t.is(i + 1, "->")) || !t.is(i + 3, "=")) continue;
    const std::string &field = t[i + 2].text;
    if (field != "requestTimeoutMs" && field != "httpRequestTimeoutMs") continue;
    size_t e = t.statementEnd(i);
    Range v{i + 4, e > i + 4 && t.is(e - 1, ";") ? e - 1 : e};
    auto ms = intValue(t, v, consts);
    if (!ms || *ms < 0) { unknown = true; continue; }
    auto s = written(std::optional<Duration>(Duration::ms(static_cast<double>(*ms))), spanOf(cx, t, v.b, v.e));
    if (field == "requestTimeoutMs") {
      if (*ms == 0) unknown = true; // 0: the HTTP client's own behaviour, not read here
      request = s;
    } else if (*ms > 0) {
      http = s;
    }
  }
  if (http) out.perTry = *http;
  else if (unknown) out.perTry.origin = Origin::Unknown;
  else if (request) out.perTry = *request;
  else out.perTry = defaulted(std::optional<Duration>(Duration::ms(kRequestTimeoutMs)), declared, kRequestTimeoutSource);
  return out;
}

struct ConfigVar {
  std::string name;
  size_t tok;
  Range scope;
  bool assigned = false;
};

// Whether the file uses the AWS SDK for C++ at all: an <aws/…> include or an `Aws::` name. A
// messaging client's own `ClientConfiguration` (pulsar::ClientConfiguration) is not the SDK's.
bool usesAwsSdk(const SourceFile &src, const Tokens &t) {
  const std::string_view text = src.text();
  if (text.find("<aws/") != std::string_view::npos || text.find("\"aws/") != std::string_view::npos) return true;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t[i].text == "Aws" && t.is(i + 1, "::")) return true;
  return false;
}

std::vector<ConfigVar> configVars(const Tokens &t, const FileFacts &facts, bool aws) {
  std::vector<ConfigVar> out;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text != "ClientConfiguration" || !isIdent(t[i + 1])) continue;
    // The type as Clang resolved it decides; unresolved, the file must use the AWS SDK.
    if (auto it = facts.typed.find(t[i + 1].offset); it != facts.typed.end() && !it->second.type.empty()) {
      if (it->second.type.rfind("Aws::", 0) != 0) continue;
    } else if (!aws) {
      continue;
    }
    const std::string &next = t[i + 2].text;
    if (next != ";" && next != "(" && next != "{" && next != "=") continue;
    if (next == "(") {
      size_t c = t.close(i + 2);
      if (c == i + 3 || !t.is(c + 1, ";")) continue; // a function declaration or definition
    }
    out.push_back({t[i + 1].text, i + 1, scopeOf(t, i + 1)});
  }
  return out;
}

// `NAME.retryStrategy = …` / `NAME->retryStrategy.reset(…)` in statement [b, e): NAME.
std::optional<std::string> assignedConfig(const Tokens &t, size_t b, size_t e) {
  for (size_t k = b; k + 1 < e; ++k)
    if (t[k].text == "retryStrategy" && k >= 2 && (t.is(k - 1, ".") || t.is(k - 1, "->")) && isIdent(t[k - 2]) &&
        (t.is(k + 1, "=") || (t.is(k + 1, ".") && t.is(k + 2, "reset"))))
      return t[k - 2].text;
  return std::nullopt;
}

struct StrategyArgs {
  std::vector<Range> args;
  Span head, where;
};

RetryPolicy awsBase(const std::string &cls, const std::string &component, const std::string &anchor, Span where) {
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.component = component;
  p.anchor = anchor;
  p.where = where;
  p.per_try_field = "requestTimeoutMs";
  p.deadline_name = "operation deadline";
  p.per_try_timeout.origin = Origin::Unknown;
  p.overall_deadline = defaulted(std::optional<Duration>(), where, kNoDeadlineSource);
  p.adaptive_rate_limit = defaulted(false, where, "");
  if (cls == "DefaultRetryStrategy") {
    p.attempts_field = "maxRetries";
    p.attempts_count_retries = true;
    p.budget_field = "StandardRetryStrategy's retry quota";
    Backoff &b = p.backoff;
    b.growth = builtIn(Growth::Exponential, where, kDefaultStrategySource);
    b.multiplier = builtIn(2.0, where, kDefaultStrategySource);
    // 2^n x scaleFactor for retry n >= 2 (the first waits 0): modelled as scaleFactor x 2^(n-1).
    b.initial = builtIn(std::optional<Duration>(Duration::ms(kDefaultScaleFactorMs)), where, kDefaultStrategySource);
    b.jitter = builtIn(Jitter::None, where, kDefaultStrategySource);
    b.cap = builtIn(std::optional<Duration>(), where, kDefaultStrategySource);
    b.description = "DefaultRetryStrategy's backoff (2^n x scaleFactor, no jitter, no cap)";
    p.budget = builtIn(false, where, kDefaultNoQuotaSource);
    p.max_attempts = defaulted(std::optional<int>(aws::kCppLegacyAttempts), where, kDefaultAttemptsSource);
  } else {
    p.attempts_field = "maxAttempts";
    p.budget_field = "retry quota";
    aws::setStandardBackoff(p, where);
    p.budget = builtIn(true, where, aws::kQuotaSource);
    p.max_attempts = defaulted(std::optional<int>(aws::kStandardAttempts), where, kStandardAttemptsSource);
    if (cls == "AdaptiveRetryStrategy") p.adaptive_rate_limit = written(true, where);
  }
  return p;
}

// Constructor arguments of an SDK strategy onto the model.
void applyArgs(RetryPolicy &p, const std::string &cls, const Tokens &t, const std::vector<Range> &as, ExtractContext &cx,
               const std::map<std::string, long long> &consts) {
  if (as.empty()) return;
  if (cls == "DefaultRetryStrategy") {
    auto retries = intValue(t, as[0], consts);
    if (retries) p.max_attempts = written(std::optional<int>(static_cast<int>(std::clamp<long long>(*retries, 0, 1'000'000) + 1)), spanOf(cx, t, as[0].b, as[0].e));
    else { p.max_attempts.value.reset(); p.max_attempts.origin = Origin::Unknown; } // the caller's count, not the default
    if (as.size() >= 2) {
      auto sf = intValue(t, as[1], consts);
      if (sf) p.backoff.initial = written(std::optional<Duration>(Duration::ms(static_cast<double>(*sf))), spanOf(cx, t, as[1].b, as[1].e));
      else p.backoff.initial.origin = Origin::Unknown;
    }
    return;
  }
  Range attempts{0, 0};
  bool container = false;
  if (as.size() >= 2) { attempts = as[1]; container = true; }
  else if (intValue(t, as[0], consts)) attempts = as[0];
  else {
    std::string text = t.join(as[0].b, as[0].e);
    if (containsI(text, "quota") || containsI(text, "make")) container = true;
    else { p.max_attempts.value.reset(); p.max_attempts.origin = Origin::Unknown; return; }
  }
  if (container) p.budget.origin = Origin::Unknown; // a quota container of the caller's own
  if (attempts.e > attempts.b) {
    auto n = intValue(t, attempts, consts);
    if (n) p.max_attempts = written(std::optional<int>(static_cast<int>(std::clamp<long long>(*n, 1, 1'000'000))), spanOf(cx, t, attempts.b, attempts.e));
    else { p.max_attempts.value.reset(); p.max_attempts.origin = Origin::Unknown; }
  }
}

// ---- custom subclasses ----
struct Method { size_t name = 0; Range body; std::string counter; };

std::optional<Method> findMethod(const Tokens &t, Range r, const std::string &method, const std::string &cls) {
  for (size_t i = r.b; i + 1 < r.e; ++i) {
    if (t[i].text != method || !t.is(i + 1, "(")) continue;
    bool inClass = r.b != 0 || r.e != t.size();
    if (!inClass && !(t.is(i - 1, "::") && t[i - 2].text == cls)) continue;
    if (inClass && (t.is(i - 1, ".") || t.is(i - 1, "->") || t.is(i - 1, "::"))) continue;
    size_t c = t.close(i + 1), k = c + 1;
    while (k < r.e && (t[k].text == "const" || t[k].text == "override" || t[k].text == "final" || t[k].text == "noexcept")) ++k;
    if (!t.is(k, "{")) continue;
    Method m;
    m.name = i;
    m.body = {k + 1, t.close(k)};
    auto ps = callArgs(t, i + 1);
    if (ps.size() >= 2)
      for (size_t j = ps[1].e; j-- > ps[1].b;)
        if (isIdent(t[j])) { m.counter = t[j].text; break; }
    return m;
  }
  return std::nullopt;
}

void customDelay(RetryPolicy &p, const Tokens &t, const Method &m, ExtractContext &cx) {
  Backoff &b = p.backoff;
  Span at = spanOf(cx, t, m.name, m.name + 1);
  b = Backoff{};
  b.description = "the strategy's CalculateDelayBeforeNextRetry";
  bool random = false, capped = false, shifts = false, times = false, usesCounter = false, state = false, calls = false;
  for (size_t i = m.body.b; i < m.body.e; ++i) {
    const Tok &k = t[i];
    if (isIdent(k) && isRandomSource(k.text)) random = true;
    if (k.text == "min" || k.text == "clamp" || k.text == "Min") capped = true;
    if (k.text == "<<" || k.text == "pow" || k.text == "exp2" || k.text == "ldexp") shifts = true;
    if (k.text == "*") times = true;
    if (k.text == "*=" || k.text == "<<=" || k.text == "+=" || k.text == "++") state = true;
    if (isIdent(k) && k.text == m.counter && !t.is(i - 1, ".") && !t.is(i - 1, "->")) usesCounter = true;
    if (isIdent(k) && t.is(i + 1, "(") && k.text != "AWS_UNREFERENCED_PARAM" && k.text != "static_cast" && !isRandomSource(k.text) &&
        k.text != "min" && k.text != "max" && k.text != "clamp")
      calls = true;
  }
  Growth g;
  if (shifts && usesCounter) g = Growth::Exponential;
  else if (usesCounter && times) g = Growth::Linear;
  else if (!usesCounter && !state && !calls) {
    // `return 0;` is no wait at all; `return 500;` a constant 500 ms.
    g = Growth::Constant;
    if (m.body.e == m.body.b + 3 && t[m.body.b].text == "return" && t[m.body.b + 1].kind == Tok::Number) {
      auto v = intValue(t, {m.body.b + 1, m.body.b + 2}, {});
      if (v && *v == 0) g = Growth::NoWait;
      else if (v) b.initial = written(std::optional<Duration>(Duration::ms(static_cast<double>(*v))), spanOf(cx, t, m.body.b + 1, m.body.b + 2));
    }
  } else {
    b.growth.origin = Origin::Unknown;
    return;
  }
  b.growth = written(g, at);
  if (g == Growth::NoWait) {
    b.jitter.origin = b.cap.origin = Origin::NotApplicable;
    return;
  }
  // `return 100 << n;`: a 100 ms base doubled per retry.
  if (g == Growth::Exponential && m.body.e == m.body.b + 5 && t[m.body.b].text == "return" && t[m.body.b + 1].kind == Tok::Number &&
      t[m.body.b + 2].text == "<<" && t[m.body.b + 3].text == m.counter) {
    if (auto v = intValue(t, {m.body.b + 1, m.body.b + 2}, {}); v && *v > 0)
      b.initial = written(std::optional<Duration>(Duration::ms(static_cast<double>(*v))), spanOf(cx, t, m.body.b + 1, m.body.b + 2));
  }
  if (!b.initial.value) b.initial.origin = Origin::Unknown;
  if (g == Growth::Exponential) b.multiplier = written(2.0, at);
  b.jitter = written(random ? Jitter::Full : Jitter::None, at);
  if (capped) b.cap.origin = Origin::Unknown;
  else b.cap = written(std::optional<Duration>(), at);
}

void customAttempts(RetryPolicy &p, const Tokens &t, const Method &m, ExtractContext &cx,
                    const std::map<std::string, long long> &consts) {
  p.attempts_field = "ShouldRetry's attemptedRetries bound";
  p.attempts_count_retries = true;
  p.max_attempts = {};
  p.max_attempts.origin = Origin::Unknown;
  bool mentioned = false, limitish = false;
  static const std::regex limit("max|limit|attempt|retries|count|tries", std::regex::icase);
  for (size_t i = m.body.b; i < m.body.e; ++i) {
    if (!isIdent(t[i]) || t.is(i - 1, ".") || t.is(i - 1, "->")) continue;
    if (std::regex_search(t[i].text, limit)) limitish = true;
    if (t[i].text != m.counter) continue;
    mentioned = true;
    // counter [+ K] OP BOUND
    size_t j = i + 1;
    long long shift = 0;
    if (t.is(j, "+") && t[j + 1].kind == Tok::Number) {
      auto k = intValue(t, {j + 1, j + 2}, {});
      if (!k) continue;
      shift = *k;
      j += 2;
    }
    const std::string op = j < m.body.e ? t[j].text : "";
    if (op != "<" && op != "<=" && op != ">=" && op != ">") continue;
    size_t be = j + 1;
    while (be < m.body.e && !t.is(be, ")") && !t.is(be, ";") && !t.is(be, "&&") && !t.is(be, "||")) ++be;
    auto n = intValue(t, {j + 1, be}, consts);
    if (!n) return;
    // retries allowed: counter + shift < N (or <= N); `>=`/`>` are the negations (return false).
    long long retries = (op == "<" || op == ">=") ? *n - shift : *n - shift + 1;
    p.max_attempts = written(std::optional<int>(static_cast<int>(std::clamp<long long>(retries, 0, 1'000'000) + 1)), spanOf(cx, t, j + 1, be));
    return;
  }
  if (!mentioned && !limitish && !m.counter.empty())
    p.max_attempts = written(std::optional<int>(), spanOf(cx, t, m.name, m.name + 1));
}

void customStrategies(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  for (size_t i = 0; i + 4 < t.size(); ++i) {
    if ((t[i].text != "class" && t[i].text != "struct") || !isIdent(t[i + 1])) continue;
    size_t j = i + 2;
    if (t.is(j, "final")) ++j;
    if (!t.is(j, ":")) continue;
    std::string base;
    size_t k = j + 1;
    for (; k < t.size() && !t.is(k, "{") && !t.is(k, ";"); ++k)
      if (t[k].text == "RetryStrategy" || isSdkStrategy(t[k].text)) base = t[k].text;
    if (base.empty() || !t.is(k, "{")) continue;
    const std::string name = t[i + 1].text;
    Range body{k + 1, t.close(k)};
    auto delay = findMethod(t, body, "CalculateDelayBeforeNextRetry", name);
    if (!delay) delay = findMethod(t, {0, t.size()}, "CalculateDelayBeforeNextRetry", name);
    auto should = findMethod(t, body, "ShouldRetry", name);
    if (!should) should = findMethod(t, {0, t.size()}, "ShouldRetry", name);
    if (base == "RetryStrategy" && !delay && !should) continue;
    Span where = spanOf(cx, t, i + 1, i + 2);
    RetryPolicy p = awsBase(base, "AWS retry strategy " + name, "aws-retry-strategy/" + name, where);
    if (base == "RetryStrategy") {
      p.backoff = Backoff{};
      p.budget.origin = Origin::Unknown;
      p.max_attempts.value.reset();
      p.max_attempts.origin = Origin::Unknown;
    }
    if (delay) customDelay(p, t, *delay, cx);
    if (should) {
      customAttempts(p, t, *should, cx, facts.constants);
      if (base != "RetryStrategy") p.budget.origin = Origin::Unknown; // the override may skip the quota
    }
    cx.model.policies.push_back(std::move(p));
  }
}

// A library's own strategy class of the same name (the Aliyun OSS SDK's DefaultRetryStrategy, 3
// retries): defined in the file (`class DefaultRetryStrategy`, `DefaultRetryStrategy::method`).
bool definesOwn(const Tokens &t, std::string_view cls) {
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text != cls) continue;
    if (i > 0 && (t[i - 1].text == "class" || t[i - 1].text == "struct") && !t.is(i + 1, ";")) return true;
    if (t.is(i + 1, "::") && isIdent(t[i + 2]) && t.is(i + 3, "(") && !(i >= 2 && t.is(i - 1, "::"))) return true;
  }
  return false;
}

void awsStrategies(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  const bool aws = usesAwsSdk(cx.src, t);
  std::vector<ConfigVar> configs = configVars(t, facts, aws);
  std::map<std::string, int> seen;
  auto configFor = [&](const std::string &name, size_t at) -> ConfigVar * {
    ConfigVar *best = nullptr;
    for (ConfigVar &c : configs)
      if (c.name == name && c.tok < at && at < c.scope.e && c.scope.b <= c.tok) best = &c;
    return best;
  };
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    if (!isIdent(t[i])) continue;
    const std::string &cls = t[i].text;
    std::vector<Range> as;
    size_t end = i;
    const size_t q = qualStart(t, i);
    std::optional<std::string> mode; // InitRetryStrategy("…")
    Span modeSpan;
    if (isSdkStrategy(cls)) {
      // Unqualified, in a file that does not use the AWS SDK or that defines its own class of
      // that name, it is somebody else's strategy.
      if (t[q].text != "Aws" && (!aws || definesOwn(t, cls))) continue;
      if (t.is(i + 1, ">") && q >= 2 && t.is(q - 1, "<") &&
          (t[q - 2].text == "MakeShared" || t[q - 2].text == "make_shared" || t[q - 2].text == "allocate_shared")) {
        if (!t.is(i + 2, "(")) continue;
        as = callArgs(t, i + 2);
        end = t.close(i + 2);
        if (t[q - 2].text != "make_shared" && !as.empty()) as.erase(as.begin()); // the allocation tag
      } else if (q >= 1 && t.is(q - 1, "new")) {
        if (t.is(i + 1, "(") || t.is(i + 1, "{")) { as = callArgs(t, i + 1); end = t.close(i + 1); }
      } else {
        continue;
      }
    } else if (cls == "InitRetryStrategy" && t.is(i + 1, "(")) {
      auto a = callArgs(t, i + 1);
      end = t.close(i + 1);
      if (a.empty()) mode = "";
      else if (auto lit = literalAt(t, a[0].b); lit && lit->lastTok + 1 == a[0].e) {
        mode = lit->text;
        modeSpan = spanOf(cx, t, a[0].b, a[0].e);
      } else continue;
    } else {
      continue;
    }
    size_t sb = statementStart(t, q);
    size_t se = t.statementEnd(sb);
    std::optional<std::string> cfg = assignedConfig(t, sb, se);
    std::string holder;
    if (!cfg) { // auto s = MakeShared<…>(…); … cfg.retryStrategy = s;
      for (size_t k = sb; k + 1 < q; ++k)
        if (isIdent(t[k]) && t.is(k + 1, "=")) { holder = t[k].text; break; }
      if (!holder.empty())
        for (size_t k = se; k + 4 < t.size() && !cfg; ++k)
          if (t[k].text == "retryStrategy" && t.is(k + 1, "=") && k >= 2 && isIdent(t[k - 2])) {
            size_t e2 = t.statementEnd(k);
            if (mentions(t, {k + 2, e2}, holder)) cfg = t[k - 2].text;
          }
    }
    std::string effective = cls;
    if (mode) {
      if (*mode == "standard") effective = "StandardRetryStrategy";
      else if (*mode == "adaptive") effective = "AdaptiveRetryStrategy";
      else effective = "DefaultRetryStrategy";
      std::string l = lower(*mode);
      if (!mode->empty() && *mode != "standard" && *mode != "adaptive" && *mode != "legacy") {
        bool known = l == "standard" || l == "adaptive" || l == "legacy";
        std::optional<Fix> fix;
        if (known && *mode != l && !modeSpan.path.empty())
          fix = Fix{"write the mode as \"" + l + "\"", {cx.src.replace(modeSpan, "\"" + l + "\"")}};
        cx.problem(modeSpan,
                   "InitRetryStrategy(\"" + *mode + "\"): the AWS SDK for C++ compares the mode case-sensitively and " +
                       "falls back to its legacy DefaultRetryStrategy (10 retries, no jitter, no cap) for anything but " +
                       "\"standard\" or \"adaptive\"",
                   "aws-init-retry-strategy/" + *mode, fix);
      }
    }
    std::string label = cfg ? *cfg + ".retryStrategy" : !holder.empty() ? holder : effective;
    std::string anchor = "aws-retry-strategy/" + label;
    if (int n = seen[anchor]++) anchor += "#" + std::to_string(n + 1);
    Span where = spanOf(cx, t, q, end + 1);
    RetryPolicy p = awsBase(effective, "AWS SDK " + (mode ? "InitRetryStrategy(\"" + *mode + "\")" : cls) +
                                           (cfg ? " (" + *cfg + ".retryStrategy)" : ""),
                            anchor, where);
    if (mode) {
      if (mode->empty()) {
        // The mode comes from AWS_RETRY_MODE or the profile: the SDK's default policy.
        p = awsBase("DefaultRetryStrategy", p.component, anchor, where);
        p.implicit = true;
        p.backoff = Backoff{};
        p.backoff.growth.origin = Origin::Unknown;
        p.budget.origin = Origin::Unknown;
        p.max_attempts.source = kImplicitSource;
      } else if (effective != "DefaultRetryStrategy") {
        p.max_attempts = defaulted(std::optional<int>(aws::kStandardAttempts), where, kInitModeAttemptsSource);
        if (effective == "AdaptiveRetryStrategy") p.adaptive_rate_limit = written(true, modeSpan);
      }
    } else {
      applyArgs(p, cls, t, as, cx, facts.constants);
    }
    if (!cfg && holder.empty() && t[sb].text == "return" && !mode && !as.empty()) {
      // `return make_shared<DefaultRetryStrategy>(max_attempts);` in a function that takes the
      // count: a factory that hands the SDK's strategy to its callers, who pick it and set its
      // count. Its schedule is the SDK's; which strategy a client gets is the caller's choice.
      // (Reviewers judged Arrow's GetAwsDefaultRetryStrategy so: true of the strategy, not a defect here.)
      if (size_t fb = enclosingBrace(t, i); fb != std::string::npos) {
        size_t k = fb;
        while (k > 0 && (t[k - 1].text == "const" || t[k - 1].text == "override" || t[k - 1].text == "noexcept" ||
                         t[k - 1].text == "final"))
          --k;
        if (k > 0 && t.is(k - 1, ")")) {
          size_t open = t.opening(k - 1);
          bool fromParameter = false;
          if (open != std::string::npos && open < k - 1)
            for (const Range &param : callArgs(t, open))
              for (size_t j = param.e; j-- > param.b && !fromParameter;)
                if (isIdent(t[j])) {
                  fromParameter = mentions(t, as[0], t[j].text);
                  break;
                }
          if (fromParameter) {
            p.advisory = true;
            p.used_by = "returned by " + functionName(t, fb) +
                        ", which takes the count from its caller: which strategy a client gets is the caller's choice";
          }
        }
      }
    }
    if (cfg) {
      ConfigVar *c = configFor(*cfg, i);
      if (c) c->assigned = true;
      Range scope = c ? c->scope : scopeOf(t, i);
      p.per_try_timeout = timeoutsOf(t, cx, *cfg, scope, c ? spanOf(cx, t, c->tok, c->tok + 1) : where, facts.constants).perTry;
    }
    cx.model.policies.push_back(std::move(p));
  }
  // A ClientConfiguration whose retryStrategy is never set keeps the SDK's default.
  for (const ConfigVar &c : configs) {
    bool assigned = c.assigned;
    for (size_t k = c.tok; k + 2 < c.scope.e && !assigned; ++k)
      if (t[k].text == c.name && isIdent(t[k]) && (t.is(k + 1, ".") || t.is(k + 1, "->")) && t.is(k + 2, "retryStrategy")) assigned = true;
    if (assigned) continue;
    Span where = spanOf(cx, t, c.tok, c.tok + 1);
    std::string anchor = "aws-client-config/" + c.name;
    if (int n = seen[anchor]++) anchor += "#" + std::to_string(n + 1);
    RetryPolicy p = awsBase("DefaultRetryStrategy", "AWS ClientConfiguration " + c.name + " (default retry strategy)", anchor, where);
    p.implicit = true;
    p.attempts_field = "retryStrategy";
    p.attempts_count_retries = false;
    p.backoff = Backoff{};
    p.backoff.growth.origin = Origin::Unknown;
    p.budget.origin = Origin::Unknown;
    p.max_attempts = defaulted(std::optional<int>(aws::kCppLegacyAttempts), where, kImplicitSource);
    p.per_try_timeout = timeoutsOf(t, cx, c.name, c.scope, where, facts.constants).perTry;
    cx.model.policies.push_back(std::move(p));
  }
}

} // namespace

void analyseConfig(const Tokens &toks, const FileFacts &facts, ExtractContext &cx) {
  serviceConfigs(toks, cx);
  awsStrategies(toks, facts, cx);
  customStrategies(toks, facts, cx);
}

} // namespace retrylint::cpp
