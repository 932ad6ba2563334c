// AWS dialects: the INI reader, the shared config extractor and the Step Functions extractor
// (attempts normalisation, defaults with their sources, fixes, DefinitionString positions, corpus).
#include <filesystem>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "test_support.h"
#include "lint/extract/ini.h"
#include "lint/fix/apply_fixes.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// Unlike test_support's extract(), lets the caller look at the errors instead of failing on them.
FileModel extractAws(const std::string &path, const std::string &text, std::vector<Diagnostic> *errs = nullptr) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText(path, text, true, m, errors);
  if (errs) *errs = errors;
  else EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  return m;
}

// Applies every fix of the findings and returns the new text.
std::string applyFixes(std::string text, const std::vector<Finding> &findings) {
  std::vector<TextEdit> edits;
  for (const Finding &f : findings)
    for (const Fix &fx : f.fixes)
      for (const TextEdit &e : fx.edits) edits.push_back(e);
  EXPECT_TRUE(applyEdits(text, edits)) << "overlapping fixes";
  return text;
}

int count(const std::vector<Finding> &fs, const std::string &rule) {
  return static_cast<int>(std::count_if(fs.begin(), fs.end(), [&](const Finding &f) { return f.rule == rule; }));
}

} // namespace

// --- INI reader --------------------------------------------------------------------------------

TEST(Ini, ReadsSectionsKeysValuesWithPositions) {
  SourceFile src("config", "# top\n[profile dev]\nregion = eu-west-1   # inline\n  \n; note\nmax_attempts=4\ns3 =\n  max_concurrent_requests = 10\n");
  IniFile f = parseIni(src);
  ASSERT_EQ(f.sections.size(), 1u);
  const IniSection &s = f.sections[0];
  EXPECT_EQ(s.name, "profile dev");
  EXPECT_EQ(s.line0, 1);
  EXPECT_EQ(s.name_col0, 1);
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[0].key, "region");
  EXPECT_EQ(s.entries[0].value, "eu-west-1");
  EXPECT_EQ(s.entries[0].value_col0, 9);
  EXPECT_EQ(s.entries[1].value, "4");
  EXPECT_EQ(s.entries[1].value_col0, 13);
  ASSERT_EQ(s.entries[2].sub.size(), 1u);
  EXPECT_EQ(s.entries[2].sub[0].key, "max_concurrent_requests");
  EXPECT_EQ(s.find("max_attempts")->line0, 5);
  Span v = valueSpan(src, s.entries[0]);
  EXPECT_EQ(v.line, 3);
  EXPECT_EQ(v.column, 10);
  EXPECT_EQ(v.end_column, 19);
}

TEST(Ini, LaterKeysWinAndHashWithoutSpaceIsPartOfTheValue) {
  IniFile f = parseIni(SourceFile("c", "[default]\nretry_mode = legacy\nretry_mode = standard\nurl = http://x/#frag\n"));
  EXPECT_EQ(f.sections[0].find("retry_mode")->value, "standard");
  EXPECT_EQ(f.sections[0].find("url")->value, "http://x/#frag");
}

TEST(Ini, RejectsWhatIsNotIni) {
  auto fails = [](const char *text, int line0) {
    try {
      parseIni(SourceFile("c", text));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const IniError &e) {
      EXPECT_EQ(e.line0, line0) << text << ": " << e.what();
    }
  };
  fails("[default]\nregion eu-west-1\n", 1);          // no '='
  fails("region = eu-west-1\n[default]\n", 0);        // outside any section
  fails("[default\nregion = x\n", 0);                 // no ']'
  fails("[]\n", 0);                                   // empty name
  fails("[default]\n = x\n", 1);                      // no key
  fails("[default]\nregion = x\n  sub = y\n", 2);     // indented under a key with a value
}

// --- AWS shared config ---------------------------------------------------------------------------

