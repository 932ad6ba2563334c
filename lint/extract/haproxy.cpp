// HAProxy configuration files (haproxy.cfg, and templates of them): `retries`, `retry-on`,
// `option redispatch` and `http-request disable-l7-retry` of defaults, backend and listen sections.
//
// Field facts (haproxy/haproxy at 50872daa, 3.5-dev; doc/configuration.txt; docs/formats.md §11.12):
//   - `retries <n>`: "the number of times a request or connection attempt should be retried on a
//     server after a failure", so n + 1 attempts; default 3 (include/haproxy/defaults.h CONN_RETRIES);
//     connection and L7 retries share the count (src/backend.c back_handle_st_cer, src/http_ana.c
//     do_l7_retry);
//   - `retry-on <keywords>`: default conn-failure ("the request could not be sent"); only in mode
//     http, ignored otherwise (and HAProxy's default mode is tcp); replaces, not adds to, what a
//     defaults section set; `none` alone turns retries off; all-retryable-errors is conn-failure,
//     empty-response, junk-response, response-timeout, 0rtt-rejected, 500, 502, 503 and 504; the
//     status codes are 401, 403, 404, 408, 421, 425, 429, 500, 501, 502, 503, 504; an unknown
//     keyword stops HAProxy from starting;
//   - L7 retries replay any method, POST included: "it is very dangerous to use any retry-on value
//     beside conn-failure and none" without replay protection; `http-request disable-l7-retry`
//     turns them off per request ("to make sure POST requests aren't retried");
//   - a frontend, backend or listen section takes its settings from the latest defaults section
//     before it, or the one named by `from`; a defaults section starts from HAProxy's defaults.
//
// The wait before a retry on the same server is a turn-around timer of min(timeout connect, 1 s),
// and none after a redispatch or for an L7 retry: not a backoff the file configures, so the backoff
// rules stay out (NotApplicable). `timeout server` bounds each try waiting for the response.
#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include <llvm/ADT/StringRef.h>

#include "lint/extract/extractors.h"
#include "lint/model/status_codes.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "haproxy";
constexpr int kDefaultRetries = 3;
// The names HAProxy's files and their templates go by; recognised among them by content.
const std::vector<std::string_view> kFileKinds = {".cfg", "haproxy.cfg.*", "*.cfg.j2", "*.cfg.tmpl", "*.cfg.tpl"};
constexpr const char *kRetriesSource = "HAProxy default retries 3 (include/haproxy/defaults.h CONN_RETRIES)";
constexpr const char *kRefused = "HAProxy refuses the configuration and does not start (or a reload keeps the old one)";


// ---- the line syntax (doc/configuration.txt 2.1, 2.2) ----
struct Word {
  std::string text;
  int col0 = 0, length = 0;
  bool templated = false; // a template expression or an environment variable: unknown value
};
struct Line {
  int line0 = 0;
  std::vector<Word> words;
};

bool startsTemplate(std::string_view s, size_t i) {
  std::string_view two = s.substr(i, 2);
  return two == "{{" || two == "{%" || two == "{#" || two == "<%";
}

