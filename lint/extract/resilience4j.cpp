// Resilience4j retry in Spring Boot configuration (application.yml / .properties):
// resilience4j.retry.configs.<name>, .instances.<name> (legacy alias .backends.<name>).
//
// Field facts: resilience4j/resilience4j resilience4j-framework-common
// CommonRetryConfigurationProperties.java, resilience4j-retry RetryConfig.java, resilience4j-core
// IntervalFunction.java; aspect order: resilience4j-spring-boot*/RetryConfigurationProperties
// (retryAspectOrder) and CircuitBreakerConfigurationProperties (circuitBreakerAspectOrder).
// See docs/formats.md §7.
//
// Which blocks are policies: every instance that writes a retry setting of its own or shares its
// name with a circuit breaker instance; an instance that only names a baseConfig (or nothing) is
// the same retry as that config, so it is folded into the config's policy. `configs.default` is
// always a policy: it applies to every @Retry name without an instance. A named config is a policy
// when an instance takes a value from it; one that no instance uses is only checked for invalid
// values (RL901): which code uses it is not visible.
//
// One finding per cause: a policy whose chain has a base leaves Unknown what it takes from the
// base (attempts, backoff, retried exceptions: each decided by the fields of one concern), so the
// finding is reported once, at the base block that writes it (or, for a library default, the last
// block of the chain), and says which instances use that block.
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>

#include "lint/extract/extractors.h"
#include "lint/extract/spring_tree.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "resilience4j";

// RetryConfig.DEFAULT_MAX_ATTEMPTS = 3, counting the first call (resilience4j-retry RetryConfig.java).
constexpr int kDefaultMaxAttempts = 3;
constexpr const char *kMaxAttemptsSource = "Resilience4j default maxAttempts 3, the first call included (resilience4j-retry RetryConfig.java DEFAULT_MAX_ATTEMPTS)";
// RetryConfig.DEFAULT_WAIT_DURATION = 500 ms, fixed (RetryConfig.java).
constexpr double kDefaultWaitMs = 500;
constexpr const char *kWaitSource = "Resilience4j default waitDuration 500 ms (resilience4j-retry RetryConfig.java DEFAULT_WAIT_DURATION)";
constexpr const char *kFixedSource = "Resilience4j default: a fixed wait unless enableExponentialBackoff is true (CommonRetryConfigurationProperties.java)";
// IntervalFunction.DEFAULT_MULTIPLIER = 1.5 when exponential backoff is on and no multiplier is set.
constexpr double kDefaultMultiplier = 1.5;
constexpr const char *kMultiplierSource = "Resilience4j default exponentialBackoffMultiplier 1.5 (resilience4j-core IntervalFunction.java DEFAULT_MULTIPLIER)";
constexpr const char *kCapSource = "Resilience4j: no exponentialMaxWaitDuration, so the exponential wait is uncapped (CommonRetryConfigurationProperties.java)";
// CommonRetryConfigurationProperties.configureExponentialBackoff / ...AndRandomizedWait (the same
// from 1.7.1 to 2.4.0 and main, checked at resilience4j/resilience4j af9e7c9): the max wait is passed
// to IntervalFunction only when exponentialBackoffMultiplier is set and, with enableRandomizedWait,
// randomizedWaitFactor too; otherwise the function is built without it and the wait is uncapped.
// randomizedWaitFactor is not merged from a base config (ConfigUtils.mergePropertiesIfAny merges
// the two enable flags, the multiplier and the max wait only): the block with waitDuration decides.
constexpr const char *kCapIgnoredSource = "Resilience4j ignores exponentialMaxWaitDuration unless exponentialBackoffMultiplier (and, with enableRandomizedWait, randomizedWaitFactor) is set (CommonRetryConfigurationProperties.java)";
// RL105: IntervalFunction.ofExponentialRandomBackoff(initial, multiplier, randomizationFactor,
// maxInterval) returns Math.min(randomize(interval), maxInterval): the draw, uniform on
// interval * [1 - f, 1 + f], is made before the cap (resilience4j-core IntervalFunction.java,
// unchanged from 1.7.1 to 2.4.0 and main af9e7c9).
constexpr const char *kOrderSource = "Resilience4j's IntervalFunction.ofExponentialRandomBackoff returns Math.min(randomize(interval), maxInterval)";
constexpr const char *kOrderInstead =
    "set an IntervalFunction in code that draws over the capped wait, random(0, min(exponentialMaxWaitDuration, "
    "waitDuration x multiplier^(retry-1))): the Spring properties cannot express that order";
