// The fast YAML/JSON parser (lint/yaml/fast_parser.cpp) against yaml-cpp: whenever it accepts a
// text, its tree must be yaml-cpp's (kinds, scalar text, tags, styles, marks, key order,
// null-ness, document count); and the yaml-cpp path itself must build what YAML::LoadAll builds.
#include <algorithm>
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <llvm/Support/JSON.h>

#include "lint/yaml/dump.h"
#include "lint/yaml/json_strict.h"
#include "lint/yaml/load.h"
#include "tests/cli_support.h"

namespace fs = std::filesystem;
using namespace retrylint::yaml;
using retrylint::testing::slurp;
using retrylint::testing::TempDir;

namespace {

// Parses `text` both ways in both modes. Returns whether the fast path accepted it (in All
// mode); a difference or a fast acceptance of what yaml-cpp rejects fails the test.
bool sameAsYamlCpp(const std::string &text, const std::string &label) {
  bool acceptedAll = false;
  for (Mode mode : {Mode::All, Mode::First}) {
    Stream fast;
    if (!parseFast(text, mode, fast)) continue;
    if (mode == Mode::All) acceptedAll = true;
    std::string expected;
    try {
      expected = dump(parseWithYamlCpp(text, mode));
    } catch (const YAML::Exception &e) {
      ADD_FAILURE() << label << ": the fast path accepts what yaml-cpp rejects: " << e.what();
      continue;
    }
    EXPECT_EQ(dump(fast), expected) << label << (mode == Mode::All ? " (all documents)" : " (first document)");
  }
  return acceptedAll;
}

// The engine reads JSON with tabs made spaces (lint/engine.cpp); the test reads it the same way.
std::string asRead(const fs::path &p) {
  std::string text = slurp(p);
  if (p.extension() == ".json") std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

bool isYamlOrJson(const fs::path &p) {
  auto e = p.extension();
  return e == ".yaml" || e == ".yml" || e == ".json";
}

struct Tally {
  size_t files = 0, accepted = 0;
};

Tally compareTree(const fs::path &root) {
  Tally t;
  if (!fs::is_directory(root)) return t;
  for (const auto &e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || !isYamlOrJson(e.path())) continue;
    ++t.files;
    t.accepted += sameAsYamlCpp(asRead(e.path()), e.path().string());
  }
  return t;
}

} // namespace

TEST(YamlFast, FixturesCorpusAndTestDataParseAsYamlCppDoes) {
  const fs::path src(RETRYLINT_SOURCE_DIR);
  Tally total;
  for (const fs::path &root : {src / "fixtures", src / "tests" / "data"}) {
    Tally t = compareTree(root);
    total.files += t.files;
    total.accepted += t.accepted;
  }
  ASSERT_GT(total.files, 50u);
  // The fast path is for the files people write: it must take nearly all of them (it gives up
  // on the broken fixtures and CloudFormation's tags and block scalars).
  EXPECT_GT(total.accepted * 10, total.files * 8) << total.accepted << " of " << total.files;
}

TEST(YamlFast, GeneratedBenchmarkConfigsParseAsYamlCppDoes) {
  if (std::system("command -v node > /dev/null 2>&1") != 0) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  const std::string cmd = "node '" + std::string(RETRYLINT_SOURCE_DIR) + "/bench/gen.js' configs 300 '" +
                          dir.path.string() + "' > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  Tally t = compareTree(dir.path);
  ASSERT_GT(t.files, 200u);
  EXPECT_EQ(t.accepted, t.files); // every generated file is plain configuration YAML or JSON
}

