// The C++ front end: Clang finds the loops (and constants) in the user's file; the facts inside a
// loop are read from its tokens, because with headers missing Clang drops statements that name
// unknown things (an `if (st.ok())` on an invalid `st` vanishes from the AST) while the tokens stay.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/extract/yaml_util.h"

namespace retrylint::cpp {

// ---- tokens (tokens.cpp) ----
// Identifiers longer than this are not names (kind Other): nothing matches them (std::regex would
// recurse over every character of a hostile megabyte-long one).
constexpr size_t kMaxNameLength = 512;
struct Tok {
  enum Kind { Ident, Punct, Number, String, Char, Other } kind = Other;
  std::string text;
  size_t offset = 0, length = 0;
};

// The file's tokens, comments and preprocessor directives left out.
class Tokens {
public:
  explicit Tokens(std::string_view text);
  const std::vector<Tok> &all() const { return toks_; }
  size_t size() const { return toks_.size(); }
  // Past the end: an empty token (kind Other, text ""), so lookahead such as `t[j + 2]` in the
  // analyses can never read out of bounds (fuzz_cpp_tokens found such a read).
  const Tok &operator[](size_t i) const {
    static const Tok none;
    return i < toks_.size() ? toks_[i] : none;
  }
  bool is(size_t i, std::string_view t) const { return i < toks_.size() && toks_[i].text == t; }
  // Index of the token starting at `offset`, or npos.
  size_t at(size_t offset) const;
  // For an opening ( [ {: the index of its match (or size() when unbalanced).
  size_t close(size_t open) const;
  // For a closing ) ] }: the index of its opening match (or size() when unbalanced).
  size_t opening(size_t close) const;
  // End (exclusive) of the statement starting at i, as C++ nests them.
  size_t statementEnd(size_t i) const;
  std::string join(size_t b, size_t e) const; // tokens b..e-1 joined by spaces, for messages
private:
  std::vector<Tok> toks_;
  std::vector<int> match_;
};

bool isIdent(const Tok &t);
// The words that say a name is about retrying, as a regular expression to be searched case
// blind: retry, retries, retried, retrying, retriable, retrier, retransmit. Not a bare "retr", which `retrieve()`
// and `ExploreTreeNode()` ("explo-retr-ee") also hold.
inline constexpr const char *kRetryWords = "retr(y|ies|ied|ying|iable|ier|ans)";
// The same test without a regex, for a name already lower-cased (called per identifier).
inline bool speaksOfRetrying(std::string_view lowered) {
  for (size_t at = lowered.find("retr"); at != std::string_view::npos; at = lowered.find("retr", at + 1)) {
    const std::string_view rest = lowered.substr(at + 4);
    for (std::string_view w : {"y", "ies", "ied", "ying", "iable", "ier", "ans"})
      if (rest.substr(0, w.size()) == w) return true;
  }
  return false;
}
std::string lower(std::string_view s);
bool containsI(std::string_view hay, std::string_view needle); // case-insensitive

// ---- loops (loops.cpp) ----
struct LoopSite {
  size_t keyword_offset = 0;            // `for` / `while` / `do`
  size_t fn_begin = 0, fn_end = 0;      // the enclosing function body (byte offsets)
};

// What Clang's semantic analysis knows about a name in the user's file, where it resolved it
// (headers found): a variable's or an expression's type, a call's callee. Absent when the name
// is unresolved (missing headers): the analyses then read the tokens alone.
struct Typed {
  std::string type;          // fully qualified, canonical: "bool", "std::error_code", "Aws::Client::ClientConfiguration"
  std::string callee;        // for a call: the callee's qualified name, "std::this_thread::sleep_for"
  bool const_method = false; // the callee is a const member function (asks, does not act)
  bool no_return = false;    // the callee never returns (abort, LOG(FATAL)'s helper)
};

struct FileFacts {
  std::vector<LoopSite> loops;
  std::map<std::string, long long> constants; // integral constants Clang could evaluate
  // By the main-file offset of a name token: variable declarations and references (their type)
  // and calls (the callee's name token: return type and callee).
  std::map<size_t, Typed> typed;
  // Integral values Clang evaluated for the operands of comparisons (a loop bound behind a macro
  // or an enum): by the offsets of the operand's first and last tokens.
  std::map<std::pair<size_t, size_t>, long long> values;
  bool full_types = false; // every #include was found: Clang saw the whole translation unit
  // Function and lambda bodies Clang kept ([begin, end) offsets): loops in them that Clang
  // dropped (a condition naming an undeclared macro) are found from the tokens.
  std::vector<std::pair<size_t, size_t>> functions;
};

// Turn each retry loop into a RetryPolicy (everything below works on tokens).
void analyseLoops(const Tokens &toks, const FileFacts &facts, ExtractContext &cx);

// ---- shared pieces of the loop analysis ----
struct Range { size_t b = 0, e = 0; }; // token indices [b, e)

// The statements of a block `{ … }`, or the single statement r (tokens.cpp).
std::vector<Range> statementsOf(const Tokens &t, Range r);
// For a `{` that opens like a body, `… ( params ) quals {`: the index of the `(`; npos for a
// block after if/for/while/switch/catch or anything else (tokens.cpp).
size_t functionParams(const Tokens &t, size_t brace);

struct LoopView {
  const Tokens &t;
  Range header, body;          // header: inside the parentheses; body: the statement
  Range fn;                    // the enclosing function body
  std::string counter;         // attempt counter variable, if any
  std::vector<std::string> derived; // variables computed from the counter inside the loop
  std::map<std::string, long long> constants;
  const FileFacts *facts = nullptr;
  // flow.cpp: what a true condition says about the retried operation, and whether a range
  // refers to it (its calls or the variables holding its result).
  std::function<bool(Range)> refersToOp;
  // `while (!connect()) { … }`: the body runs only after a failed attempt.
  bool body_after_failure = false;
  // A delay read through an accessor that takes nothing and names a duration
  // (`owner_->reconnect_interval()`) is a setting, fixed across attempts. Set where the cycle
  // is known to be a retry (rearms.cpp); a loop's accessor may be a poll's period.
  bool accessor_settings = false;
};

// ---- success and failure (flow.cpp) ----
enum class Outcome { Unknown, Success, Failure };
// What it means for the operation when `cond` is true: `st.ok()`, `!ec`, `rc == 0`, `conn !=
// nullptr`, `status < 400` say it succeeded; `!ok`, `ec`, `rc < 0`, `code == UNAVAILABLE`,
// `IsRetryable(st)` say it failed. Only the parts of the condition that refersToOp accepts count;
// types from Clang (bool, int, std::error_code) decide a bare name where they are known.
Outcome conditionOutcome(const Tokens &t, Range cond, const std::function<bool(Range)> &refersToOp,
                         const FileFacts *facts);
Outcome flip(Outcome o);
// A name that speaks of a result: ok, success, connected, ec, err, failed, IsTimedOut, ECONNREFUSED (flow.cpp).
bool statusName(std::string_view name);

// loops.cpp: the qualified name of the function whose body opens at token `fnBrace` ("" when
// none), and the advisory mark of retries in test code.
std::string functionName(const Tokens &t, size_t fnBrace);
void markTestCode(const ExtractContext &cx, const std::string &function, RetryPolicy &p);
// The fields a retry written in code has none of (no per-try timeout, deadline, budget or rate
// limit to read; attempts counted, not a field), and its count unknown until read (loops.cpp).
void setCodePolicyFields(RetryPolicy &p);
// recursion.cpp: a function that calls itself again after a failure, with its own arguments and
// a flag or count (`return Acquire(x, /*retry_allowed=*/false);` in a catch): a retry.
void analyseRecursion(const Tokens &t, const FileFacts &facts, ExtractContext &cx);

// macros.cpp: retry loops written in #define bodies, each analysed on its own.
void analyseMacroLoops(std::string_view text, ExtractContext &cx);

// wait.cpp: the wait between attempts.
void analyseWait(const LoopView &lv, ExtractContext &cx, RetryPolicy &p);
// The schedule of the delay expression `delay` (its variables followed through lv.fn; the counter
// and lv.derived are the attempt count): growth, start, jitter, cap and, for RL105, the order of
// the random term and the cap. `callSpan` is where the schedule is reported; `sleepName` the sleep
// that takes it ("" for a calculator's return value), whose unit a bare number is read in.
void analyseDelay(const LoopView &lv, ExtractContext &cx, RetryPolicy &p, Range delay, Span callSpan,
                  const std::string &sleepName);

// A function by its tokens: `name ( params ) quals {` (tokens.cpp).
struct Function {
  std::string name;            // the last component: Acquire for Lease::Acquire
  std::vector<std::string> params;
  std::vector<bool> boolParam; // declared bool
  Range body;                  // { … }
  size_t brace = 0;
  size_t name_index = 0;       // the name's token
};
std::vector<Function> functionsOf(const Tokens &t);

// calculators.cpp: functions that compute the next delay of a retry schedule (a backoff's
// `next()`, `delay_before_retry(attempt)`), analysed where they are written, whoever calls them.
void analyseCalculators(const Tokens &t, const FileFacts &facts, ExtractContext &cx);
// The function's name as messages show it: qualified where it is defined outside its class.
std::string shownName(const Tokens &t, const Function &f);
// A schedule with no attempts of its own, where `what` ("calculator", "timer") is found in the
// function `f`: how often it is used is its callers' to say (RetryPolicy::schedule_only).
RetryPolicy schedulePolicy(const Tokens &t, ExtractContext &cx, const Function &f, const std::string &what,
                           const std::string &component, Span where, std::map<std::string, int> &perFunction);
// rearms.cpp: retries carried by the event loop instead of a loop: a timer re-armed with a delay
// that grows, and an operation re-issued on failure from its completion or error callback (with
// or without a timer between), found as a cycle through the file's functions.
void analyseRearms(const Tokens &t, const FileFacts &facts, ExtractContext &cx);
// gates.cpp: re-attempts gated by the time since the last failure (`if (millis() - lastFail_ >=
// interval) { if (!connect()) lastFail_ = millis(); }`), repeated by whoever calls the function.
void analyseTimeGates(const Tokens &t, const FileFacts &facts, ExtractContext &cx);
// Token i is inside a lambda's body within `body` (rearms.cpp).
bool insideLambda(const Tokens &t, Range body, size_t i);
// logs.cpp: log calls in the loop and its catch blocks.
void findLogs(const LoopView &lv, ExtractContext &cx, RetryPolicy &p);

// The arguments of the call whose `(` is at `open`, as token ranges (wait.cpp).
std::vector<Range> callArgs(const Tokens &t, size_t open);
// A name that denotes a random source: rand, std::mt19937, uniform_int_distribution, jitter … (wait.cpp).
bool isRandomSource(std::string_view name);
// A call before the loop (in [before.b, before.e)) that sleeps for a random time: each caller
// starts at a phase of its own (wait.cpp).
bool randomWaitIn(const Tokens &t, Range before);
// A helper or macro named like a wait: Backoff(), WaitBeforeRetry(), RETRY_SLEEP() (wait.cpp).
bool isWaitName(std::string_view name);
// A sleep or timed wait: sleep_for, usleep, absl::SleepFor, Sleep (wait.cpp).
bool isSleep(std::string_view name);
// The first duration written in r: 100ms, std::chrono::milliseconds(100), absl::Seconds(1) (wait.cpp).
std::optional<Duration> firstDuration(const Tokens &t, Range r);

// ---- library configuration in code (config.cpp) ----
// AWS SDK for C++ retry strategies and ClientConfiguration timeouts; gRPC service configs in
// string literals (read by the gRPC service-config extractor, positions mapped into the file).
void analyseConfig(const Tokens &toks, const FileFacts &facts, ExtractContext &cx);

// An operation on a local resource (an in-process queue, an allocation, a local subprocess, the
// local file system): retrying it loads nothing remote (loops.cpp).
bool isLocalOperation(std::string_view name);
// A clock read: steady_clock::now, gettimeofday, clock_gettime, cpuwide_time_us, GetTickCount,
// gettick_ms (loops.cpp). It measures; it is never the retried operation.
bool isClockName(std::string_view name);

Span spanOf(const ExtractContext &cx, const Tokens &t, size_t b, size_t e);
// Names of variables read in [r.b, r.e) (identifiers not followed by `(` and not after . -> ::).
bool mentions(const Tokens &t, Range r, std::string_view name);
// Where `name` is declared or assigned in the function: the token ranges of its initialisers,
// assignments and compound assignments (op is "=", "*=", "<<=", "+=" …).
struct Write { Range value; std::string op; size_t name_index; bool declared; };
std::vector<Write> writesOf(const Tokens &t, Range scope, std::string_view name);

} // namespace retrylint::cpp
