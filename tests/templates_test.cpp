// Templated files (Helm charts, Go templates, decK substitutions): what is literal is analysed,
// a template expression is an unknown value, and a template that is not YAML even masked is
// skipped, never an error (exit 2) that would block every chart commit.
#include <gtest/gtest.h>

#include "lint/extract/extractors.h"
#include "lint/yaml/templates.h"
#include "tests/cli_support.h"

using namespace retrylint;
using namespace retrylint::testing;

TEST(Templates, MaskingKeepsPositionsAndBlanksActionLines) {
  const std::string in = "{{- if .Values.on }}\nkind: X\n  {{- include \"l\" . | nindent 4 }}\na: {{ .Values.a }}\n"
                         "b: ${{ env \"B\" }}\nc: {{ unclosed\r\n{{ end }}";
  const std::string out = yaml::maskTemplates(in);
  ASSERT_EQ(out.size(), in.size());
  auto blank = [](std::string_view s) { return std::string(s.size(), ' '); };
  auto under = [](std::string_view s) { return std::string(s.size(), '_'); };
  EXPECT_EQ(out, blank("{{- if .Values.on }}") + "\nkind: X\n" + blank("  {{- include \"l\" . | nindent 4 }}") + "\na: " +
                     under("{{ .Values.a }}") + "\nb: $" + under("{{ env \"B\" }}") + "\nc: " + under("{{ unclosed") +
                     "\r\n" + blank("{{ end }}"));
  EXPECT_TRUE(yaml::hasTemplateMarkers(in));
  EXPECT_FALSE(yaml::hasTemplateMarkers("a: {b: 1}"));
}

TEST(Templates, UnreadableTemplatesAndTemplatedValuesAreNoErrors) {
  TempDir t;
  t.write("garbage.yaml", "{{- range .Values.routes }}\napiVersion: networking.istio.io/v1beta1\nkind: VirtualService\n"
                          "spec: {{ toYaml .spec | nindent 2 }\n  http: [\n{{- end }}\n");
  t.write("svc.tmpl.json", "{\"methodConfig\": [{\"name\": [{\"service\": \"a.B\"}], \"retryPolicy\": {\"maxAttempts\": "
                           "{{ .Attempts }}, \"initialBackoff\": \"0.1s\", \"maxBackoff\": \"1s\", \"backoffMultiplier\": 2, "
                           "\"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}\n");
  // Valid YAML as written, with template values where numbers and durations go.
  t.write("values.yaml", "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: a}\nspec:\n"
                         "  hosts: [a]\n  http:\n  - retries:\n      attempts: \"{{ .Values.attempts }}\"\n"
                         "      perTryTimeout: \"{{ .Values.perTry }}\"\n    route: [{destination: {host: a}}]\n");
  // A Helm chart's named templates: a `.tpl` that is not JSON is no error, named or found.
  t.write("templates/_helpers.tpl", "{{- define \"app.name\" -}}\n{{ .Chart.Name | trunc 63 }}\n{{- end }}\n"
                                    "{{/* retries: {\"MaxAttempts\": ${n}} */}}\n");
  CliRun r = runRetrylintIn(t.path.string(), "", "garbage.yaml svc.tmpl.json values.yaml templates/_helpers.tpl");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(withoutSummary(r.err), "");
  // The same broken text without template markers is still an error.
  t.write("broken.yaml", "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nspec: {x: [\n");
  CliRun b = runRetrylintIn(t.path.string(), "", "broken.yaml");
  EXPECT_EQ(b.exit_code, 2) << b.err;
}

TEST(JsonPlaceholders, BlankedOutsideStringsOnlyAndSameLength) {
  const std::string in = R"({"Resource": "${Fn}", "TimeoutSeconds": ${timeout}, "N": ${n}, "S": "a \" ${x}"})";
  EXPECT_TRUE(yaml::hasJsonPlaceholders(in));
  EXPECT_FALSE(yaml::hasJsonPlaceholders(R"({"Resource": "${Fn}"})"));
  const std::string out = yaml::blankJsonPlaceholders(in);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out, R"({"Resource": "${Fn}", "TimeoutSeconds": null      , "N": null, "S": "a \" ${x}"})");
  // An unclosed placeholder is left as it is (the JSON error then names it).
  EXPECT_EQ(yaml::blankJsonPlaceholders("{\"a\": ${b"), "{\"a\": ${b");
}

TEST(JsonPlaceholders, FilledWithKnownValuesSameLength) {
  const std::string in = R"({"MaxAttempts": ${ MAX }, "IntervalSeconds": ${I}, "N": ${unknown}, "S": "${MAX}"})";
  const std::string out = yaml::fillJsonPlaceholders(in, {{"MAX", "3"}, {"I", "12345"}});
  ASSERT_EQ(out.size(), in.size());
  // `${I}` is four characters: a five-character value does not fit and stays a placeholder.
  EXPECT_EQ(out, R"({"MaxAttempts": 3       , "IntervalSeconds": ${I}, "N": ${unknown}, "S": "${MAX}"})");
}

// templatefile() calls beside a template (or one directory up) give its placeholders literal
// values; a variable two calls give differently, or any expression, stays unknown, and a call
// whose variables are not a literal map makes every placeholder unknown.
TEST(TerraformTemplatefile, LiteralVariablesOfTheCallsNamingTheTemplate) {
  TempDir t;
  t.write("tpl/flow.tftpl", "{}");
  t.write("main.tf", "resource \"aws_sfn_state_machine\" \"a\" {\n  definition = templatefile(\"${path.module}/tpl/flow.tftpl\", {\n"
                     "    A = 2, B = \"3\" # a comment, B\n    C = var.c\n    D = 1\n    \"E\" = true\n  })\n}\n"
                     "resource \"aws_sfn_state_machine\" \"b\" {\n  definition = templatefile(\"./tpl/flow.tftpl\", { A = 2, D = 4 })\n}\n"
                     "locals { other = templatefile(\"${path.module}/tpl/other.tftpl\", { A = 9 }) }\n");
  auto values = terraformTemplateValues((t.path / "tpl/flow.tftpl").string());
  EXPECT_EQ(values, (std::map<std::string, std::string>{{"A", "2"}, {"B", "3"}, {"E", "true"}}));

  t.write("tpl/flow.tf", "locals { x = templatefile(\"${path.module}/flow.tftpl\", merge(local.base, { A = 2 })) }\n");
  EXPECT_TRUE(terraformTemplateValues((t.path / "tpl/flow.tftpl").string()).empty());
}
