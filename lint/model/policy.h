// The retry-policy model: what every dialect is turned into, and what every rule reads.
//
// Counts are normalised once, here: `max_attempts` is always the total number of tries,
// including the first. Every value carries its source span and its origin (written in the
// file, defaulted by the library — with the default's source — or built into the runtime).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/duration.h"
#include "lint/model/span.h"

namespace retrylint {

enum class Origin {
  Written,       // set in the file
  Defaulted,     // left out; the library's default applies (Setting::source says which)
  BuiltIn,       // fixed behaviour of the runtime, not configurable (e.g. Envoy's jitter)
  NotApplicable, // the dialect cannot express this; rules leave it alone
  Unknown,       // configured somewhere this file does not show (e.g. an Istio DestinationRule)
};

template <class T> struct Setting {
  T value{};
  Origin origin = Origin::NotApplicable;
  Span where;          // the value, or for a defaulted value the block it is missing from
  std::string source;  // for Defaulted/BuiltIn: the default and where it comes from
  std::optional<Fix> fix; // edits that set this to the safe value, where the dialect allows one

  bool known() const { return origin == Origin::Written || origin == Origin::Defaulted || origin == Origin::BuiltIn; }
  bool written() const { return origin == Origin::Written; }
};

template <class T> Setting<T> written(T v, Span where) { return {std::move(v), Origin::Written, std::move(where), {}, {}}; }
template <class T> Setting<T> defaulted(T v, Span where, std::string source) {
  return {std::move(v), Origin::Defaulted, std::move(where), std::move(source), {}};
}
template <class T> Setting<T> builtIn(T v, Span where, std::string source) {
  return {std::move(v), Origin::BuiltIn, std::move(where), std::move(source), {}};
}

// The workload a policy serves. What is sensible differs: six retries over two minutes is normal
// for a Step Functions Lambda task and absurd on a request somebody is waiting for. Rules take
// their thresholds per workload (Settings::limitsFor) and say the workload in their messages.
enum class Workload {
  Request,    // a synchronous request path: mesh and gateway routes, RPC, HTTP and SDK clients
  Background, // work nobody waits on: workflows, batch jobs, telemetry exporters, queue consumers
};
// "request path", "background workload" — for messages.
const char *workloadName(Workload w);

// Who else retries in step with a policy's caller (RetryPolicy::crowd).
enum class Crowd {
  Assumed,  // many callers by nature: a request path
  Shown,    // the files show callers running together (a concurrent Map, a retried throttle, a trigger per event)
  NotShown, // nothing shows more than one caller at a time (a workflow whose trigger is not in the files)
  Alone,    // the files show one caller at a time (a workflow only a schedule starts)
  OutOfStep, // many callers, each at a phase of its own: a random wait before a fixed-interval loop
};

// Why a workflow's retrier is given no crowd when nothing in the files shows one (RetryPolicy::
// crowd_why for Crowd::NotShown). Notes that end with it hold for most workflow retriers of a
// repository: a run reports them once per rule, with the count (aggregateNotes).
inline constexpr std::string_view kCrowdNotShown =
    "nothing in the files shows executions running at once: no concurrent Map, no trigger whose rate the files show";
// How crowd_why for Crowd::Alone ends ("only <the schedules> starts it: " + this): notes on the
// retriers of one such workflow are reported once (lint/report/aggregate.cpp).
inline constexpr std::string_view kCrowdAloneTail = "one execution per tick, no crowd retries in step with it";

enum class Growth { NoWait, Constant, Linear, Exponential };
enum class Jitter { None, Full, Proportional };

// Where the random term is drawn relative to the cap (RL105).
enum class JitterOrder {
  AfterCap,  // the draw is made over the capped wait: random(0, min(cap, grown)) — full jitter
  BeforeCap, // the cap is applied to the drawn wait: min(cap, randomize(grown)) — every draw above
             // the cap becomes exactly the cap
};

// The shape of the random wait before the cap, around the grown wait g of retry n.
enum class JitterShape {
  Uniform,      // uniform on [g * jitter_lower, g * jitter_upper]
  AddedUnknown, // g plus a random term >= 0 whose size is not known (C++ `+ jitter(rng)`)
  Decorrelated, // Polly's DecorrelatedJitterBackoffV2 (RetryHelper.cs): not uniform, see drawRange
  Unknown,      // random, but its range is not known (C++ `delay * dist(rng)` with dist's bounds unread)
};

struct Backoff {
  Setting<Growth> growth;
  Setting<std::optional<Duration>> initial;
  Setting<double> multiplier;               // growth factor per retry (Exponential)
  Setting<std::optional<Duration>> cap;     // nullopt = no maximum
  Setting<Jitter> jitter;
  // The dialect has a setting that adds jitter (Argo's retryStrategy.backoff and the Spring Cloud
  // Gateway Server MVC backoff have none): without one, a missing jitter is advice, not a defect
  // of the file, and RL101 reports it as a note.
  bool jitter_configurable = true;
  double jitter_upper = 1.0;                // worst-case factor on the nominal wait (gRPC: 1.2)
  double jitter_lower = 1.0;                // best-case factor (Resilience4j factor 0.5: 0.5; full jitter: 0)
  JitterShape jitter_shape = JitterShape::Uniform;
  // RL105: random term before or after the cap. Known only where both a jitter and a cap apply;
  // `source` names the runtime code that decides it.
  Setting<JitterOrder> jitter_order;
  std::string full_jitter_instead;          // what to write instead when BeforeCap, in the dialect's terms
  // Envoy draws retry n's wait from [0, (2^n - 1) * base), capped: worst case (2^n - 1) * base.
  bool envoy_schedule = false;
  std::string description;                  // for messages: "Envoy's built-in backoff (25 ms base, 250 ms cap)"
};

// The grown wait before retry n (1-based) without jitter or cap, or nullopt when not known.
std::optional<Duration> grownWait(const Backoff &b, int n);
// The range of the random wait before retry n before any cap: [lo, hi]; hi is nullopt when the
// random term's size is not known (JitterShape::AddedUnknown). nullopt when the schedule is not known.
struct DrawRange { Duration lo; std::optional<Duration> hi; };
std::optional<DrawRange> drawRange(const Backoff &b, int n);
// The share (0..1) of draws before retry n that lie above `cap`, so that a cap applied after the
// draw turns them into exactly `cap`; nullopt when not known.
std::optional<double> shareAbove(const Backoff &b, int n, Duration cap);
// Worst-case wait before retry n (1-based), or nullopt when the schedule is not known.
std::optional<Duration> worstCaseWait(const Backoff &b, int n);
// Worst-case sum of the waits before retries 1..k, or nullopt when the schedule is not known.
std::optional<Duration> worstCaseWaits(const Backoff &b, int k);
// How many of retries 1..n can start before `deadline`, counting the worst-case waits alone;
// nullopt when the schedule is not known.
std::optional<int> retriesThatFit(const Backoff &b, int n, Duration deadline);

// One retry condition as written (or defaulted): an HTTP status or class, a gRPC status,
// a transport condition, an exception or error name.
struct Condition {
  enum class Kind { HttpStatus, GrpcStatus, Transport, ErrorName };
  Kind kind = Kind::Transport;
  std::string text;         // as written: "retriable-4xx", "409", "UNAVAILABLE"
  int http_lo = 0, http_hi = -1; // HTTP statuses this condition retries (inclusive range)
  int grpc_code = -1;
  bool may_have_been_processed = false; // the failed attempt may already have taken effect
  // The request was never sent (the connection failed): a retry costs the failing server a
  // connection attempt, not a request. Set where the dialect's runtime says so (HAProxy conn-failure).
  bool before_send = false;
  bool catch_all = false;   // matches every failure: States.ALL, java.lang.Exception, catch (...)
  // A catch-all the file shows to be deliberate and no narrower one possible or needed: why, for
  // messages (RL402 is then advice). "" = a plain catch-all.
  std::string catch_all_why;
  std::string why_processed;            // for messages: "504 means the gateway timed out waiting"
  // A permanent failure passed on to another server that may not share it (NGINX's http_404 over
  // an upstream whose servers need not hold the same files): why, for messages; RL401 is then advice.
  std::string failover_why;
  // A status the server itself sends to refuse a request before acting on it (NGINX's http_503,
  // HAProxy's 503: the upstream server's own answer), which only a proxy between the two sends after
  // the request was processed: why, for messages; RL403 is then advice when every condition is one.
  std::string refusal_why;
  Origin origin = Origin::Written;
  Span where;
};

// A retry combined with a circuit breaker on the same call (RL601).
struct BreakerComposition {
  bool retry_outside_breaker = false;   // the retry wraps the breaker (each retry asks the breaker)
  bool retries_open_circuit = false;    // the breaker's rejection is among the retried failures
  Span where;                           // the setting that decides the order, or the retry block
  std::string explanation;              // "Resilience4j default aspect order: Retry outermost"
};

// A log call inside a retry loop or callback (RL501).
struct LogSite {
  Span where;
  std::string call;          // "LOG(WARNING)", "spdlog::warn"
  bool has_attempt = false;  // the attempt number (or a value derived from it) is logged
};

struct ConfigProblem {
  Span where;
  std::string message;
  std::string anchor; // logical location, for fingerprints
  std::optional<Fix> fix;
  // True of one consumer of the format and not of another that reads the same file (ingress-nginx
  // refuses a value that Traefik's NGINX-annotation provider takes): the message says which, and
  // it is reported a severity level lower (a warning, not an error).
  bool one_consumer = false;
};

struct RetryPolicy {
  std::string format;     // "istio-virtualservice", "grpc-service-config", …
  std::string component;  // human name: "VirtualService reviews, http[0] (route 'v1')"
  std::string anchor;     // logical location, stable across line shifts: "VirtualService/ns/reviews/http[0]"
  Span where;             // the retry block (or the route, for an implicit policy)
  bool implicit = false;  // no retry block is written: the library's default policy applies
  Workload workload = Workload::Request;
  // Why, when the file shows it rather than the dialect deciding it ("the loop waits on
  // shutdown_.WaitFor(), …"), for messages; "" otherwise.
  std::string workload_why;
  // Who reads the file, where that is not the format's usual runtime and the rules' facts differ
  // (gRPC service config JSON handed to a client-library generator rather than to gRPC core).
  // "" = the usual one. Messages name it, so a reader knows which consumer a finding is about.
  std::string consumer;
  // Nothing loads the file as written (a Dapr Resiliency spec without apiVersion/kind, as the docs
  // show them): its findings are advice, reported at note severity (Reporter::report).
  bool advisory = false;
  // The retried operation takes a lock another holder has (try_lock): how long the waiting lasts
  // is up to the holder, so an unbounded or fixed wait is the lock's contract, not a setting.
  bool waits_for_lock = false;
  // The retrier calls a read again at a fixed interval (an S3 getObject of a `_SUCCESS` marker
  // every 30 s): it waits for something to appear, so its count is how long it waits, not how hard
  // it presses a failing service. Why, for RL203's message; "" otherwise.
  std::string polls_by_reading;
  // The retry asks a circuit breaker before every attempt and stops when it is open (Resilience4j's
  // default aspect order, the rejection not retried): "the circuit breaker 'orders' opens: …", for
  // messages ("… only until <this>"), or "". Clients that failed
  // together then stop together once their breakers open, and the recovering service meets the
  // breakers' half-open probes, not synchronized retries (RL101 is advice there).
  std::string breaker_stops_retries;
  // A schedule with no attempts of its own: a C++ backoff calculator (`next_delay()`) or a timer
  // re-armed with a growing delay, used once per retry by callers the file may not show. It is
  // used as often as they retry, so the rules that ask where a schedule goes wrong (RL105's
  // clipped draws) look as far as for unbounded retries, and say so; backoff.description names it
  // ("the delay next_delay() computes").
  bool schedule_only = false;
  // A shared block (a base config, Argo's templateDefaults) reported once for all that use it:
  // "used by instances backendA, backendB", appended to every finding's message.
  std::string used_by;
  // Whether many callers run this retry at the same time: what makes a missing jitter a herd and
  // many attempts a storm. A request path has a crowd by nature (Assumed); a workflow shows one (a
  // Map running iterations at once, a throttling error retried, a trigger per request) or not.
  Crowd crowd = Crowd::Assumed;
  // Why, for messages, when not Assumed: "only the schedule Nightly in template.yaml starts it".
  std::string crowd_why;

