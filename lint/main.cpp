// retrylint: flags -> run -> report -> exit code.
//   0: no finding at or above --fail-on;  1: at least one;  2: usage error or an input that
//   could not be analysed (the other inputs are still analysed and reported).
#include <cstdio>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/raw_ostream.h>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/MemoryBuffer.h>

#include "lint/config/config.h"
#include "lint/engine.h"
#include "lint/cpp/isolation.h"
#include "lint/fix/apply_fixes.h"
#include "lint/fix/plan.h"
#include "lint/io/write_file.h"
#include "lint/cache/cache.h"
#include "lint/discover/shard.h"
#include "lint/merge.h"
#include "lint/report/report.h"
#include "lint/review/review.h"
#include "lint/simulate/picture.h"
#include "lint/suppress/baseline.h"
#include "lint/discover/discover.h"
#include "lint/suppress/changed_lines.h"

using namespace retrylint;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("retrylint options");

enum class Format { Text, Json, Sarif, Github, Markdown };

cl::list<std::string> paths(cl::Positional, cl::desc("[PATH ...] ('-': standard input)"), cl::cat(category));
cl::opt<std::string> stdinFilename("stdin-filename", cl::desc("The name standard input ('-') is analysed and reported as: it decides recognition (.yaml, .json, .cpp …), config overrides and suppressions (default: stdin.yaml)"),
                                   cl::value_desc("path"), cl::cat(category));
cl::opt<Format> format("format", cl::desc("Output format"), cl::init(Format::Text), cl::cat(category),
                       cl::values(clEnumValN(Format::Text, "text", "path:line:col: severity: message [RULE name] (default)"),
                                  clEnumValN(Format::Json, "json", "JSON report, version 1"),
                                  clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0 (GitHub code scanning)"),
                                  clEnumValN(Format::Github, "github", "GitHub Actions annotations"),
                                  clEnumValN(Format::Markdown, "markdown", "retrylint review: a pull-request comment (its default)")));
