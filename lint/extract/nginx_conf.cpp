// NGINX configuration files (nginx.conf, conf.d/*.conf, the nginx image's *.conf.template, sites-available/*,
// templates of them): the proxy_, grpc_, fastcgi_, uwsgi_ and scgi_ next_upstream directives,
// which pass a failed request on to the next server of the upstream.
//
// Field facts (nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_next_upstream and the
// grpc/fastcgi/uwsgi/scgi pages; nginx/nginx at 3f6f7824; docs/formats.md §11.11):
//   - <m>_next_upstream: the failures passed on, default "error timeout" (words: nginx_next_upstream.h);
//   - <m>_next_upstream_tries: every try counted, the first included; default 0 = no limit;
//   - <m>_next_upstream_timeout: the time the tries may take, default 0 = no limit;
//   - each is inherited from the enclosing level (http, server, location, if) only when the level
//     does not set it itself (ngx_conf_merge_*_value in each module's merge_loc_conf);
//   - a request goes to each server of the upstream at most once, backup servers included
//     (ngx_http_upstream_round_robin.c: peer.tries = the non-down servers' addresses), so an
//     upstream of one server, or a proxy_pass to one address, passes nothing on.
//
// One policy per level that writes one of a module's directives, with the settings in force there,
// and only where something uses it: a <m>_pass below it that no lower level overrides, an include
// that may bring one, or a file that is itself included (no http block: a conf.d snippet). The
// number of tries is the smaller of _tries and the servers the requests can reach, when the pass
// names an upstream of this file; otherwise the written _tries, or unknown. The stream module's
// proxy_next_upstream (on | off, a connection failover) is not read.
#include <algorithm>
#include <cctype>
#include <deque>
#include <map>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Path.h>

#include "lint/extract/extractors.h"
#include "lint/extract/nginx_next_upstream.h"
#include "lint/extract/nginx_syntax.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

using nginx::Module;
constexpr std::string_view kFormat = "nginx";
constexpr Module kModules[] = {Module::Proxy, Module::Grpc, Module::FastCGI, Module::Uwsgi, Module::Scgi};
constexpr size_t kModuleCount = std::size(kModules);
// The names NGINX's files and their templates go by; recognised among them by content.
// Besides `.conf` files and their templates: the server blocks of Debian's layout, named after the
// site (`sites-available/default`, `sites-enabled/example.com`), snippets in `conf.d` that an
// `include conf.d/proxy_params;` names, and `.nginx`/`.vhost` files.
const std::vector<std::string_view> kFileKinds = {".conf",       "nginx.conf.*", "*.conf.template",   "*.conf.j2",
                                                  "*.conf.erb",  "*.conf.tmpl",  "*.conf.tpl",        ".nginx",
                                                  ".vhost",      "sites-available/*", "sites-enabled/*", "conf.d/*"};
// A file of those directories that is plainly something else (a README, a script, YAML) is not
// read as NGINX even when it quotes a directive.
bool plainlySomethingElse(llvm::StringRef path) {
  const llvm::StringRef ext = llvm::sys::path::extension(path);
  for (llvm::StringRef e : {".md", ".markdown", ".txt", ".rst", ".adoc", ".html", ".yaml", ".yml", ".json", ".sh", ".py",
                            ".rb", ".go", ".js", ".ts", ".lua", ".pl", ".orig", ".rej", ".swp"})
    if (ext.equals_insensitive(e)) return true;
  return false;
}
constexpr const char *kRefused = "nginx refuses the configuration, so `nginx -t` fails and a reload keeps the old one";

bool opaque(const NginxWord &w) { return w.templated || w.variable; }

// How many servers the requests of a pass can reach: nullopt when the file does not say.
struct Reach {
  bool used = false;                // something uses the settings
  std::optional<int> servers = 0;   // the most any user reaches; nullopt: unknown
  std::string upstream;             // the upstream with that many
  void add(std::optional<int> n, const std::string &name) {
    used = true;
    if (!servers) return;
    if (!n) servers.reset();
    else if (*n > *servers) servers = n, upstream = name;
  }
};