// The yaml-cpp path builds from parser events what YAML::LoadAll builds as nodes.
TEST(YamlFast, EventBuilderMatchesYamlCppLoadAll) {
  const fs::path src(RETRYLINT_SOURCE_DIR);
  size_t compared = 0;
  for (const fs::path &root : {src / "fixtures", src / "tests" / "data" / "corpus"}) {
    if (!fs::is_directory(root)) continue;
    for (const auto &e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || !isYamlOrJson(e.path())) continue;
      const std::string text = asRead(e.path());
      std::vector<YAML::Node> nodes;
      try {
        nodes = YAML::LoadAll(text);
      } catch (const YAML::Exception &) {
        // Valid YAML yaml-cpp 0.7 rejects, read by parseWithYamlCpp (tests/yaml_recognition_test.cpp).
        if (e.path().filename() == "tag-line-block-scalar.yaml") continue;
        EXPECT_THROW(parseWithYamlCpp(text, Mode::All), YAML::Exception) << e.path();
        continue;
      }
      std::string expected = std::to_string(nodes.size()) + " documents\n";
      for (const YAML::Node &n : nodes) {
        expected += "---\n";
        dumpTree(n, 0, expected); // yaml-cpp's own nodes
      }
      // Where yaml-cpp's maps keep what runtimes do not (a key's earlier values, `<<` entries
      // unmerged), ours differ on purpose (Document::attach; tests/hostile_yaml_test.cpp).
      const Stream ours = parseWithYamlCpp(text, Mode::All);
      if (!ours.arena->duplicates().empty() || text.find("<<") != std::string::npos) continue;
      EXPECT_EQ(dump(ours), expected) << e.path();
      ++compared;
    }
  }
  EXPECT_GT(compared, 50u);
}

// Each case either is read by the fast path exactly as yaml-cpp reads it, or is left to yaml-cpp.
TEST(YamlFast, EdgeCases) {
  enum Expect { Accept, GiveUp };
  const std::vector<std::pair<std::string, Expect>> cases = {
      // documents
      {"", Accept},
      {"# only a comment\n", Accept},
      {"---", Accept},
      {"---\n---\n", Accept},
      {"a: 1\n---", Accept},
      {"a: 1\n...\n", Accept},
      {"...\n", Accept},
      {"a: 1\n...\nb: 2\n", Accept},
      {"a: 1\n---\n# only a comment\n---\n", Accept},
      {"--- # comment\na: 1\n", Accept},
      {"--- a\n", GiveUp},
      {"%YAML 1.2\n---\na: 1\n", GiveUp},
      // nulls: empty values, ~, null, Null, NULL (plain only), and where they are marked
      {"a:\nb: ~\nc: null\nd: Null\ne: NULL\nf: \"null\"\ng: nULL\n", Accept},
      {"a:", Accept},
      {"a:\n\n\n", Accept},
      {"a:   ", Accept},
      {"a:   # c\nb: 1", Accept},
      {"a:\n  b:\n# x\n\n  # y\nc: 1", Accept},
      {"a:\n  b:\n---\nx: 1", Accept},
      {"- \n-\n- a\n-", Accept},
      // a last line of spaces only, shallower than the open map: yaml-cpp marks the null there
      {"a:\n  b:\n ", GiveUp},
      {"a:\n  b:\n \n", Accept},
      {"a:\n  b:\n # c", GiveUp}, // an indented comment ends the text: left to yaml-cpp (it marks "  #" at column 3)
      {"~: 1\nnull: 2\n", Accept},
      // plain scalars
      {"a: b # c\nd: e#f\nurl: http://x:80/p?q=1\nmy key: v  \nwords: x y  z\n", Accept},
      {"a: 1   \nb: -1\nc: -Xmx512m\nd: 1.5e+3\ne: b, c [d] {e}\n", Accept},
      {"a  : 1\n", Accept},
      {"dup: 1\ndup: 2\n", Accept},
      {"a: b: c\n", GiveUp},
      {"a: b:\n", GiveUp},
      {"a: x\n  continued\n", GiveUp},
      {"- x\n  continued\n", GiveUp},
      {"a: x\n  # comment\n  continued\n", GiveUp},
      {"plain scalar document\n", GiveUp},
      {"a: é ü\n# ç\nb: \"ñ\"\n", Accept},
      // quoted scalars and escapes
      {"a: 'it''s'\nb: \"x\\ty\\/\\\"z\\\\\"\n\"q k\": 1\n'single': \"\"\n", Accept},
      {"a: \"\\u00e9\"\n", GiveUp},
      {"a: \"\\x41\"\n", GiveUp},
      {"a: \"two\n  lines\"\n", GiveUp},
      {"a: 'two\n  lines'\n", GiveUp},
      {"a: \"x\" y\n", GiveUp},
      // block collections
      {"a:\n  b: 1\nc:\n- x\n- y\nd: 2\n", Accept},
      {"- a\n- b: 1\n  c: 2\n-\n- [1, 2]\n- {x: y}\n", Accept},
      {"- a:\n  - x\n  b: 1\n- a:\n- c\n", Accept},
      {"- \"k\": v\n  'k2': v2\n", Accept},
      {"x:\n  - a\n  -\ny: 1\n", Accept},
      {"-   a: 1\n    b: 2\n", Accept},
      {"a:\n    b: 1\n  c: 2\n", GiveUp},
      {"- - a\n", GiveUp},
      {"a: 1\n- x\n", GiveUp},
      {"- a\nb: 1\n", GiveUp},
      {"a:\n  b\n", GiveUp},
      // flow collections, JSON
      {"a: [b, c]  # x\nb: [ ]\nc: {}\nd: [ \"q\" ,{k: v}]\n", Accept},
      {"{\"a\":1, \"b\" : [true,null], \"c\":\"s\"}", Accept},
      {"{\n  \"a\": {\n    \"b\": [1,\n  2]\n  }\n}\n", Accept},
      {"[\n1,\n2\n]\n", Accept},
      {"[\n...\n]\n", GiveUp}, // a document end marker, even inside brackets
      {"{\"a\":\n---\n}\n", GiveUp},
      {"[\n..., a,\n...x]\n", Accept},
      {"a: [1,\n  2]\n", GiveUp},
      {"[a\n b]\n", GiveUp},
      {"{a:1}\n", GiveUp},
      {"[a, ]\n", GiveUp},
      {"{a: }\n", GiveUp},
      {"[a: b]\n", GiveUp},
      {"[a], b\n", GiveUp},
      {"{e},{e}\n", GiveUp},
      // what the fast path leaves to yaml-cpp
      {"a: &x 1\nb: *x\n", GiveUp},
      {"a: !Sub x\n", GiveUp},
      {"a: |\n  text\n", GiveUp},
      {"a: >\n  text\n", GiveUp},
      {"? a\n: b\n", GiveUp},
      {"a:\tb\n", GiveUp},
      {"a: b\rc: d\n", GiveUp},
      {"\xEF\xBB\xBF" "a: 1\n", GiveUp},
      {"a: [1\n", GiveUp},
      // CRLF line ends: "\r\n" is one line break for yaml-cpp's marks
      {"a: b\r\nc:\r\n  - d \r\n", Accept},
      {"a: b\r\n\r\n# c\r\nd: [1, 2]\r\n", Accept},
  };
  for (const auto &[text, expect] : cases) {
    Stream fast;
    const bool accepted = parseFast(text, Mode::All, fast);
    EXPECT_EQ(accepted, expect == Accept) << "\"" << text << "\"";
    sameAsYamlCpp(text, "\"" + text + "\"");
  }
}

