// `retrylint merge`: the shards' JSON reports as one report, with one run's exit code.
#include "lint/yaml/json_strict.h"

#include <limits>
#include <utility>
#include <algorithm>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "lint/io/write_file.h"
#include "lint/discover/identity.h"
#include "lint/merge.h"
#include "lint/report/finding_json.h"
#include "lint/report/report.h"

namespace retrylint {
namespace {

namespace json = llvm::json;

int usage(const std::string &msg) {
  llvm::errs() << "retrylint merge: error: " << msg << "\n"
               << "usage: retrylint merge [--format json|sarif|text|github] [-o FILE] [--fail-on error|warning|note] REPORT.json...\n";
  return 2;
}

} // namespace

bool readJsonReport(const std::string &input, RunResult &out, std::string &error) {
  auto parsed = yaml::parseJsonWithin(input);
  if (!parsed) {
    error = llvm::toString(parsed.takeError());
    return false;
  }
  const json::Object *root = parsed->getAsObject();
  const json::Array *findings = root ? root->getArray("findings") : nullptr;
  const json::Array *errors = root ? root->getArray("errors") : nullptr;
  if (!root || root->getInteger("version").getValueOr(0) != 1 || !findings || !errors) {
    error = "not a retrylint --format json report (version 1)";
    return false;
  }
  for (const json::Value &v : *findings) {
    Finding finding;
    if (!readFindingJson(v, FindingFields::Report, finding, error)) return false;
    out.findings.push_back(std::move(finding));
  }
  for (const json::Value &v : *errors) {
    Diagnostic d;
    if (!readDiagnosticJson(v, d, error)) return false;
    out.errors.push_back(std::move(d));
  }
  if (const json::Object *stats = root->getObject("stats")) {
    // Counts are whole numbers from 0; their sum saturates rather than wraps.
    for (auto [key, into] : {std::pair<const char *, size_t *>{"files_seen", &out.stats.files_seen},
                             {"files_analysed", &out.stats.files_analysed},
                             {"policies", &out.stats.policies}}) {
      const json::Value *v = stats->get(key);
      if (!v) continue;
      auto n = v->getAsInteger();
      if (!n || *n < 0) {
        error = std::string("stats.") + key + " must be a whole number from 0";
        return false;
      }
      const size_t add = static_cast<size_t>(*n);
      *into = *into > std::numeric_limits<size_t>::max() - add ? std::numeric_limits<size_t>::max() : *into + add;
    }
    if (const json::Array *partial = stats->getArray("cpp_files_without_full_types"))
      for (const json::Value &v : *partial)
        if (auto s = v.getAsString()) out.stats.cpp_without_full_types.push_back(s->str());
    std::sort(out.stats.cpp_without_full_types.begin(), out.stats.cpp_without_full_types.end());
  }
  return true;
}

int mergeMain(int argc, char **argv) {
  std::string format = "json", output, failOn = "warning";
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &into) {
      if (auto eq = a.find('='); eq != std::string::npos) into = a.substr(eq + 1);
      else if (i + 1 < argc) into = argv[++i];
      else return false;
      return true;
    };
    if (a == "--format" || a.rfind("--format=", 0) == 0) {
      if (!value(format)) return usage("--format needs a value");
    } else if (a == "-o") {
      if (!value(output)) return usage("-o needs a file");
    } else if (a == "--fail-on" || a.rfind("--fail-on=", 0) == 0) {
      if (!value(failOn)) return usage("--fail-on needs a value");
    } else if (a.size() > 1 && a[0] == '-') {
      return usage("unknown option " + a);
    } else {
      inputs.push_back(a);
    }
  }
  auto failSeverity = parseSeverity(failOn);
  if (!failSeverity) return usage("--fail-on must be error, warning or note");
  if (format != "json" && format != "sarif" && format != "text" && format != "github") return usage("unknown format " + format);
  if (inputs.empty()) return usage("no reports to merge");

  RunResult merged;
  merged.project_root = projectRoot(""); // the shards ran from here too: SARIF URIs from the same root
  for (const std::string &in : inputs) {
    auto buf = llvm::MemoryBuffer::getFileOrSTDIN(in);
    if (!buf) return usage("cannot read " + in + ": " + buf.getError().message());
    std::string error;
    if (!readJsonReport((*buf)->getBuffer().str(), merged, error)) return usage(in + ": " + error);
  }
  std::sort(merged.findings.begin(), merged.findings.end(), findingLess);
  aggregateNotes(merged.findings); // the shards left them one by one (main.cpp)
  // Errors every shard saw (a missing path named to all of them) are reported once.
  std::sort(merged.errors.begin(), merged.errors.end(), diagnosticLess);
  merged.errors.erase(std::unique(merged.errors.begin(), merged.errors.end(),
                                  [](const Diagnostic &a, const Diagnostic &b) {
                                    return a.path == b.path && a.line == b.line && a.column == b.column && a.message == b.message;
                                  }),
                      merged.errors.end());

  auto write = [&](llvm::raw_ostream &out) {
    if (format == "json") writeJson(out, merged);
    else if (format == "sarif") writeSarif(out, merged);
    else if (format == "github") writeGithub(out, merged);
    else writeText(out, merged, false);
  };
  // All or nothing, every write error an exit 2: see lint/io/write_file.h.
  std::string error;
  if (!writeOutputFile(output.empty() ? "-" : output, write, error))
    error = "cannot write the report to " + (output.empty() ? std::string("standard output") : output) + ": " + error;
  writeErrorsText(llvm::errs(), merged, false);
  if (!error.empty()) return usage(error);
  if (!merged.errors.empty()) return 2;
  for (const Finding &f : merged.findings)
    if (f.severity >= *failSeverity) return 1;
  return 0;
}

} // namespace retrylint
