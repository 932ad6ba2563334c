// Who retries in step with a Step Functions retrier, and which retriers can fire at all: what the
// fixtures under fixtures/aws-step-functions/{scheduled,per-request,lambda-timeout} and the
// dead-name and polling fixtures show, held to severities and messages (the fixture test counts
// findings by line and rule, not by severity).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "lint/engine.h"
#include "cli_support.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

FileResult analyseFixture(const std::string &rel) {
  const std::string path = (fs::path(RETRYLINT_SOURCE_DIR) / "fixtures" / rel).string();
  return analyseText(path, slurp(path), /*named=*/true, RunOptions{});
}

// The finding of `rule` at `line`, or nullptr.
const Finding *at(const FileResult &r, const std::string &rule, int line) {
  for (const Finding &f : r.findings)
    if (f.rule == rule && f.where.line == line) return &f;
  return nullptr;
}

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(Crowd, OnlyAScheduleStartsTheWorkflowSoItsRetriersAloneGetNotes) {
  FileResult r = analyseFixture("aws-step-functions/scheduled/flow.asl.yaml");
  for (const char *rule : {"RL101", "RL103"}) {
    const Finding *f = at(r, rule, 10);
    ASSERT_NE(f, nullptr) << rule;
    EXPECT_EQ(f->severity, Severity::Note) << f->message;
    EXPECT_TRUE(has(f->message, "only the schedule NightlyTrigger in template.yaml starts it")) << f->message;
  }
  // 31 attempts, but only 3 start within 15 minutes of waits: no RL203.
  EXPECT_EQ(at(r, "RL203", 12), nullptr);
  // The IAM role, the output and a CDK path in a function's Metadata name it but start nothing:
  // nothing else is taken for a trigger.
  const Finding *jitter = at(r, "RL101", 10);
  ASSERT_NE(jitter, nullptr);
  EXPECT_FALSE(has(jitter->message, "Report")) << jitter->message;
}

TEST(Crowd, APerRequestTriggerOrAConcurrentMapMakesMissingJitterAWarning) {
  FileResult orders = analyseFixture("aws-step-functions/per-request/statemachine/orders.asl.yaml");
  const Finding *api = at(orders, "RL101", 9);
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->severity, Severity::Warning);
  EXPECT_TRUE(has(api->message, "(executions are started by its Api event in ../template.yaml)")) << api->message;

  FileResult maps = analyseFixture("aws-step-functions/per-request/statemachine/maps.asl.yaml");
  const Finding *alone = at(maps, "RL101", 9);
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->severity, Severity::Note);
  EXPECT_TRUE(has(alone->message, "nothing in the files shows executions running at once")) << alone->message;
  const Finding *map = at(maps, "RL101", 24);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->severity, Severity::Warning);
  EXPECT_TRUE(has(map->message, "(the Map state 'Items' runs up to 40 iterations at once)")) << map->message;
  // An inline Map without a limit runs one execution's items: how many, the file does not show.
  const Finding *products = at(maps, "RL101", 72);
  ASSERT_NE(products, nullptr);
  EXPECT_EQ(products->severity, Severity::Note) << products->message;
  const Finding *distributed = at(maps, "RL101", 94);
  ASSERT_NE(distributed, nullptr);
  EXPECT_EQ(distributed->severity, Severity::Warning);
  EXPECT_TRUE(has(distributed->message, "(the distributed Map state 'Objects' runs up to 10,000 child executions at once)"))
      << distributed->message;
  // MaxConcurrency 10: a handful, often a quota's limit.
  const Finding *ten = at(maps, "RL101", 56);
  ASSERT_NE(ten, nullptr);
  EXPECT_EQ(ten->severity, Severity::Note) << ten->message;
  // MaxConcurrency 1: one iteration at a time; a throttling error retried is no crowd by itself.
  const Finding *serial = at(maps, "RL101", 40);
  ASSERT_NE(serial, nullptr);
  EXPECT_EQ(serial->severity, Severity::Note) << serial->message;
}

TEST(Crowd, RequestPathsNeedNoEvidenceOfACrowd) {
  const std::string yaml = "resilience4j.retry.instances.backend:\n  maxAttempts: 3\n  waitDuration: 100ms\n";
  FileResult r = analyseText("application.yml", yaml, /*named=*/true, RunOptions{});
  const Finding *f = at(r, "RL101", 1);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning) << f->message;
}

