// Envoy route retry_policy: static bootstrap files, RouteConfiguration documents (RDS, xDS
// DiscoveryResponse `resources`, lists of them as Envoy Gateway's translator emits) and the
// clusters' circuit_breakers retry_budget.
//
// Field facts: envoyproxy/data-plane-api envoy/config/route/v3/route_components.proto (RetryPolicy,
// RouteAction.timeout), envoy/config/cluster/v3/circuit_breaker.proto; behaviour: envoyproxy/envoy
// docs/root/configuration/http/http_filters/router_filter.rst. See docs/formats.md §3.
// Protobuf JSON parsing accepts snake_case and camelCase field names alike; both are read.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Regex.h>

#include "lint/extract/envoy_common.h"
#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "envoy-route";

// RetryPolicy.num_retries: "Specifies the allowed number of retries. This parameter is optional and
// defaults to 1." (route_components.proto).
constexpr int kEnvoyDefaultRetries = 1;
constexpr const char *kEnvoyDefaultRetriesSource =
    "Envoy's default when retry_policy has no num_retries: 1 retry "
    "(envoyproxy/data-plane-api route_components.proto RetryPolicy.num_retries)";
constexpr const char *kEnvoyPerTryDefaultSource =
    "Envoy: per_try_timeout defaults to the route timeout (route_components.proto RetryPolicy.per_try_timeout)";
// circuit_breaker.proto: without retry_budget only max_retries (3 concurrent retries per cluster
// and priority) limits retries; that caps parallel retries, not their share of the traffic.
constexpr const char *kEnvoyNoBudgetSource =
    "Envoy: no retry budget unless circuit_breakers.thresholds[].retry_budget is set; max_retries "
    "(default 3) only caps concurrent retries (envoyproxy/data-plane-api circuit_breaker.proto)";