  Setting<std::optional<int>> max_attempts;  // total tries incl. the first; nullopt = unbounded
  std::string attempts_field;                // the field as users know it: "attempts", "maxAttempts"
  // The written count is the platform's own default, restated (decK dumps and generated manifests
  // write every field): the author chose nothing, so it is judged like a default (RL202 in a layer).
  bool attempts_restate_default = false;
  bool attempts_count_retries = false;       // that field counts retries, not tries
  std::optional<int> runtime_max_attempts;   // a runtime clamp (gRPC: 5)
  std::string runtime_max_source;
  // The runtime's limit is the setting working as meant, not a surprise to its author (NGINX tries
  // each server once, so tries above the servers' count only leave room): no finding of its own.
  // Without runtime_max_attempts, the limit is not in the file: the count is an upper bound only,
  // and runtime_max_source says so.
  bool runtime_max_by_design = false;

  Backoff backoff;
  std::vector<Condition> retry_on;

  Setting<std::optional<Duration>> per_try_timeout;
  // Whether an attempt cut off by the per-try timeout is itself retried (nullopt: not known). Envoy
  // retries it only with 5xx, gateway-error or reset among the retry conditions; otherwise a per-try
  // timeout only answers earlier, and RL302 has nothing to say.
  std::optional<bool> timed_out_try_retried;
  // Whether a try that ran long can still end in a failure that is retried (nullopt: yes, as far as
  // the file says). False when neither a timed-out try nor any retried failure can come late: a
  // Step Functions retrier of Lambda's service errors and throttles, which the invocation returns
  // at once. Then RL301's "attempts x per-try timeout" cannot happen.
  std::optional<bool> long_try_retried;
  std::string per_try_field; // "perTryTimeout"
  Setting<std::optional<Duration>> overall_deadline;
  std::string deadline_name; // "route timeout", "method timeout"

