// Spring Cloud Gateway `Retry` GatewayFilter in Spring Boot configuration: the filters of
// spring.cloud.gateway[.server.webflux].routes[] and default-filters, in full form
// (`name: Retry` + `args`) and shortcut form (`Retry=3,INTERNAL_SERVER_ERROR,GET,...`).
//
// Field facts: spring-cloud/spring-cloud-gateway spring-cloud-gateway-server-webflux/.../
// RetryGatewayFilterFactory.java and docs/.../gatewayfilter-factories/retry-factory.adoc.
// See docs/formats.md §8.
//
// Spring Cloud Gateway Server MVC (spring.cloud.gateway.server.webmvc.routes[] / routes-map, and
// spring.cloud.gateway.mvc.* before 4.3) has a `Retry` filter of its own with other semantics:
// spring-cloud-gateway-server-webmvc .../server/mvc/filter/RetryFilterFunctions.java (RetryConfig,
// BackoffConfig, @Shortcut({"retries", "series", "methods"})) and FrameworkRetryFilterFunctions.java,
// the implementation used unless Spring Retry is on the classpath (then GatewayRetryFilterFunctions,
// deprecated, where `retries` is Spring Retry's maxAttempts and no backoff means no wait).
#include <algorithm>
#include <map>

#include "lint/extract/extractors.h"
#include "lint/extract/spring_tree.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "spring-cloud-gateway";

// RetryConfig defaults (RetryGatewayFilterFactory.java): retries 3 (retries, not attempts),
// series SERVER_ERROR, methods GET, exceptions IOException + TimeoutException, no backoff.
constexpr int kDefaultRetries = 3;
constexpr const char *kRetriesSource = "Spring Cloud Gateway default retries 3 (RetryGatewayFilterFactory.java RetryConfig.retries)";
constexpr const char *kSeriesSource = "Spring Cloud Gateway default series SERVER_ERROR (RetryGatewayFilterFactory.java)";
constexpr const char *kMethodsSource = "Spring Cloud Gateway default methods GET (RetryGatewayFilterFactory.java)";
constexpr const char *kExceptionsSource = "Spring Cloud Gateway default exceptions IOException, TimeoutException (RetryGatewayFilterFactory.java)";
constexpr const char *kNoBackoffSource = "Spring Cloud Gateway: no backoff unless a backoff block is set (RetryGatewayFilterFactory.java RetryConfig.backoff null)";
// BackoffConfig defaults: firstBackoff 5 ms, maxBackoff none, factor 2, basedOnPreviousValue true.
constexpr double kDefaultFirstBackoffMs = 5;
constexpr const char *kFirstBackoffSource = "Spring Cloud Gateway default backoff.firstBackoff 5 ms (RetryGatewayFilterFactory.java BackoffConfig)";
constexpr int kDefaultFactor = 2;
constexpr const char *kFactorSource = "Spring Cloud Gateway default backoff.factor 2 (RetryGatewayFilterFactory.java BackoffConfig)";
constexpr const char *kCapSource = "Spring Cloud Gateway: no backoff.maxBackoff, so the wait is uncapped (RetryGatewayFilterFactory.java BackoffConfig)";
// JitterConfig.randomFactor 0.5 when a jitter block is present (added in 4.1.7).
constexpr double kDefaultRandomFactor = 0.5;
constexpr const char *kJitterSource = "Spring Cloud Gateway: no jitter unless a jitter block is set (RetryGatewayFilterFactory.java JitterConfig)";

// Server MVC (RetryFilterFunctions.java RetryConfig / BackoffConfig; FrameworkRetryFilterFunctions.java).
// retries 3, counted as retries: CompositeRetryPolicy.shouldRetry stops once attemptCount >= retries.
constexpr const char *kMvcRetriesSource = "Spring Cloud Gateway Server MVC default retries 3 (RetryFilterFunctions.java RetryConfig.retries)";
constexpr const char *kMvcMethodsSource = "Spring Cloud Gateway Server MVC default methods GET (RetryFilterFunctions.java RetryConfig)";
// No backoff block: FrameworkRetryFilterFunctions uses RetryPolicy.withDefaults().getBackOff(), Spring
// Framework 7's FixedBackOff(DEFAULT_DELAY 1000 ms, DEFAULT_MAX_RETRIES 3).
constexpr double kMvcDefaultDelayMs = 1000;
constexpr int kMvcDefaultBackoffRetries = 3;
constexpr const char *kMvcNoBackoffSource =
    "Spring Cloud Gateway Server MVC without a backoff block waits Spring Framework's default fixed 1 s "
    "(FrameworkRetryFilterFunctions.java: RetryPolicy.withDefaults().getBackOff(), FixedBackOff 1000 ms)";
