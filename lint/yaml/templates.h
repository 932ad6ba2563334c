// Templated YAML and JSON: Helm charts and other Go templates (`{{ .Values.x }}`, `{{- if }}`
// lines), decK's `${{ env "X" }}`. Such a file is often not valid YAML as written; what is
// literal in it can still be read. A template expression is an unknown value, never an error.
#pragma once
#include <map>
#include <string>
#include <string_view>

namespace retrylint::yaml {

// Whether a text holds template markers (`{{`).
bool hasTemplateMarkers(std::string_view text);
// The text with its template expressions masked, same length and same line breaks (so every
// position stays exact): a line that holds only template actions (`{{- if .Values.x }}`,
// `{{ end }}`, `{{ include "x" . | nindent 4 }}`) becomes blank, and an expression inside a
// line (`attempts: {{ .Values.retries }}`) becomes a plain scalar of underscores.
std::string maskTemplates(std::string_view text);

// JSON with `${Name}` placeholders outside its strings (`"TimeoutSeconds": ${timeout}`): a
// definition that SAM's DefinitionSubstitutions, CloudFormation's !Sub or Terraform's
// templatefile() fills in before anything reads it. Whether the text holds one.
bool hasJsonPlaceholders(std::string_view text);
// The text with each such placeholder replaced by `null` padded to the same length (`0` where
// the placeholder is shorter than four characters), so it parses, keeps its columns, and the
// substituted values read as unknown.
std::string blankJsonPlaceholders(std::string text);
// The text with each placeholder whose name `values` holds replaced by that value padded with
// spaces to the placeholder's length (same length, same columns); a value longer than its
// placeholder, and every other placeholder, is left as it is.
std::string fillJsonPlaceholders(std::string text, const std::map<std::string, std::string> &values);
// A template's `${…}` inside a JSON string with quotes of its own (`"${arns["start"]}"`) has them
// turned into `'`, and its backslashes (`"${join("\", \"", ids)}"`) into `/`, so the string stays
// one string with no escape JSON rejects: same length, positions stay.
std::string quoteInStringInterpolations(std::string text);
// The same for the one interpolation at [b, e) of `text`.
void quoteInterpolation(std::string &text, size_t b, size_t e);
// The `}` that closes the `${` at `i`: braces nest, and the template language's strings inside
// (`${jsonencode({ Name = "x" })}`, `${arns["start"]}`) are skipped; npos when it never closes,
// or, with `withinLine` (an HCL heredoc's interpolation), when it does not close on its line.
size_t interpolationEnd(std::string_view text, size_t i, bool withinLine = false);

// A JSON file kept as a template (`sfn.asl.json.tpl`, `definition.json.tftpl` — the name
// Terraform's templatefile() docs recommend —, `*.json.tmpl`, `*.json.j2`, and any `*.tftpl` or
// `*.tpl`, which templatefile() reads whatever they hold): read as JSON, its
// placeholders unknown; one that is not JSON even so is not ours to judge (no analysis error).
bool isJsonTemplatePath(std::string_view path);
// A template named only as one (`virtualservice.tmpl`, `states.tpl`; not `*.json.tpl` nor
// `*.yaml.tmpl`): operators and Go programs keep YAML so, templatefile() JSON. Which one it is, its
// content says (looksLikeJsonText); discovery walks both.
bool isBareTemplatePath(std::string_view path);
// Whether the text's first character that is not white space opens a JSON object or array.
bool looksLikeJsonText(std::string_view text);
// A YAML file kept as a Go template under a template's name (`configmap.yaml.tpl`, `*.yml.tpl`,
// `*.yaml.tmpl`, Helmfile's `*.yaml.gotmpl`): Helm renders every file of a chart's templates/
// directory whatever its name, so such a file is read as the chart's `.yaml` templates are.
bool isYamlTemplatePath(std::string_view path);
// Terraform's template directives (`%{ if x }`, `%{ endfor }`, `%{~ … ~}`) made spaces, same
// length and same line breaks: what is literal around them is read as it stands.
std::string blankTemplateDirectives(std::string text);

} // namespace retrylint::yaml
