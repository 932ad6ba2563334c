// The dialects of issue #21, where retries live besides the formats retrylint first read: Linkerd's
// retry annotations (read alongside the Gateway API spec of the same HTTPRoute) and the AWS SDK
// settings in environment variables (Kubernetes env, Docker Compose, .env files, Dockerfiles).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "cli_support.h"
#include "lint/config/config.h"
#include "lint/yaml/toml.h"
#include "test_support.h"

using namespace retrylint;

namespace {

FileResult run(const std::string &path, const std::string &text) { return retrylint::testing::analyseClean(path, text); }
const auto rule = retrylint::testing::findingsOf;

bool contains(const std::string &s, std::string_view part) { return s.find(part) != std::string::npos; }

FileModel model(const std::string &path, const std::string &text) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText(path, text, true, m, errors);
  for (const Diagnostic &d : errors) ADD_FAILURE() << path << ":" << d.line << ": " << d.message;
  return m;
}

} // namespace

TEST(LinkerdAnnotations, AreReadAlongsideTheGatewayApiSpecOfTheSameRoute) {
  const std::string route = "apiVersion: gateway.networking.k8s.io/v1\n"
                            "kind: HTTPRoute\n"
                            "metadata:\n"
                            "  name: r\n"
                            "  annotations:\n"
                            "    retry.linkerd.io/http: 5xx\n"
                            "    retry.linkerd.io/limit: \"3\"\n"
                            "spec:\n"
                            "  rules:\n"
                            "  - retry: {attempts: 2, codes: [503]}\n";
  FileModel m = model("route.yaml", route);
  ASSERT_EQ(m.policies.size(), 2u);
  std::vector<std::string> formats = m.formats;
  std::sort(formats.begin(), formats.end());
  EXPECT_EQ(formats, (std::vector<std::string>{"gateway-api-route", "linkerd-retry-annotations"}));
  auto linkerd = std::find_if(m.policies.begin(), m.policies.end(), [](const RetryPolicy &p) { return p.format == "linkerd-retry-annotations"; });
  ASSERT_NE(linkerd, m.policies.end());
  EXPECT_EQ(linkerd->max_attempts.value, 4);
  EXPECT_TRUE(linkerd->max_attempts.written());
  EXPECT_EQ(linkerd->max_attempts.where.line, 7);
  ASSERT_EQ(linkerd->retry_on.size(), 1u);
  EXPECT_EQ(linkerd->retry_on[0].http_lo, 500);
  EXPECT_EQ(linkerd->retry_on[0].http_hi, 599);
}

TEST(LinkerdAnnotations, TheLimitDefaultsToOneRetryAndZeroDoesNotTurnRetriesOff) {
  FileModel m = model("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                  "    retry.linkerd.io/http: gateway-error\n");
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].max_attempts.value, 2);
  EXPECT_EQ(m.policies[0].max_attempts.origin, Origin::Defaulted);
  EXPECT_TRUE(contains(m.policies[0].max_attempts.source, "unwrap_or(1)")) << m.policies[0].max_attempts.source;

  FileResult r = run("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                 "    retry.linkerd.io/http: \"503\"\n    retry.linkerd.io/limit: \"0\"\n");
  auto hits = rule(r, "RL901");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->where.line, 7);
  EXPECT_TRUE(contains(hits[0]->message, "still retries once")) << hits[0]->message;

  // Timeouts alone, or a limit of 0 alone, configure no retry.
  EXPECT_TRUE(model("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                "    timeout.linkerd.io/request: 2s\n").policies.empty());
  EXPECT_TRUE(model("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n"
                                "    retry.linkerd.io/limit: \"0\"\n").policies.empty());
}

TEST(LinkerdAnnotations, AnUnreadableConditionDropsTheWholeRetryConfiguration) {
  FileResult r = run("route.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n"
                                   "  annotations:\n    retry.linkerd.io/http: 5xx, 429\n    retry.linkerd.io/limit: \"9\"\n");
  auto hits = rule(r, "RL901");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->where.column, 33); // the entry " 429"
  EXPECT_TRUE(contains(hits[0]->message, "does not trim blanks")) << hits[0]->message;
  EXPECT_TRUE(rule(r, "RL203").empty()); // the 9 retries never happen
}

