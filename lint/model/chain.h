// One declared call chain with the policies of every layer, and the figures computed from it once
// for the rules and reports: attempts per layer (and where each number comes from), the calls
// each layer makes per user request, and the worst-case time of one call into a layer.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lint/model/policy.h"

namespace retrylint {

struct ChainLayer {
  std::string name;
  bool owns_retries = false;
  std::vector<std::string> files;            // files of this layer holding retry policies, sorted
  std::vector<const RetryPolicy *> policies; // sorted by path, line, column
};

// What one layer contributes to its chain.
struct LayerFigures {
  const RetryPolicy *worst = nullptr; // the policy with the most attempts (nullptr: no policy counts)
  bool unbounded = false;             // a policy retries without limit (RL201)
  int attempts = 1;                   // worst attempts per call into this layer; 1 = no retry policy
  std::string attempts_origin;        // "written", "defaulted", "no retry policy", "unbounded"
  std::string attempts_source;        // "attempts: 2 (fixtures/…:12)" or the library default's source
  std::optional<double> calls;        // calls this layer makes per user request (product down to it); nullopt = unbounded
  std::optional<Duration> worst_time; // one call into this layer when every attempt times out; nullopt = unknown
  std::string time_arithmetic;        // "3 x 1 s + 0.2 s backoff = 3.2 s"
  const RetryPolicy *time_policy = nullptr; // the policy behind worst_time
  std::optional<Duration> deadline;   // the largest overall deadline among the layer's policies
  // The limit a caller in this layer puts on one call to the layer below: its per-try timeout,
  // else its overall deadline; nullopt when some policy has neither (or there is no policy).
  std::optional<Duration> limit_below;
  std::string limit_below_text;       // "per-try timeout 1 s (path:9)"
};

struct Chain {
  std::vector<ChainLayer> layers; // outermost first
  int line = 0;                   // where the chain is declared in .retrylint.yaml
  // One per layer, computed once when the chain is made (makeChain) and read by RL204, RL301,
  // the layers report, `simulate` and `review`.
  std::vector<LayerFigures> figures;
  std::string title() const;      // "gateway > orders-service > datastore-client"
};

// A chain of these layers (outermost first) declared at `line`, its figures computed.
Chain makeChain(std::vector<ChainLayer> layers, int line);

// "path:line" of a span, for messages that point at another file.
std::string placeOf(const Span &s);
// "3 x 1 s per try + 0.2 s backoff = 3.2 s" for one policy whose attempt takes `perAttempt`.
std::optional<Duration> worstCaseTime(const RetryPolicy &p, std::optional<Duration> below, std::string *arithmetic);

} // namespace retrylint