struct Scope {
  Scope *parent = nullptr;
  std::string label;   // "server api.example.com, location /v1"
  std::string anchor;  // "http/server[api.example.com]/location[/v1]"
  struct Written {
    const NginxDirective *next = nullptr, *tries = nullptr, *timeout = nullptr;
    bool any() const { return next || tries || timeout; }
  } written[kModuleCount];
  Reach reach[kModuleCount];
  bool include = false;
};

struct Pass {
  Scope *scope;
  size_t module;
  const NginxDirective *d;
};


class Reader {
public:
  Reader(const SourceFile &src, ExtractContext &cx) : src_(src), cx_(cx) {}

  void read(const NginxConf &conf) {
    Scope &top = scopes_.emplace_back();
    top.label = "the top level";
    top.anchor = "main";
    bool http = false;
    for (const auto &d : conf.directives) http = http || (d.block && lower(d.name()) == "http");
    walk(conf.directives, top);
    for (const Pass &ps : passes_)
      if (Scope *o = owner(ps.scope, ps.module)) o->reach[ps.module].add(servers(*ps.d), upstreamName(*ps.d));
    for (Scope &s : scopes_)
      for (size_t m = 0; m < kModuleCount; ++m)
        if (Scope *o = owner(&s, m); o && (s.include || (&s == &top && !http))) o->reach[m].add(std::nullopt, "");
    for (Scope &s : scopes_)
      for (size_t m = 0; m < kModuleCount; ++m)
        if (s.written[m].any() && s.reach[m].used) emit(s, m);
  }

private:
  Span at(const NginxWord &w) const { return src_.spanAt(w.offset, std::max<size_t>(1, w.length)); }

  void walk(const std::vector<NginxDirective> &ds, Scope &s) {
    for (const NginxDirective &d : ds) {
      const std::string name = lower(d.name());
      if (d.block) {
        if (name == "http" || name == "server" || name == "location" || name == "if" || name == "limit_except") {
          Scope &c = scopes_.emplace_back();
          c.parent = &s;
          std::string what = name;
          if (name == "server") {
            for (const auto &sd : d.children)
              if (!sd.block && lower(sd.name()) == "server_name" && sd.words.size() > 1) what += " " + sd.words[1].text;
          } else {
            for (size_t i = 1; i < d.words.size(); ++i) what += " " + d.words[i].text;
          }
          c.label = s.parent && s.parent->parent ? s.label + ", " + what : what;
          c.anchor = s.anchor + "/" + what;
          walk(d.children, c);
        } else if (name == "upstream" && d.words.size() >= 2) {
          upstreams_[lower(d.words[1].text)] = readUpstream(d);
        }
        // stream, mail, events, map, geo, types, split_clients…: no HTTP next upstream there.
        continue;
      }
      if (name == "include") s.include = true;
      for (size_t m = 0; m < kModuleCount; ++m) {
        const std::string p(nginx::prefix(kModules[m]));
        if (name == p + "_pass") passes_.push_back({&s, m, &d});
        else if (name == p + "_next_upstream") s.written[m].next = &d, validateConditions(d, kModules[m]);
        else if (name == p + "_next_upstream_tries") s.written[m].tries = &d, validateTries(d);
        else if (name == p + "_next_upstream_timeout") s.written[m].timeout = &d, validateTimeout(d);
      }
    }
  }

  // How many addresses an upstream block lists; nullopt for a name resolved by DNS, an include.
  static std::optional<int> readUpstream(const NginxDirective &d) {
    int n = 0;
    for (const auto &sd : d.children) {
      const std::string name = lower(sd.name());
      if (name == "include") return std::nullopt;
      if (name != "server" || sd.block || sd.words.size() < 2) continue;
      bool down = false;
      for (size_t i = 2; i < sd.words.size(); ++i) down = down || lower(sd.words[i].text) == "down";
      if (down) continue;
      const std::optional<int> one = addressCount(sd.words[1]);
      if (!one) return std::nullopt;
      n += *one;
    }
    if (n == 0) return std::nullopt;
    return n;
  }