TEST(AwsEnvironment, TheOptInOfTwentyTwentySixDecidesTheDefaultMode) {
  auto env = [](const std::string &value) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    env:\n"
           "    - {name: AWS_NEW_RETRIES_2026, value: \"" + value + "\"}\n";
  };
  FileModel on = model("pod.yaml", env("true"));
  ASSERT_EQ(on.policies.size(), 1u);
  EXPECT_EQ(on.policies[0].format, "aws-environment");
  EXPECT_EQ(on.policies[0].max_attempts.value, 3);
  EXPECT_EQ(on.policies[0].max_attempts.where.line, 8);
  EXPECT_TRUE(on.policies[0].budget.value); // the retry quota of standard mode
  EXPECT_EQ(on.policies[0].backoff.jitter.value, Jitter::Full);
  FileModel off = model("pod.yaml", env("FALSE"));
  ASSERT_EQ(off.policies.size(), 1u);
  EXPECT_EQ(off.policies[0].max_attempts.value, 11);
  EXPECT_TRUE(contains(off.policies[0].max_attempts.source, "before 2026")) << off.policies[0].max_attempts.source;
  EXPECT_FALSE(off.policies[0].budget.known());
}

TEST(AwsEnvironment, AValueFromElsewhereIsUnknownNotTheDefault) {
  FileModel m = model("compose.yaml", "services:\n  api:\n    environment:\n      AWS_RETRY_MODE: ${MODE}\n");
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].max_attempts.origin, Origin::Unknown);
  EXPECT_EQ(m.policies[0].backoff.jitter.origin, Origin::Unknown);
}

TEST(AwsEnvironment, IsALayerOfADeclaredChain) {
  retrylint::testing::TempDir t;
  t.write("mesh/vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: orders}\nspec:\n"
                          "  http:\n  - route: [{destination: {host: orders}}]\n    retries: {attempts: 3, perTryTimeout: 1s}\n");
  t.write("orders/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orders}\nspec:\n  template:\n    spec:\n"
                                "      containers:\n      - name: app\n        env:\n        - {name: AWS_MAX_ATTEMPTS, value: \"5\"}\n");
  RunOptions o;
  std::vector<Diagnostic> errors;
  o.config = loadProjectConfig(t.write(".retrylint.yaml", "layers:\n  - {name: mesh, paths: [mesh/**]}\n  - {name: orders, paths: [orders/**]}\n"), errors);
  ASSERT_TRUE(o.config) << (errors.empty() ? "" : errors[0].message);
  o.settings = o.config->settings;
  o.paths = {t.path.string()};
  RunResult r = run(o);
  std::vector<const Finding *> amplified;
  for (const Finding &f : r.findings)
    if (f.rule == "RL204") amplified.push_back(&f);
  ASSERT_EQ(amplified.size(), 1u);
  EXPECT_TRUE(contains(amplified[0]->message, "20")) << amplified[0]->message; // 4 x 5 calls per request
  EXPECT_TRUE(contains(amplified[0]->message, "AWS_MAX_ATTEMPTS")) << amplified[0]->message;
}

TEST(LinkerdAnnotations, DurationsAreReadAsThePolicyControllerReadsThem) {
  auto svc = [](const std::string &timeout) {
    return "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    retry.linkerd.io/http: 5xx\n"
           "    retry.linkerd.io/timeout: " + timeout + "\n";
  };
  FileModel day = model("svc.yaml", svc("1d"));
  ASSERT_EQ(day.policies.size(), 1u);
  EXPECT_EQ(day.policies[0].per_try_timeout.value, Duration::s(86400));
  // One number and one unit: a Go-style "1h30m" and a fraction are refused.
  for (const char *bad : {"1h30m", "0.5s", "10"}) {
    FileResult r = run("svc.yaml", svc(bad));
    auto hits = rule(r, "RL901");
    ASSERT_EQ(hits.size(), 1u) << bad;
    EXPECT_TRUE(contains(hits[0]->message, "not a Linkerd duration")) << hits[0]->message;
  }
  // The backoff the controller sends with every counted retry.
  EXPECT_EQ(day.policies[0].backoff.initial.value, Duration::ms(25));
  EXPECT_EQ(day.policies[0].backoff.cap.value, Duration::ms(250));
  EXPECT_EQ(day.policies[0].backoff.jitter.origin, Origin::BuiltIn);
}