// IntervalFunction.DEFAULT_RANDOMIZATION_FACTOR = 0.5 when randomized wait is on and no factor is set.
constexpr double kDefaultRandomFactor = 0.5;
constexpr const char *kJitterSource = "Resilience4j default: no randomized wait unless enableRandomizedWait is true (CommonRetryConfigurationProperties.java)";
constexpr const char *kCatchAllSource = "Resilience4j: with no retryExceptions every Throwable is retried (RetryConfig.java retryExceptions empty)";
// Aspect order: Ordered.LOWEST_PRECEDENCE - 5 for Retry, - 4 for CircuitBreaker in 2.x
// (- 4 / - 3 in 1.x): the lower value is the outer Spring advice, so Retry wraps CircuitBreaker.
constexpr long long kLowest = 2147483647LL;
constexpr long long kDefaultRetryOrder = kLowest - 5;
constexpr long long kDefaultBreakerOrder = kLowest - 4;
constexpr const char *kCapFixValue = "30s";

const std::set<std::string> &retryFields() {
  static const std::set<std::string> f = [] {
    std::set<std::string> s;
    for (auto n : {"maxAttempts", "maxRetryAttempts", "waitDuration", "enableExponentialBackoff", "exponentialBackoffMultiplier",
                   "exponentialMaxWaitDuration", "enableRandomizedWait", "randomizedWaitFactor", "retryExceptions",
                   "ignoreExceptions", "retryExceptionPredicate", "resultPredicate", "retryOnResultPredicate",
                   "intervalFunction", "intervalBiFunction", "failAfterMaxAttempts"})
      s.insert(relaxedName(n));
    return s;
  }();
  return f;
}

// The fields that decide one concern of a policy: a block that writes none of them takes the
// concern whole from its base config.
enum Concern { kAttempts, kBackoff, kExceptions, kConcerns };
const std::vector<std::string> &concernFields(int c) {
  static const std::vector<std::vector<std::string>> f = [] {
    std::vector<std::vector<std::string>> out(kConcerns);
    for (auto n : {"maxAttempts"}) out[kAttempts].push_back(relaxedName(n));
    for (auto n : {"waitDuration", "enableExponentialBackoff", "exponentialBackoffMultiplier", "exponentialMaxWaitDuration",
                   "enableRandomizedWait", "randomizedWaitFactor", "intervalFunction", "intervalBiFunction"})
      out[kBackoff].push_back(relaxedName(n));
    for (auto n : {"retryExceptions", "ignoreExceptions", "retryExceptionPredicate"}) out[kExceptions].push_back(relaxedName(n));
    return out;
  }();
  return f[static_cast<size_t>(c)];
}

bool writes(const SpringNode &block, int concern) {
  const auto &fields = concernFields(concern);
  for (const auto &c : block.children)
    if (!c.isNull() && std::find(fields.begin(), fields.end(), relaxedName(c.key)) != fields.end()) return true;
  return false;
}

struct Block {
  std::string kind; // "instances" or "configs"
  std::string name;
  const SpringNode *node = nullptr;
  std::string label() const { return kind + "." + name; }
};

struct Found {
  const SpringNode *value = nullptr;
  const Block *block = nullptr;
  explicit operator bool() const { return value != nullptr; }
};

Found find(const std::vector<const Block *> &chain, std::string_view field) {
  for (const Block *b : chain)
    if (const SpringNode *v = child(*b->node, field); v && !v->isNull()) return {v, b};
  return {};
}

// Exception classes and what they say about the failures retried.
struct ExceptionFact {
  bool catchAll = false;
  int lo = 0, hi = -1; // HTTP statuses
};