TEST(AwsConfig, MaxAttemptsCountsAttemptsAndDefaultsSaySo) {
  FileModel m = extractAws("config", "[profile a]\nretry_mode = standard\nmax_attempts = 4\n"
                                  "[profile b]\nretry_mode = adaptive\n"
                                  "[profile c]\nregion = us-east-1\n"
                                  "[profile d]\nretry_mode = legacy\n");
  ASSERT_EQ(m.formats, std::vector<std::string>{"aws-shared-config"});
  ASSERT_EQ(m.policies.size(), 4u);
  const RetryPolicy &a = m.policies[0], &b = m.policies[1], &c = m.policies[2], &d = m.policies[3];
  EXPECT_EQ(*a.max_attempts.value, 4);
  EXPECT_TRUE(a.max_attempts.written());
  EXPECT_FALSE(a.attempts_count_retries);
  EXPECT_EQ(a.retries(), 3);
  EXPECT_EQ(a.max_attempts.where.line, 3);
  EXPECT_EQ(a.max_attempts.where.column, 16);
  EXPECT_EQ(a.describeAttempts(), "max_attempts 4");
  EXPECT_EQ(a.backoff.jitter.origin, Origin::BuiltIn);
  EXPECT_EQ(*a.backoff.cap.value, Duration::s(20));
  EXPECT_TRUE(a.budget.value);
  EXPECT_FALSE(a.adaptive_rate_limit.value);

  EXPECT_EQ(b.max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(*b.max_attempts.value, 3);
  EXPECT_NE(b.max_attempts.source.find("3 attempts"), std::string::npos);
  EXPECT_TRUE(b.adaptive_rate_limit.value);
  EXPECT_TRUE(b.adaptive_rate_limit.written());

  EXPECT_TRUE(c.implicit);
  EXPECT_EQ(c.max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(*c.max_attempts.value, 3);
  EXPECT_EQ(c.where.line, 6);
  EXPECT_FALSE(c.backoff.growth.known()); // SDK-specific without a mode
  EXPECT_FALSE(c.budget.known());

  EXPECT_FALSE(d.implicit);
  EXPECT_EQ(*d.max_attempts.value, 11); // AWS SDK for C++ legacy DefaultRetryStrategy
  EXPECT_NE(d.max_attempts.source.find("DefaultRetryStrategy"), std::string::npos);
  EXPECT_FALSE(d.backoff.jitter.known());
}

TEST(AwsConfig, ImplicitProfilesProduceNoFindings) {
  FileResult r = analyseText("config", "[default]\nregion = eu-west-1\n[profile x]\noutput = json\n", true, RunOptions{});
  EXPECT_EQ(r.policies, 2u);
  for (const Finding &f : r.findings) // only RL202's advisory note: no layers say whether they should retry
    EXPECT_TRUE(f.rule == "RL202" && f.severity == Severity::Note) << f.rule << ": " << f.message;
}

TEST(AwsConfig, OnlyAwsFilesAreClaimed) {
  auto claimed = [](const char *path, const char *text) {
    FileModel m;
    std::vector<Diagnostic> errors;
    extractText(path, text, false, m, errors);
    return std::find(m.formats.begin(), m.formats.end(), "aws-shared-config") != m.formats.end();
  };
  EXPECT_TRUE(claimed("config", "[profile x]\n"));
  EXPECT_TRUE(claimed("x.ini", "# c\n[default]\nregion = eu-west-1\n"));
  EXPECT_TRUE(claimed("credentials", "[default]\naws_access_key_id = AKIA\n"));
  EXPECT_FALSE(claimed("php.ini", "[PHP]\nmemory_limit = 128M\n[default]\nfoo = bar\n"));
  EXPECT_FALSE(claimed("setup.cfg", "[metadata]\nname = x\n"));
  EXPECT_FALSE(claimed("tox.ini", "[default]\ncommands = pytest\n"));
  EXPECT_FALSE(claimed("x.conf", "region = eu\n[profile x]\n")); // does not start with a section
}

TEST(AwsConfig, CredentialsFilesGiveNoImplicitPolicies) {
  FileModel m = extractAws("credentials", "[default]\naws_access_key_id = AKIA\naws_secret_access_key = s\n");
  EXPECT_TRUE(m.policies.empty());
}

// --- Step Functions --------------------------------------------------------------------------------

TEST(StepFunctions, MaxAttemptsCountsRetries) {
  FileModel m = extractAws("m.asl.json", R"({"StartAt": "A", "States": {"A": {"Type": "Task", "Resource": "x",
  "Retry": [{"ErrorEquals": ["E1"], "MaxAttempts": 2},
            {"ErrorEquals": ["E2"]},
            {"ErrorEquals": ["E3"], "MaxAttempts": 0}], "End": true}}})");
  ASSERT_EQ(m.formats, std::vector<std::string>{"aws-step-functions"});
  ASSERT_EQ(m.policies.size(), 2u); // MaxAttempts 0: never retried, no policy
  const RetryPolicy &w = m.policies[0], &d = m.policies[1];
  EXPECT_EQ(*w.max_attempts.value, 3);
  EXPECT_TRUE(w.attempts_count_retries);
  EXPECT_EQ(w.retries(), 2);
  EXPECT_EQ(w.describeAttempts(), "MaxAttempts: 2 = 2 retries + the first try = 3 attempts");
  EXPECT_EQ(d.max_attempts.origin, Origin::Defaulted);
  EXPECT_EQ(*d.max_attempts.value, 4);
  EXPECT_NE(d.max_attempts.source.find("MaxAttempts 3"), std::string::npos);
}

