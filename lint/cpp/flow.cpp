// Success and failure: what a condition in a loop says about the operation the loop issues.
// A retry loop leaves when the operation succeeded and goes round when it failed; a consumer,
// server or periodic loop goes round after success too. Telling the two apart needs the
// polarity of the conditions that test the operation's result: `if (st.ok()) return st;` leaves
// on success (a retry), `if (!st.ok()) return st;` leaves on failure (the error is passed up,
// the loop goes on with the next item).
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

// Names that say "it worked" when true: ok(), IsOk(), is_ok, success, succeeded, good(),
// connected, has_value(), kOk, OK, S_OK, SUCCESS, NO_ERROR.
bool successWord(std::string_view name) {
  static const std::regex re("^(k_?)?(ok|is_?ok|success|succeeded|is_?success|good|connected|has_?value|"
                             "s_ok|no_?error|noerror|done|ready|complete|completed|sent|acquired|locked|valid)$",
                             std::regex::icase);
  return std::regex_match(name.begin(), name.end(), re);
}

// Names that say "it failed" when true: ec, err, error, failed, IsError, is_retryable,
// ShouldRetry, bad(), fail(), and error codes: UNAVAILABLE, EAGAIN, TIMEOUT …
bool failureWord(std::string_view name) {
  static const std::regex re(
      "^(k_?)?(ec|err|errc|error|errno|failed|failure|fail|bad|is_?error|has_?error|is_?err|is_?fail(ed|ure)?|"
      "is_?retr(y|i)able|should_?retry|retr(y|i)able|retry|try_?again|again|need_?retry|transient|is_?transient|timed_?out|is_?timeout|"
      "unavailable|e?again|e?intr|ewouldblock|busy|timeout|deadline_?exceeded|resource_?exhausted|aborted|"
      "internal|unknown|cancell?ed|econnrefused|econnreset|etimedout)$",
      std::regex::icase);
  return std::regex_match(name.begin(), name.end(), re);
}

// Status accessors that name a failure: IsCapacityError(), IsTimedOut(), IsNotFound(),
// IsServiceUnavailable(), is_connection_error, HasError.
bool failureQuestion(std::string_view name) {
  static const std::regex re("^(is|has)_?.*(error|fail|timed_?out|timeout|unavailable|incomplete|not_?found|aborted|busy|"
                             "conflict|exhausted|invalid|illegal|corrupt|refused|reset|denied|cancel|closed|exception)",
                             std::regex::icase);
  return std::regex_search(name.begin(), name.end(), re);
}

// An error constant: CURLE_SEND_ERROR, ERROR_WINHTTP_RESEND_REQUEST, E_FAIL, ECONNREFUSED.
bool errorConstant(std::string_view name) {
  static const std::regex re("^[A-Z0-9_]*(ERROR|ERR_|_ERR$|FAIL|TIMEOUT|TIMED_OUT|UNAVAILABLE|REFUSED|RESET|AGAIN|BUSY|ABORT)[A-Z0-9_]*$");
  return std::regex_match(name.begin(), name.end(), re);
}

bool isRelOp(std::string_view s) { return s == "<" || s == "<=" || s == ">" || s == ">=" || s == "!=" || s == "=="; }

// The token that names an operand: `st.ok()` -> ok, `ns::kOk` -> kOk, `rc` -> rc (the call's
// arguments skipped); npos when the operand does not end in a name.
size_t nameOf(const Tokens &t, Range r) {
  size_t e = r.e;
  while (e > r.b && t.is(e - 1, ")")) {
    size_t o = t.opening(e - 1);
    if (o >= e - 1 || o < r.b) break;
    e = o; // before the call's arguments
  }
  return e > r.b && isIdent(t[e - 1]) ? e - 1 : std::string::npos;
}

std::string lastName(const Tokens &t, Range r) {
  size_t n = nameOf(t, r);
  return n == std::string::npos ? "" : t[n].text;
}

// The type Clang gave the operand's name (a variable reference or a call), or "".
std::string typeOf(const Tokens &t, Range r, const FileFacts *facts) {
  size_t n = nameOf(t, r);
  if (!facts || n == std::string::npos) return "";
  auto it = facts->typed.find(t[n].offset);
  return it == facts->typed.end() ? "" : it->second.type;
}

bool numberIs(const Tok &k, long long &v) {
  if (k.kind != Tok::Number) return false;
  try {
    v = std::stoll(k.text, nullptr, 0);
    return true;
  } catch (...) { return false; }
}