TEST(Traefik, AttemptsCountTriesAndTheBackoffReachesTwiceTheInterval) {
  FileModel m = model("mw.yaml", "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata: {name: r}\nspec:\n"
                                 "  retry:\n    attempts: 5\n    initialInterval: 100ms\n");
  ASSERT_EQ(m.policies.size(), 1u);
  const RetryPolicy &p = m.policies[0];
  EXPECT_EQ(p.max_attempts.value, 5); // ServeHTTP serves the last try when attempts == r.attempts
  EXPECT_EQ(p.retries(), 4);
  EXPECT_NEAR(p.backoff.multiplier.value, std::pow(2.0, 0.25), 1e-9);
  auto last = grownWait(p.backoff, 4);
  ASSERT_TRUE(last);
  EXPECT_LT(*last, Duration::ms(200)); // the fourth wait: 100 ms x 2^(3/4)
  EXPECT_GT(*last, Duration::ms(160));
  // One try is no retry.
  EXPECT_TRUE(model("mw.yaml", "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata: {name: r}\nspec:\n"
                               "  retry:\n    attempts: 1\n").policies.empty());
}

namespace {
std::string configMap(const std::string &indicator, const std::string &body) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  config.yaml: " + indicator + "\n" + body;
}
} // namespace

TEST(ConfigMapEmbedded, ALiteralBlockIsReadWhereItStands) {
  const std::string body = "    receivers: {otlp: {}}\n    exporters:\n      otlp:\n        retry_on_failure:\n          randomization_factor: 0\n";
  FileModel m = model("cm.yaml", configMap("|", body));
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].format, "otel-collector");
  EXPECT_TRUE(contains(m.policies[0].component, "ConfigMap default/c data.config.yaml")) << m.policies[0].component;
  EXPECT_EQ(m.policies[0].backoff.jitter.where.line, 10);
  EXPECT_EQ(m.policies[0].backoff.jitter.where.column, 33);
  // A folded block re-flows its lines: not read.
  EXPECT_TRUE(model("cm.yaml", configMap(">", body)).policies.empty());
}

TEST(ConfigMapEmbedded, AHostileBlockIsBoundedLikeAFile) {
  std::string deep = "    exporters:\n      otlp:\n        retry_on_failure: " + std::string(20000, '[') + "\n";
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText("cm.yaml", configMap("|", deep), true, m, errors);
  EXPECT_TRUE(m.policies.empty());
  ASSERT_FALSE(errors.empty()); // the nesting limit holds for the text inside the ConfigMap too
  EXPECT_EQ(errors[0].path, "cm.yaml");
  EXPECT_TRUE(contains(errors[0].message, "--max-nesting")) << errors[0].message;
}

TEST(TerraformSfn, AJsonencodeDefinitionIsReadWithItsPositions) {
  const std::string tf = "resource \"aws_sfn_state_machine\" \"m\" {\n"
                         "  definition = jsonencode({\n"
                         "    StartAt = \"A\", States = { A = { Type = \"Task\", Resource = var.fn,\n"
                         "      Retry = [{ ErrorEquals = [\"States.ALL\"], MaxAttempts = local.n }], End = true } }\n"
                         "  })\n"
                         "}\n";
  FileModel m = model("main.tf", tf);
  ASSERT_EQ(m.policies.size(), 1u);
  EXPECT_EQ(m.policies[0].format, "aws-step-functions");
  EXPECT_TRUE(contains(m.policies[0].component, "aws_sfn_state_machine.m definition")) << m.policies[0].component;
  ASSERT_EQ(m.policies[0].retry_on.size(), 1u);
  EXPECT_EQ(m.policies[0].retry_on[0].where.line, 4);
  EXPECT_EQ(m.policies[0].retry_on[0].where.column, 33); // the "States.ALL" token in the HCL
  EXPECT_FALSE(m.policies[0].max_attempts.value.has_value() && m.policies[0].max_attempts.written()); // local.n: unknown
  // An HCL value this does not read (a multi-line expression) is skipped, not an error.
  EXPECT_TRUE(model("main.tf", "resource \"aws_sfn_state_machine\" \"m\" {\n  definition = jsonencode({\n    States = merge(\n      local.a,\n      local.b)\n  })\n}\n").policies.empty());
}