// The words of one line: blanks separate them, an unprotected # starts a comment, '…' and "…"
// protect, `\` escapes; "${NAME}" in double quotes is an environment variable. Template
// expressions ({{ … }}, <%= … %>) are words or parts of one; a line that is only a template
// statement ({% if %}, <% end %>) or a conditional block's line (.if, .endif) has no words.
std::vector<Word> split(std::string_view s) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    if (i >= s.size() || s[i] == '#') break;
    Word w;
    w.col0 = static_cast<int>(i);
    char quote = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (!quote && (c == ' ' || c == '\t' || c == '\r' || c == '#')) break;
      if (startsTemplate(s, i)) {
        std::string_view two = s.substr(i, 2);
        std::string_view close = two == "{{" ? "}}" : two == "{%" ? "%}" : two == "{#" ? "#}" : "%>";
        size_t end = s.find(close, i + 2);
        end = end == std::string_view::npos ? s.size() : end + 2;
        w.text.append(s.substr(i, end - i));
        w.templated = true;
        i = end;
        continue;
      }
      if (c == '\\' && quote != '\'' && i + 1 < s.size()) {
        w.text += s[i + 1];
        i += 2;
        continue;
      }
      if ((c == '"' || c == '\'') && (!quote || quote == c)) {
        quote = quote ? 0 : c;
        ++i;
        continue;
      }
      if (c == '$' && quote != '\'') w.templated = true;
      w.text += c;
      ++i;
    }
    w.length = static_cast<int>(i) - w.col0;
    const bool statement = w.templated && out.empty() && (w.text.rfind("{%", 0) == 0 || w.text.rfind("{#", 0) == 0 ||
                                                          (w.text.rfind("<%", 0) == 0 && w.text.rfind("<%=", 0) != 0));
    if (!statement) out.push_back(std::move(w));
  }
  if (!out.empty() && out[0].text.size() > 1 && out[0].text[0] == '.' && !out[0].templated) return {}; // .if, .else, .endif, .notice
  return out;
}

// ---- sections and what they set ----
struct Section {
  std::string kind; // "defaults", "backend", "listen", "frontend"
  std::string name;
  std::string from; // the defaults section it takes its settings from ("" = the latest)
  Section *defaults = nullptr;
  const Line *retries = nullptr, *retry_on = nullptr, *mode = nullptr, *timeout_server = nullptr;
  std::vector<std::string> users; // for a defaults section: the backends and listens that take it
};

bool isSectionKeyword(std::string_view w) {
  static constexpr std::string_view kinds[] = {"global", "defaults", "frontend", "backend", "listen", "userlist", "peers", "resolvers",
                                               "mailers", "http-errors", "ring", "cache", "fcgi-app", "log-forward", "log-profile",
                                               "crt-store", "acme", "healthcheck", "namespace_list", "spoe-agent", "spoe-group",
                                               "spoe-message", "traces", "program"};
  return std::find(std::begin(kinds), std::end(kinds), w) != std::end(kinds);
}
bool isProxy(std::string_view k) { return k == "defaults" || k == "frontend" || k == "backend" || k == "listen"; }

struct Keyword {
  std::string_view word;
  bool sent; // the request reached the server: it may have acted on it
  const char *why;
};
// retry-on's words other than status codes (doc/configuration.txt "retry-on").
constexpr Keyword kWords[] = {
    {"conn-failure", false, ""},
    {"empty-response", true, "empty-response means the connection closed after the request was sent"},
    {"junk-response", true, "junk-response comes after the request was sent"},
    {"response-timeout", true, "response-timeout means the server timeout struck after the request was sent"},
    {"0rtt-rejected", false, ""},
};
constexpr int kCodes[] = {401, 403, 404, 408, 421, 425, 429, 500, 501, 502, 503, 504};

// What the `http-request disable-l7-retry [if <condition>]` rules of a file turn off. A condition
// is ACLs side by side, which must all match, with `||` or `or` between such groups, any of which
// may (doc/configuration.txt 7.2, "Using ACLs to form conditions"). An ACL that matches on the
// method, the predefined METH_POST … (7.4) or `{ method POST PUT }` or `acl NAME method …`, matches
// those methods; two side by side that name different methods match no request, which has one.
// Any other condition (`unless`, a negation, another criterion, a template) is taken as turning
// retries off for every method: which requests it matches, the file does not say.
struct L7Off {
  bool all = false;
  std::set<std::string> methods;
  const Line *never = nullptr; // a rule whose condition no request matches
};

// The methods each `acl NAME method …` line names, by NAME (lines of the same name add up).
std::map<std::string, std::set<std::string>> methodAcls(const std::vector<Line> &lines) {
  std::map<std::string, std::set<std::string>> acls;
  std::set<std::string> unknown;
  for (const Line &ln : lines) {
    if (ln.words.size() < 3 || lower(ln.words[0].text) != "acl") continue;
    const std::string name = ln.words[1].text;
    bool ok = lower(ln.words[2].text) == "method" && ln.words.size() > 3;
    std::set<std::string> m;
    for (size_t i = 3; ok && i < ln.words.size(); ++i) {
      ok = !ln.words[i].templated && ln.words[i].text[0] != '-';
      m.insert(llvm::StringRef(ln.words[i].text).upper());
    }
    if (!ok) unknown.insert(name);
    else acls[name].insert(m.begin(), m.end());
  }
  for (const std::string &n : unknown) acls.erase(n);
  return acls;
}