int nestedStatus(std::string_view nested) {
  static const std::map<std::string_view, int> codes = {
      {"BadRequest", 400}, {"Unauthorized", 401}, {"Forbidden", 403}, {"NotFound", 404}, {"MethodNotAllowed", 405},
      {"NotAcceptable", 406}, {"Conflict", 409}, {"Gone", 410}, {"UnsupportedMediaType", 415},
      {"UnprocessableEntity", 422}, {"UnprocessableContent", 422}, {"TooManyRequests", 429},
      {"InternalServerError", 500}, {"NotImplemented", 501}, {"BadGateway", 502}, {"ServiceUnavailable", 503},
      {"GatewayTimeout", 504}};
  auto it = codes.find(nested);
  return it == codes.end() ? 0 : it->second;
}

// "org.springframework.web.client.HttpClientErrorException$NotFound" -> outer and nested names.
std::pair<std::string, std::string> className(const std::string &fqcn) {
  std::string cls = fqcn;
  size_t start = 0, pos = 0;
  while ((pos = fqcn.find('.', start)) != std::string::npos) {
    if (std::isupper(static_cast<unsigned char>(fqcn[start]))) break;
    start = pos + 1;
  }
  cls = fqcn.substr(start);
  std::replace(cls.begin(), cls.end(), '.', '$');
  size_t d = cls.find('$');
  if (d == std::string::npos) return {cls, ""};
  return {cls.substr(0, d), cls.substr(d + 1)};
}

ExceptionFact classify(const std::string &fqcn) {
  ExceptionFact f;
  if (fqcn == "java.lang.Exception" || fqcn == "java.lang.Throwable" || fqcn == "java.lang.RuntimeException") {
    f.catchAll = true;
    return f;
  }
  auto [outer, nested] = className(fqcn);
  static const std::set<std::string> genericHttp = {"RestClientException", "RestClientResponseException", "HttpStatusCodeException",
                                                    "WebClientException", "WebClientResponseException", "FeignException"};
  if (nested.empty() && genericHttp.count(outer)) {
    f.catchAll = true;
    return f;
  }
  if (outer == "HttpClientErrorException" && nested.empty()) {
    f.lo = 400;
    f.hi = 499;
  } else if (outer == "HttpServerErrorException" && nested.empty()) {
    f.lo = 500;
    f.hi = 599;
  } else if (!nested.empty() && (outer == "HttpClientErrorException" || outer == "HttpServerErrorException" ||
                                 outer == "WebClientResponseException" || outer == "FeignException")) {
    if (int code = nestedStatus(nested)) f.lo = f.hi = code;
  }
  return f;
}

bool listed(const std::vector<SpringItem> &items, std::string_view fqcn) {
  auto [outer, nested] = className(std::string(fqcn));
  for (const auto &i : items) {
    auto [o, n] = className(i.text);
    if (i.text == fqcn || (o == outer && (n.empty() || n == nested))) return true;
  }
  return false;
}

// Leaves a concern Unknown in a policy, so that no rule reports it there.
void forget(RetryPolicy &p, int concern) {
  Backoff &b = p.backoff;
  switch (concern) {
  case kAttempts:
    p.max_attempts.origin = Origin::Unknown; // the count stays for the other rules' arithmetic
    p.max_attempts.fix.reset();
    break;
  case kBackoff:
    b.growth.origin = b.jitter.origin = Origin::Unknown;
    b.jitter_order.origin = Origin::Unknown;
    b.cap.origin = Origin::Unknown;
    b.growth.fix.reset();
    b.jitter.fix.reset();
    b.cap.fix.reset();
    break;
  case kExceptions: p.retry_on.clear(); break;
  }
}

class Resilience4j {
public:
  Resilience4j(const SpringNode &root, ExtractContext &cx) : root_(root), cx_(cx) {}

