// NGINX (nginx.conf, and the ingress-nginx annotations that become the same directives) and
// HAProxy (haproxy.cfg): the proxies whose retries are a failover to the next server. What the
// fixtures under fixtures/nginx, fixtures/haproxy and fixtures/ingress-nginx do not pin down: the
// model each file gives, the time syntaxes, and templates and hostile files never costing exit 2.
#include <string>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "lint/extract/nginx_syntax.h"
#include "lint/model/duration.h"
#include "test_support.h"

using namespace retrylint;

namespace {

FileModel model(const std::string &path, const std::string &text) { return retrylint::testing::extract(path, text); }
const auto rule = retrylint::testing::findingsOf;
bool contains(const std::string &s, std::string_view part) { return s.find(part) != std::string::npos; }

} // namespace

TEST(NginxTime, ReadsWhatNgxParseTimeReads) {
  EXPECT_EQ(parseNginxTime("30", nullptr)->seconds(), 30);  // no unit: seconds
  EXPECT_EQ(parseNginxTime("500ms", nullptr)->millis(), 500);
  EXPECT_EQ(parseNginxTime("1m30s", nullptr)->seconds(), 90);
  EXPECT_EQ(parseNginxTime("1m 30s", nullptr)->seconds(), 90);
  EXPECT_EQ(parseNginxTime("1h 5", nullptr)->seconds(), 3605);
  EXPECT_EQ(parseNginxTime("2d", nullptr)->seconds(), 2 * 86400);
  EXPECT_EQ(parseNginxTime("0", nullptr)->nanos, 0);
  std::string why;
  EXPECT_FALSE(parseNginxTime("1.5s", &why));
  EXPECT_TRUE(contains(why, "'1.5s' is not an NGINX time")) << why;
  EXPECT_FALSE(parseNginxTime("30s1m", nullptr)); // units from the largest down
  EXPECT_FALSE(parseNginxTime("1s1s", nullptr));
  EXPECT_FALSE(parseNginxTime("5 5", nullptr));   // a bare number only last
  EXPECT_FALSE(parseNginxTime("1y", nullptr));    // a millisecond directive has no years or months
  EXPECT_FALSE(parseNginxTime("", nullptr));
  EXPECT_FALSE(parseNginxTime("-1s", nullptr));
}

TEST(HaproxyTime, ReadsMillisecondsByDefault) {
  EXPECT_EQ(parseHaproxyTime("5000", nullptr)->seconds(), 5);
  EXPECT_EQ(parseHaproxyTime("5s", nullptr)->seconds(), 5);
  EXPECT_EQ(parseHaproxyTime("2m", nullptr)->seconds(), 120);
  EXPECT_EQ(parseHaproxyTime("1h", nullptr)->seconds(), 3600);
  EXPECT_EQ(parseHaproxyTime("1d", nullptr)->seconds(), 86400);
  EXPECT_EQ(parseHaproxyTime("250us", nullptr)->nanos, 250'000);
  EXPECT_FALSE(parseHaproxyTime("5sec", nullptr));
  EXPECT_FALSE(parseHaproxyTime("s", nullptr));
}

TEST(NginxSyntax, KeepsWordsBlocksAndPositions) {
  NginxConf c = parseNginxConf("http {\n  # a comment; {\n  location \"/a b\" { proxy_pass http://x; }\n  set $v '${x}y';\n}\n", 64);
  ASSERT_EQ(c.directives.size(), 1u);
  const NginxDirective &http = c.directives[0];
  EXPECT_TRUE(http.block);
  ASSERT_EQ(http.children.size(), 2u);
  EXPECT_EQ(http.children[0].words[1].text, "/a b");
  EXPECT_EQ(http.children[0].words[1].offset, 35u);
  EXPECT_EQ(http.children[0].children[0].words[1].text, "http://x");
  EXPECT_TRUE(http.children[1].words[1].variable);
  EXPECT_FALSE(c.templated);
}

TEST(NginxSyntax, TemplateExpressionsAreWordsAndStatementsAreSkipped) {
  NginxConf c = parseNginxConf("server {\n{% if x %}\n  listen {{ port }};\n{% endif %}\n  root <%= @root %>/www;\n}\n", 64);
  ASSERT_EQ(c.directives.size(), 1u);
  ASSERT_EQ(c.directives[0].children.size(), 2u);
  EXPECT_TRUE(c.directives[0].children[0].words[1].templated);
  EXPECT_EQ(c.directives[0].children[1].words[1].text, "<%= @root %>/www");
  EXPECT_TRUE(c.templated);
}

TEST(NginxSyntax, ErrorsSayWhereAndWhetherTheFileIsATemplate) {
  try {
    parseNginxConf("http {\n  server {\n", 64);
    FAIL() << "unbalanced blocks were accepted";
  } catch (const NginxSyntaxError &e) {
    EXPECT_EQ(e.offset, 16u); // the innermost block left open
    EXPECT_FALSE(e.templated);
  }
  try {
    parseNginxConf("location / {\n{% if a %}\n}\n{% endif %}\n}\n", 64);
    FAIL() << "unbalanced blocks were accepted";
  } catch (const NginxSyntaxError &e) {
    EXPECT_TRUE(e.templated);
  }
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "a {";
  EXPECT_THROW(parseNginxConf(deep, 64), NginxSyntaxError);
}

TEST(NginxConf, ABrokenConfigIsAnErrorWithItsLineAndATemplateIsQuiet) {
  FileResult bad = analyseText("nginx.conf", "http {\n  proxy_next_upstream error timeout;\n  server {\n", true, RunOptions{});
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].line, 3);
  EXPECT_TRUE(contains(bad.errors[0].message, "not NGINX configuration syntax")) << bad.errors[0].message;

  FileResult tpl = analyseText("site.conf.j2",
                               "server {\n{% if a %}\n  location / {\n{% endif %}\n    proxy_next_upstream error timeout non_idempotent;\n"
                               "    proxy_pass http://b;\n  }\n}\n}\n",
                               true, RunOptions{});
  EXPECT_TRUE(tpl.errors.empty());
  EXPECT_TRUE(tpl.findings.empty());

  std::string nested = "proxy_next_upstream error;\n";
  for (int i = 0; i < 20000; ++i) nested += "a {";
  FileResult deep = analyseText("deep.conf", nested, true, RunOptions{});
  ASSERT_EQ(deep.errors.size(), 1u);
  EXPECT_TRUE(contains(deep.errors[0].message, "nested deeper than")) << deep.errors[0].message;
}