cl::opt<std::string> configFile("config", cl::desc("The one project config for every file (default: for each file, the nearest .retrylint.yaml in its directory or above)"),
                                cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> baselineFile("baseline", cl::desc("Do not report the findings recorded in <file>"),
                                  cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> writeBaselineFile("write-baseline", cl::desc("Record the current findings in <file> and exit 0"),
                                       cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> diffRev("diff", cl::desc("Report only findings on lines changed since git revision <rev> ('-': read a unified diff from standard input)"),
                             cl::value_desc("rev"), cl::cat(category));
cl::opt<bool> fix("fix", cl::desc("Apply the safe fixes in place (those that keep the intended behaviour and remove their finding without raising another), then report what remains"),
                  cl::cat(category));
cl::opt<bool> unsafeFixes("unsafe-fixes", cl::desc("With --fix: also apply fixes that change behaviour (turn retries off, switch the policy type) and fixes offered on notes"),
                          cl::cat(category));
cl::opt<bool> showDiff("show-diff", cl::desc("With --fix: print the fixes as a unified diff and write nothing (exit 1 when there is a fix to apply)"),
                       cl::cat(category));
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
cl::opt<int> maxAttempts("max-attempts", cl::desc("RL203 ceiling on a request path: most attempts allowed, the first included (default 5, or the config's)"),
                         cl::init(0), cl::cat(category));
cl::opt<std::string> buildDir("p", cl::desc("Directory holding compile_commands.json for C++ files"),
                              cl::value_desc("build-dir"), cl::cat(category));
// `retrylint simulate [options] [PATH ...]`: the storm each policy and declared chain makes.
cl::OptionCategory simulateCategory("retrylint simulate options");
bool simulating = false;

// `retrylint review --base REV [options] [PATH ...]`: what the change does to the retry posture.
cl::OptionCategory reviewCategory("retrylint review options");
bool reviewing = false;
cl::opt<std::string> reviewBase("base", cl::desc("review: the git revision to compare with (its merge base with HEAD)"), cl::value_desc("rev"),
                                cl::cat(reviewCategory));
cl::opt<std::string> simSvg("svg", cl::desc("simulate, review: draw the storm of the selected (else the worst; review: the worst touched) policy or chain as SVG in <file> ('-': standard output)"),
                            cl::value_desc("file"), cl::cat(simulateCategory));
cl::opt<int> simClients("clients", cl::desc("simulate, review: clients whose requests fail together at t = 0 (default 1000)"), cl::init(1000),
                        cl::cat(simulateCategory));
cl::opt<double> simOutage("outage", cl::desc("simulate, review: seconds the dependency answers every call with an error (default 10)"), cl::init(10),
                          cl::cat(simulateCategory));
cl::opt<unsigned long long> simSeed("seed", cl::desc("simulate, review: seed of the random waits (default 1)"), cl::init(1), cl::cat(simulateCategory));
cl::opt<std::string> simPolicy("policy", cl::desc("simulate: only policies at <path:line> or whose name contains <text>"),
                               cl::value_desc("text"), cl::cat(simulateCategory));
cl::opt<std::string> simChain("chain", cl::desc("simulate: only declared chains whose title contains <text>"), cl::value_desc("text"),
                              cl::cat(simulateCategory));

cl::opt<unsigned> jobs("j", cl::desc("Parallel jobs (default: number of cores)"), cl::init(0), cl::Prefix, cl::cat(category));
enum class Report { Findings, Layers };
cl::opt<Report> report("report", cl::desc("What to report"), cl::init(Report::Findings), cl::cat(category),
                       cl::values(clEnumValN(Report::Findings, "findings", "the findings (default)"),
                                  clEnumValN(Report::Layers, "layers", "per call chain: attempts and their origin, calls per request, worst-case time, deadline (text or --format json)")));
cl::opt<std::string> maxFileSize("max-file-size", cl::desc("Do not analyse files larger than this: bytes, or with a K, M or G suffix (default 32M)"),
                                 cl::value_desc("size"), cl::cat(category));
cl::opt<int> maxNesting("max-nesting", cl::desc("Do not analyse YAML/JSON nested deeper than this (default 256)"),
                        cl::init(0), cl::cat(category));
cl::opt<unsigned> cppTimeout("cpp-timeout", cl::desc("Abandon a C++ file after this many seconds of parsing, with an error (default 60, 0: no limit)"),
                             cl::init(60), cl::value_desc("seconds"), cl::cat(category));
cl::opt<std::string> cppMemory("cpp-memory", cl::desc("Abandon a C++ file whose parse needs more memory than this: bytes, or with a K, M or G suffix (default 4G)"),
                               cl::value_desc("size"), cl::cat(category));
cl::opt<std::string> cacheDir("cache-dir", cl::desc("Reuse results of unchanged files from <dir> (default: $RETRYLINT_CACHE_DIR if set, else no cache). "
                                                    "Entries are signed with $RETRYLINT_CACHE_KEY (16+ characters; a secret in CI), "
                                                    "else with a key made in $XDG_CONFIG_HOME/retrylint/cache-key (~/.config/...)"),
                              cl::value_desc("dir"), cl::cat(category));
cl::opt<bool> noCache("no-cache", cl::desc("Do not read or write the result cache"), cl::cat(category));
cl::opt<bool> verbose("verbose", cl::desc("Say on standard error which config file is used and how the result cache fared"),
                      cl::cat(category));
cl::opt<std::string> shard("shard", cl::desc("Analyse only share K of N of the inputs (by path hash); combine the JSON reports with `retrylint merge`"),
                           cl::value_desc("K/N"), cl::cat(category));
cl::opt<bool> noPrefilter("no-prefilter", cl::desc("Hand every file to the parsers (to measure the pre-filter)"), cl::Hidden,
                          cl::cat(category));
cl::opt<bool> listRules("list-rules", cl::desc("List the rules and exit (text, or --format json)"), cl::cat(category));
// Registered as "color-mode" because LLVM registers a boolean "color" of its own (WithColor);
// runCommandLine() removes LLVM's and gives this one the name --color.
cl::opt<std::string> colorMode("color-mode", cl::desc("Colour in text output: auto (a terminal, unless NO_COLOR is set), always, never"),
                               cl::init("auto"), cl::value_desc("when"), cl::cat(category));
cl::opt<bool> showSource("show-source", cl::desc("Show each finding's line with a caret under the column (default: on a terminal)"),
                         cl::cat(category));
cl::opt<bool> noShowSource("no-show-source", cl::desc("Do not show source lines"), cl::cat(category));
cl::opt<bool> statistics("statistics", cl::desc("Print the number of findings per rule instead of the findings (text, or --format json)"),
                         cl::cat(category));
cl::opt<std::string> explain("explain", cl::desc("Print a rule's documentation and exit"), cl::value_desc("rule"),
                             cl::cat(category));

void printVersion(llvm::raw_ostream &os) { os << "retrylint " << RETRYLINT_VERSION << "\n"; }

int usageError(const std::string &msg) {
  llvm::errs() << "retrylint: error: " << msg << "\n";
  return 2;
}

// Exit code after printing to standard output: 0, or 2 with a message when it could not be written.
int stdoutWritten() {
  if (std::error_code ec = finishStdout()) return usageError("cannot write to standard output: " + ec.message());
  return 0;
}

int runCommandLine(int argc, char **argv);

// A config or baseline that could not be read: its errors, in the compiler style, and exit 2.
int setupFailed(const std::vector<Diagnostic> &errors, bool colorErr) {
  RunResult failed;
  failed.errors = errors;
  writeErrorsText(llvm::errs(), failed, colorErr);
  return 2;
}

// An address inside this executable, for getMainExecutable.
void retrylintMainAddress() {}

// "1048576", "512K", "32M", "4G": a positive byte count up to 1 TiB.
std::optional<uint64_t> parseSize(llvm::StringRef v) {
  uint64_t unit = 1;
  if (v.endswith_insensitive("k")) unit = 1ull << 10;
  else if (v.endswith_insensitive("m")) unit = 1ull << 20;
  else if (v.endswith_insensitive("g")) unit = 1ull << 30;
  if (unit != 1) v = v.drop_back();
  uint64_t n = 0;
  if (v.getAsInteger(10, n) || n == 0 || n > (1ull << 40) / unit) return std::nullopt;
  return n * unit;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && llvm::StringRef(argv[1]) == "--cpp-worker") return retrylint::cpp::cppWorkerMain();
  int code = runCommandLine(argc, argv);
  // A standard stream that could not be written (a full disk, a closed pipe) must not turn
  // into LLVM's "IO failure" abort at exit: the report's own errors were handled where it was
  // written; what is left is stderr, which has no one left to tell.
  if (finishStdout() && code < 2) code = 2;
  if (llvm::errs().has_error()) {
    llvm::errs().clear_error();
    if (code < 2) code = 2;
  }
  return code;
}

namespace {

// The command line into the options above (a subcommand's name taken off first); false, after
// printing why, when it does not parse.
bool parseCommandLine(int argc, char **argv) {
  // `retrylint simulate …` is the same command line with the simulate options.
  std::vector<char *> args(argv, argv + argc);
  if (argc > 1 && llvm::StringRef(argv[1]) == "simulate") {
    simulating = true;
    args.erase(args.begin() + 1);
  } else if (argc > 1 && llvm::StringRef(argv[1]) == "review") {
    reviewing = true;
    args.erase(args.begin() + 1);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  if (auto &registered = cl::getRegisteredOptions(); registered.count("color")) registered["color"]->removeArgument();
  colorMode.setArgStr("color");
  cl::HideUnrelatedOptions({&category, &simulateCategory, &reviewCategory});
  cl::SetVersionPrinter(printVersion);
  std::string parseErrors;
  llvm::raw_string_ostream errStream(parseErrors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "retrylint: finds the retry settings that turn a small outage into a retry storm\n\n"
                                   "  Reads retry settings (mesh and gateway routes, gRPC service configs, AWS,\n"
                                   "  Step Functions, Argo, Resilience4j, Spring, Dapr, .NET, OTel, Kong, C++),\n"
                                   "  recognised by content, under the given files and directories (default: .).\n"
                                   "  See the README's \"What it reads\". Exit codes: 0 clean, 1 findings at or\n"
                                   "  above --fail-on, 2 usage error or an input that could not be analysed.\n",
                                   &errStream, nullptr, /*LongOptionsUseDoubleDash=*/true)) {
    errStream.flush();
    llvm::errs() << parseErrors;
    return false;
  }

  return true;
}

// --list-rules, --explain: the rule catalogue, then exit (nullopt: neither was asked for).
std::optional<int> printCatalogue() {
  if (listRules && format == Format::Json) {
    llvm::json::OStream j(llvm::outs(), 2);
    j.array([&] {
      for (const Rule *r : allRules())
        j.object([&] {
          j.attribute("code", std::string(r->code));
          j.attribute("name", std::string(r->name));
          j.attribute("severity", std::string(severityName(r->severity)));
          j.attribute("summary", std::string(r->summary));
          j.attribute("help_uri", ruleHelpUri(*r));
        });
    });
    llvm::outs() << "\n";
    return stdoutWritten();
  }
  if (listRules) {
    for (const Rule *r : allRules()) {
      std::string sev(severityName(r->severity));
      llvm::outs() << llvm::left_justify(r->code, 6) << " " << llvm::left_justify(r->name, 30) << " "
                   << llvm::left_justify(sev, 8) << " " << r->summary << "\n";
    }
    return stdoutWritten();
  }
  if (explain == "all") {
    llvm::outs() << rulesMarkdown();
    return stdoutWritten();
  }
  if (!explain.empty()) {
    const Rule *r = findRule(explain);
    if (!r) return usageError("unknown rule '" + explain + "' (see --list-rules)");
    llvm::outs() << explainRule(*r);
    return stdoutWritten();
  }

  return std::nullopt;
}

// Which flags go with which subcommand and format: the usage error when they do not go together.
std::optional<int> checkFlagsGoTogether() {
  if (!simulating && !reviewing)
    for (const cl::Option *o : std::initializer_list<const cl::Option *>{&simSvg, &simClients, &simOutage, &simSeed, &simPolicy, &simChain})
      if (o->getNumOccurrences()) return usageError("--" + o->ArgStr.str() + " goes with `retrylint simulate`");
  if (reviewing) {
    for (const cl::Option *o : std::initializer_list<const cl::Option *>{&simPolicy, &simChain})
      if (o->getNumOccurrences()) return usageError("--" + o->ArgStr.str() + " goes with `retrylint simulate`; review pictures the worst touched policy or chain");
    if (reviewBase.empty()) return usageError("retrylint review needs --base REV: the revision the change is compared with (origin/main, a commit)");
    if (fix || report == Report::Layers || !diffRev.empty() || !baselineFile.empty() || !writeBaselineFile.empty())
      return usageError("retrylint review takes no --fix, --report, --diff or baselines: it compares the working tree with --base");
    if (format != Format::Text && format != Format::Markdown && format != Format::Json)
      return usageError("retrylint review writes --format markdown (the default) or json");
    if (std::find(paths.begin(), paths.end(), "-") != paths.end()) return usageError("retrylint review reads the repository, not standard input");
  } else if (reviewBase.getNumOccurrences()) {
    return usageError("--base goes with `retrylint review`");
  } else if (format == Format::Markdown) {
    return usageError("--format markdown is the report of `retrylint review`");
  }
  if (simulating || reviewing) {
    if (simClients < 1 || simClients > 1000000) return usageError("--clients must be between 1 and 1000000");
    if (!(simOutage >= 0 && simOutage <= 86400)) return usageError("--outage must be between 0 and 86400 seconds");
  }
  if (simulating) {
    if (fix || report == Report::Layers || (format != Format::Text && format != Format::Json))
      return usageError("retrylint simulate writes text or --format json, and takes no --fix or --report");
    if (!simPolicy.empty() && !simChain.empty()) return usageError("--policy and --chain select one kind each: give one of them");
  }
  if (statistics && (format == Format::Sarif || format == Format::Github || report == Report::Layers))
    return usageError("--statistics is written as text or --format json");
  if (report == Report::Layers && (format == Format::Sarif || format == Format::Github))
    return usageError("--report layers is written as text or --format json");
  return std::nullopt;
}

// The analysis options the flags set: input limits, the C++ worker, the result cache (a signed
// store, lint/cache/), the shard, and standard input as the one input.
std::optional<int> setAnalysisOptions(RunOptions &options, const char *argv0) {
  options.extract.compile_commands_dir = buildDir;
  if (!maxFileSize.empty()) {
    auto n = parseSize(maxFileSize);
    if (!n) return usageError("--max-file-size must be a positive size such as 1048576, 512K or 32M, not '" + maxFileSize + "'");
    options.extract.max_file_bytes = *n;
  }
  if (!cppMemory.empty()) {
    auto n = parseSize(cppMemory);
    if (!n || *n < (64u << 20)) return usageError("--cpp-memory must be a size of at least 64M, such as 2G, not '" + cppMemory + "'");
    options.extract.cpp_memory_bytes = *n;
  }
  // Each C++ file is parsed by a worker process of this executable (lint/cpp/isolation.h).
  options.extract.cpp_worker = llvm::sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&retrylintMainAddress));
  if (maxNesting.getNumOccurrences()) {
    if (maxNesting < 1 || maxNesting > 10000) return usageError("--max-nesting must be between 1 and 10000");
    options.extract.max_nesting = maxNesting;
  }
  options.extract.cpp_timeout_seconds = cppTimeout;
  options.extract.prefilter = !noPrefilter;
  // --fix analyses every file afresh: its edits must be computed on the bytes it rewrites.
  if ((unsafeFixes || showDiff) && !fix) return usageError(std::string(unsafeFixes ? "--unsafe-fixes" : "--show-diff") + " goes with --fix");
  if (!noCache && !fix) {
    std::string dir = cacheDir;
    if (cacheDir.getNumOccurrences() == 0)
      if (auto env = llvm::sys::Process::GetEnv("RETRYLINT_CACHE_DIR")) dir = *env;
    // Entries are authenticated with a secret kept outside the cache; without one, no cache.
    if (!dir.empty()) {
      std::string why;
      if (auto secret = cacheSecret(dir, why))
        options.cache = std::make_shared<ResultCache>(dir, std::move(*secret));
      else
        llvm::errs() << "retrylint: warning: not using the result cache in " << dir << ": " << why << "\n";
    }
  }
  if (!shard.empty()) {
    auto kn = parseShard(shard);
    if (!kn) return usageError("--shard must be K/N with 1 <= K <= N, not '" + shard + "'");
    std::tie(options.shard, options.shards) = *kn;
  }
  // `retrylint -`: one stream (Helm's rendered output is many YAML documents in it).
  const bool fromStdin = std::find(paths.begin(), paths.end(), "-") != paths.end();
  if (fromStdin) {
    if (paths.size() != 1) return usageError("'-' (standard input) cannot be combined with other paths");
    if (fix) return usageError("--fix cannot rewrite standard input; lint and fix the files themselves");
    if (diffRev == "-") return usageError("--diff - and '-' both read standard input");
    auto in = llvm::MemoryBuffer::getSTDIN();
    if (!in) return usageError("cannot read standard input: " + in.getError().message());
    if ((*in)->getBufferSize() > options.extract.max_file_bytes)
      return usageError("standard input is larger than --max-file-size (" + std::to_string(options.extract.max_file_bytes) + " bytes)");
    options.text_input = RunOptions::TextInput{stdinFilename.empty() ? std::string("stdin.yaml") : std::string(stdinFilename),
                                               (*in)->getBuffer().str()};
    options.paths = {options.text_input->path};
  } else if (!stdinFilename.empty()) {
    return usageError("--stdin-filename names standard input: pass '-' as the path");
  }

  return std::nullopt;
}

// --enable, --disable and --severity, over every config's `rules`.
std::optional<int> setRuleSelections(RunOptions &options) {
  // Selectors (a code, a name, a code prefix such as RL1, or ALL) apply from the least specific
  // to the most, so `--disable ALL --enable RL301` and `--enable RL3 --disable RL303` mean what
  // they say in any order; at equal specificity, --severity over --enable over --disable.
  struct Selection {
    int specificity, kind;
    std::vector<const Rule *> rules;
    RuleSetting setting;
  };
  std::vector<Selection> selections;
  auto select = [&](const std::string &flag, llvm::StringRef name, int kind, RuleSetting setting) -> std::string {
    int specificity = 0;
    auto rules = selectRules(name, &specificity);
    if (rules.empty()) return flag + ": '" + name.str() + "' selects no rule (a code, a name, a code prefix such as RL1, or ALL; see --list-rules)";
    selections.push_back({specificity, kind, std::move(rules), setting});
    return "";
  };
  for (const std::string &name : disableRules)
    if (auto e = select("--disable", name, 0, RuleSetting{false, std::nullopt}); !e.empty()) return usageError(e);
  for (const std::string &name : enableRules)
    if (auto e = select("--enable", name, 1, RuleSetting{true, std::nullopt}); !e.empty()) return usageError(e);
  for (const std::string &o : severityOverrides) {
    auto [name, level] = llvm::StringRef(o).split('=');
    auto sev = parseSeverity(level);
    if (!sev) return usageError("--severity " + o + ": the level must be error, warning or note");
    if (auto e = select("--severity", name, 2, RuleSetting{true, sev}); !e.empty()) return usageError(e);
  }
  std::stable_sort(selections.begin(), selections.end(), [](const Selection &a, const Selection &b) {
    return std::tie(a.specificity, a.kind) < std::tie(b.specificity, b.kind);
  });
  for (const Selection &s : selections)
    for (const Rule *r : s.rules) options.cli_rules[std::string(r->code)] = s.setting;
  return std::nullopt;
}

// The project config (the one --config names, else the nearest to each file), then the command
// line's settings and rule selections on top.
std::optional<int> setConfiguration(RunOptions &options, bool colorErr) {
  // Configuration: the project config, then the command line on top.
  std::vector<Diagnostic> setupErrors;
  std::string cfgPath = configFile;
  if (cfgPath.empty()) {
    llvm::SmallString<256> cwd;
    llvm::sys::fs::current_path(cwd);
    std::string stoppedAt;
    cfgPath = findProjectConfig(cwd.str().str(), &stoppedAt);
    if (verbose && cfgPath.empty())
      llvm::errs() << "retrylint: no config: no .retrylint.yaml from " << cwd << " up to " << stoppedAt << "\n";
  }
  if (verbose && !cfgPath.empty()) {
    llvm::SmallString<256> abs(cfgPath);
    llvm::sys::fs::make_absolute(abs);
    llvm::errs() << "retrylint: " << (cfgPath == "/dev/null" ? "no config: --config /dev/null" : "using config " + abs.str().str()) << "\n";
  }
  // `--config /dev/null`: run with no project config at all.
  if (cfgPath == "/dev/null") cfgPath.clear();
  else if (!cfgPath.empty()) {
    options.config = configFile.empty() ? loadFoundConfig(cfgPath, setupErrors) : loadProjectConfig(cfgPath, setupErrors);
    if (!options.config) return setupFailed(setupErrors, colorErr);
    options.settings = options.config->settings;
  }
  if (maxAttempts.getNumOccurrences()) {
    if (maxAttempts < 1) return usageError("--max-attempts must be at least 1");
    options.settings.request.max_attempts = maxAttempts;
    options.cli_max_attempts = static_cast<int>(maxAttempts);
  }
  // Without --config, each file gets the nearest .retrylint.yaml (a monorepo's services each with
  // their own); the one found from here applies where it is the nearest, and to files with none.
  if (configFile.empty()) options.nested = std::make_shared<ConfigResolver>(options.config ? &*options.config : nullptr);
  return setRuleSelections(options);

  return std::nullopt;
}

// What narrows the findings after the rules ran: the baseline's, and the lines --diff changed.
struct Narrowing {
  std::optional<Baseline> baseline;
  std::optional<ChangedLines> changed;
  void apply(RunResult &r) const {
    if (baseline) applyBaseline(*baseline, r.findings, r.project_root);
    if (changed) {
      r.findings.erase(std::remove_if(r.findings.begin(), r.findings.end(),
                                      [&](const Finding &f) { return !touchedBy(*changed, f); }),
                       r.findings.end());
    }
  }
};

// Reads the baseline and the change --diff names; without paths, --diff lints what it touched.
std::optional<int> setNarrowing(RunOptions &options, Narrowing &n, bool colorErr) {
  if (!baselineFile.empty()) {
    std::vector<Diagnostic> setupErrors;
    n.baseline = loadBaseline(baselineFile, setupErrors);
    if (!n.baseline) return setupFailed(setupErrors, colorErr);
  }

  if (!diffRev.empty()) {
    std::string error;
    llvm::SmallString<256> cwd;
    llvm::sys::fs::current_path(cwd);
    std::string base = cwd.str().str(); // what the diff's paths are resolved against
    if (diffRev == "-") {
      auto in = llvm::MemoryBuffer::getSTDIN();
      if (!in) return usageError("--diff -: cannot read standard input");
      n.changed = parseUnifiedDiff((*in)->getBuffer().str(), base);
    } else {
      n.changed = gitChangedLines(diffRev, base, error);
      if (!n.changed) return usageError(error);
    }
    if (options.paths.empty()) {
      // Lint what the change touched (files it deleted are gone), shown relative to here: the
      // files walking the tree would take, as if found so (a changed image is no error).
      std::vector<std::string> links;
      std::vector<Candidate> files;
      for (const std::string &file : changedFilesToLint(*n.changed, base, links)) {
        if (!walkable(relativeTo(base, file))) continue;
        std::string rel = relativeTo(cwd.str().str(), file);
        files.push_back(Candidate{rel.empty() ? file : rel, false});
      }
      for (const std::string &file : links)
        llvm::errs() << "retrylint: --diff: not followed: " << escapeControls(file) << " is reached through a symbolic link\n";
      if (files.empty()) return 0;
      options.files = std::move(files);
    }
  }

  return std::nullopt;
}

// `retrylint review` and `retrylint simulate`: their own reports and exit codes.
int reviewOrSimulate(RunOptions &options, Severity failSeverity) {
  if (reviewing) {
    ReviewRequest req;
    req.base = reviewBase;
    req.json = format == Format::Json;
    req.svg = simSvg;
    req.output = outputFile;
    req.config_given = !configFile.empty();
    req.storm.clients = simClients;
    req.storm.outage_s = simOutage;
    req.storm.seed = simSeed;
    req.fail_on = failSeverity;
    int code = reviewCommand(options, req, llvm::outs(), llvm::errs());
    return std::max(code, stdoutWritten());
  }
  {
    SimulateRequest req;
    req.svg = simSvg;
    req.policy = simPolicy;
    req.chain = simChain;
    req.storm.clients = simClients;
    req.storm.outage_s = simOutage;
    req.storm.seed = simSeed;
    req.json = format == Format::Json;
    RunResult simulated = run(options);
    int code = simulateCommand(simulated, req, llvm::outs(), llvm::errs());
    return std::max(code, stdoutWritten());
  }
}

// --fix: the fixes that hold, applied (or with --show-diff, shown), then a run again to report
// what remains. A code when --show-diff ends the run.
std::optional<int> fixAndReport(RunOptions &options, const Narrowing &narrowing, RunResult &result) {
  {
    FixPlan plan = planFixes(result.findings, options, unsafeFixes);
    auto tellLeft = [&] {
      if (plan.needs_unsafe > 0)
        llvm::errs() << "retrylint: " << plan.needs_unsafe << (plan.needs_unsafe == 1 ? " fix changes" : " fixes change")
                     << " behaviour or " << (plan.needs_unsafe == 1 ? "is" : "are") << " offered on a note: --unsafe-fixes applies "
                     << (plan.needs_unsafe == 1 ? "it" : "them") << "\n";
      if (plan.rejected > 0)
        llvm::errs() << "retrylint: " << plan.rejected << (plan.rejected == 1 ? " fix was" : " fixes were")
                     << " not applied: analysed again, the file kept the finding or gained another\n";
    };
    if (showDiff) {
      std::string diff = fixDiff(plan.chosen);
      llvm::outs() << diff;
      tellLeft();
      return diff.empty() ? 0 : 1;
    }
    FixSummary applied = applyFixes(plan.chosen);
    tellLeft();
    if (applied.fixes_applied > 0) {
      llvm::errs() << "retrylint: applied " << applied.fixes_applied << (applied.fixes_applied == 1 ? " fix" : " fixes")
                   << " in " << applied.files_changed << (applied.files_changed == 1 ? " file" : " files") << "\n";
      result = run(options); // report what remains
      narrowing.apply(result);
    }
    result.errors.insert(result.errors.end(), applied.errors.begin(), applied.errors.end());
  }

  return std::nullopt;
}

// The report (or the baseline written instead), the errors and the summary; the exit code.
int reportAndExit(const RunOptions &options, RunResult &result, Severity failSeverity, bool colorOut, bool colorErr) {
  if (!writeBaselineFile.empty()) {
    std::string error;
    if (!writeBaseline(writeBaselineFile, result.findings, result.project_root, error)) {
      writeErrorsText(llvm::errs(), result, colorErr);
      return usageError("cannot write the baseline to " + writeBaselineFile + ": " + error);
    }
    llvm::errs() << "retrylint: recorded " << result.findings.size() << " findings in " << writeBaselineFile << "\n";
    writeErrorsText(llvm::errs(), result, colorErr);
    return result.errors.empty() ? 0 : 2;
  }

  // A shard's report is merged with the others' first (`retrylint merge` aggregates then).
  if (options.shards == 1) aggregateNotes(result.findings);

  // Source lines under the findings: asked for, or on a terminal unless refused.
  const bool sourceLines = format == Format::Text && !noShowSource &&
                           (showSource || (outputFile.empty() && llvm::outs().is_displayed()));
  auto writeReport = [&](llvm::raw_ostream &out, bool color) {
    if (statistics) {
      writeStatistics(out, result, format == Format::Json);
      return;
    }
    if (report == Report::Layers) {
      if (format == Format::Json) writeLayersJson(out, result, options.settings);
      else writeLayersText(out, result, options.settings);
    } else switch (format) {
    case Format::Text:
      writeText(out, result, color, sourceLines);
      break;
    case Format::Json:
      writeJson(out, result);
      break;
    case Format::Sarif:
      writeSarif(out, result);
      break;
    case Format::Github:
      writeGithub(out, result);
      break;
    case Format::Markdown: // review's own: refused for a lint run (checkFlagsGoTogether)
      break;
    }
  };
  // A report that could not be written whole is an error (exit 2), never a partial file: see
  // lint/io/write_file.h.
  std::string writeError;
  if (!outputFile.empty()) {
    if (!writeOutputFile(outputFile, [&](llvm::raw_ostream &os) { writeReport(os, false); }, writeError))
      writeError = "cannot write the report to " + outputFile + ": " + writeError;
  } else {
    writeReport(llvm::outs(), colorOut);
    if (std::error_code ec = finishStdout()) writeError = "cannot write the report to standard output: " + ec.message();
  }
  if (verbose && !result.stats.cpp_without_full_types.empty()) {
    const auto &files = result.stats.cpp_without_full_types;
    llvm::errs() << "retrylint: " << files.size() << " C++ file" << (files.size() == 1 ? "" : "s")
                 << " analysed without full types (headers not found; -p BUILD_DIR gives Clang the build's flags):";
    for (size_t i = 0; i < files.size() && i < 10; ++i) llvm::errs() << " " << files[i];
    if (files.size() > 10) llvm::errs() << " …";
    llvm::errs() << "\n";
  }
  if (verbose && result.stats.cache_used)
    llvm::errs() << "retrylint: cache hits: " << result.stats.cache_hits << ", misses: " << result.stats.cache_misses
                 << ", rejected entries: " << result.stats.cache_rejected << "\n";
  // Errors always reach the person running the tool, whatever the report format.
  writeErrorsText(llvm::errs(), result, colorErr);
  if (format == Format::Text && report == Report::Findings)
    writeSummary(llvm::errs(), result, options.paths.empty() ? std::vector<std::string>{"."} : options.paths);
  if (!writeError.empty()) return usageError(writeError);

  if (!result.errors.empty()) return 2;
  for (const Finding &f : result.findings)
    if (f.severity >= failSeverity) return 1;
  return 0;
}

int runCommandLine(int argc, char **argv) {
  if (argc > 1 && llvm::StringRef(argv[1]) == "merge") return mergeMain(argc - 1, argv + 1);
  if (!parseCommandLine(argc, argv)) return 2;
  if (colorMode != "auto" && colorMode != "always" && colorMode != "never")
    return usageError("--color must be auto, always or never, not '" + colorMode + "'");
  // NO_COLOR (https://no-color.org): any non-empty value turns colour off unless --color=always.
  auto colorFor = [&](llvm::raw_fd_ostream &stream) {
    if (colorMode == "never") return false;
    if (colorMode == "always") {
      stream.enable_colors(true);
      return true;
    }
    auto noColor = llvm::sys::Process::GetEnv("NO_COLOR");
    return !(noColor && !noColor->empty()) && stream.has_colors();
  };
  const bool colorOut = colorFor(llvm::outs()), colorErr = colorFor(llvm::errs());

  if (auto code = printCatalogue()) return *code;
  if (auto code = checkFlagsGoTogether()) return *code;
  RunOptions options;
  options.paths.assign(paths.begin(), paths.end());
  options.jobs = jobs;
  options.keep_models = report == Report::Layers || simulating || reviewing;
  if (auto code = setAnalysisOptions(options, argv[0])) return *code;
  auto failSeverity = parseSeverity(failOn);
  if (!failSeverity) return usageError("--fail-on must be error, warning or note, not '" + failOn + "'");

  if (auto code = setConfiguration(options, colorErr)) return *code;
  Narrowing narrowing;
  if (auto code = setNarrowing(options, narrowing, colorErr)) return *code;
  if (reviewing || simulating) return reviewOrSimulate(options, *failSeverity);

  RunResult result = run(options);
  narrowing.apply(result);
  if (!fix && (format == Format::Json || format == Format::Sarif)) dropFixesThatFail(result.findings, options);
  if (fix)
    if (auto code = fixAndReport(options, narrowing, result)) return *code;
  return reportAndExit(options, result, *failSeverity, colorOut, colorErr);
}

} // namespace