  void run() {
    const SpringNode *retry = at(root_, "resilience4j.retry");
    if (!retry || retry->isNull()) return;
    if (!retry->isMap()) throw TypeError(retry->where, "resilience4j.retry must be a map");
    collect(child(*retry, "configs"), "configs", configs_);
    collect(child(*retry, "instances"), "instances", instances_);
    collect(child(*retry, "backends"), "instances", instances_);
    // Indexes, so that a file with many configs and instances costs linear time.
    for (const Block &b : configs_) configByName_.emplace(b.name, &b);
    for (auto path : {"resilience4j.circuitbreaker.instances", "resilience4j.circuitbreaker.backends"})
      if (const SpringNode *m = at(root_, path); m && m->isMap())
        for (const auto &c : m->children) breakerByName_.emplace(c.key, &c);
    size_t problemsBefore = cx_.model.problems.size();

    // Instances: their own policy, or folded into the config they are a copy of.
    std::map<std::string, std::vector<std::string>> users; // config -> instances that take a value from it
    std::map<std::string, std::array<bool, kConcerns>> taken; // config -> the concerns some instance takes from it
    for (const Block &inst : instances_) {
      try {
        auto chain = chainOf(inst);
        // The configs this instance takes a concern from: each base up to the one that writes
        // the last concern the blocks before it leave out.
        bool left[kConcerns];
        for (int c = 0; c < kConcerns; ++c) left[c] = !writes(*inst.node, c);
        for (size_t k = 1; k < chain.size(); ++k) {
          if (std::none_of(left, left + kConcerns, [](bool b) { return b; })) break;
          auto &u = users[chain[k]->name];
          if (std::find(u.begin(), u.end(), inst.name) == u.end()) u.push_back(inst.name);
          auto &t = taken.try_emplace(chain[k]->name, std::array<bool, kConcerns>{}).first->second;
          for (int c = 0; c < kConcerns; ++c) t[c] = t[c] || left[c];
          for (int c = 0; c < kConcerns; ++c) left[c] = left[c] && !writes(*chain[k]->node, c);
        }
        bool own = false;
        for (const auto &c : inst.node->children) own |= retryFields().count(relaxedName(c.key)) > 0;
        const SpringNode *breaker = breakerFor(inst.name);
        if (!own && !breaker && chain.size() > 1) continue; // folded into chain[1]'s policy
        build(inst, chain, {});
      } catch (const TypeError &e) {
        cx_.error(e);
      }
    }
    for (const Block &cfg : configs_) {
      try {
        auto chain = chainOf(cfg);
        bool used = cfg.name == "default" || users.count(cfg.name);
        RetryPolicy p = policyOf(cfg, chain, users[cfg.name]);
        // A named config's values that every instance overrides are not used: not reported.
        if (cfg.name != "default" && taken.count(cfg.name))
          for (int c = 0; c < kConcerns; ++c)
            if (!taken[cfg.name][c]) forget(p, c);
        if (!users[cfg.name].empty()) {
          const auto &u = users[cfg.name];
          p.used_by = cfg.label() + " is used by instance" + (u.size() > 1 ? "s " : " ");
          for (size_t i = 0; i < u.size() && i < 10; ++i) p.used_by += (i ? ", " : "") + u[i];
          if (u.size() > 10) p.used_by += " and " + std::to_string(u.size() - 10) + " more";
        }
        if (used) cx_.model.policies.push_back(std::move(p));
      } catch (const TypeError &e) {
        cx_.error(e);
      }
    }
    // The same value read through several chains is reported once.
    auto &pr = cx_.model.problems;
    std::set<std::tuple<int, int, std::string>> seen;
    pr.erase(std::remove_if(pr.begin() + static_cast<long>(problemsBefore), pr.end(),
                            [&](const ConfigProblem &p) { return !seen.insert({p.where.line, p.where.column, p.message}).second; }),
             pr.end());
  }

private:
  const SpringNode &root_;
  ExtractContext &cx_;
  std::vector<Block> configs_, instances_;
  std::unordered_map<std::string, const Block *> configByName_;       // the first of each name
  std::unordered_map<std::string, const SpringNode *> breakerByName_; // instances, then backends

  void collect(const SpringNode *map, const std::string &kind, std::vector<Block> &out) {
    if (!map || map->isNull()) return;
    if (!map->isMap()) throw TypeError(map->where, "resilience4j.retry." + kind + " must be a map of names");
    for (const auto &c : map->children) {
      if (c.isNull()) continue;
      if (!c.isMap()) {
        cx_.error(TypeError(c.where, "resilience4j.retry." + kind + "." + c.key + " must be a map of retry settings"));
        continue;
      }
      out.push_back(Block{kind, c.key, &c});
    }
  }