Outcome atomOutcome(const Tokens &t, Range r, const FileFacts *facts) {
  // Leading negations and the parentheses around the whole atom.
  bool negate = false;
  for (;;) {
    if (r.b < r.e && t.is(r.b, "!")) { negate = !negate; ++r.b; continue; }
    if (r.b < r.e && t.is(r.b, "(") && t.close(r.b) == r.e - 1) { ++r.b; --r.e; continue; }
    break;
  }
  if (r.b >= r.e) return Outcome::Unknown;
  // PREDICT_FALSE(x), BAIDU_LIKELY(x), __builtin_expect(x, 0): the condition is x.
  if (isIdent(t[r.b]) && t.is(r.b + 1, "(") && t.close(r.b + 1) == r.e - 1) {
    std::string l = lower(t[r.b].text);
    if (l.find("likely") != std::string::npos || l.rfind("predict_", 0) == 0 || l == "__builtin_expect") {
      size_t e = r.e - 1;
      for (size_t i = r.b + 2; i < r.e - 1; ++i) {
        if (t.is(i, "(") || t.is(i, "[") || t.is(i, "{")) { i = t.close(i); continue; }
        if (t.is(i, ",")) { e = i; break; }
      }
      Outcome inner = atomOutcome(t, {r.b + 2, e}, facts);
      return negate ? flip(inner) : inner;
    }
  }
  Outcome o = Outcome::Unknown;
  // A comparison at the top level.
  size_t rel = r.e;
  for (size_t i = r.b; i < r.e; ++i) {
    if (t.is(i, "(") || t.is(i, "[") || t.is(i, "{")) { i = t.close(i); continue; }
    if (isRelOp(t[i].text)) { rel = i; break; }
  }
  if (rel < r.e) {
    std::string op = t[rel].text;
    Range lhs{r.b, rel}, rhs{rel + 1, r.e};
    long long n = 0;
    // A zero duration is a zero: milliseconds(0), std::chrono::seconds{0}, 0ms, Duration::zero().
    auto zeroDuration = [&](Range x) {
      static const std::regex zeroLiteral("^0+(ns|us|ms|s|min|h)$");
      if (x.e == x.b + 1) return std::regex_match(t[x.b].text, zeroLiteral);
      if (x.e >= x.b + 3 && (t.is(x.e - 1, ")") || t.is(x.e - 1, "}")) && t.is(x.e - 2, "0") &&
          (t.is(x.e - 3, "(") || t.is(x.e - 3, "{")))
        return true;
      return x.e >= x.b + 3 && t.is(x.e - 1, ")") && t.is(x.e - 2, "(") && (t[x.e - 3].text == "zero" || t[x.e - 3].text == "Zero");
    };
    bool numRight = (rhs.e == rhs.b + 1 && numberIs(t[rhs.b], n));
    if (!numRight && zeroDuration(rhs)) {
      numRight = true;
      n = 0;
    }
    bool negRight = rhs.e == rhs.b + 2 && t.is(rhs.b, "-") && numberIs(t[rhs.b + 1], n);
    if (negRight) n = -n;
    bool numLeft = false;
    if (!numRight && !negRight && lhs.e == lhs.b + 1 && numberIs(t[lhs.b], n)) {
      numLeft = true;
      std::swap(lhs, rhs);
      op = op == "<" ? ">" : op == ">" ? "<" : op == "<=" ? ">=" : op == ">=" ? "<=" : op;
    }
    const std::string subject = lower(lastName(t, lhs));
    if (numRight || negRight || numLeft) {
      const bool http = n >= 100 && n <= 599 && (subject.find("status") != std::string::npos || subject.find("code") != std::string::npos);
      if (http) {
        auto ok = [](long long c) { return c >= 200 && c < 400; };
        if (op == "==") o = ok(n) ? Outcome::Success : Outcome::Failure;
        else if (op == "!=") o = ok(n) ? Outcome::Failure : Outcome::Unknown;
        else if (op == "<" || op == "<=") o = n <= 400 ? Outcome::Success : Outcome::Unknown;
        else if (op == ">" || op == ">=") o = n >= 400 ? Outcome::Failure : Outcome::Unknown;
      } else if (n == 0 && std::regex_search(subject, std::regex("len|size|count|bytes|read|written|^n$|^nr$|^nw$"))) {
        o = Outcome::Unknown; // a length: 0 is the end of the data, not success or failure
      } else if (n == 0) {
        if (op == "==" || op == ">=") o = Outcome::Success; // rc == 0, written >= 0
        else if (op == "!=" || op == "<") o = Outcome::Failure;
        else if (op == ">") o = Outcome::Success;             // bytes > 0
      } else if (n == -1) {
        o = op == "==" ? Outcome::Failure : op == "!=" ? Outcome::Success : Outcome::Unknown;
      }
    } else {
      const std::string other = lastName(t, rhs);
      if (other == "EOF" || other == "WEOF") {
        // `(c = getopt(…)) != EOF`, `(ch = getc(f)) != EOF`: a value came, the loop goes on with the next.
        o = op == "!=" ? Outcome::Success : Outcome::Unknown;
      } else if (other == "nullptr" || other == "NULL") {
        o = op == "==" ? Outcome::Failure : op == "!=" ? Outcome::Success : Outcome::Unknown;
      } else if (other == "true" || other == "false") {
        Outcome bare = atomOutcome(t, lhs, facts);
        if ((op == "==") == (other == "false")) bare = flip(bare);
        o = (op == "==" || op == "!=") ? bare : Outcome::Unknown;
      } else if (!other.empty() && (op == "==" || op == "!=")) {
        Outcome named = successWord(other)                             ? Outcome::Success
                        : failureWord(other) || errorConstant(other) ? Outcome::Failure
                                                                     : Outcome::Unknown;
        // `code == UNAVAILABLE` fails; `code != EAGAIN` is everything else: leaving on it leaves on success.
        if (named == Outcome::Failure && op == "!=") o = Outcome::Success;
        else if (named == Outcome::Success && op == "!=") o = Outcome::Failure;
        else o = named;
      }
    }
  } else {
    // A bare name or call: true means it worked, unless the name or the type says error.
    const std::string name = lastName(t, r);
    const std::string type = typeOf(t, r, facts);
    static const std::regex ambiguous("^(rc|ret|retval|res|result|r|status|st|s|code|rv|n)$", std::regex::icase);
    if (name.empty()) o = Outcome::Unknown;
    else if (failureWord(name) || failureQuestion(name)) o = Outcome::Failure;
    else if (successWord(name)) o = Outcome::Success;
    else if (type.find("error_code") != std::string::npos || type.find("error_condition") != std::string::npos ||
             type == "std::exception_ptr")
      o = Outcome::Failure; // an error code is true when there is an error
    else if (type == "int" || type == "long" || type == "ssize_t" || type == "long long")
      o = Outcome::Failure; // a C status: nonzero is an error
    else if (type.empty() && std::regex_match(name, ambiguous))
      o = Outcome::Unknown; // `if (rc)`: a C status or a bool, the tokens cannot tell
    else o = Outcome::Success; // bool, a pointer, an optional, a connection handle
  }
  return negate ? flip(o) : o;
}

} // namespace

