// A finding is true for the consumer of the file: gRPC service config JSON handed to a GAPIC
// client-library generator (named so by the BUILD.bazel next to it) is read with the generators'
// facts, not gRPC core's; Step Functions callback tasks, Envoy Gateway's default route timeout and
// the workload (request path or background) of each dialect's policies.
#include <filesystem>
#include <string>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "lint/engine.h"
#include "lint/extract/extractors.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// A service config that gRPC core rejects (no maxAttempts) and GAPIC generators read as it is.
constexpr const char *kNoMaxAttempts = R"({
  "methodConfig": [{
    "name": [{"service": "example.v1.Shelf"}],
    "timeout": "30s",
    "retryPolicy": {
      "initialBackoff": "0.1s",
      "maxBackoff": "10s",
      "backoffMultiplier": 1.3,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
})";

std::string gapicBuild(const std::string &label, const std::string &rule = "go_gapic_library") {
  return rule + "(\n    name = \"shelf_go_gapic\",\n    grpc_service_config = \"" + label + "\",\n)\n";
}

FileModel analyse(const std::string &path) {
  FileModel m;
  std::vector<Diagnostic> errors;
  extractText(path, slurp(path), true, m, errors);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  return m;
}

bool missingMaxAttemptsReported(const FileModel &m) {
  for (const ConfigProblem &p : m.problems)
    if (p.message.find("no maxAttempts") != std::string::npos) return true;
  return false;
}

TEST(GapicConsumer, BuildFileNamingTheConfigInAGapicRuleMakesTheGeneratorsTheConsumer) {
  TempDir t;
  for (std::string label : {"shelf_grpc_service_config.json", ":shelf_grpc_service_config.json"}) {
    std::string json = t.write("a/shelf_grpc_service_config.json", kNoMaxAttempts);
    t.write("a/BUILD.bazel", gapicBuild(label));
    FileModel m = analyse(json);
    EXPECT_FALSE(missingMaxAttemptsReported(m)) << label;
    ASSERT_EQ(m.policies.size(), 1u) << label;
    const RetryPolicy &p = m.policies[0];
    EXPECT_NE(p.consumer.find("GAPIC"), std::string::npos) << p.consumer;
    EXPECT_NE(p.consumer.find("go_gapic_library shelf_go_gapic"), std::string::npos) << p.consumer;
    // Bounded by the method timeout, not by a count: no clamp, no throttling.
    EXPECT_EQ(p.max_attempts.origin, Origin::Unknown);
    EXPECT_NE(p.max_attempts.source.find("30 s"), std::string::npos) << p.max_attempts.source;
    EXPECT_FALSE(p.runtime_max_attempts.has_value());
    EXPECT_EQ(p.budget.origin, Origin::NotApplicable);
  }
}

TEST(GapicConsumer, WithoutSuchABuildFileGrpcCoreIsTheConsumer) {
  TempDir t;
  std::string json = t.write("b/shelf_grpc_service_config.json", kNoMaxAttempts);
  // No BUILD file at all: a `*_grpc_service_config.json` leaving out maxAttempts, which gRPC core
  // rejects, is taken for GAPIC input, and the consumer says it was inferred.
  {
    FileModel inferred = analyse(json);
    EXPECT_FALSE(missingMaxAttemptsReported(inferred));
    ASSERT_EQ(inferred.policies.size(), 1u);
    EXPECT_NE(inferred.policies[0].consumer.find("inferred"), std::string::npos) << inferred.policies[0].consumer;
  }
  // A label into another package, a rule that is no GAPIC rule, a commented-out rule.
  for (std::string build : {gapicBuild("//elsewhere/v1:shelf_grpc_service_config.json"),
                            gapicBuild("shelf_grpc_service_config.json", "my_service_config_check"),
                            "# " + gapicBuild("shelf_grpc_service_config.json")}) {
    t.write("b/BUILD.bazel", build);
    EXPECT_TRUE(missingMaxAttemptsReported(analyse(json))) << build;
  }
  // The same file under a name that is not `*_grpc_service_config.json`: BUILD files are not read.
  std::string other = t.write("c/shelf_config.json", kNoMaxAttempts);
  t.write("c/BUILD.bazel", gapicBuild("shelf_config.json"));
  EXPECT_TRUE(missingMaxAttemptsReported(analyse(other)));
  // A label naming this very package by its path is the same file.
  std::string deep = t.write("google/shelf/v1/shelf_grpc_service_config.json", kNoMaxAttempts);
  t.write("google/shelf/v1/BUILD.bazel", gapicBuild("//google/shelf/v1:shelf_grpc_service_config.json"));
  EXPECT_FALSE(missingMaxAttemptsReported(analyse(deep)));
}

// The BUILD file is read as carefully as any input: never through a link, never a FIFO, never
// beyond a size limit. Any of these leaves gRPC core as the consumer.
TEST(GapicConsumer, HostileBuildFilesAreNotFollowedNorWaitedOn) {
  TempDir t;
  std::string real = t.write("elsewhere/BUILD.bazel", gapicBuild("shelf_grpc_service_config.json"));
  std::string json = t.write("d/shelf_grpc_service_config.json", kNoMaxAttempts);
  fs::create_symlink(real, t.path / "d" / "BUILD.bazel");
  EXPECT_TRUE(missingMaxAttemptsReported(analyse(json)));

  std::string json2 = t.write("e/shelf_grpc_service_config.json", kNoMaxAttempts);
  ASSERT_EQ(::mkfifo((t.path / "e" / "BUILD.bazel").c_str(), 0600), 0);
  CliRun r = runRetrylintIn(t.path.string(), "timeout 20 ", "--no-cache e/shelf_grpc_service_config.json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err; // the RL901 finding; no hang (timeout gives 124)
  EXPECT_NE(r.out.find("no maxAttempts"), std::string::npos) << r.out;

  // Within the size limit but built to make a backtracking matcher recurse: one line of 900 KB
  // after an opened quote. Read in linear time, it simply names no file.
  std::string json4 = t.write("g/shelf_grpc_service_config.json", kNoMaxAttempts);
  t.write("g/BUILD.bazel", "go_gapic_library(\n    grpc_service_config = \"" + std::string(900000, 'a') + "\n)\n");
  CliRun big = runRetrylintIn(t.path.string(), "timeout 60 ", "--no-cache g/shelf_grpc_service_config.json");
  EXPECT_EQ(big.exit_code, 1) << big.out << big.err;
  EXPECT_NE(big.out.find("no maxAttempts"), std::string::npos) << big.out;

  std::string json3 = t.write("f/shelf_grpc_service_config.json", kNoMaxAttempts);
  t.write("f/BUILD.bazel", gapicBuild("shelf_grpc_service_config.json") + std::string(5u << 20, '#'));
  EXPECT_TRUE(missingMaxAttemptsReported(analyse(json3)));
}

// The result depends on the BUILD file: the cache must not serve the result made with another.
TEST(GapicConsumer, CachedResultFollowsTheBuildFile) {
  TempDir t;
  t.write("tree/shelf_grpc_service_config.json", kNoMaxAttempts);
  t.write("tree/BUILD.bazel", gapicBuild("shelf_grpc_service_config.json"));
  const std::string tree = (t.path / "tree").string();
  const std::string prefix = "env -u RETRYLINT_CACHE_KEY -u RETRYLINT_CACHE_DIR XDG_CONFIG_HOME='" + (t.path / "cfg").string() + "' ";
  const std::string args = "--cache-dir '" + (t.path / "cache").string() + "' shelf_grpc_service_config.json";
  CliRun first = runRetrylintIn(tree, prefix, args);
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
  CliRun second = runRetrylintIn(tree, prefix, args);
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  t.write("tree/BUILD.bazel", "filegroup(name = \"x\", srcs = [\"shelf_grpc_service_config.json\"])\n");
  CliRun third = runRetrylintIn(tree, prefix, args);
  EXPECT_EQ(third.exit_code, 1) << third.out << third.err;
  EXPECT_NE(third.out.find("no maxAttempts"), std::string::npos) << third.out;
}

// Envoy Gateway leaves the route timeout unset without requestTimeout: Envoy's 15 s default
// applies, stated as a default with its source, and named as the route timeout (not as a field
// the file does not write).
TEST(EnvoyGatewayConsumer, NoRequestTimeoutMeansEnvoysDefaultRouteTimeout) {
  FileModel m = extract("btp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\n"
                                    "metadata: {name: a}\nspec:\n  retry:\n    numRetries: 3\n");
  ASSERT_EQ(m.policies.size(), 1u);
  const RetryPolicy &p = m.policies[0];
  EXPECT_EQ(p.overall_deadline.origin, Origin::Defaulted);
  ASSERT_TRUE(p.overall_deadline.value.has_value());
  EXPECT_EQ(*p.overall_deadline.value, Duration::s(15));
  EXPECT_NE(p.overall_deadline.source.find("getEffectiveRequestTimeout"), std::string::npos) << p.overall_deadline.source;
  EXPECT_EQ(p.deadline_name.find("requestTimeout"), std::string::npos) << p.deadline_name;

  FileModel w = extract("btp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\n"
                                    "metadata: {name: a}\nspec:\n  timeout: {http: {requestTimeout: 4s}}\n  retry:\n    numRetries: 3\n");
  ASSERT_EQ(w.policies.size(), 1u);
  EXPECT_EQ(w.policies[0].overall_deadline.origin, Origin::Written);
  EXPECT_EQ(w.policies[0].deadline_name, "requestTimeout");
}

TEST(Workload, StepFunctionsAndExportersAreBackgroundDaprOnlyWhenItsTargetsSaySo) {
  FileModel sf = extract("m.asl.yaml", "StartAt: A\nStates:\n  A:\n    Type: Task\n    Resource: arn:aws:states:::sqs:sendMessage.waitForTaskToken\n"
                                       "    Retry:\n      - ErrorEquals: [States.ALL]\n        MaxAttempts: 6\n    End: true\n");
  ASSERT_EQ(sf.policies.size(), 1u);
  EXPECT_EQ(sf.policies[0].workload, Workload::Background);

  FileModel otel = extract("otel.yaml", "receivers: {otlp: {}}\nexporters:\n  otlp:\n    endpoint: x:4317\n    retry_on_failure:\n      enabled: true\n");
  ASSERT_EQ(otel.policies.size(), 1u);
  EXPECT_EQ(otel.policies[0].workload, Workload::Background);

  const std::string head = "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata: {name: r}\nspec:\n  policies:\n    retries:\n"
                           "      p: {policy: constant, duration: 1s, maxRetries: 6}\n";
  auto daprWorkload = [&](const std::string &targets) {
    FileModel d = extract("res.yaml", head + targets);
    EXPECT_EQ(d.policies.size(), 1u) << targets;
    return d.policies.empty() ? Workload::Request : d.policies[0].workload;
  };
  EXPECT_EQ(daprWorkload(""), Workload::Request); // no target: who uses it is not known
  EXPECT_EQ(daprWorkload("  targets: {components: {q: {inbound: {retry: p}}}}\n"), Workload::Background);
  EXPECT_EQ(daprWorkload("  targets: {components: {q: {outbound: {retry: p}}}}\n"), Workload::Request);
  EXPECT_EQ(daprWorkload("  targets: {components: {q: {inbound: {retry: p}}}, apps: {a: {retry: p}}}\n"), Workload::Request);
  EXPECT_EQ(daprWorkload("  targets: {actors: {a: {retry: p}}}\n"), Workload::Request);
}

} // namespace

// A standalone state machine definition is an Express workflow when the SAM template beside it
// (or in the parent directory) says so, or a Terraform main.tf; the 5-minute limit is its deadline,
// and the cached result follows the template.
TEST(StepFunctionsConsumer, ExpressTypeFromTheTemplateBesideIt) {
  const std::string asl = "{\"StartAt\": \"A\", \"States\": {\"A\": {\"Type\": \"Task\", \"Resource\": \"x\", \"End\": true,\n"
                          "  \"Retry\": [{\"ErrorEquals\": [\"E\"], \"IntervalSeconds\": 20, \"MaxAttempts\": 5,\n"
                          "              \"BackoffRate\": 10, \"JitterStrategy\": \"FULL\"}]}}}\n";
  const std::string sam = "Resources:\n  Flow:\n    Type: AWS::Serverless::StateMachine\n    Properties:\n"
                          "      DefinitionUri: statemachine/flow.asl.json\n      Type: EXPRESS\n";
  TempDir t;
  t.write("app/statemachine/flow.asl.json", asl);
  const std::string app = (t.path / "app").string();
  const std::string prefix = "env -u RETRYLINT_CACHE_KEY -u RETRYLINT_CACHE_DIR XDG_CONFIG_HOME='" + (t.path / "cfg").string() + "' ";
  const std::string args = "--cache-dir '" + (t.path / "cache").string() + "' statemachine/flow.asl.json";
  // Standard (no template): the 10x schedule reaches a wait of 200000 s (RL103).
  CliRun standard = runRetrylintIn(app, prefix, args);
  EXPECT_NE(standard.out.find("RL103"), std::string::npos) << standard.out;
  EXPECT_EQ(standard.out.find("RL301"), std::string::npos) << standard.out;
  // Express: only the first two waits fit in 5 minutes; RL301 reports the rest, RL103 is quiet.
  t.write("app/template.yaml", sam);
  CliRun express = runRetrylintIn(app, prefix, args);
  EXPECT_NE(express.out.find("Express workflow's 5-minute limit"), std::string::npos) << express.out;
  EXPECT_EQ(express.out.find("RL103"), std::string::npos) << express.out;
  // Terraform says the same with type = "EXPRESS".
  fs::remove(t.path / "app" / "template.yaml");
  t.write("app/main.tf", "resource \"aws_sfn_state_machine\" \"f\" {\n  definition = file(\"statemachine/flow.asl.json\")\n  type       = \"EXPRESS\"\n}\n");
  CliRun tf = runRetrylintIn(app, prefix, "--no-cache statemachine/flow.asl.json");
  EXPECT_NE(tf.out.find("5-minute limit"), std::string::npos) << tf.out;
}

// A Dapr Resiliency spec without apiVersion/kind (as the docs show them) is read, but Dapr never
// loads it as written: its findings are notes that say so.
TEST(DaprConsumer, ASpecWithoutKindGivesNotes) {
  const std::string fragment = "spec:\n  policies:\n    retries:\n      forever:\n        policy: constant\n"
                               "        duration: 1s\n        maxRetries: -1\n";
  FileResult r = analyseText("resiliency.yaml", fragment, /*named=*/true, RunOptions{});
  ASSERT_FALSE(r.findings.empty());
  bool unbounded = false;
  for (const Finding &f : r.findings) {
    EXPECT_EQ(f.severity, Severity::Note) << f.rule << ": " << f.message;
    EXPECT_NE(f.message.find("Dapr loads only a document with kind: Resiliency"), std::string::npos) << f.message;
    unbounded |= f.rule == "RL201";
  }
  EXPECT_TRUE(unbounded);
  // The same spec with its header is loaded, and a target that names the policy runs it: an error.
  const std::string targets = "  targets:\n    apps:\n      orders: {retry: forever}\n";
  FileResult full = analyseText("resiliency.yaml",
                                "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata: {name: r}\n" + fragment + targets, true,
                                RunOptions{});
  bool error = false;
  for (const Finding &f : full.findings) error |= f.rule == "RL201" && f.severity == Severity::Error;
  EXPECT_TRUE(error);
  // Loaded, but no target names it: it runs nowhere as written, so its findings are notes that say so.
  FileResult unused = analyseText("resiliency.yaml", "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata: {name: r}\n" + fragment,
                                  true, RunOptions{});
  ASSERT_FALSE(unused.findings.empty());
  for (const Finding &f : unused.findings) {
    EXPECT_EQ(f.severity, Severity::Note) << f.rule << ": " << f.message;
    EXPECT_NE(f.message.find("no target of this Resiliency names it"), std::string::npos) << f.message;
  }
}

// Terraform reads a directory as one module: a `local.NAME` that locals.tf writes is read in the
// file that uses it (findings stay there, at the reference), and the cached result follows
// locals.tf.
TEST(TerraformConsumer, LocalsOfTheModulesOtherFilesAndTheCacheFollowsThem) {
  const std::string machine = "module \"m\" {\n  source = \"./sfn\"\n  definition = jsonencode({\n    StartAt = \"A\"\n"
                              "    States = {\n      A = {\n        Type = \"Task\"\n        Resource = \"x\"\n"
                              "        Retry = concat(local.shared, local.own)\n        End = true\n      }\n    }\n  })\n}\n";
  auto locals = [](int attempts) {
    return "locals {\n  shared = [{ ErrorEquals = [\"States.ALL\"], MaxAttempts = " + std::to_string(attempts) +
           ", JitterStrategy = \"FULL\" }]\n  own = [{ ErrorEquals = [\"E\"], MaxAttempts = 1, JitterStrategy = \"FULL\" }]\n}\n";
  };
  TempDir t;
  t.write("infra/machine.tf", machine);
  t.write("infra/locals.tf", locals(4));
  const std::string prefix = "env -u RETRYLINT_CACHE_KEY -u RETRYLINT_CACHE_DIR XDG_CONFIG_HOME='" + (t.path / "cfg").string() + "' ";
  const std::string args = "--cache-dir '" + (t.path / "cache").string() + "' infra/machine.tf";
  CliRun first = runRetrylintIn(t.path.string(), prefix, args);
  EXPECT_NE(first.out.find("infra/machine.tf:9:17:"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("retried 4 more times"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("locals.tf:"), std::string::npos) << first.out;
  t.write("infra/locals.tf", locals(7));
  CliRun second = runRetrylintIn(t.path.string(), prefix, args);
  EXPECT_NE(second.out.find("retried 7 more times"), std::string::npos) << second.out;
}

// A `var.NAME` is the module's own value for it: a terraform.tfvars of the directory (Terraform
// loads it by itself) over the variable's `default`; the cached result follows both files.
TEST(TerraformConsumer, VariablesAreTheirTfvarsValueElseTheirDefaultAndTheCacheFollowsThem) {
  const std::string machine = "resource \"aws_sfn_state_machine\" \"m\" {\n  definition = jsonencode({\n    StartAt = \"A\"\n"
                              "    States = {\n      A = {\n        Type = \"Task\"\n        Resource = \"x\"\n"
                              "        Retry = [{ ErrorEquals = [\"States.ALL\"], MaxAttempts = var.tries, JitterStrategy = \"FULL\" }]\n"
                              "        End = true\n      }\n    }\n  })\n}\n";
  auto variables = [](int tries) {
    return "variable \"tries\" {\n  type    = number\n  default = " + std::to_string(tries) + " # the module's own\n}\n";
  };
  TempDir t;
  t.write("infra/machine.tf", machine);
  t.write("infra/variables.tf", variables(4));
  const std::string prefix = "env -u RETRYLINT_CACHE_KEY -u RETRYLINT_CACHE_DIR XDG_CONFIG_HOME='" + (t.path / "cfg").string() + "' ";
  const std::string args = "--cache-dir '" + (t.path / "cache").string() + "' infra/machine.tf";
  CliRun first = runRetrylintIn(t.path.string(), prefix, args);
  EXPECT_NE(first.out.find("retried 4 more times"), std::string::npos) << first.out;
  t.write("infra/variables.tf", variables(5));
  CliRun second = runRetrylintIn(t.path.string(), prefix, args);
  EXPECT_NE(second.out.find("retried 5 more times"), std::string::npos) << second.out;
  t.write("infra/terraform.tfvars", "tries = 9\n");
  CliRun third = runRetrylintIn(t.path.string(), prefix, args);
  EXPECT_NE(third.out.find("retried 9 more times"), std::string::npos) << third.out;
  t.write("infra/terraform.tfvars", "tries = var.other\n"); // not a literal: the default again
  CliRun fourth = runRetrylintIn(t.path.string(), prefix, args);
  EXPECT_NE(fourth.out.find("retried 5 more times"), std::string::npos) << fourth.out;
}
