// The bodies of the libFuzzer targets (fuzz/fuzz_*.cpp), shared with the GoogleTest that replays
// the saved crashing inputs (tests/fuzz_regressions_test.cpp).
#include "fuzz/targets.h"
#include "fuzz/fuzz_common.h"

#include "lint/config/config.h"
#include "lint/cpp/cpp_frontend.h"
#include "lint/cpp/driver.h"
#include "lint/engine.h"
#include "lint/extract/ini.h"
#include "lint/extract/properties.h"
#include "lint/model/duration.h"
#include "lint/report/report.h"
#include "lint/suppress/suppressions.h"
#include "lint/yaml/json_strict.h"
#include "lint/yaml/load.h"
#include "lint/yaml/nesting.h"
#include <llvm/Support/JSON.h>
#include <yaml-cpp/exceptions.h>
#include <llvm/Support/raw_ostream.h>
#include <cstdio>
#include <cstdlib>

namespace retrylint::fuzz {
using namespace retrylint;

// The whole per-file analysis (parse, extract, rules, suppressions) and the report writers, with
// the file name chosen by the first byte so every dialect is reached. C++ is left out: the Clang
// front end is too slow per input (fuzz_cpp_tokens covers its token-level analysis).
int analyse(const uint8_t *data, size_t size) {
  static const char *names[] = {"in.yaml", "in.json", "in.ini", "in.properties", "config", "in.yml", "credentials",
                                "application.yml", "noext", "nginx.conf", "haproxy.cfg", "dynamic.toml"};
  Input in = split(data, size);
  const std::string path = names[(in.selector & 0x7f) % (sizeof names / sizeof *names)];
  const bool named = in.selector & 0x80;
  RunOptions options;
  RunResult result;
  FileResult r = analyseText(path, in.text, named, options);
  result.findings = std::move(r.findings);
  result.errors = std::move(r.errors);
  std::string out;
  llvm::raw_string_ostream os(out);
  writeText(os, result, false);
  writeErrorsText(os, result, false);
  writeJson(os, result);
  writeGithub(os, result);
  writeSarif(os, result);
  return 0;
}

// YAML and JSON loading and every YAML/JSON extractor (no rules), named and found by walking.
int yamlJson(const uint8_t *data, size_t size) {
  Input in = split(data, size);
  const std::string path = (in.selector & 1) ? "in.json" : "in.yaml";
  FileModel model;
  std::vector<Diagnostic> errors;
  extractText(path, in.text, in.selector & 2, model, errors);
  return 0;
}

// The fast YAML/JSON parser against yaml-cpp (selector bit 0: first document only, as for JSON):
// whenever the fast path accepts a text, yaml-cpp must accept it too and build the same tree.
// And the strict-JSON shortcut against llvm::json.
int yamlFast(const uint8_t *data, size_t size) {
  Input in = split(data, size);
  // The strict-JSON shortcut never says yes to what llvm::json rejects (llvm::json recurses, so
  // only shallow texts are handed to it, as the engine does).
  if (yaml::certainlyStrictJson(in.text) && nestingDepth(in.text) <= 256) {
    if (auto parsed = llvm::json::parse(in.text); !parsed) {
      std::fprintf(stderr, "certainlyStrictJson accepts what llvm::json rejects: %s\n", llvm::toString(parsed.takeError()).c_str());
      std::abort();
    }
  }
  const yaml::Mode mode = (in.selector & 1) ? yaml::Mode::First : yaml::Mode::All;
  yaml::Stream fast;
  if (!yaml::parseFast(in.text, mode, fast)) return 0;
  std::string expected;
  try {
    expected = yaml::dump(yaml::parseWithYamlCpp(in.text, mode));
  } catch (const YAML::Exception &e) {
    std::fprintf(stderr, "the fast path accepts what yaml-cpp rejects: %s\n", e.what());
    std::abort();
  }
  if (yaml::dump(fast) != expected) {
    std::fprintf(stderr, "fast path:\n%s\nyaml-cpp:\n%s\n", yaml::dump(fast).c_str(), expected.c_str());
    std::abort();
  }
  return 0;
}

// The INI reader and its span helpers.
int ini(const uint8_t *data, size_t size) {
  SourceFile src("in.ini", std::string(reinterpret_cast<const char *>(data), size));
  try {
    IniFile f = parseIni(src);
    for (const IniSection &s : f.sections) {
      sectionSpan(src, s);
      for (const IniEntry &e : s.entries) {
        keySpan(src, e);
        valueSpan(src, e);
        for (const IniEntry &sub : e.sub) keySpan(src, sub), valueSpan(src, sub);
        s.find(e.key);
      }
    }
  } catch (const IniError &) {
  }
  return 0;
}

// The .properties reader.
int properties(const uint8_t *data, size_t size) {
  SourceFile src("in.properties", std::string(reinterpret_cast<const char *>(data), size));
  for (const PropertyEntry &e : readProperties(src)) src.offsetOf(e.line0, e.valueCol0);
  return 0;
}

// Suppression comments, applied to findings on every line.
int suppressions(const uint8_t *data, size_t size) {
  Input in = split(data, size);
  static const char *names[] = {"in.yaml", "in.cpp", "in.ini", "in.properties", "in.json"};
  SourceFile src(names[in.selector % 5], in.text);
  std::vector<Suppression> sups = parseSuppressions(src);
  std::vector<Finding> findings;
  static const char *rules[] = {"RL101", "RL201", "RL501", "RL902"};
  for (int line = 1; line <= std::min(src.lineCount(), 200); ++line) {
    Finding f;
    f.rule = rules[line % 4];
    f.name = "x";
    f.where = Span{src.path(), line, 1, line, 2};
    findings.push_back(f);
  }
  applySuppressions(findings, sups);
  return 0;
}

// The project config (.retrylint.yaml) loader, from text.
int config(const uint8_t *data, size_t size) {
  std::vector<Diagnostic> errors;
  auto cfg = parseProjectConfig("/fuzz/.retrylint.yaml", std::string(reinterpret_cast<const char *>(data), size), errors);
  if (cfg) {
    for (const std::string &g : cfg->exclude) globMatches(g, "a/b/c.yaml");
    for (const PathOverride &o : cfg->overrides)
      for (const std::string &g : o.paths) globMatches(g, "deploy/x.json");
  }
  return 0;
}

// Every duration parser, and the formatting of what they accept.
int duration(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  using Parser = std::optional<Duration> (*)(std::string_view, std::string *);
  static const Parser parsers[] = {parseGoDuration, parseProtoJsonDuration, parseArgoDuration,
                                   parseGatewayDuration, parseSpringDuration, parseTimeSpan};
  for (Parser p : parsers) {
    std::string error;
    if (auto d = p(text, &error)) {
      formatDuration(*d);
      formatSeconds(*d);
    }
  }
  return 0;
}

// The C++ front end's token-level parts without Clang: the tokenizer, bracket matching, the
// qualifier blanking and the loop analysis over every for/while/do the tokens hold.
int cppTokens(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  cpp::Tokens toks(text);
  for (size_t i = 0; i < toks.size(); ++i) {
    toks.close(i);
    toks.statementEnd(i);
    toks.at(toks[i].offset);
  }
  cpp::blankDroppedQualifiers(text, toks, {});
  cpp::FileFacts facts;
  for (const cpp::Tok &t : toks.all())
    if (t.text == "for" || t.text == "while" || t.text == "do")
      facts.loops.push_back(cpp::LoopSite{t.offset, 0, text.size()});
  SourceFile src("in.cpp", text);
  FileModel model;
  std::vector<Diagnostic> errors;
  ExtractOptions options;
  ExtractContext cx{src, model, errors, options};
  try {
    cpp::analyseLoops(toks, facts, cx);
  } catch (const TypeError &) {
  }
  return 0;
}

} // namespace retrylint::fuzz