void addL7Off(const Line &ln, const std::map<std::string, std::set<std::string>> &acls, L7Off &off) {
  const std::vector<Word> &w = ln.words;
  if (w.size() == 2) return void(off.all = true);
  if (lower(w[2].text) != "if" || w[2].templated) return void(off.all = true);
  // Each group: the methods all its ACLs match (nullopt: any method; a term this cannot read
  // makes the whole rule unknown).
  std::set<std::string> matched;
  std::optional<std::set<std::string>> group;
  bool unknown = false, empty = true;
  auto term = [&](const std::set<std::string> &m) {
    if (!group) group = m;
    else {
      std::set<std::string> both;
      std::set_intersection(group->begin(), group->end(), m.begin(), m.end(), std::inserter(both, both.end()));
      group = both;
    }
  };
  auto close = [&] {
    if (group) matched.insert(group->begin(), group->end());
    else unknown = true; // an empty group: not a condition this reads
    empty = empty && (!group || group->empty());
    group.reset();
  };
  for (size_t i = 3; i < w.size() && !unknown; ++i) {
    const std::string &t = w[i].text;
    if (w[i].templated) unknown = true;
    else if (t == "||" || lower(t) == "or") close();
    else if (t == "{") {
      std::set<std::string> m;
      size_t j = i + 1;
      if (j < w.size() && lower(w[j].text) == "method") {
        for (++j; j < w.size() && w[j].text != "}"; ++j) m.insert(llvm::StringRef(w[j].text).upper());
      } else {
        unknown = true;
      }
      if (j >= w.size() || m.empty()) unknown = true;
      term(m);
      i = j;
    } else if (t.rfind("METH_", 0) == 0 && t.size() > 5) {
      term({t.substr(5)});
    } else if (auto a = acls.find(t); a != acls.end()) {
      term(a->second);
    } else {
      unknown = true; // a negation, another ACL, another criterion
    }
  }
  if (!unknown) close();
  if (unknown) return void(off.all = true);
  off.methods.insert(matched.begin(), matched.end());
  if (empty && !off.never) off.never = &ln;
}

class Reader {
public:
  Reader(const SourceFile &src, ExtractContext &cx) : src_(src), cx_(cx) {}

  void read() {
    for (int l = 0; l < src_.lineCount(); ++l) {
      Line line{l, split(src_.line(l))};
      if (line.words.empty()) continue;
      lines_.push_back(std::move(line));
    }
    Section *cur = nullptr;
    for (const Line &ln : lines_) {
      const std::string key = lower(ln.words[0].text);
      if (isSectionKeyword(key) && !ln.words[0].templated) {
        cur = isProxy(key) ? &sections_.emplace_back() : nullptr;
        if (!cur) continue;
        cur->kind = key;
        for (size_t i = 1; i < ln.words.size(); ++i) {
          if (lower(ln.words[i].text) == "from" && i + 1 < ln.words.size()) cur->from = ln.words[++i].text;
          else if (cur->name.empty()) cur->name = ln.words[i].text;
        }
        continue;
      }
      if (!cur) continue;
      if (key == "retries") cur->retries = &ln;
      else if (key == "retry-on") cur->retry_on = &ln;
      else if (key == "mode") cur->mode = &ln;
      else if (key == "timeout" && ln.words.size() > 1 && lower(ln.words[1].text) == "server") cur->timeout_server = &ln;
      else if (key == "http-request" && ln.words.size() > 1 && lower(ln.words[1].text) == "disable-l7-retry") l7Rules_.push_back(&ln);
    }
    const auto acls = methodAcls(lines_);
    for (const Line *ln : l7Rules_) addL7Off(*ln, acls, l7Off_);
    // Who takes which defaults: the latest before it, or the named one.
    Section *latest = nullptr;
    std::map<std::string, Section *> named;
    for (Section &s : sections_) {
      Section *from = nullptr;
      if (!s.from.empty()) from = named.count(s.from) ? named[s.from] : nullptr;
      else if (s.kind != "defaults") from = latest;
      s.defaults = from;
      if (s.kind == "defaults") {
        latest = &s;
        if (!s.name.empty()) named[s.name] = &s;
      }
    }
    for (Section &s : sections_) {
      validate(s);
      if (s.kind == "backend" || s.kind == "listen")
        if (Section *d = s.defaults) d->users.push_back(s.kind + " " + s.name);
    }
    const bool anyProxy = std::any_of(sections_.begin(), sections_.end(), [](const Section &s) { return s.kind != "defaults"; });
    for (const Section &s : sections_) {
      if (s.kind == "frontend") continue;
      if (!s.retries && !s.retry_on) continue; // nothing about retries written here
      if (s.kind == "defaults" && s.users.empty() && anyProxy) continue; // nobody takes it
      emit(s);
    }
  }

private:
  Span at(const Line &l, const Word &w) const {
    return Span{src_.path(), l.line0 + 1, w.col0 + 1, l.line0 + 1, w.col0 + 1 + std::max(1, w.length)};
  }

