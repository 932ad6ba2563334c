#include "lint/extract/nginx_next_upstream.h"

#include "lint/extract/yaml_util.h"

namespace retrylint::nginx {
namespace {

// nginx/nginx src/http/modules/ngx_http_{proxy,grpc,fastcgi,uwsgi,scgi}_module.c, the
// *_next_upstream_masks tables. fastcgi, uwsgi and scgi know no http_502 or http_504; proxy and
// the three accept "updating", which only proxy_cache_use_stale, sharing the table, acts on.
constexpr std::string_view kProxy[] = {"error", "timeout", "invalid_header", "non_idempotent", "http_500", "http_502", "http_503",
                                       "http_504", "http_403", "http_404", "http_429", "updating", "off"};
constexpr std::string_view kGrpc[] = {"error", "timeout", "invalid_header", "non_idempotent", "http_500", "http_502",
                                      "http_503", "http_504", "http_403", "http_404", "http_429", "off"};
constexpr std::string_view kOther[] = {"error", "timeout", "invalid_header", "non_idempotent", "http_500", "http_503",
                                       "http_403", "http_404", "http_429", "updating", "off"};

template <size_t N> bool in(const std::string_view (&words)[N], std::string_view w) {
  for (auto x : words)
    if (x == w) return true;
  return false;
}
template <size_t N> std::string join(const std::string_view (&words)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(words[i]);
  return out;
}

} // namespace

std::string_view prefix(Module m) {
  switch (m) {
  case Module::Proxy: return "proxy";
  case Module::Grpc: return "grpc";
  case Module::FastCGI: return "fastcgi";
  case Module::Uwsgi: return "uwsgi";
  case Module::Scgi: return "scgi";
  }
  return "proxy";
}

std::string acceptedWords(Module m) {
  return m == Module::Proxy ? join(kProxy) : m == Module::Grpc ? join(kGrpc) : join(kOther);
}

bool accepts(Module m, std::string_view w) {
  return m == Module::Proxy ? in(kProxy, w) : m == Module::Grpc ? in(kGrpc, w) : in(kOther, w);
}

void addCondition(std::string_view word, Span where, RetryPolicy &p, bool &nonIdempotent) {
  if (word == "non_idempotent") {
    nonIdempotent = true;
    return;
  }
  if (word.substr(0, 5) == "http_" && word.size() == 8) {
    const int code = std::stoi(std::string(word.substr(5)));
    p.retry_on.push_back(httpStatusCondition(code, Origin::Written, where));
    return;
  }
  if (word == "error" || word == "timeout" || word == "invalid_header") {
    Condition c;
    c.kind = Condition::Kind::Transport;
    c.text = std::string(word);
    // "an error occurred while establishing a connection with the server, passing a request to it,
    // or reading the response header"; a timeout alike: the server may have acted on the request.
    c.may_have_been_processed = word != "invalid_header";
    if (c.may_have_been_processed) c.why_processed = std::string(word) + " can happen after the request reached the server";
    c.where = where;
    p.retry_on.push_back(std::move(c));
  }
}

void addDefaultConditions(RetryPolicy &p, Span where, const std::string &source) {
  bool unused = false;
  const size_t from = p.retry_on.size();
  for (std::string_view w : {"error", "timeout"}) addCondition(w, where, p, unused);
  for (size_t i = from; i < p.retry_on.size(); ++i) {
    Condition &c = p.retry_on[i];
    c.origin = Origin::Defaulted;
    if (!c.why_processed.empty()) c.why_processed += " (" + source + ")";
  }
}

void addNonIdempotentMethods(RetryPolicy &p, Span where) {
  for (const char *m : {"POST", "PATCH", "LOCK"}) {
    auto s = written(std::string(m), where);
    s.source = "passed on by non_idempotent"; // no line: an embedded config's lines move
    p.methods.push_back(std::move(s));
  }
}

void markFailover(RetryPolicy &p) {
  p.per_try_timeout.origin = Origin::Unknown;
  p.budget.origin = Origin::Unknown;
  p.backoff.growth.origin = Origin::NotApplicable;
}

} // namespace retrylint::nginx