TEST(NginxConf, RecognisesOnlyFilesThatWriteTheDirectives) {
  FileModel m;
  std::vector<Diagnostic> errors;
  // A directive named in a comment, or another .conf format, is not NGINX's.
  EXPECT_FALSE(extractText("app.conf", "# proxy_next_upstream error timeout\n[section]\nkey = value\n", true, m, errors));
  EXPECT_FALSE(extractText("nginx.yaml.txt", "proxy_next_upstream error timeout;\n", true, m, errors));
  EXPECT_TRUE(errors.empty());
}

TEST(NginxConf, SettingsAreInheritedPerDirectiveAndTriesMeetTheServers) {
  FileModel m = model("nginx.conf",
                      "http {\n"
                      "  upstream two { server 10.0.0.1; server 10.0.0.2; }\n"
                      "  upstream dns { server api.internal:80; }\n"
                      "  proxy_next_upstream error timeout http_503;\n"
                      "  proxy_next_upstream_timeout 10s;\n"
                      "  server {\n"
                      "    location /a { proxy_next_upstream_tries 5; proxy_pass http://two; }\n"
                      "    location /b { proxy_next_upstream_tries 4; proxy_pass http://dns; }\n"
                      "    location /c { proxy_next_upstream_tries 0; proxy_pass http://two; }\n"
                      "  }\n"
                      "}\n");
  ASSERT_EQ(m.policies.size(), 3u);
  const RetryPolicy &a = m.policies[0], &b = m.policies[1], &c = m.policies[2];
  EXPECT_EQ(a.component, "NGINX server, location /a (proxy_next_upstream)");
  // Conditions from the http level, tries from the location, the timeout from the http level.
  ASSERT_EQ(a.retry_on.size(), 3u);
  EXPECT_EQ(a.retry_on[2].http_lo, 503);
  EXPECT_EQ(a.retry_on[2].where.line, 4);
  EXPECT_EQ(a.max_attempts.value, 5);
  EXPECT_EQ(a.effectiveAttempts(), 2); // two servers, each tried once
  EXPECT_EQ(a.overall_deadline.value->seconds(), 10);
  EXPECT_EQ(a.backoff.growth.origin, Origin::NotApplicable);
  // A name DNS resolves: as many servers as it has addresses, up to the tries.
  EXPECT_EQ(b.max_attempts.value, 4);
  EXPECT_FALSE(b.exactRetries());
  // No limit: every server once.
  EXPECT_EQ(c.max_attempts.value, 2);
  EXPECT_EQ(c.max_attempts.origin, Origin::Defaulted);
  EXPECT_TRUE(contains(c.max_attempts.source, "each of the 2 servers of upstream two once")) << c.max_attempts.source;
}

TEST(NginxConf, OffAndOneServerPassNothingOn) {
  FileModel m = model("nginx.conf",
                      "http {\n"
                      "  proxy_next_upstream error timeout non_idempotent;\n"
                      "  server {\n"
                      "    location /a { proxy_next_upstream off; proxy_pass http://x; }\n"
                      "    location /b { proxy_pass http://127.0.0.1:8080; }\n"
                      "    location /c { proxy_pass unix:/run/app.sock; }\n"
                      "  }\n"
                      "}\n");
  EXPECT_TRUE(m.policies.empty());
}

