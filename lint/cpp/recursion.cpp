// Retries written as recursion: a function that, after a failure (in a catch handler or a
// failure branch), calls itself again with its own arguments and a flag or a count:
//
//   } catch (const RequestFailedException &e) {
//     if (retry_allowed) return AcquireLease(location, duration, /*retry_allowed=*/false);
//
// A call that passes anything else (a child node, the next item) is a walk, not a retry.
#include <regex>
#include <set>

#include "lint/cpp/cpp_frontend.h"

namespace retrylint::cpp {
namespace {

constexpr std::string_view kFormat = "cpp";


// The argument as the parameter it passes on: `x`, `std::move(x)`; or "" when it is something else.
std::string passedParam(const Tokens &t, Range a) {
  if (a.e == a.b + 1 && isIdent(t[a.b]) && t[a.b].text != "true" && t[a.b].text != "false" &&
      t[a.b].text != "nullptr")
    return t[a.b].text;
  if (a.e == a.b + 6 && t[a.b].text == "std" && t.is(a.b + 1, "::") && t[a.b + 2].text == "move" && isIdent(t[a.b + 4]))
    return t[a.b + 4].text;
  return "";
}

} // namespace

void analyseRecursion(const Tokens &t, const FileFacts &facts, ExtractContext &cx) {
  (void)facts;
  std::map<std::string, int> perFunction;
  for (const Function &f : functionsOf(t)) {
    if (f.params.empty()) continue;
    // Handlers and branches inside the body, innermost last: where each recursive call stands.
    for (size_t c = f.body.b + 1; c + 1 < f.body.e; ++c) {
      if (!isIdent(t[c]) || t[c].text != f.name || !t.is(c + 1, "(")) continue;
      if (t.is(c - 1, ".") || (t.is(c - 1, "->") && !t.is(c - 2, "this"))) continue;
      // A call in a lambda runs later, from a callback or a timer: rearms.cpp reads that cycle.
      if (insideLambda(t, f.body, c)) continue;
      // `return MediaSourceEvent::getOriginUrl(sender);` inside MediaSourceEventInterceptor's
      // override: the base class's method of the same name, a fallback, not this function again.
      if (c >= 2 && t.is(c - 1, "::") && isIdent(t[c - 2])) {
        const std::string own = functionName(t, f.brace); // Class::name where defined outside the class
        const size_t sep = own.rfind("::");
        const std::string ownClass = sep == std::string::npos ? "" : own.substr(0, sep);
        const std::string ownLast = ownClass.substr(ownClass.rfind("::") == std::string::npos ? 0 : ownClass.rfind("::") + 2);
        if (t[c - 2].text != ownLast) continue;
      }
      auto args = callArgs(t, c + 1);
      if (args.empty() || args.size() > f.params.size()) continue;
      // Every argument passes its own parameter on, or is a literal or a step of it.
      bool same = true, changed = false;
      int boolFlag = -1;
      bool counts = false;
      for (size_t k = 0; k < args.size() && same; ++k) {
        Range a = args[k];
        std::string p = passedParam(t, a);
        if (!p.empty()) {
          if (p != f.params[k]) same = false;
          continue;
        }
        changed = true;
        if (a.e == a.b + 1 && (t[a.b].text == "false" || t[a.b].text == "true")) {
          if (f.boolParam[k]) boolFlag = static_cast<int>(k);
          continue;
        }
        if (a.e == a.b + 3 && t[a.b].text == f.params[k] && (t.is(a.b + 1, "-") || t.is(a.b + 1, "+")) &&
            t[a.b + 2].kind == Tok::Number) {
          counts = true;
          continue;
        }
        if (a.e == a.b + 2 && ((t.is(a.b, "--") || t.is(a.b, "++")) && t[a.b + 1].text == f.params[k])) {
          counts = true;
          continue;
        }
        same = false;
      }
      if (!same) continue;
      // After a failure: inside a catch handler, or a branch whose condition is not the function's
      // plain entry (a guard `if (retry_allowed)` alone is not a failure; a handler is).
      size_t handler = SIZE_MAX;
      Range handlerDecl{0, 0};
      for (size_t j = f.body.b; j < c; ++j)
        if (t.is(j, "catch") && t.is(j + 1, "(")) {
          size_t hb = t.close(j + 1) + 1;
          if (t.is(hb, "{") && hb < c && c < t.close(hb)) {
            handler = j;
            handlerDecl = {j + 2, t.close(j + 1)};
          }
        }
      // A failure branch tests what an earlier call in the function returned: `st = ch.Write(m);
      // if (!st.ok() …)`. A member or a parameter tested alone is state, not a failure.
      bool failureBranch = false;
      if (handler == SIZE_MAX) {
        std::set<std::string> results;
        for (size_t j = f.body.b + 1; j + 2 < c; ++j)
          if (isIdent(t[j]) && t.is(j + 1, "=") && isIdent(t[j + 2]) && !t.is(j - 1, ".") && !t.is(j - 1, "->"))
            for (size_t k = j + 2; k < t.statementEnd(j) && k + 1 < c; ++k)
              if (isIdent(t[k]) && t.is(k + 1, "(")) { results.insert(t[j].text); break; }
        auto testsResult = [&](Range r) {
          for (const auto &v : results) if (mentions(t, r, v)) return true;
          return false;
        };
        for (size_t j = f.body.b; j < c; ++j) {
          if (!t.is(j, "if") || !t.is(j + 1, "(")) continue;
          size_t thenB = t.close(j + 1) + 1, thenE = t.statementEnd(thenB);
          if (!(thenB <= c && c < thenE)) continue;
          Range cond{j + 2, t.close(j + 1)};
          if (testsResult(cond) && conditionOutcome(t, cond, testsResult, &facts) == Outcome::Failure) failureBranch = true;
        }
      }
      if (handler == SIZE_MAX && !failureBranch) continue;

      RetryPolicy p;
      p.format = std::string(kFormat);
      std::string fname = functionName(t, f.brace);
      if (fname.empty()) fname = f.name;
      int index = perFunction[fname]++;
      p.component = "retry by recursion in " + fname + "()";
      p.anchor = "cpp/" + fname + "/recursion[" + std::to_string(index) + "]";
      p.where = spanOf(cx, t, c, c + 1);
      markTestCode(cx, fname, p);
      // What the function tests is what fails: when every call its conditions test is on a local
      // resource (mkdir, stat), the retry loads nothing remote. Advice, as for loops.
      if (!p.advisory) {
        static const std::set<std::string_view> accessor = {"c_str", "data", "size", "empty", "length", "get"};
        bool any = false, allLocal = true;
        for (size_t j = f.body.b; j + 1 < f.body.e; ++j) {
          if (!(t.is(j, "if") || t.is(j, "while")) || !t.is(j + 1, "(")) continue;
          for (size_t k = j + 2, e = t.close(j + 1); k < e; ++k)
            if (isIdent(t[k]) && t.is(k + 1, "(") && t[k].text != f.name && !accessor.count(t[k].text)) {
              any = true;
              allLocal &= isLocalOperation(t[k].text);
            }
        }
        if (any && allLocal) {
          p.advisory = true;
          p.used_by = "a local resource: nothing remote takes the retries";
        }
      }
      p.attempts_field = ""; // no field: "2 attempts"
      p.attempts_count_retries = false;
      p.per_try_timeout.origin = Origin::NotApplicable;
      p.overall_deadline.origin = Origin::NotApplicable;
      p.budget.origin = Origin::NotApplicable;
      p.adaptive_rate_limit.origin = Origin::NotApplicable;
      if (boolFlag >= 0) { // retry_allowed = false on the second call: one retry
        p.max_attempts = written(std::optional<int>(2), spanOf(cx, t, args[boolFlag].b, args[boolFlag].e));
      } else if (counts) {
        p.max_attempts.origin = Origin::Unknown; // counted down or up: bounded by a guard this reads
      } else if (!changed && handler != SIZE_MAX) {
        p.max_attempts = written(std::optional<int>(), spanOf(cx, t, c, c + 1)); // the same call, again and again
      } else {
        p.max_attempts.origin = Origin::Unknown;
      }
      // The wait before the call, in the same handler or branch: only that it exists is read.
      size_t from = handler != SIZE_MAX ? handler : f.body.b;
      bool waits = false;
      for (size_t j = from; j < c; ++j)
        if (isIdent(t[j]) && t.is(j + 1, "(") && isWaitName(t[j].text)) waits = true;
      Backoff &b = p.backoff;
      b.description = "the wait before the recursive call";
      if (waits) {
        b.growth.origin = Origin::Unknown;
      } else {
        b.growth = written(Growth::NoWait, p.where);
        b.jitter.origin = b.cap.origin = Origin::NotApplicable;
      }
      if (handler != SIZE_MAX) {
        Condition cond;
        cond.kind = Condition::Kind::ErrorName;
        cond.where = spanOf(cx, t, handler, handlerDecl.e + 1);
        std::string decl = t.join(handlerDecl.b, handlerDecl.e);
        cond.text = "catch (" + decl + ")";
        cond.catch_all = decl == "..." || decl.find("std :: exception") != std::string::npos ||
                         decl == "const exception &" || decl == "exception &";
        p.retry_on.push_back(std::move(cond));
      }
      cx.model.policies.push_back(std::move(p));
    }
  }
}

} // namespace retrylint::cpp
