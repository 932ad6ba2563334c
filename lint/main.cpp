// retrylint: flags -> run -> report -> exit code.
//   0: no finding at or above --fail-on;  1: at least one;  2: usage error or an input that
//   could not be analysed (the other inputs are still analysed and reported).
#include <cstdio>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/raw_ostream.h>

#include "lint/engine.h"
#include "lint/report/report.h"

using namespace retrylint;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("retrylint options");

enum class Format { Text, Json };

cl::list<std::string> paths(cl::Positional, cl::desc("[PATH ...]"), cl::cat(category));
cl::opt<Format> format("format", cl::desc("Output format"), cl::init(Format::Text), cl::cat(category),
                       cl::values(clEnumValN(Format::Text, "text", "path:line:col: severity: message [RULE name] (default)"),
                                  clEnumValN(Format::Json, "json", "JSON report, version 1")));
cl::opt<std::string> outputFile("o", cl::desc("Write the report to <file> instead of standard output"),
                                cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> failOn("fail-on", cl::desc("Lowest severity that makes the exit code 1: error|warning|note (default warning)"),
                            cl::init("warning"), cl::value_desc("severity"), cl::cat(category));
cl::list<std::string> enableRules("enable", cl::desc("Turn rules on (codes or names, comma-separated)"),
                                  cl::CommaSeparated, cl::value_desc("rule"), cl::cat(category));
cl::list<std::string> disableRules("disable", cl::desc("Turn rules off (codes or names, comma-separated)"),
                                   cl::CommaSeparated, cl::value_desc("rule"), cl::cat(category));
cl::list<std::string> severityOverrides("severity", cl::desc("Set a rule's severity: RULE=error|warning|note"),
                                        cl::value_desc("rule=level"), cl::cat(category));
cl::opt<int> maxAttempts("max-attempts", cl::desc("RL203 ceiling: most attempts allowed, the first included (default 5)"),
                         cl::init(5), cl::cat(category));
cl::opt<std::string> buildDir("p", cl::desc("Directory holding compile_commands.json for C++ files"),
                              cl::value_desc("build-dir"), cl::cat(category));
cl::opt<unsigned> jobs("j", cl::desc("Parallel jobs (default: number of cores)"), cl::init(0), cl::cat(category));
cl::opt<bool> listRules("list-rules", cl::desc("List the rules and exit"), cl::cat(category));
cl::opt<std::string> explain("explain", cl::desc("Print a rule's documentation and exit"), cl::value_desc("rule"),
                             cl::cat(category));

void printVersion(llvm::raw_ostream &os) { os << "retrylint " << RETRYLINT_VERSION << "\n"; }

int usageError(const std::string &msg) {
  llvm::errs() << "retrylint: error: " << msg << "\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter(printVersion);
  std::string parseErrors;
  llvm::raw_string_ostream errStream(parseErrors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "retrylint: finds the retry settings that turn a small outage into a retry storm\n\n"
                                   "  Reads Istio VirtualServices and gRPC service configs (recognised by content)\n"
                                   "  under the given files and directories. Exit codes: 0 clean, 1 findings at or\n"
                                   "  above --fail-on, 2 usage error or an input that could not be analysed.\n",
                                   &errStream, nullptr, /*LongOptionsUseDoubleDash=*/true)) {
    errStream.flush();
    llvm::errs() << parseErrors;
    return 2;
  }

  if (listRules) {
    for (const Rule *r : allRules()) {
      std::string sev(severityName(r->severity));
      llvm::outs() << llvm::left_justify(r->code, 6) << " " << llvm::left_justify(r->name, 30) << " "
                   << llvm::left_justify(sev, 8) << " " << r->summary << "\n";
    }
    return 0;
  }
  if (!explain.empty()) {
    const Rule *r = findRule(explain);
    if (!r) return usageError("unknown rule '" + explain + "' (see --list-rules)");
    llvm::outs() << explainRule(*r);
    return 0;
  }

  RunOptions options;
  options.paths.assign(paths.begin(), paths.end());
  options.jobs = jobs;
  options.extract.compile_commands_dir = buildDir;
  if (maxAttempts < 1) return usageError("--max-attempts must be at least 1");
  options.settings.max_attempts = maxAttempts;
  auto failSeverity = parseSeverity(failOn);
  if (!failSeverity) return usageError("--fail-on must be error, warning or note, not '" + failOn + "'");
  for (const std::string &name : disableRules) {
    const Rule *r = findRule(name);
    if (!r) return usageError("--disable: unknown rule '" + name + "' (see --list-rules)");
    options.disabled.insert(std::string(r->code));
  }
  for (const std::string &name : enableRules) {
    const Rule *r = findRule(name);
    if (!r) return usageError("--enable: unknown rule '" + name + "' (see --list-rules)");
    options.disabled.erase(std::string(r->code));
  }
  for (const std::string &o : severityOverrides) {
    auto [name, level] = llvm::StringRef(o).split('=');
    const Rule *r = findRule(name);
    if (!r) return usageError("--severity: unknown rule '" + name.str() + "' (see --list-rules)");
    auto sev = parseSeverity(level);
    if (!sev) return usageError("--severity " + o + ": the level must be error, warning or note");
    options.severities[std::string(r->code)] = *sev;
  }

  RunResult result = run(options);

  std::unique_ptr<llvm::raw_fd_ostream> file;
  llvm::raw_ostream *out = &llvm::outs();
  if (!outputFile.empty()) {
    std::error_code ec;
    file = std::make_unique<llvm::raw_fd_ostream>(outputFile, ec, llvm::sys::fs::OF_Text);
    if (ec) return usageError("cannot write " + outputFile + ": " + ec.message());
    out = file.get();
  }
  switch (format) {
  case Format::Text:
    writeText(*out, result, out == &llvm::outs() && llvm::outs().has_colors());
    break;
  case Format::Json:
    writeJson(*out, result);
    break;
  }
  out->flush();
  // Errors always reach the person running the tool, whatever the report format.
  writeErrorsText(llvm::errs(), result, llvm::errs().has_colors());

  if (!result.errors.empty()) return 2;
  for (const Finding &f : result.findings)
    if (f.severity >= *failSeverity) return 1;
  return 0;
}
