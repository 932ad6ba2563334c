// The one JSON codec for findings and errors: the JSON report writes them with it, and the result
// cache, `retrylint merge` and `retrylint review --format json` read or write the same shape
// (docs/interface.md, "JSON"). Strings are made valid UTF-8 on the way out (llvm::json requires it).
#pragma once
#include <string>

#include <llvm/Support/JSON.h>

#include "lint/model/finding.h"

namespace retrylint {

// The report's fields, or every field: the cache adds what only a later run needs (the anchor,
// the lines a finding read, the text its fixes were computed on).
enum class FindingFields { Report, Full };

void writeFindingJson(llvm::json::OStream &j, const Finding &f, FindingFields fields = FindingFields::Report);
// A finding as writeFindingJson wrote it. False, with `error` saying what, when a field is
// missing or of the wrong type; fix edits are in the finding's own file.
bool readFindingJson(const llvm::json::Value &v, FindingFields fields, Finding &f, std::string &error);

void writeDiagnosticJson(llvm::json::OStream &j, const Diagnostic &d);
bool readDiagnosticJson(const llvm::json::Value &v, Diagnostic &d, std::string &error);

} // namespace retrylint
