#include <llvm/Support/JSON.h>

#include "lint/report/finding_json.h"
#include "lint/report/report.h"

namespace retrylint {

void writeJson(llvm::raw_ostream &os, const RunResult &result) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("version", 1);
    j.attributeObject("tool", [&] {
      j.attribute("name", "retrylint");
      j.attribute("version", RETRYLINT_VERSION);
    });
    j.attributeArray("findings", [&] {
      for (const Finding &f : result.findings) {
        writeFindingJson(j, f);
      }
    });
    j.attributeArray("errors", [&] {
      for (const Diagnostic &d : result.errors) writeDiagnosticJson(j, d);
    });
    j.attributeObject("stats", [&] {
      j.attribute("files_seen", static_cast<int64_t>(result.stats.files_seen));
      j.attribute("files_analysed", static_cast<int64_t>(result.stats.files_analysed));
      j.attribute("policies", static_cast<int64_t>(result.stats.policies));
      // C++ files parsed with headers missing: their facts come from tokens alone (README, "C++").
      j.attributeArray("cpp_files_without_full_types", [&] {
        for (const std::string &f : result.stats.cpp_without_full_types) j.value(f);
      });
    });
  });
  os << "\n";
}

} // namespace retrylint
