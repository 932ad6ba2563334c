// Valid YAML is never rejected, and what is embedded in it is analysed at its own place
// (retrylint issue #13): a tag alone on its line before a block scalar, as CloudFormation
// templates write `!Sub |`, which yaml-cpp 0.7 rejects when the content is not indented deeper
// than the tag; Step Functions definitions embedded in such scalars (literal or folded, content
// at the tag's indentation or deeper) with findings at their exact line and column; and the
// rule that an unparseable file found while walking a directory is an error only when its text
// holds a retry key of a dialect it looks like.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "lint/discover/discover.h"
#include "lint/extract/extractors.h"
#include "lint/yaml/load.h"
#include "tests/cli_support.h"

using namespace retrylint;
using namespace retrylint::testing;

namespace {

// 1-based line and column of the first occurrence of `needle` in `text`.
std::pair<int, int> positionOf(const std::string &text, const std::string &needle) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  int line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return {line, col};
}

struct Parsed {
  std::string value, tag;
  int line = -1, column = -1;
};

// The scalar under `path` (map keys and sequence indices) of the first document.
Parsed scalarAt(const std::string &text, std::vector<std::string> path) {
  yaml::Stream s = yaml::loadAll(text);
  EXPECT_EQ(s.documents.size(), 1u);
  yaml::Node n = s.documents.front();
  for (const std::string &k : path) {
    if (n.IsSequence()) n = n[static_cast<size_t>(std::stoul(k))];
    else n = *get(n, k);
  }
  EXPECT_TRUE(n.IsScalar());
  return Parsed{n.Scalar(), std::string(n.Tag()), n.Mark().line, n.Mark().column};
}

} // namespace

// yaml-cpp 0.7 takes a tag (or anchor) at the start of a line for a possible key and measures
// the block scalar after it from the tag's column: `k:\n  !Sub |\n  a` fails with "end of map
// not found" although the content only has to be deeper than `k` (PyYAML, CloudFormation and
// the YAML spec read {k: !Sub "a\n"}). Values, tags and marks as yaml-cpp gives them for
// `k: !Sub |` on one line: the mark is the tag's.
TEST(YamlTaggedBlockScalar, TagAloneOnItsLineBeforeABlockScalarIsRead) {
  auto p = scalarAt("k:\n  !Sub |\n  a\n  b\nnext: 1\n", {"k"});
  EXPECT_EQ(p.value, "a\nb\n");
  EXPECT_EQ(p.tag, "!Sub");
  EXPECT_EQ(p.line, 1);
  EXPECT_EQ(p.column, 2);

  EXPECT_EQ(scalarAt("k:\n  !Sub >\n  a\n  b\n", {"k"}).value, "a b\n");
  EXPECT_EQ(scalarAt("k:\n  !Sub |-\n  a\n", {"k"}).value, "a");
  EXPECT_EQ(scalarAt("k:\n  !Sub >-  # folded\n  a\n  b\n", {"k"}).value, "a b");
  EXPECT_EQ(scalarAt("k:\n  !Sub |+\n  a\n\nj: 1\n", {"k"}).value, "a\n\n");
  EXPECT_EQ(scalarAt("k:\n  !Sub |\n\n  a\n", {"k"}).value, "\na\n");
  // In sequences: `- !Sub |` with the content under the dash's item.
  p = scalarAt("- !Sub |\n  a\n", {"0"});
  EXPECT_EQ(p.value, "a\n");
  EXPECT_EQ(p.tag, "!Sub");
  EXPECT_EQ(p.column, 2);
  EXPECT_EQ(scalarAt("k:\n- x\n- !Sub |\n  a\n", {"k", "1"}).value, "a\n");
  EXPECT_EQ(scalarAt("k:\n  - - !Sub |\n      a\n", {"k", "0", "0"}).value, "a\n");
  // The rest of the document keeps its places.
  p = scalarAt("k:\n  !Sub |\n  a\nnext: value\n", {"next"});
  EXPECT_EQ(p.value, "value");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.column, 6);
}

// What is not such a header stays as yaml-cpp reads it: the same words inside a literal block
// are its content, and a text that is invalid for another reason is still rejected.
TEST(YamlTaggedBlockScalar, OnlyRealHeadersAreRead) {
  EXPECT_EQ(scalarAt("k: |\n  x:\n  !Sub |\n  a\n", {"k"}).value, "x:\n!Sub |\na\n");
  const std::string both = "a: |\n  !Sub |\n  x\nk:\n  !Sub |\n  b\n";
  EXPECT_EQ(scalarAt(both, {"a"}).value, "!Sub |\nx\n");
  EXPECT_EQ(scalarAt(both, {"k"}).value, "b\n");
  EXPECT_THROW(yaml::loadAll("k:\n  !Sub |\n  a\n b: [\n"), YAML::Exception);
  EXPECT_THROW(yaml::loadAll("k:\n  !Sub |\n  a\nj: [1\n"), YAML::Exception);
}