bool statusName(std::string_view name) {
  return successWord(name) || failureWord(name) || failureQuestion(name) || errorConstant(name);
}

Outcome flip(Outcome o) {
  return o == Outcome::Success ? Outcome::Failure : o == Outcome::Failure ? Outcome::Success : o;
}

Outcome conditionOutcome(const Tokens &t, Range cond, const std::function<bool(Range)> &refersToOp,
                         const FileFacts *facts) {
  // The top-level parts of `a && b || c`: each part that tests the operation votes; they must agree.
  std::vector<Range> atoms;
  size_t b = cond.b;
  // Strip one outer negation of a parenthesised whole: !(a && b) is read as the negation of its parts' vote.
  bool negateAll = false;
  if (cond.b + 1 < cond.e && t.is(cond.b, "!") && t.is(cond.b + 1, "(") && t.close(cond.b + 1) == cond.e - 1) {
    negateAll = true;
    cond = {cond.b + 2, cond.e - 1};
    b = cond.b;
  }
  for (size_t i = cond.b; i < cond.e; ++i) {
    if (t.is(i, "(") || t.is(i, "[") || t.is(i, "{")) { i = t.close(i); continue; }
    if (t.is(i, "?")) return Outcome::Unknown;
    if (t.is(i, "&&") || t.is(i, "||")) {
      atoms.push_back({b, i});
      b = i + 1;
    }
  }
  atoms.push_back({b, cond.e});
  // A part whose polarity is unknown abstains (`rc != CURLE_UNSUPPORTED_PROTOCOL && rc !=
  // CURLE_SEND_ERROR`); parts that disagree make the whole unknown.
  Outcome vote = Outcome::Unknown;
  bool any = false;
  for (Range a : atoms) {
    if (a.b >= a.e || !refersToOp(a)) continue;
    Outcome o = atomOutcome(t, a, facts);
    if (o == Outcome::Unknown) continue;
    if (any && o != vote) return Outcome::Unknown;
    vote = o;
    any = true;
  }
  return negateAll ? flip(vote) : vote;
}

} // namespace retrylint::cpp
