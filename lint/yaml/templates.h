// Templated YAML and JSON: Helm charts and other Go templates (`{{ .Values.x }}`, `{{- if }}`
// lines), decK's `${{ env "X" }}`. Such a file is often not valid YAML as written; what is
// literal in it can still be read. A template expression is an unknown value, never an error.
#pragma once
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

} // namespace retrylint::yaml