namespace {

// A CloudFormation state machine whose DefinitionString is the tag line `tagLine` (indented
// by 8) and the JSON definition indented by `indent`.
std::string template_(const std::string &tagLine, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  return "Resources:\n"
         "  Machine:\n"
         "    Type: AWS::StepFunctions::StateMachine\n"
         "    Properties:\n"
         "      DefinitionString:\n"
         "        " + tagLine + "\n" +
         pad + "{\n" +
         pad + "  \"StartAt\": \"A\",\n" +
         pad + "  \"States\": {\n" +
         pad + "    \"A\": {\n" +
         pad + "      \"Type\": \"Task\",\n" +
         pad + "      \"Resource\": \"${Fn.Arn}\",\n" +
         pad + "      \"Retry\": [ { \"ErrorEquals\": [\"States.ALL\"],\n" +
         pad + "                   \"BackoffRate\": 1.5,\n" +
         pad + "                   \"MaxAttempts\": 12 } ],\n" +
         pad + "      \"End\": true\n" +
         pad + "    }\n" +
         pad + "  }\n" +
         pad + "}\n";
}

} // namespace

// Every way a template writes the definition after a tag line: literal or folded, any chomping,
// the content at the tag's indentation or deeper, `Fn::Sub:` in long form. The retrier is
// analysed and MaxAttempts 12 (RL203: 13 attempts, above the background ceiling of 11) is
// reported at the `12` itself, not at the scalar.
TEST(StepFunctionsEmbedded, BlockScalarDefinitionsAreAnalysedAtTheirPlace) {
  for (const std::string ind : {"|", ">", "|-", ">-", "|+", ">+"}) {
    struct Case {
      std::string tagLine;
      int indent;
    };
    for (const Case &c : {Case{"!Sub " + ind, 8}, Case{"!Sub " + ind, 10}, Case{"Fn::Sub: " + ind, 10}}) {
      const std::string text = template_(c.tagLine, c.indent);
      SCOPED_TRACE(text);
      FileResult r = analyseText("template.yaml", text, /*named=*/true, RunOptions{});
      for (const Diagnostic &d : r.errors) ADD_FAILURE() << d.line << ":" << d.column << ": " << d.message;
      EXPECT_EQ(r.policies, 1u);
      const auto [line, col] = positionOf(text, "12 }");
      bool found = false;
      for (const Finding &f : r.findings)
        if (f.rule == "RL203") {
          found = true;
          EXPECT_EQ(f.where.line, line);
          EXPECT_EQ(f.where.column, col);
        }
      EXPECT_TRUE(found) << "no RL203";
    }
  }
}

// An unparseable file found while walking a directory is an error (exit 2) only when its text
// holds a retry key of a dialect it looks like: an Argo Workflow written invalid on purpose (a
// test input of Argo's own) with no retryStrategy anywhere is not a retry config gone wrong.
// Named on the command line, it stays an error, as does one that does hold retry settings.
TEST(UnparseableFiles, OnADirectoryScanOnlyThoseWithARetryKeyOfTheirDialectAreErrors) {
  TempDir dir;
  const std::string invalidWorkflow = "apiVersion: argoproj.io/v1alpha1\n"
                                      "kind: Workflow\n"
                                      "metadata:\n"
                                      "  generateName: basic-invalid-\n"
                                      "spec:\n"
                                      "  entrypoint: main\n"
                                      "  templates:\n"
                                      "  - name: main\n"
                                      "    container: [image: busybox\n";
  dir.write("scan/invalid-workflow.yaml", invalidWorkflow);
  dir.write("scan/invalid-machine.asl.json", "{\"StartAt\": \"A\", \"States\": {\"A\": {\"Type\": \"Pass\",, \"End\": true}}}\n");
  CliRun r = runRetrylintIn(dir.path.string(), "", "--no-cache scan");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("invalid"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("invalid"), std::string::npos) << r.err;

  // Named: an error, as before.
  r = runRetrylintIn(dir.path.string(), "", "--no-cache scan/invalid-workflow.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("invalid-workflow.yaml:10:1: error: invalid YAML"), std::string::npos) << r.out << r.err;

  // With a retry key of its dialect: an error on a scan too, at its line.
  std::string withRetry = invalidWorkflow;
  withRetry.insert(withRetry.find("  - name: main"), "  retryStrategy: {limit: 3}\n");
  dir.write("scan/invalid-workflow.yaml", withRetry);
  dir.write("scan/invalid-machine.asl.json",
            "{\"StartAt\": \"A\", \"States\": {\"A\": {\"Type\": \"Task\", \"Retry\": [],, \"End\": true}}}\n");
  r = runRetrylintIn(dir.path.string(), "", "--no-cache scan");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("invalid-workflow.yaml:9:3: error: invalid YAML"), std::string::npos) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("invalid-machine.asl.json:1:"), std::string::npos) << r.out << r.err;

  // A retry key of another dialect than the one the file looks like does not make it ours.
  dir.write("scan/invalid-workflow.yaml", invalidWorkflow + "# retries: see the runbook\n");
  dir.write("scan/invalid-machine.asl.json", "{\"StartAt\": \"A\",, \"retryPolicy\": 1}\n");
  r = runRetrylintIn(dir.path.string(), "", "--no-cache scan");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// Every dialect that claims unparseable files by its markers says which keys hold its retry