TEST(NginxConf, AnIncludeMayBringTheLocationsThatUseTheSettings) {
  FileModel m = model("nginx.conf", "http {\n  proxy_next_upstream error timeout http_404;\n  include conf.d/*.conf;\n}\n");
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].max_attempts.origin, Origin::Unknown);
  FileResult r = analyseText("nginx.conf", "http {\n  proxy_next_upstream error timeout http_404;\n  include conf.d/*.conf;\n}\n", true, RunOptions{});
  ASSERT_EQ(rule(r, "RL401").size(), 1u);
  EXPECT_TRUE(contains(rule(r, "RL401")[0]->message, "on every attempt")) << rule(r, "RL401")[0]->message;
}

TEST(Haproxy, RetriesCountRetriesAndDefaultsAreInherited) {
  FileModel m = model("haproxy.cfg",
                      "defaults\n  mode http\n  retries 4\n  timeout server 20s\n"
                      "backend a\n  retry-on conn-failure 503\n  server s 10.0.0.1:80\n"
                      "backend b\n  server s 10.0.0.1:80\n"
                      "defaults plain\n  mode http\n"
                      "backend c\n  retry-on 503\n");
  ASSERT_EQ(m.policies.size(), 3u);
  const RetryPolicy &d = m.policies[0], &a = m.policies[1], &c = m.policies[2];
  EXPECT_EQ(d.component, "HAProxy defaults");
  EXPECT_EQ(d.used_by, "used by backend a, backend b");
  EXPECT_EQ(d.max_attempts.value, 5);
  EXPECT_TRUE(d.attempts_count_retries);
  EXPECT_EQ(a.max_attempts.value, 5); // the defaults' retries 4
  EXPECT_EQ(a.max_attempts.where.line, 3);
  EXPECT_EQ(a.per_try_timeout.value->seconds(), 20);
  ASSERT_EQ(a.retry_on.size(), 2u);
  EXPECT_FALSE(a.retry_on[0].may_have_been_processed);
  EXPECT_EQ(a.retry_on[1].http_lo, 503);
  // A defaults section starts from HAProxy's own: retries 3.
  EXPECT_EQ(c.max_attempts.value, 4);
  EXPECT_EQ(c.max_attempts.origin, Origin::Defaulted);
}

TEST(Haproxy, ModeTcpIgnoresRetryOnAndDisableL7RetryGuardsTheMethods) {
  FileModel tcp = model("haproxy.cfg", "defaults\n  retries 3\nbackend db\n  retry-on response-timeout\n  server s 10.0.0.1:5432\n");
  ASSERT_EQ(tcp.policies.size(), 2u);
  ASSERT_EQ(tcp.policies[1].retry_on.size(), 1u);
  EXPECT_EQ(tcp.policies[1].retry_on[0].text, "conn-failure");
  EXPECT_TRUE(tcp.policies[1].methods.empty());

  const std::string l7 = "defaults\n  mode http\nbackend api\n  retry-on response-timeout\n  server s 10.0.0.1:80\n";
  FileResult open = analyseText("haproxy.cfg", l7, true, RunOptions{});
  ASSERT_EQ(rule(open, "RL403").size(), 1u);
  EXPECT_EQ(rule(open, "RL403")[0]->where.line, 4);
  FileResult guarded = analyseText("haproxy.cfg", l7 + "  http-request disable-l7-retry if METH_POST\n", true, RunOptions{});
  EXPECT_TRUE(rule(guarded, "RL403").empty());
  // ACLs side by side must all match: a request is never a POST and a PUT at once.
  FileResult never = analyseText("haproxy.cfg", l7 + "  http-request disable-l7-retry if METH_POST METH_PUT\n", true, RunOptions{});
  ASSERT_EQ(rule(never, "RL403").size(), 1u);
  EXPECT_NE(rule(never, "RL403")[0]->message.find("`http-request disable-l7-retry if METH_POST METH_PUT` never applies"), std::string::npos) << rule(never, "RL403")[0]->message;
  FileResult either = analyseText("haproxy.cfg", l7 + "  http-request disable-l7-retry if METH_PUT or METH_POST\n", true, RunOptions{});
  EXPECT_TRUE(rule(either, "RL403").empty());
  FileResult unconditional = analyseText("haproxy.cfg", l7 + "  http-request disable-l7-retry\n", true, RunOptions{});
  EXPECT_TRUE(rule(unconditional, "RL403").empty());
}

TEST(Haproxy, RecognisesOnlyHaproxySections) {
  FileModel m;
  std::vector<Diagnostic> errors;
  EXPECT_FALSE(extractText("setup.cfg", "[metadata]\nname = x\nretries = 3\n", true, m, errors));
  EXPECT_FALSE(extractText("haproxy.cfg", "global\n  maxconn 10\n", true, m, errors));
  EXPECT_TRUE(errors.empty());
}