TEST(DeadRetriers, NamesNothingRaisesGiveOneErrorPerRetrierAndNoOtherFinding) {
  FileResult r = analyseFixture("aws-step-functions/dead-error-names.asl.yaml");
  const Finding *typo = at(r, "RL901", 9);
  ASSERT_NE(typo, nullptr);
  EXPECT_TRUE(has(typo->message, "States.TaskFailedId is none of the States.* errors")) << typo->message;
  EXPECT_TRUE(has(typo->message, "nothing is ever retried by this retrier")) << typo->message;
  const Finding *spelling = at(r, "RL901", 18);
  ASSERT_NE(spelling, nullptr);
  EXPECT_TRUE(has(spelling->message, "raises DynamoDB.ProvisionedThroughputExceededException")) << spelling->message;
  EXPECT_TRUE(has(spelling->message, "DynamoDb.ThrottlingException never matches")) << spelling->message;
  int rl901 = 0, onDead = 0;
  for (const Finding &f : r.findings) {
    rl901 += f.rule == "RL901";
    onDead += f.rule != "RL901" && f.where.line < 25;
  }
  EXPECT_EQ(rl901, 5); // and the timeouts the Poll and Worker tasks never raise, and Notify's Batch names
  EXPECT_EQ(onDead, 0) << "a retrier that never fires has nothing else to report";
  const Finding *poll = at(r, "RL901", 39);
  ASSERT_NE(poll, nullptr);
  EXPECT_TRUE(has(poll->message, "States.Timeout never matches on this Lambda task")) << poll->message;
  for (const Finding &f : r.findings) EXPECT_FALSE(f.rule == "RL203" && f.where.line >= 39 && f.where.line <= 42) << f.message;
  // Batch's names pasted onto a function: one finding naming both, and nothing about the 7 retries.
  const Finding *pasted = at(r, "RL901", 80);
  ASSERT_NE(pasted, nullptr);
  EXPECT_TRUE(has(pasted->message, "Batch.AWSBatchException and AWS.Batch.TooManyRequestsException never match on this Lambda task: "
                                   "only the Batch integration raises Batch.* errors: nothing is ever retried")) << pasted->message;
  for (const Finding &f : r.findings) EXPECT_FALSE(f.rule != "RL901" && f.where.line >= 80 && f.where.line <= 83) << f.message;
  // On the Batch job itself, and on a callback (whose worker names the error), the names can come.
  for (int line : {89, 100}) EXPECT_EQ(at(r, "RL901", line), nullptr) << line;
}

TEST(DeadRetriers, ASubstitutedResourceIsReadFromTheTemplate) {
  FileResult r = analyseFixture("aws-step-functions/lambda-timeout/flow.asl.yaml");
  const Finding *f = at(r, "RL901", 27);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->message, "never matches on arn:aws:states:::dynamodb:putItem")) << f->message;
}

TEST(Polling, RetryingOnlyAResourcesStateGivesNotesThatSaySo) {
  FileResult r = analyseFixture("aws-step-functions/polling.asl.yaml");
  ASSERT_FALSE(r.findings.empty());
  for (const Finding &f : r.findings) {
    EXPECT_EQ(f.severity, Severity::Note) << f.rule << ": " << f.message;
    EXPECT_TRUE(has(f.message, "a poll: it retries only")) << f.message;
  }
}

TEST(ReachableTries, TheFunctionsOwnTimeoutBoundsEachTry) {
  FileResult r = analyseFixture("aws-step-functions/lambda-timeout/flow.asl.yaml");
  for (const Finding &f : r.findings) EXPECT_NE(f.rule, "RL301") << f.message;
  // Without the template the task's TimeoutSeconds (305 s) is all there is: 4 tries cannot fit
  // in a run deadline of 300 s.
  std::string asl = slurp((fs::path(RETRYLINT_SOURCE_DIR) / "fixtures/aws-step-functions/lambda-timeout/flow.asl.yaml").string());
  asl.insert(0, "TimeoutSeconds: 300\n");
  FileResult bare = analyseText("flow.asl.yaml", asl, /*named=*/true, RunOptions{});
  EXPECT_NE(at(bare, "RL301", 12), nullptr); // MaxAttempts, a line lower
}