  Setting<bool> budget;      // a retry budget / throttling applies
  std::string budget_field;  // where a budget would be set: "retryThrottling"
  std::vector<Setting<std::string>> methods; // HTTP methods the policy is limited to; empty = unknown/any
  bool idempotency_key = false;              // evidence of an idempotency key on the retried requests
  std::vector<Span> keys_made_per_attempt;   // an idempotency key created inside the loop (RL404)

  Setting<bool> adaptive_rate_limit;         // AWS retry_mode adaptive: a client-side rate limiter (RL304)
  std::optional<BreakerComposition> breaker; // RL601
  std::vector<LogSite> logs;                 // C++: log calls inside the loop and its catch blocks
  std::string attempt_variable;              // C++: the attempt counter, for messages

  // Retries per request beyond the first try (effective attempts - 1), 0 when unknown/unbounded.
  int retries() const;
  // Whether the policy retries at all: a known count above one try, or a count that is unbounded
  // or not known. Rules about the wait (jitter, growth, cap) need this, not a count: a constant
  // wait with no jitter is worst when the retries never stop.
  bool mayRetry() const;
  // Every condition retried is one where the request was never sent (Condition::before_send): the
  // retries cost the failing server connection attempts, not requests.
  bool retriesOnlyUnsent() const;
  // The number of retries that can happen when the count is known and bounded (nullopt: unbounded
  // or unknown): the written count, less the retries whose waits alone pass an overall deadline.
  std::optional<int> boundedRetries() const;
  // " (of the 20 configured: the others cannot start within the Express workflow's 5-minute limit
  // 300 s)" when boundedRetries() is below the written count, else "": so that a message quoting
  // the reachable count also says what the file configures.
  std::string boundedRetriesNote() const;
  // retries() when the count is known exactly; nullopt when it is only an estimate (a policy
  // bounded by time rather than count, a lower bound, an upper bound the runtime may not reach),
  // so messages do not state a false figure.
  std::optional<int> exactRetries() const;
  // Attempts that really run: the written count clamped by the runtime.
  std::optional<int> effectiveAttempts() const;
  // "attempts: 2 (2 retries + the first try = 3 attempts)" for messages.
  std::string describeAttempts() const;
};

// Calls f(setting) for every Setting a policy holds, whatever its type (a generic lambda).
template <class F> void forEachSetting(RetryPolicy &p, F &&f) {
  f(p.max_attempts);
  f(p.backoff.growth);
  f(p.backoff.initial);
  f(p.backoff.multiplier);
  f(p.backoff.cap);
  f(p.backoff.jitter);
  f(p.backoff.jitter_order);
  f(p.per_try_timeout);
  f(p.overall_deadline);
  f(p.budget);
  f(p.adaptive_rate_limit);
  for (auto &m : p.methods) f(m);
}
// The positions that are not a Setting's: the block, conditions, breaker, logs, keys.
template <class F> void forEachOtherSpan(RetryPolicy &p, F &&f) {
  f(p.where);
  for (Condition &c : p.retry_on) f(c.where);
  if (p.breaker) f(p.breaker->where);
  for (LogSite &l : p.logs) f(l.where);
  for (Span &s : p.keys_made_per_attempt) f(s);
}

// Calls each(span) for every position a policy holds (the block, each setting, condition, method,
// log and key), so a policy read from a text embedded in another file can be moved to where that
// text stands; dropFixes removes the edits, whose offsets are the embedded text's.
void forEachSpan(RetryPolicy &p, const std::function<void(Span &)> &each);
void dropFixes(RetryPolicy &p);

// What one file holds once extracted.
struct FileModel {
  std::string path;
  std::vector<std::string> formats; // the dialects found in it
  std::vector<RetryPolicy> policies;
  std::vector<ConfigProblem> problems; // values the runtime rejects, ignores or changes (RL901)
  bool without_full_types = false;     // C++ parsed with headers missing: facts from tokens alone
  std::string source_sha256;           // of the text analysed: stamps the fixes of cross-file findings
};

} // namespace retrylint
