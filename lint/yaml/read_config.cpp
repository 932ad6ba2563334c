#include "lint/yaml/read_config.h"

#include <algorithm>

#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <yaml-cpp/exceptions.h>

#include "lint/yaml/json_strict.h"
#include "lint/yaml/load.h"
#include "lint/yaml/nesting.h"
#include "lint/yaml/templates.h"

namespace retrylint::yaml {

bool readConfigDocuments(std::string_view text, bool json, int maxNesting, const std::function<bool()> &relevant,
                         const ReadFailure &fail, ConfigDocuments &out, bool templated) {
  if (templated && text.find("%{") != std::string_view::npos) {
    out.template_text = blankTemplateDirectives(std::string(text));
    text = out.template_text;
  }
  if (templated && text.find("${") != std::string_view::npos) {
    out.template_text = quoteInStringInterpolations(std::string(text));
    text = out.template_text;
  }
  // Recursive parsers must not meet a text nested beyond --max-nesting. The fast parser stops
  // at its own limit by itself; the estimate is needed before any other parser only.
  bool depthEstimated = false;
  auto tooDeep = [&] {
    depthEstimated = true;
    int depth = nestingDepth(text);
    if (depth <= maxNesting) return false;
    if (relevant())
      fail(0, 0, "nested " + std::to_string(depth) + " levels deep, more than the limit of " +
                     std::to_string(maxNesting) + " (--max-nesting); not analysed");
    return true;
  };
  if (maxNesting < kFastParserMaxDepth && tooDeep()) return false;

  Stream &docs = out.docs;
  std::string &jsonText = out.json_text;
  std::string &maskedText = out.masked_text;
  std::string_view source = text; // what is parsed: the text, or the text with placeholders blanked
  if (json && !certainlyStrictJson(text)) {
    // Strict JSON first: yaml-cpp would accept things JSON parsers (and gRPC) reject.
    if (!depthEstimated && tooDeep()) return false;
    auto parsed = llvm::json::parse(text);
    if (!parsed) {
      std::string msg = llvm::toString(parsed.takeError());
      // A Go template of a JSON file (`*.tmpl.json`) is not JSON until rendered: not an error.
      if (!templated && (!relevant() || hasTemplateMarkers(text))) return false;
      // A definition with `${Name}` values that a template engine fills in (SAM's
      // DefinitionSubstitutions, templatefile()): read with those values unknown.
      bool blanked = false;
      if (hasJsonPlaceholders(text)) {
        jsonText = blankJsonPlaceholders(std::string(text));
        auto again = llvm::json::parse(jsonText);
        if (again) blanked = true, source = jsonText;
        else llvm::consumeError(again.takeError());
      }
      if (!blanked) {
        if (templated) return false;
        const JsonErrorPosition at = liftJsonErrorPosition(msg);
        fail(at.line, at.column, "invalid JSON: " + msg);
        return false;
      }
    }
  }
  try {
    std::string_view yamlText = source;
    if (json && source.find('\t') != std::string::npos) {
      // JSON allows tabs wherever it allows spaces; YAML does not. Same length, same columns.
      if (source.data() != jsonText.data()) jsonText = std::string(source);
      std::replace(jsonText.begin(), jsonText.end(), '\t', ' ');
      yamlText = jsonText;
    }
    // A Go template's expression can be valid YAML as written (`timeout: {{ .Spec.Timeout }}` is a
    // flow map holding a flow map) and then reads as a value of the wrong kind, losing what the
    // line belongs to: YAML with template markers is read masked from the start.
    if (!json && hasTemplateMarkers(yamlText)) {
      maskedText = maskTemplates(yamlText);
      yamlText = maskedText;
    }
    const Mode mode = json ? Mode::First : Mode::All;
    if (!parseFast(yamlText, mode, docs)) {
      if (!depthEstimated && tooDeep()) return false;
      try {
        docs = parseWithYamlCpp(yamlText, mode, maxNesting);
      } catch (const AliasError &) {
        throw;
      } catch (const YAML::Exception &) {
        // A template (a Helm chart): read what is literal, its expressions masked (same length,
        // so positions stay exact); when even that is not YAML, the file is not ours to judge.
        if (!hasTemplateMarkers(source)) throw;
        if (yamlText.data() == maskedText.data()) return false; // masked already, and still not YAML
        maskedText = maskTemplates(yamlText);
        try {
          docs = parseWithYamlCpp(maskedText, mode, maxNesting);
        } catch (const AliasError &) {
          throw;
        } catch (const YAML::Exception &) {
          return false;
        }
      }
    }
  } catch (const AliasError &e) {
    if (!relevant()) return false;
    fail(e.mark.line + 1, e.mark.column + 1, e.msg);
    return false;
  } catch (const YAML::Exception &e) {
    if (!relevant()) return false;
    if (e.mark.is_null()) fail(0, 0, "invalid YAML: " + e.msg);
    else fail(e.mark.line + 1, e.mark.column + 1, "invalid YAML: " + e.msg);
    return false;
  }

  return true;
}

} // namespace retrylint::yaml
