// What NGINX's <module>_next_upstream directives mean, shared by the two dialects that write them:
// nginx.conf files (lint/extract/nginx_conf.cpp) and ingress-nginx annotations
// (lint/extract/ingress_nginx.cpp), which become the same directives.
//
// Facts (nginx/nginx at 3f6f7824, docs/formats.md §11.11): the words each module accepts are its
// ngx_conf_bitmask_t table (ngx_http_proxy_module.c ngx_http_proxy_next_upstream_masks, and the
// grpc, fastcgi, uwsgi and scgi ones), matched without case (ngx_conf_set_bitmask_slot); an
// unknown word is "invalid value" and nginx does not load the configuration. `off` wins over the
// other words at merge time. The default is "error timeout". POST, LOCK and PATCH requests are not
// passed on once sent unless non_idempotent is listed (ngx_http_upstream_next). The next server is
// tried at once: no wait between tries.
#pragma once
#include <string>
#include <string_view>

#include "lint/model/policy.h"

namespace retrylint::nginx {

enum class Module { Proxy, Grpc, FastCGI, Uwsgi, Scgi };

// "proxy", "grpc", …: the directive prefix.
std::string_view prefix(Module m);
// The words `<prefix>_next_upstream` accepts, in NGINX's order, for messages.
std::string acceptedWords(Module m);
// Whether the module accepts `word` (lower case).
bool accepts(Module m, std::string_view word);

// The failures a written condition word passes on to the next server, added to p.retry_on;
// non_idempotent sets `nonIdempotent` (see addNonIdempotentMethods); off and updating add nothing.
void addCondition(std::string_view word, Span where, RetryPolicy &p, bool &nonIdempotent);
// NGINX's default "error timeout", as defaulted conditions (`source` says whose default).
void addDefaultConditions(RetryPolicy &p, Span where, const std::string &source);
// non_idempotent: POST, PATCH and LOCK requests are passed on too.
void addNonIdempotentMethods(RetryPolicy &p, Span where);
// What every next-upstream failover has: no wait between tries (the backoff rules have nothing to
// say), no per-try timeout of its own (proxy_read_timeout bounds the time between two reads, not a
// try) and no budget.
void markFailover(RetryPolicy &p);

} // namespace retrylint::nginx
