#include "rules/rule.h"

#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

std::string httpName(int code) {
  switch (code) {
  case 400: return "400 Bad Request";
  case 401: return "401 Unauthorized";
  case 403: return "403 Forbidden";
  case 404: return "404 Not Found";
  case 405: return "405 Method Not Allowed";
  case 409: return "409 Conflict";
  case 410: return "410 Gone";
  case 412: return "412 Precondition Failed";
  case 413: return "413 Content Too Large";
  case 415: return "415 Unsupported Media Type";
  case 422: return "422 Unprocessable Content";
  default: return std::to_string(code);
  }
}

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    if (!p.mayRetry()) continue; // an unknown count still retries
    for (const Condition &c : p.retry_on) {
      std::string what;
      if (c.kind == Condition::Kind::HttpStatus && c.http_lo <= c.http_hi) {
        std::vector<int> permanent;
        for (int code = c.http_lo; code <= c.http_hi; ++code)
          if (httpCodeIsPermanent(code)) permanent.push_back(code);
        if (permanent.empty()) continue;
        if (permanent.size() == 1) what = "retries " + httpName(permanent[0]) + ", a permanent failure";
        else what = "retries " + std::to_string(permanent.size()) + " permanent 4xx statuses (" + httpName(permanent[0]) + ", " + httpName(permanent[1]) + ", …)";
      } else if (c.kind == Condition::Kind::GrpcStatus && c.grpc_code >= 0 && grpcCodeIsPermanent(c.grpc_code)) {
        what = "retries " + grpcCodeName(c.grpc_code) + ", a permanent failure";
      } else {
        continue;
      }
      auto n = p.exactRetries();
      std::string msg = "'" + c.text + "' " + what + ": the same request fails the same way on every " +
                        (n ? "one of the " + std::to_string(*n + 1) + " attempts" : std::string("attempt")) +
                        ", multiplying load for nothing and delaying the error";
      // 409 alone (Envoy's `retriable-4xx` is exactly 409): a conflict that a concurrent writer
      // caused can clear on the next try, and optimistic-concurrency retries are written on
      // purpose. Advice, as for conflict retries in code.
      const bool conflictOnly = c.kind == Condition::Kind::HttpStatus && c.http_lo == 409 && c.http_hi == 409;
      if (conflictOnly && c.failover_why.empty()) {
        Reporter advice = out;
        advice.capSeverity(Severity::Note);
        advice.report(p, c.where.known() ? c.where : p.where, "retryOn/" + c.text,
                      "'" + c.text + "' retries 409 Conflict: a retry helps only where the conflict was a race the next " +
                          "try wins (optimistic concurrency, on purpose); any other conflict fails the same way on every " +
                          (n ? "one of the " + std::to_string(*n + 1) + " attempts" : std::string("attempt")));
        continue;
      }
      if (!c.failover_why.empty()) {
        Reporter advice = out;
        advice.capSeverity(Severity::Note);
        advice.report(p, c.where.known() ? c.where : p.where, "retryOn/" + c.text, msg + " (unless " + c.failover_why + ")");
        continue;
      }
      out.report(p, c.where.known() ? c.where : p.where, "retryOn/" + c.text, msg);
    }
  }
}

} // namespace

extern const Rule kRL401 = {
    "RL401", "retry-on-permanent-error", Severity::Error,
    "permanent failures (4xx other than 408/425/429, permanent gRPC codes) are retried",
    {
        "Retry conditions that name failures a second try cannot fix: HTTP 4xx other than 408 (Request "
        "Timeout), 425 (Too Early) and 429 (Too Many Requests) — explicit codes, `retriable-4xx` (409), a "
        "`CLIENT_ERROR` series, `status >= 400` in C++ — and the gRPC codes INVALID_ARGUMENT, NOT_FOUND, "
        "ALREADY_EXISTS, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED. "
        "409 Conflict alone (Envoy's `retriable-4xx` is exactly 409) is a note: a conflict a concurrent writer "
        "caused can clear on the next try, and optimistic-concurrency retries are written on purpose. "
        "NGINX's `http_403`/`http_404` over an `upstream` of nginx.conf is a note: its servers need not be "
        "replicas (a cache before several origins), and NGINX passes such an answer on without counting the server "
        "as failed. The count need not be known: a retry of a 404 is one at any count.",
        "A permission or validation failure gives the same answer on the hundredth try. Retrying it multiplies "
        "the traffic of every broken client by the attempt count, keeps the caller waiting through the backoff, "
        "and hides the real error behind a timeout. Permanent errors belong straight back to the caller.",
        "Istio:\n"
        "    retries:\n"
        "      attempts: 3\n"
        "      retryOn: 5xx,retriable-4xx,404",
        "    retries:\n"
        "      attempts: 3\n"
        "      retryOn: connect-failure,refused-stream,503",
        "None.",
        "AWS SDKs and Tools Reference Guide (transient, throttling and non-retryable errors); gRPC status code "
        "guide (UNAVAILABLE is the retryable one); Envoy router filter, retriable-4xx.",
    },
    check,
};

} // namespace retrylint