// The Node handle's own semantics, as yaml-cpp's YAML::Node has them.
TEST(YamlFast, NodeApiMatchesYamlCpp) {
  const std::string text = "k: v\nlist: [1, 2]\nempty:\n";
  Stream s = loadAll(text);
  ASSERT_EQ(s.documents.size(), 1u);
  const Node doc = s.documents[0];
  const YAML::Node ref = YAML::Load(text);
  EXPECT_EQ(doc["k"].Scalar(), ref["k"].Scalar());
  EXPECT_EQ(doc["missing"].IsDefined(), ref["missing"].IsDefined()); // both undefined
  EXPECT_FALSE(doc["missing"].IsDefined());
  EXPECT_EQ(doc["empty"].IsNull(), ref["empty"].IsNull());
  EXPECT_EQ(doc["list"].size(), ref["list"].size());
  EXPECT_EQ(doc["list"][1].Scalar(), ref["list"][1].Scalar());
  EXPECT_FALSE(doc["list"][5].IsDefined());
  EXPECT_EQ(doc["k"].Scalar(), "v");
  EXPECT_EQ(doc["list"].Scalar(), ""); // not a scalar: empty, as yaml-cpp
  // A default node is null and has no mark, as YAML::Node() is.
  const Node none;
  EXPECT_EQ(none.IsNull(), YAML::Node().IsNull());
  EXPECT_TRUE(none.IsDefined());
  EXPECT_TRUE(none.Mark().is_null());
  EXPECT_TRUE(YAML::Node().Mark().is_null());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(none.begin() == none.end());
  // Iterating a map yields key/value pairs in order; a sequence yields its items.
  std::vector<std::string> keys;
  for (const auto &kv : doc) keys.push_back(kv.first.Scalar());
  EXPECT_EQ(keys, (std::vector<std::string>{"k", "list", "empty"}));
  std::vector<std::string> items;
  for (const Node &item : doc["list"]) items.push_back(item.Scalar());
  EXPECT_EQ(items, (std::vector<std::string>{"1", "2"}));
  // Scalar() hands out the same string on every call (callers keep references).
  EXPECT_EQ(&doc["k"].Scalar(), &doc["k"].Scalar());
}