  const Block *config(const std::string &name) const {
    auto it = configByName_.find(name);
    return it == configByName_.end() ? nullptr : it->second;
  }

  // The block, the configs it names through baseConfig, then configs.default (merged into every
  // retry, CommonRetryConfigurationProperties.createRetryConfig).
  std::vector<const Block *> chainOf(const Block &start) {
    std::vector<const Block *> chain{&start};
    const Block *cur = &start;
    while (const SpringNode *base = child(*cur->node, "baseConfig")) {
      std::string name = springString(*base, cur->label() + ".baseConfig");
      const Block *next = config(name);
      if (!next) {
        cx_.problem(base->where, cur->label() + ".baseConfig names '" + name + "', which is not under resilience4j.retry.configs: Resilience4j throws ConfigurationNotFoundException at startup",
                    "resilience4j.retry/" + cur->kind + "/" + cur->name + "/baseConfig");
        break;
      }
      if (std::find(chain.begin(), chain.end(), next) != chain.end()) {
        cx_.problem(base->where, cur->label() + ".baseConfig '" + name + "' makes a cycle of base configs: the retry cannot be configured",
                    "resilience4j.retry/" + cur->kind + "/" + cur->name + "/baseConfig");
        break;
      }
      chain.push_back(next);
      cur = next;
    }
    if (const Block *def = config("default"); def && std::find(chain.begin(), chain.end(), def) == chain.end()) chain.push_back(def);
    return chain;
  }

  const SpringNode *breakerFor(const std::string &name) const {
    auto it = breakerByName_.find(name);
    return it == breakerByName_.end() ? nullptr : it->second;
  }

  void build(const Block &owner, const std::vector<const Block *> &chain, const std::vector<std::string> &users) {
    cx_.model.policies.push_back(policyOf(owner, chain, users));
  }

  std::optional<Duration> duration(const Found &f, const std::string &field) {
    if (f.value->isMap()) {
      cx_.problem(f.value->where, f.block->label() + "." + field + " is written as a map (e.g. 'seconds: 2'): Resilience4j does not read that form and uses its default",
                  "resilience4j.retry/" + f.block->kind + "/" + f.block->name + "/" + field);
      return std::nullopt;
    }
    std::string text = springString(*f.value, f.block->label() + "." + field);
    std::string err;
    auto d = parseSpringDuration(text, &err);
    if (!d) {
      cx_.problem(f.value->where, f.block->label() + "." + field + ": " + err + ": Spring Boot fails to bind the property and the application does not start",
                  "resilience4j.retry/" + f.block->kind + "/" + f.block->name + "/" + field);
      return std::nullopt;
    }
    if (d->nanos < 0) {
      cx_.problem(f.value->where, f.block->label() + "." + field + " " + text + " is negative: Resilience4j rejects it",
                  "resilience4j.retry/" + f.block->kind + "/" + f.block->name + "/" + field);
      return std::nullopt;
    }
    return d;
  }

  std::string anchorOf(const Found &f, std::string_view field) const {
    return "resilience4j.retry/" + f.block->kind + "/" + f.block->name + "/" + std::string(field);
  }