constexpr const char *kMvcBackoffRetriesSource =
    "without a backoff block Spring Framework's default FixedBackOff stops after 3 retries (FrameworkRetryFilterFunctions.java)";
// BackoffConfig: firstBackoff 5 ms, factor 2, maxBackoff null; validate(): firstBackoff >= 1 ms,
// factor > 1, maxBackoff > firstBackoff. A null maxBackoff leaves the 30 s maximum of Spring
// Framework's ExponentialBackOff (DEFAULT_MAX_INTERVAL 30000; Spring Retry's ExponentialBackOffPolicy
// has the same default).
constexpr double kMvcDefaultMaxBackoffMs = 30000;
constexpr const char *kMvcFirstBackoffSource = "Spring Cloud Gateway Server MVC default backoff.firstBackoff 5 ms (RetryFilterFunctions.java BackoffConfig)";
constexpr const char *kMvcFactorSource = "Spring Cloud Gateway Server MVC default backoff.factor 2 (RetryFilterFunctions.java BackoffConfig)";
constexpr const char *kMvcCapSource =
    "Spring Cloud Gateway Server MVC without backoff.maxBackoff keeps ExponentialBackOff's default maximum of 30 s (FrameworkRetryFilterFunctions.java createBackOff)";
constexpr const char *kMvcNoJitterSource =
    "Spring Cloud Gateway Server MVC has no jitter setting: its Retry backoff takes only firstBackoff, maxBackoff and factor "
    "(RetryFilterFunctions.java BackoffConfig)";

struct SeriesInfo { std::string_view name; int lo, hi; };
const std::vector<SeriesInfo> &seriesTable() {
  static const std::vector<SeriesInfo> t = {{"INFORMATIONAL", 100, 199}, {"SUCCESSFUL", 200, 299}, {"REDIRECTION", 300, 399},
                                            {"CLIENT_ERROR", 400, 499}, {"SERVER_ERROR", 500, 599}};
  return t;
}