TEST(TerraformSfn, ALocalIsReadWhereTheLocalsBlockWritesIt) {
  const std::string tf = "locals {\n"
                         "  retry = [{ ErrorEquals = [\"States.ALL\"], MaxAttempts = local.n }]\n"
                         "  n     = 4\n"
                         "  self  = local.self\n"
                         "}\n"
                         "resource \"aws_sfn_state_machine\" \"m\" {\n"
                         "  definition = jsonencode({\n"
                         "    StartAt = \"A\", States = { A = { Type = \"Task\", Resource = var.fn, Catch = local.self,\n"
                         "      Retry = local.retry, End = true } }\n"
                         "  })\n"
                         "}\n";
  FileModel m = model("main.tf", tf);
  ASSERT_EQ(m.policies.size(), 1u);
  ASSERT_EQ(m.policies[0].retry_on.size(), 1u);
  EXPECT_EQ(m.policies[0].retry_on[0].where.line, 2); // in the locals block, not at `local.retry`
  EXPECT_EQ(m.policies[0].retry_on[0].where.column, 29);
  ASSERT_TRUE(m.policies[0].max_attempts.value.has_value()); // local.n, a local inside a local
  EXPECT_EQ(*m.policies[0].max_attempts.value, 5); // MaxAttempts counts retries: 5 tries
  EXPECT_EQ(m.policies[0].max_attempts.where.line, 3);
  EXPECT_EQ(m.policies[0].max_attempts.where.column, 11);
}

TEST(TerraformSfn, LocalsThatDoubleEachLevelStayBounded) {
  // l0 = [local.l1, local.l1], l1 = [local.l2, local.l2], …: 2^25 tokens if read out in full.
  std::string tf = "locals {\n";
  for (int i = 0; i < 25; ++i) tf += "  l" + std::to_string(i) + " = [local.l" + std::to_string(i + 1) + ", local.l" + std::to_string(i + 1) + "]\n";
  tf += "  l25 = 1\n}\n"
        "resource \"aws_sfn_state_machine\" \"m\" {\n"
        "  definition = jsonencode({\n"
        "    StartAt = \"A\", Bomb = local.l0, States = { A = { Type = \"Task\", Resource = var.fn,\n"
        "      Retry = [{ ErrorEquals = [\"States.ALL\"], MaxAttempts = 2 }], End = true } }\n"
        "  })\n"
        "}\n";
  FileModel m = model("main.tf", tf); // returns: the text read out stops growing past its bound
  ASSERT_EQ(m.policies.size(), 1u);   // and the definition is still read
  EXPECT_EQ(m.policies[0].retry_on[0].where.line, 32);
}

TEST(TerraformSfn, TheResourcesExpressTypeBoundsTheRetries) {
  const std::string def = "  definition = <<EOF\n"
                          "{\"StartAt\": \"A\", \"TimeoutSeconds\": TIMEOUT, \"States\": {\"A\": {\"Type\": \"Task\", \"Resource\": \"arn:aws:states:::lambda:invoke\",\n"
                          " \"Retry\": [{\"ErrorEquals\": [\"Lambda.ServiceException\"], \"IntervalSeconds\": 5, \"MaxAttempts\": 3}], \"End\": true}}}\n"
                          "EOF\n";
  auto with = [&](const std::string &type, const std::string &timeout) {
    std::string d = def;
    d.replace(d.find("TIMEOUT"), 7, timeout);
    return "resource \"aws_sfn_state_machine\" \"m\" {\n  name = \"m\"\n" + type + d + "  logging_configuration {\n    level = \"ALL\"\n  }\n}\n";
  };
  FileModel express = model("main.tf", with("  type = \"EXPRESS\"\n", "3600"));
  ASSERT_EQ(express.policies.size(), 1u);
  EXPECT_EQ(express.policies[0].overall_deadline.origin, Origin::BuiltIn);
  EXPECT_EQ(express.policies[0].overall_deadline.value->seconds(), 300);
  EXPECT_TRUE(contains(express.policies[0].overall_deadline.source, "type = \"EXPRESS\" at line 3")) << express.policies[0].overall_deadline.source;
  // The machine's own shorter timeout stands; a Standard workflow keeps its hour.
  FileModel shorter = model("main.tf", with("  type = \"EXPRESS\"\n", "60"));
  EXPECT_EQ(shorter.policies[0].overall_deadline.value->seconds(), 60);
  FileModel standard = model("main.tf", with("  type = \"STANDARD\"\n", "3600"));
  EXPECT_EQ(standard.policies[0].overall_deadline.value->seconds(), 3600);
  // A `type` of a nested block is not the resource's.
  FileModel nested = model("main.tf", "resource \"aws_sfn_state_machine\" \"m\" {\n  tracing {\n    type = \"EXPRESS\"\n  }\n" +
                                          with("", "3600").substr(with("", "3600").find("  name")));
  ASSERT_EQ(nested.policies.size(), 1u);
  EXPECT_EQ(nested.policies[0].overall_deadline.value->seconds(), 3600);
}