  RetryPolicy policyOf(const Block &owner, const std::vector<const Block *> &chain, const std::vector<std::string> &users) {
    RetryPolicy p;
    p.format = std::string(kFormat);
    p.component = "Resilience4j retry " + owner.label();
    if (!users.empty()) {
      p.component += " (used by instance";
      p.component += users.size() > 1 ? "s " : " ";
      for (size_t i = 0; i < users.size(); ++i) p.component += (i ? ", " : "") + users[i];
      p.component += ")";
    }
    p.anchor = "resilience4j.retry/" + owner.kind + "/" + owner.name;
    p.where = owner.node->keyWhere;
    p.attempts_field = "maxAttempts";
    p.attempts_count_retries = false;
    const Span key = p.where;

    // Attempts.
    if (Found f = find(chain, "maxRetryAttempts"))
      cx_.problem(f.value->keyWhere, f.block->label() + ".maxRetryAttempts was removed in Resilience4j 2.0 and is ignored: write maxAttempts (attempts including the first call)",
                  anchorOf(f, "maxRetryAttempts"));
    p.max_attempts = defaulted(std::optional<int>(kDefaultMaxAttempts), key, kMaxAttemptsSource);
    if (Found f = find(chain, "maxAttempts")) {
      long long n = springInt(*f.value, f.block->label() + ".maxAttempts");
      if (n == 0) {
        cx_.problem(f.value->where, f.block->label() + ".maxAttempts 0 is treated as not set: the default of 3 attempts applies", anchorOf(f, "maxAttempts"));
      } else if (n < 0) {
        cx_.problem(f.value->where, f.block->label() + ".maxAttempts " + std::to_string(n) + " must be at least 1: Resilience4j rejects the configuration", anchorOf(f, "maxAttempts"));
      } else {
        p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(n, 1'000'000))), f.value->where);
      }
    }

    // Backoff.
    Backoff &b = p.backoff;
    Found wait = find(chain, "waitDuration");
    std::optional<Duration> base;
    if (wait) base = duration(wait, "waitDuration");
    if (base) b.initial = written(base, wait.value->where);
    else b.initial = defaulted(std::optional<Duration>(Duration::ms(kDefaultWaitMs)), key, kWaitSource);
    bool hasWait = base.has_value();

    bool exponential = false;
    Found expo = find(chain, "enableExponentialBackoff");
    if (expo) exponential = springBool(*expo.value, expo.block->label() + ".enableExponentialBackoff");
    if (exponential && !hasWait) {
      cx_.problem(expo.value->where, expo.block->label() + ".enableExponentialBackoff is ignored without a waitDuration: Resilience4j keeps the fixed 500 ms wait",
                  anchorOf(expo, "enableExponentialBackoff"));
      exponential = false;
    }
    bool randomized = false;
    Found rnd = find(chain, "enableRandomizedWait");
    if (rnd) randomized = springBool(*rnd.value, rnd.block->label() + ".enableRandomizedWait");
    if (randomized && !hasWait) {
      cx_.problem(rnd.value->where, rnd.block->label() + ".enableRandomizedWait is ignored without a waitDuration: Resilience4j keeps the fixed 500 ms wait",
                  anchorOf(rnd, "enableRandomizedWait"));
      randomized = false;
    }

    if (base && base->nanos == 0) {
      b.growth = written(Growth::NoWait, wait.value->where);
    } else if (exponential) {
      b.growth = written(Growth::Exponential, expo.value->where);
      b.multiplier = defaulted(kDefaultMultiplier, key, kMultiplierSource);
      if (Found m = find(chain, "exponentialBackoffMultiplier")) {
        double v = springNumber(*m.value, m.block->label() + ".exponentialBackoffMultiplier");
        if (v <= 0) cx_.problem(m.value->where, m.block->label() + ".exponentialBackoffMultiplier must be greater than 0: Resilience4j rejects it", anchorOf(m, "exponentialBackoffMultiplier"));
        else b.multiplier = written(v, m.value->where);
      }
      if (b.multiplier.value == 1.0) b.growth = written(Growth::Constant, b.multiplier.where);
      if (Found c = find(chain, "exponentialMaxWaitDuration")) {
        if (auto d = duration(c, "exponentialMaxWaitDuration")) {
          bool multiplierSet = find(chain, "exponentialBackoffMultiplier").value != nullptr;
          bool factorSet = wait && find({wait.block}, "randomizedWaitFactor");
          if (multiplierSet && (!randomized || factorSet)) {
            b.cap = written(std::optional<Duration>(d), c.value->where);
          } else {
            std::string missing = multiplierSet ? "randomizedWaitFactor" : randomized && !factorSet ? "exponentialBackoffMultiplier and randomizedWaitFactor" : "exponentialBackoffMultiplier";
            cx_.problem(c.value->where, c.block->label() + ".exponentialMaxWaitDuration is ignored: Resilience4j applies the maximum only when " + missing +
                                            (missing.find(" and ") != std::string::npos ? " are" : " is") + " also set" +
                                            (randomized && !factorSet && find(chain, "randomizedWaitFactor") ? " (randomizedWaitFactor in the block with waitDuration: it is not inherited)" : "") +
                                            ", so the wait grows without limit",
                        anchorOf(c, "exponentialMaxWaitDuration"));
            b.cap = defaulted(std::optional<Duration>(), key, kCapIgnoredSource);
          }
        }
      } else {
        b.cap = defaulted(std::optional<Duration>(), key, kCapSource);
        if (auto e = addEntry(cx_.src, *owner.node, "exponentialMaxWaitDuration", kCapFixValue))
          b.cap.fix = Fix{"cap the wait with exponentialMaxWaitDuration: 30s", {*e}};
      }
    } else {
      b.growth = expo ? written(Growth::Constant, expo.value->where) : defaulted(Growth::Constant, key, kFixedSource);
      b.cap.origin = Origin::NotApplicable;
    }

    if (randomized) {
      double factor = kDefaultRandomFactor;
      Span where = rnd.value->where;
      if (Found f = wait ? find({wait.block}, "randomizedWaitFactor") : Found{}) {
        double v = springNumber(*f.value, f.block->label() + ".randomizedWaitFactor");
        if (v < 0 || v >= 1)
          cx_.problem(f.value->where, f.block->label() + ".randomizedWaitFactor must be in [0, 1): Resilience4j rejects it", anchorOf(f, "randomizedWaitFactor"));
        else {
          factor = v;
          where = f.value->where;
        }
      }
      b.jitter = written(factor > 0 ? Jitter::Proportional : Jitter::None, where);
      b.jitter_upper = 1.0 + factor;
      b.jitter_lower = 1.0 - factor;
      if (exponential && factor > 0 && b.cap.written() && b.cap.value) {
        b.jitter_order = builtIn(JitterOrder::BeforeCap, b.cap.where, kOrderSource);
        b.full_jitter_instead = kOrderInstead;
      }
    } else if (rnd) {
      b.jitter = written(Jitter::None, rnd.value->where);
      b.jitter.fix = Fix{"set enableRandomizedWait to true", {cx_.src.replace(rnd.value->where, "true")}};
    } else {
      b.jitter = defaulted(Jitter::None, key, kJitterSource);
      if (auto e = addEntry(cx_.src, *owner.node, "enableRandomizedWait", "true"))
        b.jitter.fix = Fix{"add enableRandomizedWait: true", {*e}};
    }
    b.description = "Resilience4j " + std::string(exponential ? "exponential" : "fixed") + " wait";

    // What is retried.
    std::vector<SpringItem> ignored;
    if (Found f = find(chain, "ignoreExceptions")) ignored = listItems(cx_, *f.value, f.block->label() + ".ignoreExceptions");
    std::vector<SpringItem> retried;
    Found rx = find(chain, "retryExceptions");
    if (rx) retried = listItems(cx_, *rx.value, rx.block->label() + ".retryExceptions");
    bool predicate = find(chain, "retryExceptionPredicate").value != nullptr;
    bool catchAll = false;
    for (const SpringItem &item : retried) {
      ExceptionFact fact = classify(item.text);
      Condition c;
      c.kind = Condition::Kind::ErrorName;
      c.text = item.text;
      c.where = item.where;
      c.catch_all = fact.catchAll;
      catchAll |= fact.catchAll;
      if (fact.lo <= fact.hi && !listed(ignored, item.text)) {
        c.kind = Condition::Kind::HttpStatus;
        c.http_lo = fact.lo;
        c.http_hi = fact.hi;
      }
      p.retry_on.push_back(std::move(c));
    }
    if (retried.empty() && !predicate) {
      Condition c;
      c.kind = Condition::Kind::ErrorName;
      c.text = ignored.empty() ? "every exception (no retryExceptions)" : "every exception but ignoreExceptions (no retryExceptions)";
      c.catch_all = true;
      c.origin = Origin::Defaulted;
      c.where = rx ? rx.value->where : key;
      c.why_processed = kCatchAllSource;
      catchAll = true;
      p.retry_on.push_back(std::move(c));
    }

    // RL601: a circuit breaker instance of the same name (annotations pair them by name). A shared
    // config is paired when every instance using it has one (breaker_stops_retries only: RL601 is
    // the instances' own).
    std::vector<std::string> paired;
    if (owner.kind == "instances") {
      if (breakerFor(owner.name)) paired.push_back(owner.name);
    } else if (!users.empty() &&
               std::all_of(users.begin(), users.end(), [&](const std::string &u) { return breakerFor(u) != nullptr; })) {
      paired = users;
    }
    if (!paired.empty()) {
      long long retryOrder = kDefaultRetryOrder, breakerOrder = kDefaultBreakerOrder;
      Span orderWhere = key;
      const SpringNode *ro = at(root_, "resilience4j.retry.retryAspectOrder");
      const SpringNode *bo = at(root_, "resilience4j.circuitbreaker.circuitBreakerAspectOrder");
      if (ro) retryOrder = springInt(*ro, "resilience4j.retry.retryAspectOrder");
      if (bo) breakerOrder = springInt(*bo, "resilience4j.circuitbreaker.circuitBreakerAspectOrder");
      if (ro) orderWhere = ro->where;
      else if (bo) orderWhere = bo->where;
      // Spring AOP: the lower order value is the outer advice.
      bool outside = retryOrder < breakerOrder;
      std::string explanation = !ro && !bo ? "Resilience4j's default aspect order Retry(CircuitBreaker(...))"
                                           : "retryAspectOrder " + std::to_string(retryOrder) + " < circuitBreakerAspectOrder " +
                                                 std::to_string(breakerOrder) + ", and the lower order is the outer aspect";
      const std::string rejection = "io.github.resilience4j.circuitbreaker.CallNotPermittedException";
      bool ignoredRejection = listed(ignored, rejection);
      bool retriesRejection = !predicate && !ignoredRejection && (retried.empty() || catchAll || listed(retried, rejection));
      std::string names;
      for (size_t i = 0; i < paired.size(); ++i)
        names += (i ? (i + 1 == paired.size() ? "' and '" : "', '") : "'") + paired[i];
      names += "'";
      if (!predicate && owner.kind == "instances") {
        BreakerComposition bc;
        bc.retry_outside_breaker = outside;
        bc.retries_open_circuit = retriesRejection;
        bc.where = orderWhere;
        bc.explanation = explanation + "; circuit breaker instance " + names;
        p.breaker = bc;
      }
      if (!predicate && outside && !retriesRejection)
        p.breaker_stops_retries = paired.size() > 1
                                      ? "the circuit breakers " + names + " open: the retry asks them before every attempt (" +
                                            explanation + ") and does not retry their rejection"
                                      : "the circuit breaker " + names + " opens: the retry asks it before every attempt (" +
                                            explanation + ") and does not retry its rejection";
    }
    // What this block takes whole from its base is reported at the base, once (see the top).
    if (chain.size() > 1)
      for (int c = 0; c < kConcerns; ++c)
        if (!writes(*owner.node, c)) forget(p, c);
    // Nothing in this dialect sets a per-try timeout, a deadline or a budget (TimeLimiter and
    // HTTP client timeouts live elsewhere): those rules stay quiet.
    return p;
  }
};

bool recognise(const yaml::Node &doc) { return doc.IsMap() && yamlHasPath(doc, "resilience4j.retry"); }

bool recogniseText(const SourceFile &src) {
  return recogniseSpringProperties(src) && src.text().find("resilience4j.retry.") != std::string::npos;
}

void extract(const yaml::Node &doc, ExtractContext &cx) { extractSpringTree(springTreeFromYaml(doc, cx), cx); }

} // namespace

bool hasResilience4jRetry(const SpringNode &root) { return at(root, "resilience4j.retry") != nullptr; }

void resilience4jFromTree(const SpringNode &root, ExtractContext &cx) { Resilience4j(root, cx).run(); }

namespace {
const Extractor &resilience4jExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"resilience4j"},
      .recogniseText = recogniseText,
      .extractText = extractSpringProperties,
      .priority = 110,
      .prefilter_words = {"resilience4j"},
      .retry_keys = {"retry"},
      .file_kinds = {".properties"},
  };
  return e;
}
const ExtractorRegistration registered(&resilience4jExtractor);
} // namespace

} // namespace retrylint