// org.springframework.http.HttpStatus names (the 4xx and 5xx ones a retry would name).
std::optional<int> httpStatusFromName(const std::string &name) {
  static const std::map<std::string, int> t = {
      {"BAD_REQUEST", 400}, {"UNAUTHORIZED", 401}, {"PAYMENT_REQUIRED", 402}, {"FORBIDDEN", 403}, {"NOT_FOUND", 404},
      {"METHOD_NOT_ALLOWED", 405}, {"NOT_ACCEPTABLE", 406}, {"PROXY_AUTHENTICATION_REQUIRED", 407}, {"REQUEST_TIMEOUT", 408},
      {"CONFLICT", 409}, {"GONE", 410}, {"LENGTH_REQUIRED", 411}, {"PRECONDITION_FAILED", 412}, {"PAYLOAD_TOO_LARGE", 413},
      {"CONTENT_TOO_LARGE", 413}, {"URI_TOO_LONG", 414}, {"UNSUPPORTED_MEDIA_TYPE", 415}, {"REQUESTED_RANGE_NOT_SATISFIABLE", 416},
      {"EXPECTATION_FAILED", 417}, {"I_AM_A_TEAPOT", 418}, {"UNPROCESSABLE_ENTITY", 422}, {"UNPROCESSABLE_CONTENT", 422},
      {"LOCKED", 423}, {"FAILED_DEPENDENCY", 424}, {"TOO_EARLY", 425}, {"UPGRADE_REQUIRED", 426}, {"PRECONDITION_REQUIRED", 428},
      {"TOO_MANY_REQUESTS", 429}, {"REQUEST_HEADER_FIELDS_TOO_LARGE", 431}, {"UNAVAILABLE_FOR_LEGAL_REASONS", 451},
      {"INTERNAL_SERVER_ERROR", 500}, {"NOT_IMPLEMENTED", 501}, {"BAD_GATEWAY", 502}, {"SERVICE_UNAVAILABLE", 503},
      {"GATEWAY_TIMEOUT", 504}, {"HTTP_VERSION_NOT_SUPPORTED", 505}, {"VARIANT_ALSO_NEGOTIATES", 506},
      {"INSUFFICIENT_STORAGE", 507}, {"LOOP_DETECTED", 508}, {"BANDWIDTH_LIMIT_EXCEEDED", 509}, {"NOT_EXTENDED", 510},
      {"NETWORK_AUTHENTICATION_REQUIRED", 511}, {"OK", 200}, {"CREATED", 201}, {"ACCEPTED", 202}, {"NO_CONTENT", 204}};
  std::string up;
  for (char c : name) up += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto it = t.find(up);
  if (it != t.end()) return it->second;
  if (up.size() == 3 && std::all_of(up.begin(), up.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::stoi(up);
  return std::nullopt;
}

Condition exceptionCondition(const std::string &name, Span where, Origin origin) {
  Condition c;
  c.kind = Condition::Kind::Transport;
  c.text = name;
  c.where = std::move(where);
  c.origin = origin;
  c.catch_all = name == "java.lang.Exception" || name == "java.lang.Throwable" || name == "java.lang.RuntimeException";
  if (c.catch_all) c.kind = Condition::Kind::ErrorName;
  // An I/O failure or a timeout after the request was sent: the upstream may have acted on it.
  if (c.catch_all || name.find("IOException") != std::string::npos || name.find("TimeoutException") != std::string::npos) {
    c.may_have_been_processed = true;
    c.why_processed = name + " is raised when the response is lost or late, after the upstream may have processed the request";
  }
  return c;
}

class Gateway {
public:
  Gateway(const SpringNode &root, ExtractContext &cx) : root_(root), cx_(cx) {}

  void run() {
    for (auto prefix : {"spring.cloud.gateway", "spring.cloud.gateway.server.webflux", "spring.cloud.gateway.server.webmvc",
                        "spring.cloud.gateway.mvc"}) {
      const SpringNode *gw = at(root_, prefix);
      if (!gw || !gw->isMap()) continue;
      std::string pre(prefix);
      mvc_ = pre.find("mvc") != std::string::npos;
      if (mvc_) {
        mvcRoutes(*gw, pre);
        continue;
      }
      if (const SpringNode *df = child(*gw, "default-filters")) filters(*df, pre + ".default-filters", "default-filters", true);
      if (const SpringNode *routes = child(*gw, "routes"); routes && !routes->isNull()) {
        if (!routes->isList()) throw TypeError(routes->where, pre + ".routes must be a list");
        for (size_t i = 0; i < routes->children.size(); ++i) {
          const SpringNode &r = routes->children[i];
          if (!r.isMap()) continue;
          std::string id = std::to_string(i);
          if (const SpringNode *n = child(r, "id"); n && n->isScalar()) id = n->scalar;
          if (const SpringNode *f = child(r, "filters")) {
            try {
              filters(*f, pre + ".routes[" + std::to_string(i) + "].filters", "route " + id, false);
            } catch (const TypeError &e) {
              cx_.error(e);
            }
          }
        }
      }
    }
  }

private:
  const SpringNode &root_;
  ExtractContext &cx_;
  bool mvc_ = false; // Server MVC's Retry filter (RetryFilterFunctions), not WebFlux's

  void route(const SpringNode &r, const std::string &field, std::string id) {
    if (!r.isMap()) return;
    if (const SpringNode *n = child(r, "id"); n && n->isScalar()) id = n->scalar;
    if (const SpringNode *f = child(r, "filters")) {
      try {
        filters(*f, field + ".filters", "route " + id, false);
      } catch (const TypeError &e) {
        cx_.error(e);
      }
    }
  }

  // Server MVC: routes (a list) and routes-map (route id -> route); no default filters.
  void mvcRoutes(const SpringNode &gw, const std::string &pre) {
    if (const SpringNode *routes = child(gw, "routes"); routes && !routes->isNull()) {
      if (!routes->isList()) throw TypeError(routes->where, pre + ".routes must be a list");
      for (size_t i = 0; i < routes->children.size(); ++i)
        route(routes->children[i], pre + ".routes[" + std::to_string(i) + "]", std::to_string(i));
    }
    if (const SpringNode *map = child(gw, "routesMap"); map && map->isMap())
      for (const SpringNode &r : map->children) route(r, pre + ".routes-map." + r.key, r.key);
  }

  void filters(const SpringNode &list, const std::string &field, const std::string &where, bool isDefault) {
    if (list.isNull()) return;
    if (!list.isList()) throw TypeError(list.where, field + " must be a list");
    for (size_t i = 0; i < list.children.size(); ++i) {
      const SpringNode &f = list.children[i];
      std::string anchor = std::string(mvc_ ? "spring.cloud.gateway.server.webmvc/" : "spring.cloud.gateway/") + where + "/filters[" + std::to_string(i) + "]";
      try {
        if (f.isScalar()) {
          std::string s = f.scalar;
          size_t eq = s.find('=');
          std::string name = s.substr(0, eq);
          while (!name.empty() && name.back() == ' ') name.pop_back();
          if (name != "Retry") continue;
          std::vector<SpringItem> args;
          if (eq != std::string::npos) {
            SpringNode rest = f;
            rest.scalar = s.substr(eq + 1);
            rest.col0 = f.col0 + static_cast<int>(eq + 1) + (f.quoted ? 0 : 0);
            rest.where = f.where;
            // Token spans count from the value start: shift by the "Retry=" prefix.
            auto items = listItems(cx_, rest, field);
            for (auto &it : items) args.push_back(it);
          }
          shortcut(f, args, where, anchor, isDefault);
        } else if (f.isMap()) {
          const SpringNode *n = child(f, "name");
          if (!n || !n->isScalar() || n->scalar != "Retry") continue;
          full(f, child(f, "args"), where, anchor, isDefault);
        }
      } catch (const TypeError &e) {
        cx_.error(e);
      }
    }
  }

  RetryPolicy base(const SpringNode &filter, const std::string &where, const std::string &anchor, bool isDefault) {
    RetryPolicy p;
    p.format = std::string(kFormat);
    p.component = std::string(mvc_ ? "Spring Cloud Gateway Server MVC" : "Spring Cloud Gateway") + " Retry filter (" + where + ")" +
                  (isDefault ? ", applied to every route" : "");
    p.anchor = anchor;
    p.where = filter.isMap() ? (child(filter, "name") ? child(filter, "name")->where : filter.where) : filter.where;
    p.attempts_field = "retries";
    p.attempts_count_retries = true;
    return p;
  }

  // false: the filter does not retry (Server MVC with retries <= 0: shouldRetry stops at once).
  bool setRetries(RetryPolicy &p, const SpringNode *n, Span where, const std::string &anchor, const std::string &text = "") {
    p.max_attempts = defaulted(std::optional<int>(kDefaultRetries + 1), p.where, mvc_ ? kMvcRetriesSource : kRetriesSource);
    if (!n && text.empty()) return true;
    SpringNode tmp;
    if (!n) {
      tmp.kind = SpringNode::Kind::Scalar;
      tmp.scalar = text;
      tmp.where = where;
      n = &tmp;
    }
    long long v = springInt(*n, "Retry retries");
    if (mvc_ && v <= 0) return false;
    if (v <= 0) {
      cx_.problem(where, "retries " + std::to_string(v) + " must be greater than 0: the gateway rejects the Retry filter", anchor + "/retries");
      return true;
    }
    p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(v, 1'000'000)) + 1), where);
    return true;
  }

  void statuses(RetryPolicy &p, const std::vector<SpringItem> &items, const std::string &anchor) {
    for (const auto &s : items) {
      auto code = httpStatusFromName(s.text);
      if (!code || !httpCodeInRange(*code)) {
        cx_.problem(s.where, "statuses entry '" + s.text + "' is not an HttpStatus name: Spring cannot bind it and the gateway does not start", anchor + "/statuses/" + s.text);
        continue;
      }
      p.retry_on.push_back(httpStatusRange(s.text, *code, *code, Origin::Written, s.where));
    }
  }

  void series(RetryPolicy &p, const std::vector<SpringItem> &items, const std::string &anchor) {
    for (const auto &s : items) {
      const SeriesInfo *info = nullptr;
      for (const auto &t : seriesTable())
        if (relaxedName(t.name) == relaxedName(s.text)) info = &t;
      if (!info) {
        cx_.problem(s.where, "series entry '" + s.text + "' is not an HttpStatus.Series (INFORMATIONAL, SUCCESSFUL, REDIRECTION, CLIENT_ERROR, SERVER_ERROR): Spring cannot bind it and the gateway does not start",
                    anchor + "/series/" + s.text);
        continue;
      }
      p.retry_on.push_back(httpStatusRange(s.text, info->lo, info->hi, Origin::Written, s.where));
    }
  }

  void methods(RetryPolicy &p, const std::vector<SpringItem> &items) {
    for (const auto &m : items) {
      std::string up;
      for (char c : m.text) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      p.methods.push_back(written(up, m.where));
    }
  }

  void defaults(RetryPolicy &p, bool hasStatuses, bool hasSeries, bool hasMethods, bool hasExceptions) {
    if (!hasSeries) p.retry_on.push_back(httpStatusRange("SERVER_ERROR", 500, 599, Origin::Defaulted, p.where));
    if (!hasMethods) p.methods.push_back(defaulted(std::string("GET"), p.where, mvc_ ? kMvcMethodsSource : kMethodsSource));
    // Server MVC's third default, RetryFilterFunctions.RetryException, is its own signal for a
    // retried status, already covered by the series.
    if (!hasExceptions)
      // WebFlux: IOException and the gateway's own TimeoutException (RetryGatewayFilterFactory);
      // Server MVC: IOException and java.util.concurrent.TimeoutException (RetryFilterFunctions).
      for (auto e : {"java.io.IOException", mvc_ ? "java.util.concurrent.TimeoutException" : "org.springframework.cloud.gateway.support.TimeoutException"})
        p.retry_on.push_back(exceptionCondition(e, p.where, Origin::Defaulted));
    (void)hasStatuses;
  }

  void noBackoff(RetryPolicy &p) {
    if (mvc_) {
      Backoff &b = p.backoff;
      b.growth = defaulted(Growth::Constant, p.where, kMvcNoBackoffSource);
      b.initial = defaulted(std::optional<Duration>(Duration::ms(kMvcDefaultDelayMs)), p.where, kMvcNoBackoffSource);
      b.cap.origin = Origin::NotApplicable;
      b.jitter = defaulted(Jitter::None, p.where, kMvcNoJitterSource);
      b.jitter_configurable = false;
      b.description = "Spring Framework's default fixed 1 s backoff";
      p.runtime_max_attempts = kMvcDefaultBackoffRetries + 1;
      p.runtime_max_source = kMvcBackoffRetriesSource;
      return;
    }
    p.backoff.growth = defaulted(Growth::NoWait, p.where, kNoBackoffSource);
    p.backoff.description = "no backoff";
  }

  std::optional<Duration> duration(const std::string &text, Span where, const std::string &field, const std::string &anchor) {
    std::string err;
    auto d = parseSpringDuration(text, &err);
    if (!d) {
      cx_.problem(where, field + ": " + err + ": Spring cannot bind it and the gateway does not start", anchor + "/" + field);
      return std::nullopt;
    }
    if (d->nanos < 0) {
      cx_.problem(where, field + " " + text + " is negative: the gateway rejects it", anchor + "/" + field);
      return std::nullopt;
    }
    return d;
  }

  // backoff: firstBackoff, maxBackoff, factor (values as text with spans; missing = empty).
  struct BackoffArgs {
    std::optional<SpringItem> first, max, factor, based;
    Span key;
  };

  static long long factorOf(const SpringItem &factor) {
    SpringNode tmp;
    tmp.kind = SpringNode::Kind::Scalar;
    tmp.scalar = factor.text;
    tmp.where = factor.where;
    return springInt(tmp, "backoff.factor");
  }

  void backoff(RetryPolicy &p, const BackoffArgs &a, const std::string &anchor) {
    Backoff &b = p.backoff;
    std::optional<Duration> first;
    if (a.first) first = duration(a.first->text, a.first->where, "backoff.firstBackoff", anchor);
    b.initial = first ? written(first, a.first->where)
                      : defaulted(std::optional<Duration>(Duration::ms(kDefaultFirstBackoffMs)), a.key, kFirstBackoffSource);
    b.multiplier = defaulted(static_cast<double>(kDefaultFactor), a.key, kFactorSource);
    if (a.factor) {
      long long f = factorOf(*a.factor);
      if (f <= 0) cx_.problem(a.factor->where, "backoff.factor must be at least 1: the gateway rejects it", anchor + "/factor");
      else b.multiplier = written(static_cast<double>(f), a.factor->where);
    }
    bool constant = b.multiplier.value == 1.0;
    b.growth = constant ? written(Growth::Constant, b.multiplier.where) : written(Growth::Exponential, a.key);
    if (constant) b.cap.origin = Origin::NotApplicable;
    else if (a.max) {
      if (auto d = duration(a.max->text, a.max->where, "backoff.maxBackoff", anchor)) b.cap = written(std::optional<Duration>(d), a.max->where);
    } else {
      b.cap = defaulted(std::optional<Duration>(), a.key, kCapSource);
    }
    b.description = "Spring Cloud Gateway backoff";
  }

  // Server MVC's backoff block (RetryFilterFunctions.BackoffConfig): exponential, factor > 1,
  // capped at 30 s when maxBackoff is left out, never jittered.
  void mvcBackoff(RetryPolicy &p, const BackoffArgs &a, const std::string &anchor) {
    Backoff &b = p.backoff;
    std::optional<Duration> first;
    if (a.first) first = duration(a.first->text, a.first->where, "backoff.firstBackoff", anchor);
    if (first && first->nanos < 1'000'000) {
      cx_.problem(a.first->where, "backoff.firstBackoff " + a.first->text + " is below 1 ms: the Server MVC Retry filter rejects it (BackoffConfig.validate)", anchor + "/firstBackoff");
      first.reset();
    }
    b.initial = first ? written(first, a.first->where)
                      : defaulted(std::optional<Duration>(Duration::ms(kDefaultFirstBackoffMs)), a.key, kMvcFirstBackoffSource);
    b.multiplier = defaulted(static_cast<double>(kDefaultFactor), a.key, kMvcFactorSource);
    if (a.factor) {
      long long f = factorOf(*a.factor);
      if (f <= 1) cx_.problem(a.factor->where, "backoff.factor " + a.factor->text + " must be greater than 1: the Server MVC Retry filter rejects it (BackoffConfig.validate)", anchor + "/factor");
      else b.multiplier = written(static_cast<double>(f), a.factor->where);
    }
    b.growth = written(Growth::Exponential, a.key);
    if (a.max) {
      if (auto d = duration(a.max->text, a.max->where, "backoff.maxBackoff", anchor)) {
        if (b.initial.value && *d <= *b.initial.value)
          cx_.problem(a.max->where, "backoff.maxBackoff " + a.max->text + " must be greater than firstBackoff: the Server MVC Retry filter rejects it (BackoffConfig.validate)", anchor + "/maxBackoff");
        else b.cap = written(std::optional<Duration>(d), a.max->where);
      }
    } else {
      b.cap = defaulted(std::optional<Duration>(Duration::ms(kMvcDefaultMaxBackoffMs)), a.key, kMvcCapSource);
    }
    b.jitter = defaulted(Jitter::None, a.key, kMvcNoJitterSource); // no fix: there is no jitter setting
    b.jitter_configurable = false;
    b.description = "Spring Cloud Gateway Server MVC backoff";
  }

  void jitter(RetryPolicy &p, const SpringNode *j, const SpringNode *args, const std::string &anchor) {
    Backoff &b = p.backoff;
    if (!j) {
      b.jitter = defaulted(Jitter::None, p.backoff.growth.where, kJitterSource);
      if (args)
        if (auto e = addEntry(cx_.src, *args, "jitter", args->properties ? "" : "{randomFactor: 0.5}")) {
          if (args->properties) e = addEntry(cx_.src, *args, "jitter.randomFactor", "0.5");
          if (e) b.jitter.fix = Fix{"add a jitter block (randomFactor 0.5)", {*e}};
        }
      return;
    }
    double factor = kDefaultRandomFactor;
    Span where = j->keyWhere;
    if (const SpringNode *rf = child(*j, "randomFactor")) {
      factor = springNumber(*rf, "jitter.randomFactor");
      where = rf->where;
      if (factor < 0 || factor > 1) {
        cx_.problem(rf->where, "jitter.randomFactor must be between 0 and 1: the gateway rejects it", anchor + "/jitter");
        factor = kDefaultRandomFactor;
      }
    }
    b.jitter = written(factor > 0 ? Jitter::Proportional : Jitter::None, where);
    b.jitter_upper = 1.0 + factor;
    b.jitter_lower = std::max(0.0, 1.0 - factor);
    // RL105: after the cap, on both paths of RetryGatewayFilterFactory.java (main 0d988d1):
    // statuses: nextDelay = applyJitter(computeBackoff(...)), computeBackoff returning maxBackoff
    // for anything above it; exceptions: reactor-core RetryBackoffSpec caps the backoff, then bounds
    // the jitter inside [firstBackoff, maxBackoff]. No draw is cut to the cap.
    if (factor > 0) b.jitter_order = builtIn(JitterOrder::AfterCap, where, "Spring Cloud Gateway applies the jitter to the capped backoff (RetryGatewayFilterFactory.java)");
  }

  void full(const SpringNode &filter, const SpringNode *args, const std::string &where, const std::string &anchor, bool isDefault) {
    RetryPolicy p = base(filter, where, anchor, isDefault);
    if (args && !args->isNull() && !args->isMap()) throw TypeError(args->where, "Retry args must be a map");
    if (args && args->isNull()) args = nullptr;
    auto arg = [&](std::string_view name) -> const SpringNode * { return args ? child(*args, name) : nullptr; };
    const SpringNode *retries = arg("retries");
    if (!setRetries(p, retries, retries ? retries->where : p.where, anchor)) return;
    bool hasStatuses = false, hasSeries = false, hasMethods = false, hasExceptions = false;
    if (const SpringNode *n = arg("statuses"); n && mvc_) {
      cx_.problem(n->keyWhere, "statuses is not a setting of the Server MVC Retry filter (RetryFilterFunctions.RetryConfig has retries, series, "
                               "methods, exceptions, cacheBody, backoff): these statuses do not choose what is retried; use series",
                  anchor + "/statuses");
    } else if (n) {
      hasStatuses = true;
      statuses(p, listItems(cx_, *n, "Retry statuses"), anchor);
    }
    if (const SpringNode *n = arg("series")) {
      hasSeries = true; // written, even empty: an empty series turns the default off
      series(p, listItems(cx_, *n, "Retry series"), anchor);
    }
    if (const SpringNode *n = arg("methods")) {
      hasMethods = true;
      methods(p, listItems(cx_, *n, "Retry methods"));
    }
    if (const SpringNode *n = arg("exceptions")) {
      hasExceptions = true;
      for (const auto &e : listItems(cx_, *n, "Retry exceptions")) p.retry_on.push_back(exceptionCondition(e.text, e.where, Origin::Written));
    }
    defaults(p, hasStatuses, hasSeries, hasMethods, hasExceptions);
    const SpringNode *bo = arg("backoff");
    if (bo && !bo->isNull()) {
      if (!bo->isMap()) throw TypeError(bo->where, "Retry backoff must be a map");
      BackoffArgs a;
      a.key = bo->keyWhere;
      auto item = [&](std::string_view name) -> std::optional<SpringItem> {
        const SpringNode *n = child(*bo, name);
        if (!n) return std::nullopt;
        return SpringItem{springString(*n, "backoff." + std::string(name)), n->where, n};
      };
      a.first = item("firstBackoff");
      a.max = item("maxBackoff");
      a.factor = item("factor");
      if (mvc_) {
        mvcBackoff(p, a, anchor);
      } else {
        backoff(p, a, anchor);
        jitter(p, arg("jitter"), args, anchor);
      }
    } else {
      noBackoff(p);
    }
    cx_.model.policies.push_back(std::move(p));
  }

  // Retry=retries,statuses,methods,firstBackoff,maxBackoff,factor,basedOnPreviousValue,randomFactor,timeout
  void shortcut(const SpringNode &filter, const std::vector<SpringItem> &args, const std::string &where, const std::string &anchor, bool isDefault) {
    RetryPolicy p = base(filter, where, anchor, isDefault);
    auto argAt = [&](size_t i) -> const SpringItem * { return i < args.size() ? &args[i] : nullptr; };
    if (const SpringItem *r = argAt(0)) {
      if (!setRetries(p, nullptr, r->where, anchor, r->text)) return;
    } else {
      setRetries(p, nullptr, p.where, anchor);
    }
    if (mvc_) { // @Shortcut({"retries", "series", "methods"}): no statuses, no backoff
      if (const SpringItem *s = argAt(1)) series(p, {*s}, anchor);
      if (const SpringItem *m = argAt(2)) methods(p, {*m});
      defaults(p, false, argAt(1) != nullptr, argAt(2) != nullptr, false);
      noBackoff(p);
      cx_.model.policies.push_back(std::move(p));
      return;
    }
    bool hasStatuses = false, hasMethods = false;
    if (const SpringItem *s = argAt(1)) {
      hasStatuses = true;
      statuses(p, {*s}, anchor);
    }
    if (const SpringItem *m = argAt(2)) {
      hasMethods = true;
      methods(p, {*m});
    }
    defaults(p, hasStatuses, false, hasMethods, false);
    if (argAt(3)) {
      BackoffArgs a;
      a.key = argAt(3)->where;
      a.first = *argAt(3);
      if (argAt(4)) a.max = *argAt(4);
      if (argAt(5)) a.factor = *argAt(5);
      backoff(p, a, anchor);
      if (const SpringItem *j = argAt(7)) {
        double factor = std::strtod(j->text.c_str(), nullptr);
        p.backoff.jitter = written(factor > 0 ? Jitter::Proportional : Jitter::None, j->where);
        p.backoff.jitter_upper = 1.0 + factor;
      } else {
        p.backoff.jitter = defaulted(Jitter::None, a.key, kJitterSource);
      }
    } else {
      noBackoff(p);
    }
    cx_.model.policies.push_back(std::move(p));
  }
};

bool recognise(const yaml::Node &doc) { return doc.IsMap() && yamlHasPath(doc, "spring.cloud.gateway"); }

void extract(const yaml::Node &doc, ExtractContext &cx) { extractSpringTree(springTreeFromYaml(doc, cx), cx); }

bool recogniseText(const SourceFile &src) {
  return recogniseSpringProperties(src) && src.text().find("spring.cloud.gateway.") != std::string::npos;
}

} // namespace

bool hasGatewayRetry(const SpringNode &root) { return at(root, "spring.cloud.gateway") != nullptr; }

void springGatewayFromTree(const SpringNode &root, ExtractContext &cx) { Gateway(root, cx).run(); }

namespace {
const Extractor &springGatewayExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"- Retry", "name: Retry"},
      .recogniseText = recogniseText,
      .extractText = extractSpringProperties,
      .priority = 120,
      .prefilter_words = {"gateway"},
      .retry_keys = {"Retry", "retries"},
      .file_kinds = {".properties"},
  };
  return e;
}
const ExtractorRegistration registered(&springGatewayExtractor);
} // namespace

} // namespace retrylint
