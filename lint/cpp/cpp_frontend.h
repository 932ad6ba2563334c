// The C++ front end: Clang finds the loops (and constants) in the user's file; the facts inside a
// loop are read from its tokens, because with headers missing Clang drops statements that name
// unknown things (an `if (st.ok())` on an invalid `st` vanishes from the AST) while the tokens stay.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/extract/yaml_util.h"

namespace retrylint::cpp {

// ---- tokens (tokens.cpp) ----
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
  // End (exclusive) of the statement starting at i, as C++ nests them.
  size_t statementEnd(size_t i) const;
  std::string join(size_t b, size_t e) const; // tokens b..e-1 joined by spaces, for messages
private:
  std::vector<Tok> toks_;
  std::vector<int> match_;
};

bool isIdent(const Tok &t);
std::string lower(std::string_view s);
bool containsI(std::string_view hay, std::string_view needle); // case-insensitive

// ---- loops (loops.cpp) ----
struct LoopSite {
  size_t keyword_offset = 0;            // `for` / `while` / `do`
  size_t fn_begin = 0, fn_end = 0;      // the enclosing function body (byte offsets)
};

struct FileFacts {
  std::vector<LoopSite> loops;
  std::map<std::string, long long> constants; // integral constants Clang could evaluate
};

// Turn each retry loop into a RetryPolicy (everything below works on tokens).
void analyseLoops(const Tokens &toks, const FileFacts &facts, ExtractContext &cx);

// ---- shared pieces of the loop analysis ----
struct Range { size_t b = 0, e = 0; }; // token indices [b, e)

struct LoopView {
  const Tokens &t;
  Range header, body;          // header: inside the parentheses; body: the statement
  Range fn;                    // the enclosing function body
  std::string counter;         // attempt counter variable, if any
  std::vector<std::string> derived; // variables computed from the counter inside the loop
  std::map<std::string, long long> constants;
};

// wait.cpp: the wait between attempts.
void analyseWait(const LoopView &lv, ExtractContext &cx, RetryPolicy &p);
// logs.cpp: log calls in the loop and its catch blocks.
void findLogs(const LoopView &lv, ExtractContext &cx, RetryPolicy &p);

// The arguments of the call whose `(` is at `open`, as token ranges (wait.cpp).
std::vector<Range> callArgs(const Tokens &t, size_t open);
// A name that denotes a random source: rand, std::mt19937, uniform_int_distribution, jitter … (wait.cpp).
bool isRandomSource(std::string_view name);

// ---- library configuration in code (config.cpp) ----
// AWS SDK for C++ retry strategies and ClientConfiguration timeouts; gRPC service configs in
// string literals (read by the gRPC service-config extractor, positions mapped into the file).
void analyseConfig(const Tokens &toks, const FileFacts &facts, ExtractContext &cx);

Span spanOf(const ExtractContext &cx, const Tokens &t, size_t b, size_t e);
// Names of variables read in [r.b, r.e) (identifiers not followed by `(` and not after . -> ::).
bool mentions(const Tokens &t, Range r, std::string_view name);
// Where `name` is declared or assigned in the function: the token ranges of its initialisers,
// assignments and compound assignments (op is "=", "*=", "<<=", "+=" …).
struct Write { Range value; std::string op; size_t name_index; bool declared; };
std::vector<Write> writesOf(const Tokens &t, Range scope, std::string_view name);

} // namespace retrylint::cpp