  // One address (an IP literal, unix:), or nullopt for a name DNS may resolve to several.
  static std::optional<int> addressCount(const NginxWord &w) {
    if (opaque(w)) return std::nullopt;
    std::string a = lower(w.text);
    if (a.rfind("unix:", 0) == 0 || a.rfind("[", 0) == 0) return 1;
    a = a.substr(0, a.find(':'));
    int dots = 0;
    for (char c : a) {
      if (c == '.') ++dots;
      else if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    return dots == 3 ? std::optional<int>(1) : std::nullopt;
  }

  // The host a pass names: "backend" of proxy_pass http://backend:8080/api.
  static std::string host(const NginxDirective &pass) {
    if (pass.words.size() < 2 || opaque(pass.words[1])) return "";
    std::string a = lower(pass.words[1].text);
    if (size_t s = a.find("://"); s != std::string::npos) a = a.substr(s + 3);
    if (a.rfind("unix:", 0) == 0) return a;
    a = a.substr(0, a.find('/'));
    if (a.rfind("[", 0) == 0) return a;
    return a.substr(0, a.find(':'));
  }
  std::string upstreamName(const NginxDirective &pass) const {
    const std::string h = host(pass);
    return upstreams_.count(h) ? h : "";
  }
  std::optional<int> servers(const NginxDirective &pass) const {
    if (pass.words.size() < 2 || opaque(pass.words[1])) return std::nullopt;
    const std::string h = host(pass);
    if (auto u = upstreams_.find(h); u != upstreams_.end()) return u->second;
    NginxWord w = pass.words[1];
    w.text = h;
    return addressCount(w);
  }

  static Scope *owner(Scope *s, size_t m) {
    for (; s; s = s->parent)
      if (s->written[m].any()) return s;
    return nullptr;
  }
  template <class F> static const NginxDirective *inForce(const Scope *s, size_t m, F field) {
    for (; s; s = s->parent)
      if (const NginxDirective *d = s->written[m].*field) return d;
    return nullptr;
  }

  // ---- what nginx refuses to load: reported wherever it is written ----
  void validateConditions(const NginxDirective &d, Module m) {
    const std::string name = d.words[0].text;
    if (d.words.size() < 2) {
      cx_.problem(at(d.words[0]), name + " has no value: " + kRefused + " (\"invalid number of arguments\")", "nginx/" + name);
      return;
    }
    for (size_t i = 1; i < d.words.size(); ++i) {
      const NginxWord &w = d.words[i];
      if (opaque(w) || nginx::accepts(m, lower(w.text))) continue;
      std::string msg = name + " condition '" + w.text + "' is none of " + nginx::acceptedWords(m) + ": " + kRefused + " (\"invalid value\")";
      if (w.text.find(',') != std::string::npos) msg += "; the conditions are separated by spaces, not commas";
      cx_.problem(at(w), msg, "nginx/" + name + "/" + w.text);
    }
  }
  // A directive of one value: `what` names it for messages, `why` says what is wrong with a value
  // ("" when nginx takes it), `refusal` is nginx's own word for it.
  template <class Check> void validateOne(const NginxDirective &d, const char *what, const char *refusal, Check why) {
    const std::string name = d.words[0].text;
    if (d.words.size() != 2) {
      cx_.problem(at(d.words[0]), name + " takes one " + what + ": " + kRefused + " (\"invalid number of arguments\")", "nginx/" + name);
      return;
    }
    const NginxWord &w = d.words[1];
    if (opaque(w)) return;
    if (const std::string wrong = why(w.text); !wrong.empty())
      cx_.problem(at(w), name + " " + wrong + ": " + kRefused + " (\"" + refusal + "\")", "nginx/" + name);
  }
  void validateTries(const NginxDirective &d) {
    validateOne(d, "number", "invalid number", [](const std::string &v) { return tries(v) ? std::string() : "'" + v + "' is not a whole number"; });
  }
  void validateTimeout(const NginxDirective &d) {
    validateOne(d, "time", "invalid value", [](const std::string &v) {
      std::string why;
      return parseNginxTime(v, &why) ? std::string() : why;
    });
  }
  static std::optional<int> tries(std::string_view v) {
    unsigned n = 0;
    if (v.empty() || v.size() > 9 || llvm::StringRef(v.data(), v.size()).getAsInteger(10, n)) return std::nullopt;
    return static_cast<int>(n);
  }

  // ---- the policy of one level ----
  void emit(const Scope &s, size_t m) {
    const Module mod = kModules[m];
    const std::string pre(nginx::prefix(mod));
    const Reach &reach = s.reach[m];
    if (reach.servers && *reach.servers <= 1) return; // one server: nothing to pass the request on to

    RetryPolicy p;
    p.format = std::string(kFormat);
    p.component = "NGINX " + s.label + " (" + pre + "_next_upstream)";
    p.anchor = "nginx/" + s.anchor + "/" + pre;
    const Scope::Written &w = s.written[m];
    p.where = at((w.next ? w.next : w.tries ? w.tries : w.timeout)->words[0]);
    p.attempts_field = pre + "_next_upstream_tries";
    p.deadline_name = pre + "_next_upstream_timeout";
    nginx::markFailover(p);

    if (const NginxDirective *next = inForce(&s, m, &Scope::Written::next)) {
      bool nonIdempotent = false;
      Span nonIdempotentAt;
      for (size_t i = 1; i < next->words.size(); ++i) {
        const NginxWord &word = next->words[i];
        if (opaque(word)) continue; // a template's value: not in this file
        const std::string v = lower(word.text);
        if (!nginx::accepts(mod, v)) return; // nginx does not load it: RL901 says so
        if (v == "off") return;               // `off` wins: nothing is passed on
        if (v == "non_idempotent") nonIdempotentAt = at(word);
        nginx::addCondition(v, at(word), p, nonIdempotent);
        // The servers of an upstream need not be replicas: NGINX passes a 403 or 404 on as "next",
        // not as the server failing (ngx_http_upstream_next: NGX_PEER_NEXT).
        if (v == "http_403" || v == "http_404")
          p.retry_on.back().failover_why = "the servers of the upstream hold different content: NGINX passes a " + v.substr(5) +
                                           " on without counting it as the server failing";
        // NGINX's http_503 is "a server returned a response with the code 503": the upstream
        // server's own answer (NGINX's own failures are `error`/`timeout`).
        if (v == "http_503") p.retry_on.back().refusal_why = refusedBeforeProcessing("NGINX");
      }
      if (next->words.size() < 2) return;
      if (nonIdempotent) nginx::addNonIdempotentMethods(p, nonIdempotentAt);
    } else {
      nginx::addDefaultConditions(p, p.where, "NGINX default " + pre + "_next_upstream error timeout");
    }

    const NginxDirective *td = inForce(&s, m, &Scope::Written::tries);
    std::optional<int> n = 0; // 0: no limit, NGINX's default
    Span triesAt = p.where;
    if (td) {
      if (td->words.size() != 2) return;
      triesAt = at(td->words[1]);
      n = opaque(td->words[1]) ? std::nullopt : tries(td->words[1].text);
      if (!n && !opaque(td->words[1])) return; // not a number: RL901
    }
    const std::string serversText = reach.servers ? std::to_string(*reach.servers) + " servers" + (reach.upstream.empty() ? "" : " of upstream " + reach.upstream) : "";
    if (!n) {
      p.max_attempts.origin = Origin::Unknown;
      p.max_attempts.where = triesAt;
    } else if (*n > 0) {
      p.max_attempts = written(std::optional<int>(*n), triesAt);
      if (!reach.servers) {
        p.runtime_max_source = "if the upstream has as many servers: NGINX tries each once, and this file does not list them";
        p.runtime_max_by_design = true;
      } else if (*reach.servers < *n) {
        p.runtime_max_attempts = *reach.servers;
        p.runtime_max_source = "NGINX tries each of the " + serversText + " once";
        p.runtime_max_by_design = true;
      }
    } else if (reach.servers) {
      p.max_attempts = defaulted(std::optional<int>(*reach.servers), triesAt,
                                 (td ? pre + "_next_upstream_tries 0 sets no limit" : "NGINX default " + pre + "_next_upstream_tries 0, no limit") +
                                     ", and NGINX tries each of the " + serversText + " once");
    } else {
      p.max_attempts.origin = Origin::Unknown; // as many as the servers the name resolves to
      p.max_attempts.where = triesAt;
    }

    if (const NginxDirective *t = inForce(&s, m, &Scope::Written::timeout); t && t->words.size() == 2 && !opaque(t->words[1])) {
      auto d = parseNginxTime(t->words[1].text, nullptr);
      if (!d) return;
      if (d->nanos > 0) p.overall_deadline = written(std::optional<Duration>(*d), at(t->words[1]));
    }
    if (!p.overall_deadline.written()) p.overall_deadline.origin = Origin::Unknown; // the client's own deadline
    cx_.model.policies.push_back(std::move(p));
  }

  const SourceFile &src_;
  ExtractContext &cx_;
  std::deque<Scope> scopes_;
  std::vector<Pass> passes_;
  std::map<std::string, std::optional<int>> upstreams_; // by name: the servers each lists
};

// Recognised by content among the files NGINX's are named like: a line that starts with one of
// the next_upstream directives.
bool recogniseText(const SourceFile &src) {
  if (!isFileKind(src.path().str(), kFileKinds) || plainlySomethingElse(src.path().str())) return false;
  const std::string_view t = src.text();
  for (size_t i = t.find("_next_upstream"); i != std::string_view::npos; i = t.find("_next_upstream", i + 1)) {
    size_t b = i;
    while (b > 0 && std::isalpha(static_cast<unsigned char>(t[b - 1]))) --b;
    const std::string_view pre = t.substr(b, i - b);
    size_t e = i + 14;
    while (e < t.size() && (std::isalpha(static_cast<unsigned char>(t[e])) || t[e] == '_')) ++e;
    const std::string_view rest = t.substr(i + 14, e - i - 14);
    const bool known = pre == "proxy" || pre == "grpc" || pre == "fastcgi" || pre == "uwsgi" || pre == "scgi";
    const bool startsLine = [&] {
      for (size_t k = b; k > 0; --k) {
        const char c = t[k - 1];
        if (c == '\n' || c == ';' || c == '{' || c == '}') return true;
        if (c != ' ' && c != '\t') return false;
      }
      return true;
    }();
    if (known && startsLine && (rest.empty() || rest == "_tries" || rest == "_timeout") && e < t.size() && (t[e] == ' ' || t[e] == '\t'))
      return true;
  }
  return false;
}

void extractText(const SourceFile &src, ExtractContext &cx) {
  NginxConf conf;
  try {
    conf = parseNginxConf(src.text(), std::min(cx.options.max_nesting, 64));
  } catch (const NginxSyntaxError &e) {
    // A template (Jinja, ERB, Helm) whose statements leave the blocks unbalanced: not NGINX's
    // syntax until it is rendered, and not ours to judge.
    if (e.templated) return;
    throw TypeError(src.spanAt(e.offset, 1), std::string("not NGINX configuration syntax: ") + e.what());
  }
  Reader(src, cx).read(conf);
}

} // namespace

namespace {
const Extractor &nginxConfExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recogniseText = recogniseText,
      .extractText = extractText,
      .priority = 57,
      .file_kinds = kFileKinds,
  };
  return e;
}
const ExtractorRegistration registered(&nginxConfExtractor);
} // namespace

} // namespace retrylint