  template <class F> static const Line *inForce(const Section &s, F field) {
    for (const Section *x = &s; x; x = x->defaults)
      if (const Line *l = x->*field) return l;
    return nullptr;
  }

  static std::optional<int> code(std::string_view w) {
    for (int c : kCodes)
      if (w == std::to_string(c)) return c;
    return std::nullopt;
  }
  static bool known(std::string_view w) {
    if (w == "none" || w == "all-retryable-errors" || code(w)) return true;
    return std::any_of(std::begin(kWords), std::end(kWords), [&](const Keyword &c) { return c.word == w; });
  }

  void validate(const Section &s) {
    const std::string where = s.kind + (s.name.empty() ? "" : " " + s.name);
    if (const Line *l = s.retry_on) {
      if (s.kind == "frontend")
        cx_.problem(at(*l, l->words[0]), "retry-on in frontend " + s.name + ": only defaults, backend and listen sections take it, so " + kRefused,
                    "haproxy/" + where + "/retry-on");
      if (l->words.size() < 2)
        cx_.problem(at(*l, l->words[0]), "retry-on needs at least one keyword: " + std::string(kRefused), "haproxy/" + where + "/retry-on");
      for (size_t i = 1; i < l->words.size(); ++i) {
        const Word &w = l->words[i];
        if (w.templated || known(w.text)) continue;
        cx_.problem(at(*l, w),
                    "retry-on keyword '" + w.text + "' is none of none, conn-failure, empty-response, junk-response, response-timeout, 0rtt-rejected, all-retryable-errors or the status codes 401, 403, 404, 408, 421, 425, 429, 500, 501, 502, 503, 504: " +
                        kRefused,
                    "haproxy/" + where + "/retry-on/" + w.text);
      }
      if (l->words.size() > 2)
        for (size_t i = 1; i < l->words.size(); ++i)
          if (l->words[i].text == "none")
            cx_.problem(at(*l, l->words[i]), "retry-on 'none' with other keywords: 'none' must stand alone, so " + std::string(kRefused),
                        "haproxy/" + where + "/retry-on/none");
    }
    if (const Line *l = s.retries) {
      if (l->words.size() != 2) {
        cx_.problem(at(*l, l->words[0]), "retries takes one number: " + std::string(kRefused), "haproxy/" + where + "/retries");
      } else if (!l->words[1].templated && !count(l->words[1].text)) {
        cx_.problem(at(*l, l->words[1]), "retries '" + l->words[1].text + "' is not a whole number: HAProxy reads it as " +
                                             std::to_string(std::atol(l->words[1].text.c_str())) + " retries (atol) without a word",
                    "haproxy/" + where + "/retries");
      }
    }
  }
  static std::optional<int> count(const std::string &t) {
    unsigned n = 0;
    if (t.empty() || t.size() > 6 || llvm::StringRef(t).getAsInteger(10, n)) return std::nullopt;
    return static_cast<int>(n);
  }