TEST(ReachableTries, AnExpressLimitEndsRetriesBeforeTheyPassTheAttemptsCeiling) {
  // 20 retries waiting 20 s, then 30 s: only 10 start within 5 minutes, 11 attempts, the ceiling.
  const std::string asl = "TimeoutSeconds: 300\nStartAt: A\nStates:\n  A:\n    Type: Task\n    Resource: arn:aws:states:::lambda:invoke\n"
                          "    Retry:\n      - ErrorEquals: [Lambda.ServiceException]\n        IntervalSeconds: 20\n"
                          "        MaxAttempts: 20\n        BackoffRate: 2\n        MaxDelaySeconds: 30\n        JitterStrategy: FULL\n"
                          "    End: true\n";
  FileResult r = analyseText("flow.asl.yaml", asl, /*named=*/true, RunOptions{});
  EXPECT_EQ(at(r, "RL203", 10), nullptr);
  EXPECT_NE(at(r, "RL301", 10), nullptr);
  // Without the deadline all 21 attempts can run, within 15 minutes of waits (590 s).
  FileResult open = analyseText("flow.asl.yaml", asl.substr(asl.find('\n') + 1), /*named=*/true, RunOptions{});
  const Finding *f = at(open, "RL203", 9);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning);
}

TEST(ReachableTries, TheWaitsAloneAreTheCauseWhenTheyPassTheDeadline) {
  // 305 s per try would be the first thing to say, but the waits (1 + 2 + … + 16384 s) pass the
  // Express limit whatever each try takes.
  const std::string asl = "TimeoutSeconds: 300\nStartAt: A\nStates:\n  A:\n    Type: Task\n    Resource: arn:aws:states:::dynamodb:putItem\n"
                          "    TimeoutSeconds: 305\n    Retry:\n      - ErrorEquals: [States.ALL]\n        MaxAttempts: 15\n"
                          "    End: true\n";
  FileResult r = analyseText("flow.asl.yaml", asl, /*named=*/true, RunOptions{});
  const Finding *f = at(r, "RL301", 10);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->message, "the waits before 15 retries add up to")) << f->message;
  EXPECT_FALSE(has(f->message, "a single attempt can use up the whole deadline")) << f->message;
}

TEST(Thresholds, ABackgroundCountJustAboveTheCeilingIsANote) {
  auto attempts = [](int retries) {
    const std::string asl = "StartAt: A\nStates:\n  A:\n    Type: Task\n    Resource: arn:aws:states:::lambda:invoke\n"
                            "    Retry:\n      - ErrorEquals: [Lambda.ServiceException]\n        MaxAttempts: " +
                            std::to_string(retries) + "\n        MaxDelaySeconds: 60\n        JitterStrategy: FULL\n    End: true\n";
    FileResult r = analyseText("flow.asl.yaml", asl, /*named=*/true, RunOptions{});
    const Finding *f = at(r, "RL203", 8);
    return f ? std::optional<Severity>(f->severity) : std::nullopt;
  };
  EXPECT_FALSE(attempts(10));                    // 11 attempts: the ceiling
  EXPECT_EQ(attempts(12), Severity::Note);       // 13: within a quarter above it
  EXPECT_EQ(attempts(13), Severity::Warning);    // 14
  EXPECT_EQ(attempts(20), Severity::Warning);    // 21
}

} // namespace

namespace {

TEST(CatchAll, ACatchAllTheFileShowsToBeDeliberateIsANote) {
  FileResult r = analyseFixture("aws-step-functions/catch-all-deliberate.asl.yaml");
  const Finding *lock = at(r, "RL402", 13);
  ASSERT_NE(lock, nullptr);
  EXPECT_EQ(lock->severity, Severity::Note);
  EXPECT_TRUE(has(lock->message, "an earlier retrier takes DynamoDB.AmazonDynamoDBException out with MaxAttempts 0")) << lock->message;
  const Finding *child = at(r, "RL402", 21);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->severity, Severity::Note);
  EXPECT_TRUE(has(child->message, "a .sync job's failure reaches the state only as States.TaskFailed")) << child->message;
  const Finding *plain = at(r, "RL402", 30);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->severity, Severity::Error);
  const Finding *quick = at(r, "RL402", 40);
  ASSERT_NE(quick, nullptr);
  EXPECT_EQ(quick->severity, Severity::Note);
  EXPECT_TRUE(has(quick->message, "background work whose waits add up to 30 s at most")) << quick->message;
}

} // namespace