std::string camel(std::string_view snake) {
  std::string out;
  bool up = false;
  for (char c : snake) {
    if (c == '_') { up = true; continue; }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

// A field under its proto name or its JSON (camelCase) name; `key` says which was written.
struct Field {
  yaml::Node node;
  std::string key;
};
std::optional<Field> field(const yaml::Node &m, std::string_view snake) {
  if (auto n = get(m, snake)) return Field{*n, std::string(snake)};
  std::string c = camel(snake);
  if (auto n = get(m, c)) return Field{*n, c};
  return std::nullopt;
}

std::string nameOf(const yaml::Node &m) {
  if (auto n = get(m, "name"); n && n->IsScalar()) return n->Scalar();
  return "";
}

// circuit_breaker.proto Thresholds.max_retries: "The maximum number of parallel retries that
// Envoy will allow to the upstream cluster. If not specified, the default is 3."
constexpr long long kEnvoyDefaultMaxRetries = 3;
// A cap this low on parallel retries bounds their load in an outage as a budget would: the
// retries beyond it overflow and the first failure is returned. (A large cap, 1024, does not.)
constexpr long long kConcurrencyCapAsBudget = 10;
constexpr const char *kEnvoyDefaultCapSource =
    "Envoy's default circuit breaker allows 3 parallel retries per cluster (circuit_breaker.proto "
    "Thresholds.max_retries); retries beyond them fail at once";

struct Cluster {
  bool budget = false;
  std::optional<long long> max_retries; // written at the DEFAULT priority
  Span where, max_retries_where;
};
using Clusters = std::map<std::string, Cluster>;

// Facts about the routes a policy applies to.
struct RouteFacts {
  Setting<std::optional<Duration>> deadline;
  Setting<bool> budget;
  std::string cluster;
  std::vector<Setting<std::string>> methods;
  bool idempotency_key = false;
};

// Durations as the runtime reads them.
const DurationSyntax kDurations{parseProtoJsonDuration, "Envoy rejects the configuration", true};

void readCluster(ExtractContext &cx, const yaml::Node &c, Clusters &out) {
  if (!c.IsMap()) return;
  std::string name = nameOf(c);
  if (name.empty()) return;
  Cluster info;
  info.where = cx.keySpan(c, "name");
  if (auto t = get(c, "thresholds")) // the v2 docs example had thresholds outside circuit_breakers
    cx.problem(cx.keySpan(c, "thresholds"),
               "thresholds is not a Cluster field (it belongs under circuit_breakers): Envoy rejects the unknown field, and no retry budget applies",
               "Cluster/" + name + "/thresholds");
  if (auto cb = field(c, "circuit_breakers"); cb && cb->node.IsMap()) {
    if (auto th = get(cb->node, "thresholds"); th && th->IsSequence())
      for (const auto &t : *th) {
        if (field(t, "retry_budget")) info.budget = true;
        auto pr = field(t, "priority");
        if (pr && pr->node.IsScalar() && pr->node.Scalar() != "DEFAULT") continue;
        if (auto mr = field(t, "max_retries"); mr && mr->node.IsScalar()) {
          char *end = nullptr;
          const std::string v = mr->node.Scalar();
          long long n = std::strtoll(v.c_str(), &end, 10);
          if (!v.empty() && end && *end == 0 && n >= 0) {
            info.max_retries = n;
            info.max_retries_where = cx.keySpan(t, "max_retries");
          }
        }
      }
  }
  out[name] = info;
}

void collectMethodsFromHeaders(ExtractContext &cx, const yaml::Node &headers, RouteFacts &f, bool forMethods) {
  if (!headers.IsSequence()) return;
  for (const auto &h : headers) {
    if (!h.IsMap()) continue;
    std::string name = nameOf(h);
    for (auto &ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (auto inv = field(h, "invert_match"); inv && inv->node.IsScalar() && inv->node.Scalar() == "true") continue;
    if (!forMethods && (name == "idempotency-key" || name == "x-idempotency-key")) f.idempotency_key = true;
    if (name != ":method") continue;
    auto add = [&](std::string_view kind, const yaml::Node &v) {
      if (!v.IsScalar()) return;
      for (auto &m : methodsMatching(kind, v.Scalar())) f.methods.push_back(written(m, cx.span(v)));
    };
    if (auto v = field(h, "exact_match")) add("exact", v->node);
    if (auto v = field(h, "prefix_match")) add("prefix", v->node);
    if (auto v = field(h, "safe_regex_match"); v && v->node.IsMap())
      if (auto r = get(v->node, "regex")) add("regex", *r);
    if (auto sm = field(h, "string_match"); sm && sm->node.IsMap()) {
      if (auto v = get(sm->node, "exact")) add("exact", *v);
      if (auto v = get(sm->node, "prefix")) add("prefix", *v);
      if (auto v = field(sm->node, "safe_regex"); v && v->node.IsMap())
        if (auto r = get(v->node, "regex")) add("regex", *r);
    }
  }
}

// A route of gRPC calls: `grpc: {}` in the match, or a path of a gRPC method or service
// (`path: /pkg.Service/Method`, `prefix: /pkg.Service/`). Every gRPC call is an HTTP/2 POST (gRPC's
// PROTOCOL-HTTP2.md), so there a `:method POST` match says nothing about whether the call may be
// repeated: the RPC's meaning does, which the file does not show (as in a gRPC service config, and
// in the Linkerd reader's ServiceProfile routes).
bool grpcRoute(const yaml::Node &match) {
  if (field(match, "grpc")) return true;
  static const llvm::Regex kMethod("^/([A-Za-z_][A-Za-z0-9_]*\\.)+[A-Za-z_][A-Za-z0-9_]*/([A-Za-z_][A-Za-z0-9_]*/?)?$");
  for (const char *key : {"path", "prefix"})
    if (auto v = field(match, key); v && v->node.IsScalar() && kMethod.match(v->node.Scalar())) return true;
  return false;
}

RouteFacts routeFacts(ExtractContext &cx, const yaml::Node &route, const yaml::Node &action, const Clusters &clusters,
                      const std::string &anchor) {
  RouteFacts f;
  if (auto m = get(route, "match"); m && m->IsMap()) {
    if (auto h = get(*m, "headers")) collectMethodsFromHeaders(cx, *h, f, false);
    if (grpcRoute(*m))
      f.methods.erase(std::remove_if(f.methods.begin(), f.methods.end(), [](const Setting<std::string> &s) { return s.value == "POST"; }),
                      f.methods.end());
  }

  bool grpcHeader = field(action, "max_grpc_timeout").has_value();
  if (auto msd = field(action, "max_stream_duration"); msd && msd->node.IsMap())
    grpcHeader |= field(msd->node, "grpc_timeout_header_max").has_value();
  if (grpcHeader) {
    f.deadline.origin = Origin::Unknown; // the client's grpc-timeout header decides
  } else if (auto t = get(action, "timeout")) {
    auto d = readDuration(cx, *t, "timeout", anchor, kDurations);
    if (d) f.deadline = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(*t));
    else f.deadline.origin = Origin::Unknown;
  } else {
    f.deadline = defaulted(std::optional<Duration>(Duration::s(kEnvoyDefaultRouteTimeoutS)), cx.keySpan(route, "route"),
                           kEnvoyDefaultRouteTimeoutSource);
  }

  f.budget.origin = Origin::Unknown; // the cluster is configured elsewhere (CDS)
  if (auto c = get(action, "cluster"); c && c->IsScalar()) {
    f.cluster = c->Scalar();
    auto it = clusters.find(f.cluster);
    if (it != clusters.end()) {
      const Cluster &c = it->second;
      const long long cap = c.max_retries.value_or(kEnvoyDefaultMaxRetries);
      if (c.budget) f.budget = written(true, c.where);
      else if (cap <= kConcurrencyCapAsBudget && c.max_retries) {
        f.budget = written(true, c.max_retries_where);
        f.budget.source = "max_retries: " + std::to_string(cap) + " parallel retries on cluster '" + f.cluster +
                          "'; retries beyond them fail at once";
      } else if (cap <= kConcurrencyCapAsBudget) f.budget = defaulted(true, c.where, kEnvoyDefaultCapSource);
      else f.budget = defaulted(false, c.where, kEnvoyNoBudgetSource);
    }
  }
  return f;
}

// Builds the policy for `rp`; false when the policy never retries (reported where useful).
bool buildPolicy(ExtractContext &cx, const yaml::Node &rp, Span rpKey, const RouteFacts &facts, RetryPolicy &p) {
  const std::string &anchor = p.anchor;
  requireMap(cx, rp, "retry_policy");
  p.format = std::string(kFormat);
  p.where = rpKey;
  p.attempts_count_retries = true;
  p.deadline_name = "route timeout";
  p.overall_deadline = facts.deadline;
  p.budget = facts.budget;
  p.budget_field = facts.cluster.empty() ? "circuit_breakers retry_budget"
                                         : "cluster '" + facts.cluster + "' circuit_breakers.thresholds[].retry_budget";
  p.methods = facts.methods;
  p.idempotency_key = facts.idempotency_key;

  auto numRetries = field(rp, "num_retries");
  p.attempts_field = numRetries ? numRetries->key : (get(rp, "retryOn") ? "numRetries" : "num_retries");
  auto retryOn = field(rp, "retry_on");
  p.per_try_field = get(rp, "retryOn") ? "perTryTimeout" : "per_try_timeout";

  if (!retryOn || isNull(retryOn->node) || (retryOn->node.IsScalar() && llvm::StringRef(retryOn->node.Scalar()).trim().empty())) {
    cx.problem(retryOn ? cx.span(retryOn->node) : rpKey,
               "retry_policy has no retry_on: Envoy creates no retry state without a condition, so this policy never retries "
               "(unless clients send x-envoy-retry-on)",
               anchor + "/retry_on");
    return false;
  }

  if (numRetries) {
    long long n = requireInt(cx, numRetries->node, numRetries->key, true);
    if (n < 0 || n > 1'000'000) {
      cx.problem(cx.span(numRetries->node), numRetries->key + " " + std::to_string(n) + " is not a usable retry count (uint32)", anchor + "/num_retries");
      return false;
    }
    if (n == 0) return false; // retries off
    p.max_attempts = written(std::optional<int>(static_cast<int>(n) + 1), cx.span(numRetries->node));
  } else {
    p.max_attempts = defaulted(std::optional<int>(kEnvoyDefaultRetries + 1), rpKey, kEnvoyDefaultRetriesSource);
  }

  // retry_on: a comma-separated list; Envoy trims the entries.
  const yaml::Node &on = retryOn->node;
  std::string value = requireString(cx, on, retryOn->key);
  bool statusCodesOn = false;
  for (const ListEntry &entry : commaList(value, " \t\n\v\f\r")) {
    const std::string &tok = entry.text;
    Span where = entrySpan(cx, on, entry);
    if (tok.empty()) continue;
    const EnvoyRetryOn *t = findEnvoyRetryOn(tok);
    if (!t) {
      bool digits = std::all_of(tok.begin(), tok.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      cx.problem(where, "retry_on '" + tok + "' is not an Envoy retry condition (" + envoyRetryOnNames() + "): it never triggers a retry" +
                            (digits ? "; list status codes in retriable_status_codes and add retriable-status-codes" : ""),
                 anchor + "/retry_on/" + tok);
      continue;
    }
    statusCodesOn |= t->name == "retriable-status-codes";
    p.retry_on.push_back(envoyCondition(*t, Origin::Written, where));
  }

  if (auto codes = field(rp, "retriable_status_codes"); codes && !isNull(codes->node)) {
    requireSequence(cx, codes->node, codes->key);
    if (!statusCodesOn && codes->node.size() > 0)
      cx.problem(cx.keySpan(rp, codes->key),
                 codes->key + " is ignored: retry_on does not include retriable-status-codes, so Envoy retries none of these statuses",
                 anchor + "/retriable_status_codes");
    for (const auto &c : codes->node) {
      long long code = requireInt(cx, c, codes->key + "[]", true);
      if (!httpCodeInRange(static_cast<int>(code))) {
        cx.problem(cx.span(c), std::to_string(code) + " in " + codes->key + " is not an HTTP status code (100-599): no response has it", anchor + "/retriable_status_codes/" + std::to_string(code));
        continue;
      }
      if (statusCodesOn) p.retry_on.push_back(httpStatusCondition(static_cast<int>(code), Origin::Written, cx.span(c)));
    }
  }

  if (auto rh = field(rp, "retriable_request_headers")) {
    RouteFacts only;
    collectMethodsFromHeaders(cx, rh->node, only, true);
    if (!only.methods.empty()) p.methods = only.methods; // retries apply to these methods only
  }

  if (auto pt = field(rp, "per_try_timeout")) {
    auto d = readDuration(cx, pt->node, pt->key, anchor, kDurations);
    if (d) p.per_try_timeout = written(d->nanos == 0 ? std::optional<Duration>() : d, cx.span(pt->node));
    else p.per_try_timeout.origin = Origin::Unknown;
  } else {
    p.per_try_timeout = defaulted(std::optional<Duration>(), rpKey, kEnvoyPerTryDefaultSource);
  }

  std::optional<Duration> base, max;
  Span baseWhere = rpKey, maxWhere = rpKey, backoffWhere = rpKey;
  if (auto bo = field(rp, "retry_back_off")) {
    requireMap(cx, bo->node, bo->key);
    backoffWhere = cx.keySpan(rp, bo->key);
    auto b = field(bo->node, "base_interval");
    if (!b) {
      cx.problem(backoffWhere, bo->key + " without base_interval: Envoy rejects the configuration (base_interval is required)", anchor + "/retry_back_off");
    } else {
      base = readDuration(cx, b->node, b->key, anchor, kDurations);
      baseWhere = cx.span(b->node);
      if (base && base->nanos < 1'000'000) {
        cx.problem(baseWhere, b->key + " " + b->node.Scalar() + " is below Envoy's minimum of 1ms: Envoy rejects the configuration", anchor + "/base_interval");
        base.reset();
      }
    }
    if (auto m = field(bo->node, "max_interval")) {
      max = readDuration(cx, m->node, m->key, anchor, kDurations);
      maxWhere = cx.span(m->node);
      if (max && base && *max < *base) {
        cx.problem(maxWhere, m->key + " " + m->node.Scalar() + " is below base_interval: Envoy rejects the configuration", anchor + "/max_interval");
        max.reset();
      }
    }
  }
  setEnvoyBackoff(p, backoffWhere, base, baseWhere, max, maxWhere);
  return true;
}

// Istio's generated default (istio/istio pilot/pkg/networking/core/route/retry/retry.go DefaultPolicy:
// 2 retries on connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes with the
// previous_hosts predicate and 5 host selection attempts), which a sidecar's config dump shows on
// every route without a VirtualService retries block: the place to judge it is the VirtualService
// (istio-virtualservice reports Istio's default there), not the dump.
bool isIstioDefaultPolicy(const yaml::Node &rp) {
  if (!rp.IsMap()) return false;
  auto on = field(rp, "retry_on"), n = field(rp, "num_retries"), hs = field(rp, "host_selection_retry_max_attempts");
  auto pred = field(rp, "retry_host_predicate");
  if (!on || !n || !hs || !pred || !on->node.IsScalar() || !n->node.IsScalar() || !hs->node.IsScalar() || !pred->node.IsSequence()) return false;
  bool previousHosts = false;
  for (const auto &p : pred->node)
    if (auto name = get(p, "name"); name && name->IsScalar() && name->Scalar() == "envoy.retry_host_predicates.previous_hosts") previousHosts = true;
  return previousHosts && on->node.Scalar() == "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes" &&
         n->node.Scalar() == "2" && hs->node.Scalar() == "5";
}

void extractRouteConfig(ExtractContext &cx, const yaml::Node &rc, const Clusters &clusters, bool fromDump = false) {
  requireMap(cx, rc, "route_config");
  std::string rcName = nameOf(rc);
  std::string rcAnchor = "RouteConfiguration/" + (rcName.empty() ? "(unnamed)" : rcName);
  auto vhosts = field(rc, "virtual_hosts");
  if (!vhosts || isNull(vhosts->node)) return;
  requireSequence(cx, vhosts->node, vhosts->key);
  size_t vi = 0;
  for (const auto &vh : vhosts->node) {
    try {
      requireMap(cx, vh, vhosts->key + "[" + std::to_string(vi) + "]");
      std::string vhName = nameOf(vh);
      if (vhName.empty()) vhName = "virtual_hosts[" + std::to_string(vi) + "]";
      std::string vhAnchor = rcAnchor + "/" + vhName;
      auto vhPolicy = field(vh, "retry_policy");
      if (fromDump && vhPolicy && isIstioDefaultPolicy(vhPolicy->node)) vhPolicy.reset();
      std::vector<RouteFacts> inheriting;
      std::vector<std::string> inheritingNames;
      if (auto routes = get(vh, "routes"); routes && !isNull(*routes)) {
        requireSequence(cx, *routes, "routes");
        size_t ri = 0;
        for (const auto &route : *routes) {
          try {
            requireMap(cx, route, "routes[" + std::to_string(ri) + "]");
            std::string rName = nameOf(route);
            std::string label = rName.empty() ? "routes[" + std::to_string(ri) + "]" : rName;
            auto action = get(route, "route");
            if (action && action->IsMap()) { // redirect / direct_response routes never retry
              std::string anchor = vhAnchor + "/" + label;
              RouteFacts facts = routeFacts(cx, route, *action, clusters, anchor);
              auto rp = field(*action, "retry_policy");
              if (rp && fromDump && isIstioDefaultPolicy(rp->node)) {
                // Istio's default, judged at the VirtualService: nothing to report here.
              } else if (rp) {
                RetryPolicy p;
                p.anchor = anchor;
                p.component = "Envoy route " + label + " (virtual host " + vhName + ")";
                if (buildPolicy(cx, rp->node, cx.keySpan(*action, rp->key), facts, p)) {
                  markTimedOutTryRetried(p);
                  cx.model.policies.push_back(std::move(p));
                }
              } else if (vhPolicy) {
                inheriting.push_back(std::move(facts));
                inheritingNames.push_back(label);
              }
            }
          } catch (const TypeError &e) {
            cx.error(e);
          }
          ++ri;
        }
      }
      // A virtual host's policy applies to the routes without their own (no merging of fields).
      if (vhPolicy && !inheriting.empty()) {
        RouteFacts merged = inheriting.front();
        merged.methods.clear();
        for (const auto &f : inheriting) {
          if (f.deadline.origin != merged.deadline.origin || f.deadline.value != merged.deadline.value) merged.deadline = {};
          if (f.budget.origin != merged.budget.origin || f.budget.value != merged.budget.value) merged.budget = {};
          if (f.cluster != merged.cluster) merged.cluster.clear();
          if (!f.idempotency_key) merged.methods.insert(merged.methods.end(), f.methods.begin(), f.methods.end());
        }
        if (merged.deadline.origin == Origin::NotApplicable) merged.deadline.origin = Origin::Unknown;
        if (merged.budget.origin == Origin::NotApplicable) merged.budget.origin = Origin::Unknown;
        merged.idempotency_key = false;
        std::string names;
        for (const auto &n : inheritingNames) names += (names.empty() ? "" : ", ") + n;
        RetryPolicy p;
        p.anchor = vhAnchor + "/retry_policy";
        p.component = "Envoy virtual host " + vhName + " (routes " + names + ")";
        if (buildPolicy(cx, vhPolicy->node, cx.keySpan(vh, vhPolicy->key), merged, p)) {
          markTimedOutTryRetried(p);
          cx.model.policies.push_back(std::move(p));
        }
      }
    } catch (const TypeError &e) {
      cx.error(e);
    }
    ++vi;
  }
}

bool typeIs(const yaml::Node &n, std::string_view suffix) {
  auto t = get(n, "@type");
  if (!t || !t->IsScalar()) return false;
  const std::string &s = t->Scalar();
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool isRouteConfig(const yaml::Node &n) {
  if (!n.IsMap()) return false;
  if (typeIs(n, "envoy.config.route.v3.RouteConfiguration")) return true;
  auto v = field(n, "virtual_hosts");
  return v && v->node.IsSequence();
}
bool isCluster(const yaml::Node &n) {
  return n.IsMap() && (typeIs(n, "envoy.config.cluster.v3.Cluster") ||
                       (get(n, "name") && (field(n, "circuit_breakers") || field(n, "load_assignment") || field(n, "connect_timeout"))));
}
// The items of a list of resources (a DiscoveryResponse's `resources`, or a top-level list).
std::optional<yaml::Node> resourceList(const yaml::Node &doc) {
  if (doc.IsSequence()) return doc;
  if (auto r = get(doc, "resources"); r && r->IsSequence()) return r;
  return std::nullopt;
}

// route_config blocks anywhere under the listeners (http_connection_manager typed configs).
void findRouteConfigs(const yaml::Node &n, std::vector<yaml::Node> &out, int depth) {
  if (depth > 24) return;
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (it->first.IsScalar() && (it->first.Scalar() == "route_config" || it->first.Scalar() == "routeConfig") && it->second.IsMap())
        out.push_back(it->second);
      else findRouteConfigs(it->second, out, depth + 1);
    }
  } else if (n.IsSequence()) {
    for (const auto &c : n) findRouteConfigs(c, out, depth + 1);
  }
}

// A retry_policy written into the Router filter's typed_config, where Envoy's Router
// (envoy.extensions.filters.http.router.v3.Router) has no such field: the configuration is
// rejected, and no route retries by it (it belongs on a route or a virtual host).
void findRouterRetryPolicies(ExtractContext &cx, const yaml::Node &n, int depth) {
  if (depth > 24) return;
  if (n.IsSequence()) {
    for (const auto &c : n) findRouterRetryPolicies(cx, c, depth + 1);
    return;
  }
  if (!n.IsMap()) return;
  auto name = get(n, "name");
  auto tc = get(n, "typed_config");
  if (name && name->IsScalar() && tc && tc->IsMap()) {
    auto type = get(*tc, "@type");
    const bool router = name->Scalar() == "envoy.filters.http.router" ||
                        (type && type->IsScalar() && llvm::StringRef(type->Scalar()).endswith("envoy.extensions.filters.http.router.v3.Router"));
    if (router)
      if (auto rp = field(*tc, "retry_policy")) {
        cx.problem(cx.keySpan(*tc, rp->key), rp->key + " is no field of the Router filter (envoy.extensions.filters.http.router.v3.Router): "
                   "Envoy rejects the configuration, and no route retries by it; a retry policy belongs on a route or a virtual host",
                   "http_filters/envoy.filters.http.router/retry_policy");
        return;
      }
  }
  for (auto it = n.begin(); it != n.end(); ++it) findRouterRetryPolicies(cx, it->second, depth + 1);
}

// An admin /config_dump (envoy.admin.v3.ConfigDump): `configs` holding a RoutesConfigDump
// (static_route_configs[], dynamic_route_configs[] .route_config), a ListenersConfigDump (route
// configs inline in the listeners) and a ClustersConfigDump (static_clusters[],
// dynamic_active_clusters[] .cluster) — envoyproxy/data-plane-api envoy/admin/v3/config_dump*.proto.
bool isConfigDump(const yaml::Node &doc) {
  auto configs = get(doc, "configs");
  if (!configs || !configs->IsSequence()) return false;
  for (const auto &c : *configs)
    if (auto t = get(c, "@type"); t && t->IsScalar() && llvm::StringRef(t->Scalar()).endswith("ConfigDump")) return true;
  return false;
}

void readConfigDump(ExtractContext &cx, const yaml::Node &doc, Clusters &clusters, std::vector<yaml::Node> &routeConfigs) {
  auto each = [](const yaml::Node &c, std::string_view list, std::string_view key, auto &&f) {
    if (auto l = get(c, list); l && l->IsSequence())
      for (const auto &item : *l)
        if (auto v = field(item, std::string(key)); v && v->node.IsMap()) f(v->node);
  };
  const yaml::Node configs = *get(doc, "configs"); // named: `: *get(...)` would dangle
  for (const auto &c : configs) {
    auto t = get(c, "@type");
    if (!t || !t->IsScalar()) continue;
    const std::string type = t->Scalar();
    if (llvm::StringRef(type).endswith("RoutesConfigDump")) {
      for (auto list : {"static_route_configs", "dynamic_route_configs"})
        each(c, list, "route_config", [&](const yaml::Node &rc) { routeConfigs.push_back(rc); });
    } else if (llvm::StringRef(type).endswith("ListenersConfigDump")) {
      findRouteConfigs(c, routeConfigs, 0);
    } else if (llvm::StringRef(type).endswith("ClustersConfigDump")) {
      for (auto list : {"static_clusters", "dynamic_active_clusters"})
        each(c, list, "cluster", [&](const yaml::Node &cl) { readCluster(cx, cl, clusters); });
    }
  }
}

bool recognise(const yaml::Node &doc) {
  if (isConfigDump(doc)) return true;
  if (auto sr = field(doc, "static_resources"); sr && sr->node.IsMap()) return true;
  if (isRouteConfig(doc)) return true;
  if (auto list = resourceList(doc)) {
    for (const auto &item : *list)
      if (isRouteConfig(item)) return true;
  }
  return false;
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  Clusters clusters;
  std::vector<yaml::Node> routeConfigs;
  const bool dump = isConfigDump(doc);
  if (dump) {
    readConfigDump(cx, doc, clusters, routeConfigs);
  } else if (auto sr = field(doc, "static_resources"); sr && sr->node.IsMap()) {
    if (auto cl = get(sr->node, "clusters"); cl && cl->IsSequence()) {
      for (const auto &c : *cl) readCluster(cx, c, clusters);
    }
    if (auto ls = get(sr->node, "listeners")) {
      findRouteConfigs(*ls, routeConfigs, 0);
      findRouterRetryPolicies(cx, *ls, 0);
    }
  } else if (isRouteConfig(doc)) {
    routeConfigs.push_back(doc);
  } else if (auto list = resourceList(doc)) {
    for (const auto &item : *list) {
      if (isRouteConfig(item)) routeConfigs.push_back(item);
      else if (isCluster(item)) readCluster(cx, item, clusters);
    }
  }
  for (const auto &rc : routeConfigs) {
    try {
      extractRouteConfig(cx, rc, clusters, dump);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

} // namespace

namespace {
const Extractor &envoyExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"static_resources", "virtual_hosts", "virtualHosts", "retry_policy"},
      .priority = 30,
      .prefilter_words = {"staticresources", "virtualhosts", "routeconfiguration", "configdump"},
      .retry_keys = {"retry_policy", "retryPolicy"},
  };
  return e;
}
const ExtractorRegistration registered(&envoyExtractor);
} // namespace

} // namespace retrylint