  void emit(const Section &s) {
    const std::string name = s.kind + (s.name.empty() ? "" : " " + s.name);
    RetryPolicy p;
    p.format = std::string(kFormat);
    p.component = "HAProxy " + name;
    p.anchor = "haproxy/" + name;
    const Line *head = s.retry_on ? s.retry_on : s.retries;
    p.where = at(*head, head->words[0]);
    p.attempts_field = "retries";
    p.attempts_count_retries = true;
    p.per_try_field = "timeout server";
    p.backoff.growth.origin = Origin::NotApplicable; // the turn-around timer, not the file's backoff
    p.budget.origin = Origin::Unknown;
    p.overall_deadline.origin = Origin::Unknown; // the client's own timeout
    if (s.kind == "defaults" && !s.users.empty()) {
      std::string list;
      for (size_t i = 0; i < s.users.size() && i < 5; ++i) list += (i ? ", " : "") + s.users[i];
      if (s.users.size() > 5) list += " and " + std::to_string(s.users.size() - 5) + " more";
      p.used_by = "used by " + list;
    }

    // The mode: HAProxy's default is tcp, where retry-on is ignored.
    const Line *mode = inForce(s, &Section::mode);
    const bool modeUnknown = mode && mode->words.size() > 1 && mode->words[1].templated;
    const bool http = mode && mode->words.size() > 1 && lower(mode->words[1].text) == "http";

    const Line *ro = inForce(s, &Section::retry_on);
    bool l7 = false;
    if (ro && (http || modeUnknown)) {
      for (size_t i = 1; i < ro->words.size(); ++i) {
        const Word &w = ro->words[i];
        if (w.templated) continue;
        if (!known(w.text)) return; // HAProxy does not start: RL901 says so
        if (w.text == "none") return; // no retries at all
        l7 = addCondition(p, w.text, at(*ro, w)) || l7;
      }
    } else {
      if (ro && ro->words.size() == 2 && ro->words[1].text == "none") return;
      Condition c;
      c.kind = Condition::Kind::Transport;
      c.text = "conn-failure";
      c.before_send = true;
      c.where = ro ? at(*ro, ro->words[0]) : p.where;
      c.origin = ro ? Origin::Written : Origin::Defaulted; // in mode tcp retry-on is ignored
      p.retry_on.push_back(std::move(c));
    }
    // An L7 retry replays the request whatever its method (no method check in do_l7_retry), unless
    // a rule turns it off: POST and PATCH stand for them.
    // A rule that spares POST is taken as the author's guard for the methods that must not be
    // replayed: PATCH is not reported on its own.
    if (l7 && !l7Off_.all && !l7Off_.methods.count("POST")) {
      for (const char *m : {"POST", "PATCH"}) {
        if (l7Off_.methods.count(m)) continue;
        auto set = written(std::string(m), at(*ro, ro->words[0]));
        if (l7Rules_.empty()) {
          set.source = "HAProxy's L7 retries replay every method, and no http-request disable-l7-retry turns them off";
        } else if (l7Off_.never) {
          // The condition quoted, not its line: in a ConfigMap the inner line is not the file's.
          std::string cond;
          for (size_t i = 2; i < l7Off_.never->words.size(); ++i) cond += (i > 2 ? " " : "") + l7Off_.never->words[i].text;
          set.source = "HAProxy's L7 retries replay every method, and `http-request disable-l7-retry " + cond +
                       "` never applies: ACLs side by side must all match, and a request has one method (`||` between them means either)";
        } else {
          set.source = std::string("HAProxy's L7 retries replay every method, and no http-request disable-l7-retry condition matches ") + m;
        }
        p.methods.push_back(std::move(set));
      }
    }

    const Line *r = inForce(s, &Section::retries);
    if (r && r->words.size() == 2 && r->words[1].templated) {
      p.max_attempts.origin = Origin::Unknown;
      p.max_attempts.where = at(*r, r->words[1]);
    } else if (r && r->words.size() == 2) {
      const long n = std::max(0L, std::min(100000L, std::atol(r->words[1].text.c_str())));
      if (n == 0) return; // no retries
      p.max_attempts = written(std::optional<int>(static_cast<int>(n) + 1), at(*r, r->words[1]));
    } else if (!r) {
      p.max_attempts = defaulted(std::optional<int>(kDefaultRetries + 1), p.where, kRetriesSource);
    } else {
      return; // RL901
    }

    if (const Line *t = inForce(s, &Section::timeout_server); t && t->words.size() == 3 && !t->words[2].templated) {
      if (auto d = parseHaproxyTime(t->words[2].text, nullptr); d && d->nanos > 0) p.per_try_timeout = written(std::optional<Duration>(*d), at(*t, t->words[2]));
    }
    if (!p.per_try_timeout.written()) p.per_try_timeout.origin = Origin::Unknown;
    cx_.model.policies.push_back(std::move(p));
  }