// loadFirst reads the first document only, as YAML::Load does: later ones are not even parsed.
TEST(YamlFast, LoadFirstIsYamlCppsLoad) {
  EXPECT_EQ(loadFirst("a: 1\n---\nb: 2\n").documents.size(), 1u);
  EXPECT_EQ(loadFirst("a: 1\n---\nb: 2\n").documents[0]["a"].Scalar(), "1");
  EXPECT_NO_THROW(loadFirst("a: 1\n---\n[\n"));
  EXPECT_TRUE(loadFirst("").documents[0].IsNull());
  EXPECT_TRUE(loadFirst("").documents[0].Mark().is_null());
  EXPECT_THROW(loadAll("a: 1\n---\n[\n"), YAML::Exception);
  // yaml-cpp 0.7's LoadAll loops forever on these; loadAll stops with an error at the ','.
  EXPECT_THROW(loadAll("[a], b"), YAML::Exception);
  EXPECT_THROW(loadAll("{e},{e}"), YAML::Exception);
}

// certainlyStrictJson may only say yes where llvm::json::parse succeeds; it should say yes to
// the JSON people write, so that llvm::json runs on broken or unusual files only.
TEST(JsonStrict, NeverAcceptsWhatLlvmJsonRejects) {
  const fs::path src(RETRYLINT_SOURCE_DIR);
  size_t valid = 0, certain = 0;
  for (const fs::path &root : {src / "fixtures", src / "tests" / "data"}) {
    if (!fs::is_directory(root)) continue;
    for (const auto &e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") continue;
      const std::string text = slurp(e.path());
      auto parsed = llvm::json::parse(text);
      const bool ok = static_cast<bool>(parsed);
      if (!ok) llvm::consumeError(parsed.takeError());
      const bool sure = certainlyStrictJson(text);
      EXPECT_TRUE(!sure || ok) << e.path();
      valid += ok;
      certain += sure;
    }
  }
  ASSERT_GT(valid, 20u);
  EXPECT_GT(certain * 10, valid * 9) << certain << " of " << valid;

  const std::vector<std::string> yes = {
      "{}", "[]", " {\"a\": [1, -2.5e+3, 0, 0.0, 1E9, true, false, null, \"x\\n\\\"\\/\"]}\n", "\"s\"", "0", "-0",
      "{\"a\":{\"b\":{\"c\":[[],{}]}}}", "[\t1 ,\r\n2 ]", "{\"dup\": 1, \"dup\": 2}", "12345678901234567890123",
  };
  for (const std::string &t : yes) {
    EXPECT_TRUE(certainlyStrictJson(t)) << t;
    EXPECT_TRUE(static_cast<bool>(llvm::json::parse(t))) << t;
  }
  // Not strict JSON, or not certain (escapes and bytes llvm::json handles its own way).
  const std::vector<std::string> no = {
      "", " ", "{", "[1,]", "{\"a\":1,}", "{a: 1}", "{'a': 1}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[-]",
      "[1-2]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "[true false]", "tru", "nul", "[NaN]", "[Infinity]",
      "{} {}", "[] x", "# c\n{}", "{\"a\": \"tab\there\"}", "\"\\u0041\"", "\"\\x41\"", "\"caf\xc3\xa9\"",
      "[1]]", "]", "{\"a\":1}}", "---\n{}", "\"unterminated", "[1,\n", "{\"a\"",
  };
  for (const std::string &t : no) EXPECT_FALSE(certainlyStrictJson(t)) << t;
  // Any depth: no recursion.
  EXPECT_TRUE(certainlyStrictJson(std::string(100000, '[') + std::string(100000, ']')));
}
