#include <llvm/Support/JSON.h>

#include "lint/report/report.h"

namespace retrylint {

void writeFindingJson(llvm::json::OStream &j, const Finding &f) {
  j.object([&] {
    j.attribute("rule", f.rule);
    j.attribute("name", f.name);
    j.attribute("severity", std::string(severityName(f.severity)));
    j.attribute("path", validUtf8(f.where.path.str()));
    j.attribute("line", f.where.line);
    j.attribute("column", f.where.column);
    j.attribute("end_line", f.where.end_line);
    j.attribute("end_column", f.where.end_column);
    j.attribute("message", validUtf8(f.message));
    j.attribute("format", f.format);
    j.attribute("fingerprint", validUtf8(f.fingerprint));
    j.attributeArray("fixes", [&] {
      for (const Fix &fix : f.fixes) {
        j.object([&] {
          j.attribute("description", validUtf8(fix.description));
          j.attribute("safe", fix.safe);
          j.attributeArray("edits", [&] {
            for (const TextEdit &e : fix.edits) {
              j.object([&] {
                j.attribute("line", e.where.line);
                j.attribute("column", e.where.column);
                j.attribute("end_line", e.where.end_line);
                j.attribute("end_column", e.where.end_column);
                j.attribute("offset", static_cast<int64_t>(e.offset));
                j.attribute("length", static_cast<int64_t>(e.length));
                j.attribute("replacement", validUtf8(e.replacement));
              });
            }
          });
        });
      }
    });
  });
}

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
      for (const Diagnostic &d : result.errors) {
        j.object([&] {
          j.attribute("path", validUtf8(d.path));
          j.attribute("line", d.line);
          j.attribute("column", d.column);
          j.attribute("message", validUtf8(d.message));
        });
      }
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