  // Adds what a retry-on keyword retries; true for an L7 retry (one after the request was sent).
  static bool addCondition(RetryPolicy &p, const std::string &w, Span where) {
    if (w == "all-retryable-errors") {
      bool l7 = false;
      for (const char *x : {"conn-failure", "empty-response", "junk-response", "response-timeout", "0rtt-rejected", "500", "502", "503", "504"})
        l7 = addCondition(p, x, where) || l7;
      return l7;
    }
    if (auto c = code(w)) {
      p.retry_on.push_back(httpStatusCondition(*c, Origin::Written, where));
      // "503: retry when the server replied with a 503 status" (HAProxy configuration manual,
      // retry-on): the server's own answer; HAProxy's own failures are the keywords.
      if (*c == 503) p.retry_on.back().refusal_why = refusedBeforeProcessing("HAProxy");
      return true;
    }
    for (const Keyword &k : kWords)
      if (k.word == w) {
        Condition c;
        c.kind = Condition::Kind::Transport;
        c.text = w;
        c.may_have_been_processed = k.sent;
        c.before_send = w == "conn-failure"; // "the request could not be sent"
        c.why_processed = k.why;
        c.where = where;
        p.retry_on.push_back(std::move(c));
        return k.sent || w == "0rtt-rejected";
      }
    return false;
  }

  const SourceFile &src_;
  ExtractContext &cx_;
  std::vector<Line> lines_;
  std::deque<Section> sections_;
  std::vector<const Line *> l7Rules_; // the file's http-request disable-l7-retry rules
  L7Off l7Off_;                       // what they turn off
};

// Recognised by content among the files HAProxy's are named like: a proxy section, and a line
// that starts with `retries` or `retry-on`.
bool recogniseText(const SourceFile &src) {
  if (!isFileKind(src.path().str(), kFileKinds)) return false;
  bool section = false, retry = false;
  for (int l = 0; l < src.lineCount() && !(section && retry); ++l) {
    std::string_view ln = src.line(l);
    size_t i = ln.find_first_not_of(" \t");
    if (i == std::string_view::npos) continue;
    ln.remove_prefix(i);
    auto word = [&](std::string_view w) { return ln.substr(0, w.size()) == w && (ln.size() == w.size() || ln[w.size()] == ' ' || ln[w.size()] == '\t' || ln[w.size()] == '\r'); };
    if (i == 0 && (word("defaults") || word("backend") || word("listen"))) section = true;
    if (word("retries") || word("retry-on")) retry = true;
  }
  return section && retry;
}

void extractText(const SourceFile &src, ExtractContext &cx) { Reader(src, cx).read(); }

} // namespace

namespace {
const Extractor &haproxyExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recogniseText = recogniseText,
      .extractText = extractText,
      .priority = 58,
      .file_kinds = kFileKinds,
  };
  return e;
}
const ExtractorRegistration registered(&haproxyExtractor);
} // namespace

} // namespace retrylint