TEST(StepFunctions, BackoffScheduleAndDefaults) {
  FileModel m = extractAws("m.asl.yaml", "StartAt: A\nStates:\n  A:\n    Type: Task\n    Resource: x\n    Retry:\n"
                                      "      - ErrorEquals: [E]\n        IntervalSeconds: 3\n        BackoffRate: 1.5\n"
                                      "        MaxDelaySeconds: 5\n        JitterStrategy: FULL\n"
                                      "      - ErrorEquals: [F]\n    End: true\n");
  ASSERT_EQ(m.policies.size(), 2u);
  const Backoff &b = m.policies[0].backoff;
  EXPECT_EQ(b.growth.value, Growth::Exponential);
  EXPECT_EQ(worstCaseWait(b, 1)->nanos, Duration::s(3).nanos);
  EXPECT_EQ(worstCaseWait(b, 2)->nanos, Duration::s(4.5).nanos);
  EXPECT_EQ(worstCaseWait(b, 3)->nanos, Duration::s(5).nanos); // capped
  EXPECT_EQ(b.jitter.value, Jitter::Full);
  const Backoff &d = m.policies[1].backoff;
  EXPECT_EQ(d.initial.origin, Origin::Defaulted);
  EXPECT_EQ(*d.initial.value, Duration::s(1));
  EXPECT_EQ(d.multiplier.value, 2.0);
  EXPECT_EQ(d.cap.origin, Origin::Defaulted);
  EXPECT_FALSE(d.cap.value.has_value());
  EXPECT_EQ(d.jitter.origin, Origin::Defaulted);
  EXPECT_EQ(d.jitter.value, Jitter::None);
  EXPECT_EQ(m.policies[1].budget.origin, Origin::NotApplicable);
}

TEST(StepFunctions, FixesKeepTheFilesSyntaxAndSilenceTheRules) {
  // 12 retries from 1 s doubling reach 2048 s, past the background max-wait (RL103 and its fix).
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"m.asl.json", "{\n  \"StartAt\": \"A\",\n  \"States\": {\"A\": {\"Type\": \"Task\", \"Resource\": \"x\", \"End\": true,\n"
                     "    \"Retry\": [\n      {\n        \"ErrorEquals\": [\"E\"],\n        \"MaxAttempts\": 12\n      },\n"
                     "      {\"ErrorEquals\": [\"F\"], \"MaxAttempts\": 2, \"JitterStrategy\": \"NONE\"}\n    ]}}\n}\n"},
      {"m.asl.yaml", "StartAt: A\nStates:\n  A:\n    Type: Task\n    Resource: x\n    Retry:\n"
                     "      - ErrorEquals:\n          - E\n        MaxAttempts: 12   # keep me\n"
                     "      - {ErrorEquals: [F], MaxAttempts: 2}\n    End: true\n"},
  };
  for (const auto &[path, text] : inputs) {
    FileResult before = analyseText(path, text, true, RunOptions{});
    ASSERT_TRUE(before.errors.empty()) << path;
    EXPECT_EQ(count(before.findings, "RL101"), 2) << path;
    std::string fixed = applyFixes(text, before.findings);
    FileResult after = analyseText(path, fixed, true, RunOptions{});
    EXPECT_TRUE(after.errors.empty()) << path << ":\n" << fixed;
    EXPECT_EQ(count(after.findings, "RL101"), 0) << fixed;
    EXPECT_EQ(count(after.findings, "RL103"), 0) << fixed;
    EXPECT_EQ(after.policies, 2u) << fixed;
    if (path == "m.asl.yaml") EXPECT_NE(fixed.find("MaxAttempts: 12   # keep me\n        MaxDelaySeconds: 20\n"), std::string::npos) << fixed;
  }
}