TEST(TraefikToml, IsReadIntoTheSameTreeWithItsPositions) {
  yaml::Stream s;
  yaml::TomlError e;
  ASSERT_TRUE(yaml::readToml("[http.middlewares.r.retry]\n  attempts = 4\n  initialInterval = \"1s\"\n  on = true\n  x = 1.5\n", 256, s, &e));
  ASSERT_EQ(s.documents.size(), 1u);
  yaml::Node retry = s.documents[0]["http"]["middlewares"]["r"]["retry"];
  ASSERT_TRUE(retry.IsMap());
  EXPECT_EQ(retry["attempts"].Scalar(), "4");
  EXPECT_EQ(retry["attempts"].Tag(), "?");
  EXPECT_EQ(retry["attempts"].Mark().line, 1);
  EXPECT_EQ(retry["attempts"].Mark().column, 13);
  EXPECT_EQ(retry["attempts"].Mark().pos, 27 + 13);
  EXPECT_EQ(retry["initialInterval"].Tag(), "!");
  EXPECT_EQ(retry["on"].Scalar(), "true");
  EXPECT_EQ(retry["x"].Scalar(), "1.5");

  EXPECT_FALSE(yaml::readToml("a = [\n", 256, s, &e));
  EXPECT_EQ(e.line, 1);
  std::string deep = "a = ";
  for (int i = 0; i < 40; ++i) deep += "[";
  for (int i = 0; i < 40; ++i) deep += "]";
  EXPECT_FALSE(yaml::readToml(deep + "\n", 16, s, &e));
  EXPECT_TRUE(contains(e.message, "nest deeper than 16")) << e.message;
}

TEST(TraefikToml, ABrokenFileIsAnErrorATemplateAndOtherTomlAreNot) {
  FileResult bad = analyseText("dynamic.toml", "[http.middlewares.r.retry]\nattempts = \n", true, RunOptions{});
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].line, 2);
  FileResult tpl = analyseText("dynamic.toml", "[http.middlewares.r.retry]\nattempts = {{ .Values.attempts }}\n", true, RunOptions{});
  EXPECT_TRUE(tpl.errors.empty());
  FileResult cargo = analyseText("Cargo.toml", "[package]\nname = \"retry\"\n[dependencies]\nbackoff = \"0.4\"\n", true, RunOptions{});
  EXPECT_TRUE(cargo.errors.empty());
  EXPECT_EQ(cargo.policies, 0u);
}

// Walking a checkout finds what is not named like a config: a Debian-layout NGINX site named after
// its host, and a templatefile() definition kept as `*.json.tftpl` (its `%{ }` directive lines
// blanked, its `${}` values unknown). A JSON template that is not JSON even so is skipped quietly.
TEST(Discovery, FindsNginxSitesAndJsonTemplatesWhileWalking) {
  retrylint::testing::TempDir t;
  t.write("etc/nginx/sites-enabled/shop.example.com",
          "upstream shop { server 10.0.0.1; server 10.0.0.2; }\n"
          "server {\n  location / {\n    proxy_next_upstream error timeout non_idempotent;\n    proxy_pass http://shop;\n  }\n}\n");
  t.write("infra/sfn/flow.asl.json.tftpl",
          "{\"StartAt\": \"A\", \"States\": {\"A\": {\"Type\": \"Task\", \"Resource\": \"${arn}\",\n"
          "%{ if retry }\n"
          "  \"Retry\": [{\"ErrorEquals\": [\"States.ALL\"], \"MaxAttempts\": 99}],\n"
          "%{ endif }\n"
          "  \"End\": true}}}\n");
  t.write("infra/sfn/loop.json.tpl", "{\"StartAt\": \"A\", \"States\": {%{ for s in steps }\"${s}\": {},%{ endfor }}}\n");
  retrylint::testing::CliRun r = retrylint::testing::runRetrylintIn(t.path.string(), "", "--format text .");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("etc/nginx/sites-enabled/shop.example.com:4:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RL403"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("infra/sfn/flow.asl.json.tftpl:3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'States.ALL' retries every failure"), std::string::npos) << r.out;
  // 99 retries doubling from 1 s: past what a duration can hold, said so rather than as a saturated number.
  EXPECT_NE(r.out.find("the last waits up to more than 292 years"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("loop.json.tpl"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("loop.json.tpl"), std::string::npos) << r.err;
}