// settings, so that a directory scan does not fall back to the markers alone for it.
TEST(UnparseableFiles, EveryDialectWithMarkersNamesItsRetryKeys) {
  for (const Extractor &ex : extractors())
    if (!ex.markers.empty()) EXPECT_FALSE(ex.retry_keys.empty()) << ex.format;
}

// Discovery reads the files the dialects' descriptors name (file_kinds), and no others besides
// YAML and JSON: a new text dialect declares its files in its own descriptor.
// A site file is NGINX by its directory, but a README or a script kept beside the sites, quoting
// a directive, is not read as NGINX.
TEST(Dialects, NginxSitesAreReadByDirectoryButNotTheNotesBesideThem) {
  const std::string site = "server {\n    location / {\n        proxy_next_upstream error timeout;\n        proxy_pass http://a;\n    }\n}\n";
  const Extractor *ex = textExtractorFor(SourceFile("etc/nginx/sites-available/shop.example.com", site));
  ASSERT_NE(ex, nullptr);
  EXPECT_EQ(ex->format, "nginx");
  EXPECT_EQ(textExtractorFor(SourceFile("etc/nginx/sites-available/README.md", site)), nullptr);
  EXPECT_EQ(textExtractorFor(SourceFile("etc/nginx/sites-enabled/reload.sh", site)), nullptr);
  EXPECT_EQ(textExtractorFor(SourceFile("etc/nginx/sites-enabled/default", "# no next upstream here\nserver {}\n")), nullptr);
}

TEST(Dialects, DiscoveryReadsTheFileKindsTheDescriptorsDeclare) {
  for (const Extractor &ex : extractors())
    if (ex.recogniseText) EXPECT_FALSE(ex.file_kinds.empty()) << ex.format << " reads text files but declares none";
  EXPECT_TRUE(hasConfigExtension("home/.aws/config"));
  EXPECT_TRUE(hasConfigExtension("home/.aws/credentials"));
  EXPECT_TRUE(hasConfigExtension("src/main/resources/application.PROPERTIES"));
  EXPECT_TRUE(hasConfigExtension("src/client.cc"));
  EXPECT_TRUE(hasConfigExtension("deploy/route.yml"));
  EXPECT_FALSE(hasConfigExtension("notes.txt"));
  EXPECT_FALSE(hasConfigExtension("src/config.go"));
  // NGINX sites as Debian lays them out, named after the host; JSON kept as a template.
  EXPECT_TRUE(hasConfigExtension("etc/nginx/sites-available/default"));
  EXPECT_TRUE(hasConfigExtension("etc/nginx/sites-enabled/shop.example.com"));
  EXPECT_TRUE(hasConfigExtension("modules/sfn/definition.asl.json.tftpl"));
  EXPECT_TRUE(hasConfigExtension("modules/sfn/definition.json.tpl"));
  // templatefile() reads any name: a `.tpl` or `.tftpl` is read as JSON, skipped quietly when it is not.
  EXPECT_TRUE(hasConfigExtension("modules/sfn/definition.tpl"));
  EXPECT_TRUE(hasConfigExtension("modules/sfn/states.tftpl"));
  EXPECT_FALSE(hasConfigExtension("modules/sfn/definition.txt"));
  EXPECT_TRUE(hasConfigExtension("etc/nginx/conf.d/proxy_params"));
  EXPECT_FALSE(hasConfigExtension("etc/nginx/default"));
  // A file named `config` may be YAML (~/.kube/config): named on the command line, it is tried as YAML.
  EXPECT_FALSE(hasKnownNonYamlExtension("home/.kube/config"));
  EXPECT_TRUE(hasKnownNonYamlExtension("settings.ini"));
}