TEST(StepFunctions, DefinitionStringPositionsMapIntoTheTemplate) {
  const std::string text =
      "Resources:\n"
      "  M:\n"
      "    Type: AWS::StepFunctions::StateMachine\n"
      "    Properties:\n"
      "      DefinitionString: !Sub |\n"
      "        {\"StartAt\": \"A\", \"TimeoutSeconds\": ${T},\n"
      "         \"States\": {\"A\": {\"Type\": \"Task\", \"Resource\": \"${Fn}\", \"End\": true,\n"
      "           \"Retry\": [{\"ErrorEquals\": [\"States.ALL\"], \"BackoffRate\": 1.5, \"MaxAttempts\": 12}]}}}\n";
  FileResult r = analyseText("t.yaml", text, true, RunOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(r.policies, 1u);
  bool all = false, attempts = false;
  for (const Finding &f : r.findings) {
    EXPECT_NE(f.rule, "RL901") << f.message; // ${T} is unknown, not 0
    if (f.rule == "RL402") all = f.where.line == 8 && f.where.column == 39;
    if (f.rule == "RL203") attempts = f.where.line == 8 && f.where.column == 89;
  }
  EXPECT_TRUE(all);
  EXPECT_TRUE(attempts);
  // The fixes land in the template, indented like the block.
  std::string fixed = applyFixes(text, r.findings);
  EXPECT_NE(fixed.find("\"MaxAttempts\": 12, \"JitterStrategy\": \"FULL\"}]}}}\n"), std::string::npos) << fixed;
  FileResult after = analyseText("t.yaml", fixed, true, RunOptions{});
  EXPECT_EQ(count(after.findings, "RL101"), 0) << fixed;
}

TEST(StepFunctions, UnrelatedYamlIsNotClaimed) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText("x.yaml", "States:\n  A: {Type: Task}\nRetry: []\n", false, m, errors);
  EXPECT_TRUE(m.formats.empty());
  EXPECT_TRUE(errors.empty());
}

// --- corpus ----------------------------------------------------------------------------------------

TEST(AwsCorpus, SharedConfigProfiles) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunOptions o;
  o.paths = {(corpusDir() / "aws-shared-config").string()};
  RunResult r = run(o);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.stats.files_analysed, 1u);
  EXPECT_EQ(r.stats.policies, 5u); // one per profile, retryunset implicit
  std::set<std::pair<int, std::string>> got;
  for (const Finding &f : r.findings) got.insert({f.where.line, f.rule});
  // Nothing on the profile left at the SDK's default attempts: without layers a default is not a finding.
  EXPECT_EQ(got, (std::set<std::pair<int, std::string>>{{9, "RL304"}, {13, "RL901"}, {16, "RL901"}}));
}

TEST(AwsCorpus, StepFunctionsRetriers) {
  ASSERT_TRUE(fs::exists(corpusDir())) << "no corpus at " << corpusDir();
  RunOptions o;
  o.paths = {(corpusDir() / "aws-step-functions").string()};
  RunResult r = run(o);
  EXPECT_TRUE(r.errors.empty());
  // 2 retriers in the YAML ASL, 5 in the JSON ASL (nested Map ItemProcessors).
  EXPECT_EQ(r.stats.policies, 7u);
  bool attempts = false, jitter = false;
  for (const Finding &f : r.findings) {
    // MaxAttempts: 6 in the Distributed Map's ItemProcessor = 7 attempts: within the ceiling of 10
    // for background work, which Step Functions retries are.
    attempts |= f.rule == "RL203" && f.where.path.find("dynamodb-import-json.statemachine") != std::string::npos && f.where.line == 35;
    // The JSON retriers with JitterStrategy FULL (lines 92, 114) are not reported for jitter.
    jitter |= f.rule == "RL101" && (f.where.line == 92 || f.where.line == 114);
  }
  EXPECT_FALSE(attempts);
  EXPECT_FALSE(jitter);
}
