#include "lint/extract/embedded.h"

#include <algorithm>

#include "lint/extract/extractors.h"
#include "lint/yaml/read_config.h"

namespace retrylint {

namespace {
struct Shift {
  int line0, column0; // of the text's first character in the outer file
  Span operator()(Span s) const {
    if (!s.known()) return s;
    s.line += line0;
    s.end_line += line0;
    s.column += column0;
    s.end_column += column0;
    return s;
  }
};
} // namespace

bool extractEmbedded(ExtractContext &cx, const std::string &text, bool json, int line0, int column0, const std::string &where,
                     const std::string &anchor, const std::string &name) {
  return extractEmbedded(cx, text, json, Shift{line0, column0}, where, anchor, name);
}

namespace {
const Extractor *textDialectFor(const std::string &name, const std::string &text) {
  if (name.empty() || name.find('/') != std::string::npos) return nullptr;
  return textExtractorFor(SourceFile(name, text));
}
} // namespace

bool textDialectClaims(const std::string &name, const std::string &text) { return textDialectFor(name, text) != nullptr; }

bool extractEmbedded(ExtractContext &cx, const std::string &text, bool json, const std::function<Span(Span)> &at,
                     const std::string &where, const std::string &anchor, const std::string &name) {
  const SourceFile inner(cx.src.path(), text);
  FileModel innerModel;
  std::vector<Diagnostic> innerErrors;
  ExtractContext icx{inner, innerModel, innerErrors, cx.options};
  if (const Extractor *ex = textDialectFor(name, text)) {
    innerModel.formats.emplace_back(ex->format);
    try {
      ex->extractText(inner, icx);
    } catch (const TypeError &e) {
      icx.error(e);
    }
  } else {
    yaml::ConfigDocuments docs;
    const bool read = yaml::readConfigDocuments(
        text, json, cx.options.max_nesting, [&] { return looksLikeRetryConfig(text, true); },
        [&](int line, int column, std::string message) {
          Span s = at(Span{cx.src.path(), std::max(1, line), std::max(1, column), std::max(1, line), std::max(1, column) + 1});
          cx.errors.push_back(Diagnostic{cx.src.path(), s.line, s.column, message + " (in " + where + ")"});
        },
        docs);
    if (!read || !extractDocuments(docs.docs.documents, icx)) return false;
  }
  for (const std::string &f : innerModel.formats)
    if (std::find(cx.model.formats.begin(), cx.model.formats.end(), f) == cx.model.formats.end()) cx.model.formats.push_back(f);
  for (RetryPolicy &p : innerModel.policies) {
    forEachSpan(p, [&](Span &s) { s = at(s); });
    dropFixes(p);
    p.anchor = anchor + "/" + p.anchor;
    p.component += " (in " + where + ")";
    cx.model.policies.push_back(std::move(p));
  }
  for (ConfigProblem &pr : innerModel.problems) cx.problem(at(pr.where), pr.message, anchor + "/" + pr.anchor);
  for (const Diagnostic &d : innerErrors) {
    Span s = at(Span{d.path, d.line, d.column, d.line, d.column + 1});
    cx.errors.push_back(Diagnostic{cx.src.path(), s.line, s.column, d.message + " (in " + where + ")"});
  }
  return true;
}

} // namespace retrylint
