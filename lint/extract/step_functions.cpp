// AWS Step Functions, Amazon States Language: `Retry` arrays on Task, Parallel and Map states,
// at any depth (Parallel Branches[], Map Iterator / ItemProcessor), in plain ASL JSON or YAML,
// SAM `AWS::Serverless::StateMachine` Definition, CloudFormation `AWS::StepFunctions::StateMachine`
// Definition / DefinitionString (a literal JSON string, also under !Sub), and the Serverless
// Framework's `stepFunctions.stateMachines.*.definition`.
//
// Field facts: the States Language specification (states-language.net), AWS Step Functions
// Developer Guide "Handling errors in Step Functions workflows" (concepts-error-handling) and
// "Using timeouts to avoid stuck executions" (sfn-stuck-execution), the JSON schema in
// aws/amazon-states-language-service src/json-schema/partial/common.json ($defs.retry).
// See docs/formats.md §6.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <yaml-cpp/exceptions.h>

#include "lint/yaml/nesting.h"
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Path.h>

#include "lint/extract/extractors.h"
#include "lint/io/posix.h"
#include "lint/yaml/load.h"
#include "lint/yaml/templates.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "aws-step-functions";

// Retrier defaults (ASL spec "Retrying after error"; Developer Guide, error handling;
// amazon-states-language-service common.json $defs.retry).
constexpr int kDefaultMaxAttempts = 3; // counts retries: 3 retries + the first try = 4 attempts
constexpr const char *kMaxAttemptsSource =
    "Step Functions default MaxAttempts 3: 3 retries + the first try = 4 attempts (States Language spec; "
    "Step Functions Developer Guide, error handling)";
constexpr int kDefaultIntervalSeconds = 1;
constexpr const char *kIntervalSource = "Step Functions default IntervalSeconds 1 (States Language spec)";
constexpr double kDefaultBackoffRate = 2.0;
constexpr const char *kBackoffRateSource = "Step Functions default BackoffRate 2.0 (States Language spec)";
constexpr const char *kNoCapSource =
    "Step Functions: without MaxDelaySeconds the wait is not capped (Developer Guide, error handling; "
    "amazon-states-language-service common.json)";
constexpr const char *kNoJitterSource =
    "Step Functions default JitterStrategy NONE (Developer Guide, error handling; "
    "amazon-states-language-service common.json)";
// Limits from amazon-states-language-service common.json ($defs.retry, $defs.seconds).
constexpr long long kMaxSecondsValue = 99'999'999;
constexpr long long kMaxDelayLimit = 31'622'400;
// A Task without TimeoutSeconds runs until the worker answers (Developer Guide, "Using timeouts to
// avoid stuck executions": an activity or callback task with no TimeoutSeconds can be stuck forever;
// the service limit is 99999999 s).
constexpr const char *kNoTaskTimeoutSource =
    "Step Functions: a Task with no TimeoutSeconds or HeartbeatSeconds waits for its activity worker or task "
    "token until the 99999999 s service limit (Developer Guide, sfn-stuck-execution)";
// The cap the fix proposes: 10x the interval, at least the 20 s the AWS SDKs cap at.
constexpr long long kFixCapMinSeconds = 20;

constexpr int kMaxDepth = 64;
// A Map state whose MaxConcurrency is below this runs a handful of iterations at once: no herd.
// More than 10: reviewers judged all four findings on Maps limited to exactly 10 a handful
// (docs/accuracy.md, RL101 of 2026-12-03; a limit of 10 is often set to stay under a service's quota).
constexpr long long kMapCrowd = 11;

// The error names Step Functions itself raises, all in the reserved `States.` namespace (States
// Language spec, "Errors"; Developer Guide, "Handling errors in Step Functions workflows",
// "Error names"). A `States.` name outside the list matches nothing.
constexpr std::string_view kStatesErrors[] = {
    "States.ALL",           "States.BranchFailed",          "States.DataLimitExceeded",  "States.ExceedToleratedFailureThreshold",
    "States.HeartbeatTimeout", "States.Http.Socket",        "States.IntrinsicFailure",   "States.ItemReaderFailed",
    "States.NoChoiceMatched", "States.ParameterPathFailure", "States.Permissions",       "States.QueryEvaluationError",
    "States.ResultPathMatchFailure", "States.ResultWriterFailed", "States.Runtime",      "States.TaskFailed",
    "States.Timeout"};
bool isStatesError(std::string_view name) {
  for (std::string_view e : kStatesErrors)
    if (e == name) return true;
  return false;
}

// Whether a Task's Resource invokes a Lambda function and waits for its answer: a function's ARN,
// the optimized integration (`arn:aws:states:::lambda:invoke`; not the callback,
// `.waitForTaskToken`, where whoever holds the token names the error), or a template's reference
// to one where the ARN is filled in later (`${aws_lambda_function.load.arn}`,
// `${var.lambda_handler_arn}`, `${MyFunctionArn}`): a reference naming a function and not a state
// machine.
bool invokesLambda(llvm::StringRef resource) {
  if (resource.endswith(":states:::lambda:invoke")) return true;
  if (resource.contains(":lambda:") && resource.contains(":function:")) return true;
  if (!resource.startswith("${") || !resource.endswith("}") || resource.contains(":")) return false;
  const std::string ref = resource.lower();
  llvm::StringRef r(ref);
  return (r.contains("lambda") || r.contains("function")) && !r.contains("stepfunction") && !r.contains("step_function") &&
         !r.contains("state");
}

// The service whose integration alone raises an error so named (`Batch.AWSBatchException`,
// `AWS.Batch.TooManyRequestsException`, `DynamoDB.ConditionalCheckFailedException`, the AWS SDK
// integrations' `S3.NoSuchKeyException`), or "": Step Functions names the errors of a service
// integration `<Service>.<error>` (Developer Guide, "Handling errors in Step Functions workflows",
// and each integration's page), while a Lambda function's own error is named by its runtime's
// error type (`ValueError`, `java.lang.RuntimeException`) and Lambda's as `Lambda.*`.
std::string_view integrationService(std::string_view name) {
  static constexpr std::string_view kServices[] = {
      "Batch", "DynamoDB", "DynamoDb", "ECS", "Ecs", "EKS", "Eks", "Glue", "SageMaker", "SNS", "Sns", "SQS", "Sqs",
      "EMR", "Emr", "Athena", "CodeBuild", "StepFunctions", "Sfn", "S3", "Ec2", "EventBridge", "Bedrock", "ApiGateway",
      "DataBrew", "MediaConvert", "Kms", "Iam", "SecretsManager", "Ssm", "Rds", "Redshift", "Textract", "Comprehend"};
  if (name.rfind("AWS.", 0) == 0) name.remove_prefix(4);
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot + 1 == name.size()) return {};
  for (std::string_view s : kServices)
    if (name.substr(0, dot) == s) return s;
  return {};
}

bool isAsl(const yaml::Node &n) {
  auto start = get(n, "StartAt");
  auto states = get(n, "States");
  return start && start->IsScalar() && states && states->IsMap();
}

bool isStateMachineResource(const yaml::Node &r) {
  auto type = get(r, "Type");
  return type && type->IsScalar() &&
         (type->Scalar() == "AWS::StepFunctions::StateMachine" || type->Scalar() == "AWS::Serverless::StateMachine");
}

// CloudFormation/SAM resources: `Resources.*`, or the top level of a template excerpt.
std::vector<std::pair<std::string, yaml::Node>> stateMachineResources(const yaml::Node &doc) {
  std::vector<std::pair<std::string, yaml::Node>> out;
  if (!doc.IsMap()) return out;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it->first.IsScalar() && isStateMachineResource(it->second)) out.emplace_back(it->first.Scalar(), it->second);
  if (auto res = get(doc, "Resources"); res && res->IsMap())
    for (auto it = res->begin(); it != res->end(); ++it)
      if (it->first.IsScalar() && isStateMachineResource(it->second)) out.emplace_back(it->first.Scalar(), it->second);
  return out;
}

std::optional<yaml::Node> serverlessMachines(const yaml::Node &doc) {
  auto sf = get(doc, "stepFunctions");
  if (!sf) return std::nullopt;
  auto sm = get(*sf, "stateMachines");
  if (!sm || !sm->IsMap()) return std::nullopt;
  return sm;
}

struct Machine {
  std::string anchor;                   // "StateMachine/Name"
  std::string label;                    // "state machine Name" or ""
  std::optional<Duration> timeout;      // top-level TimeoutSeconds
  Span timeoutWhere;
  // An Express workflow (SAM `Type: EXPRESS`, CloudFormation `StateMachineType: EXPRESS`, Terraform
  // `type = "EXPRESS"`): every execution ends after 5 minutes, whatever its retriers say.
  std::string express;                  // where that was read, for messages; "" = Standard or not known
  // What starts executions, as far as the template shows (RetryPolicy::crowd).
  Crowd crowd = Crowd::NotShown;
  std::string crowd_why;
  // Inside a Map state that runs iterations at once: why, for messages ("" = not in one).
  std::string concurrent_map;
  // Lambda functions' own timeouts, by the DefinitionSubstitutions name the definition uses.
  std::map<std::string, std::pair<long long, std::string>> function_timeouts;
  // The template's plain DefinitionSubstitutions values, by name.
  std::map<std::string, std::string> substitutions;
  // The states of this block come after a task of the same execution or iteration that waits for
  // a callback or a job (waitingTask), or "". That lasts as long as its worker or job takes, so each
  // execution reaches what follows at a time of its own (RetryPolicy::crowd, Crowd::OutOfStep).
  std::string after_callback;
  // Inside the child executions of a distributed Map that the file shows to be a handful (batches
  // of one listObjectsV2 page): how many children at most, the items each one gets at most, and
  // why, for messages. 0 = not in one.
  long long batch_children = 0, batch_items = 0;
  std::string batch_why;
};

// An inline Map runs at most 40 iterations at once (Developer Guide, "Using Map state in Inline
// mode": "the Map state supports up to 40 concurrent iterations").
constexpr long long kInlineMapConcurrency = 40;
// One ListObjectsV2 response holds at most 1,000 keys (Amazon S3 API Reference, ListObjectsV2:
// "Returns some or all (up to 1,000) of the objects in a bucket"; MaxKeys defaults to 1,000).
constexpr long long kListPageKeys = 1000;

// Step Functions quotas: an Express workflow runs at most five minutes (Developer Guide,
// "Choosing workflow type in Step Functions" / service quotas, "Express: 5 minutes").
constexpr int kExpressLimitSeconds = 300;

// --- what the template that defines a state machine says of it ----------------------------------
// Two facts decide how a retrier's findings read: the workflow type (an Express workflow ends
// every execution after 5 minutes) and what starts executions (a schedule alone starts one per
// tick: no crowd of executions retries in step). A plain line scan of the YAML template, linear in
// the text: a template is input like any other, and CloudFormation's tags make yaml-cpp's
// recursive parse the only full one.

constexpr size_t kMaxTemplateBytes = 4u << 20;
// Beside the definition, or one or two directories up (`statemachine/flow.asl.json`,
// `src/statemachine/flow.asl.json` under the template), as SAM projects lay them out.
const char *const kTemplateNames[] = {"template.yaml",       "template.yml",       "../template.yaml", "../template.yml",
                                      "../../template.yaml", "../../template.yml", "main.tf",          "../main.tf"};

size_t indentOf(llvm::StringRef line) { return line.size() - line.ltrim(" ").size(); }
bool isContent(llvm::StringRef line) { return !line.trim().empty() && !line.trim().startswith("#"); }
// A plain scalar after its key, without a trailing comment or quotes: `Type: Schedule # hourly`.
llvm::StringRef plainValue(llvm::StringRef v) {
  size_t hash = v.find(" #");
  return v.substr(0, hash).trim().trim("\"'");
}

// `path` as the template at `templateName` (relative to path's directory) would name it.
std::string relativeFromTemplate(llvm::StringRef path, llvm::StringRef templateName) {
  std::string rel = llvm::sys::path::filename(path).str();
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  for (llvm::StringRef t = templateName; t.consume_front("../");) {
    llvm::StringRef name = llvm::sys::path::filename(dir);
    if (name.empty()) break;
    rel = name.str() + "/" + rel;
    dir = llvm::sys::path::parent_path(dir);
  }
  return rel;
}

// A YAML template's top-level sections and resources, as line ranges.
struct TemplateScan {
  struct Block {
    llvm::StringRef name;
    size_t begin = 0, end = 0; // [begin, end): the key's line and its block
    llvm::StringRef type;      // a resource's `Type:`
  };
  llvm::SmallVector<llvm::StringRef, 0> lines;
  std::vector<Block> resources;

  explicit TemplateScan(llvm::StringRef text) {
    text.split(lines, '\n');
    llvm::StringRef section;
    size_t resourceIndent = 0, childIndent = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      llvm::StringRef l = lines[i].rtrim("\r");
      if (!isContent(l)) continue;
      size_t d = indentOf(l);
      if (d == 0) {
        section = l.split(':').first.trim().trim("\"'");
        resourceIndent = 0;
        if (!resources.empty() && resources.back().end == 0) resources.back().end = i;
        continue;
      }
      if (section != "Resources") continue;
      if (resourceIndent == 0) resourceIndent = d;
      if (d == resourceIndent) {
        if (!resources.empty() && resources.back().end == 0) resources.back().end = i;
        resources.push_back({l.split(':').first.trim().trim("\"'"), i, 0, {}});
        childIndent = 0;
      } else if (d > resourceIndent && !resources.empty()) {
        if (childIndent == 0) childIndent = d;
        llvm::StringRef v = l.trim();
        if (d == childIndent && resources.back().type.empty() && v.consume_front("Type:")) resources.back().type = plainValue(v);
      }
    }
    if (!resources.empty() && resources.back().end == 0) resources.back().end = lines.size();
  }

  // The state-machine resource whose DefinitionUri names `rel`, or null.
  const Block *definingResource(const std::string &rel) const {
    for (const Block &r : resources)
      for (size_t i = r.begin; i < r.end; ++i) {
        llvm::StringRef t = lines[i].trim();
        if (!t.consume_front("DefinitionUri:")) continue;
        t = plainValue(t);
        if (t.startswith("./")) t = t.drop_front(2);
        if (t.equals_insensitive(rel)) return &r; // SAM is often run on case-insensitive file systems
      }
    return nullptr;
  }
  const Block *resource(llvm::StringRef name) const {
    for (const Block &r : resources)
      if (r.name == name) return &r;
    return nullptr;
  }

  bool says(const Block &b, llvm::StringRef key) const {
    for (size_t i = b.begin + 1; i < b.end; ++i)
      if (lines[i].trim().startswith(key)) return true;
    return false;
  }

  // `Type: EXPRESS` (SAM) or `StateMachineType: EXPRESS` (CloudFormation) in the resource.
  bool express(const Block &r) const {
    for (size_t i = r.begin + 1; i < r.end; ++i) {
      llvm::StringRef v = lines[i].trim();
      if ((v.consume_front("Type:") || v.consume_front("StateMachineType:")) && plainValue(v) == "EXPRESS") return true;
    }
    return false;
  }

  // The Lambda functions the definition of `r` reaches through DefinitionSubstitutions
  // (`CheckFn: !GetAtt CheckFunction.Arn`), each with its Timeout in seconds: the function's own,
  // else the template's Globals, else Lambda's default of 3 s (AWS::Serverless::Function and
  // AWS::Lambda::Function `Timeout`, "Default: 3"). Keyed by the substitution's name.
  std::map<std::string, std::pair<long long, std::string>> functionTimeouts(const Block &r) const {
    std::map<std::string, std::pair<long long, std::string>> out;
    auto timeoutIn = [&](size_t b, size_t e) -> std::optional<long long> {
      size_t best = SIZE_MAX;
      std::optional<long long> v;
      for (size_t i = b; i < e; ++i) {
        llvm::StringRef t = lines[i].trim();
        long long n = 0;
        if (isContent(lines[i]) && indentOf(lines[i]) < best && t.consume_front("Timeout:") && !plainValue(t).getAsInteger(10, n)) {
          best = indentOf(lines[i]);
          v = n;
        }
      }
      return v;
    };
    std::optional<long long> global;
    for (size_t i = 0; i < lines.size(); ++i)
      if (lines[i].rtrim() == "Globals:") {
        size_t e = i + 1;
        while (e < lines.size() && (!isContent(lines[e]) || indentOf(lines[e]) > 0)) ++e;
        for (size_t k = i + 1; k < e; ++k)
          if (lines[k].trim() == "Function:") {
            size_t d = indentOf(lines[k]), f = k + 1;
            while (f < e && (!isContent(lines[f]) || indentOf(lines[f]) > d)) ++f;
            global = timeoutIn(k + 1, f);
          }
      }
    for (size_t i = r.begin + 1; i < r.end; ++i) {
      if (lines[i].trim() != "DefinitionSubstitutions:") continue;
      size_t d = indentOf(lines[i]);
      for (size_t k = i + 1; k < r.end && (!isContent(lines[k]) || indentOf(lines[k]) > d); ++k) {
        auto [key, value] = lines[k].trim().split(':');
        value = plainValue(value);
        if (!value.consume_front("!GetAtt ") && !value.consume_front("!Ref ")) continue;
        llvm::StringRef fn = value.trim().split('.').first;
        const Block *f = resource(fn);
        if (!f || (f->type != "AWS::Serverless::Function" && f->type != "AWS::Lambda::Function")) continue;
        auto own = timeoutIn(f->begin + 1, f->end);
        long long t = own ? *own : global ? *global : 3;
        std::string why = own ? "Timeout " + std::to_string(t) + " of the function " + fn.str()
                              : global ? "the Globals Timeout " + std::to_string(t) + " of the function " + fn.str()
                                       : "Lambda's default Timeout of 3 s for the function " + fn.str();
        out[key.trim().str()] = {t, why};
      }
    }
    return out;
  }

  // The plain values of `r`'s DefinitionSubstitutions (`DDBGetItem: arn:aws:states:::dynamodb:getItem`).
  std::map<std::string, std::string> substitutions(const Block &r) const {
    std::map<std::string, std::string> out;
    for (size_t i = r.begin + 1; i < r.end; ++i) {
      if (lines[i].trim() != "DefinitionSubstitutions:") continue;
      size_t d = indentOf(lines[i]);
      for (size_t k = i + 1; k < r.end && (!isContent(lines[k]) || indentOf(lines[k]) > d); ++k) {
        auto [key, value] = lines[k].trim().split(':');
        if (value.empty()) continue;
        value = plainValue(lines[k].trim().substr(key.size() + 1));
        bool sub = value.consume_front("!Sub ");
        if (sub) value = value.trim().trim("\"'");
        if (value.empty() || value.startswith("!") || value.startswith("{")) continue;
        std::string v = value.str();
        // The only pseudo parameter a service ARN holds: `arn:${AWS::Partition}:states:::…`.
        if (sub)
          for (size_t at; (at = v.find("${AWS::Partition}")) != std::string::npos;) v.replace(at, 17, "aws");
        out[key.trim().str()] = v;
      }
    }
    return out;
  }

  // An event pattern in lines [b, e) that matches only S3 object-level API calls as CloudTrail
  // records them (`source: aws.s3` and every `eventName` an object operation: PutObject,
  // CompleteMultipartUpload, …). Those are data events, which reach EventBridge only through a
  // trail that logs them (CloudTrail User Guide, "Logging data events": "By default, trails and
  // event data stores do not log data events"). S3's own "Object Created" events are not these.
  bool s3DataEventsOnly(size_t b, size_t e) const {
    bool s3 = false, names = false, allObject = true;
    auto objectOp = [](llvm::StringRef v) {
      v = plainValue(v);
      return v.contains("Object") || v.contains("MultipartUpload") || v.contains("UploadPart");
    };
    for (size_t i = b; i < e; ++i) {
      llvm::StringRef t = lines[i].trim();
      if (!isContent(lines[i])) continue;
      if (t.contains("aws.s3") && !t.contains("aws.s3express")) s3 = true;
      if (!t.consume_front("eventName:") && !t.consume_front("\"eventName\":") && !t.consume_front("'eventName':")) continue;
      names = true;
      t = t.trim();
      if (t.consume_front("[")) { // flow list: eventName: [PutObject, "CopyObject"]
        llvm::SmallVector<llvm::StringRef, 4> items;
        t.split(items, ',');
        for (llvm::StringRef it : items) allObject = allObject && objectOp(it.trim().trim("]"));
        continue;
      }
      if (!plainValue(t).empty()) {
        allObject = allObject && objectOp(t);
        continue;
      }
      size_t d = indentOf(lines[i]);
      for (size_t k = i + 1; k < e; ++k) {
        if (!isContent(lines[k])) continue;
        llvm::StringRef item = lines[k].trim();
        if (indentOf(lines[k]) < d || (indentOf(lines[k]) == d && !item.startswith("-"))) break;
        if (item.consume_front("-")) allObject = allObject && objectOp(item);
      }
    }
    return s3 && names && allObject;
  }
  bool definesTrail() const {
    for (const Block &o : resources)
      if (o.type == "AWS::CloudTrail::Trail" || o.type == "AWS::CloudTrail::EventDataStore") return true;
    return false;
  }

  // What the template shows starting the state machine `r`: its schedules, and the first other
  // trigger (an API or queue event, an event pattern, a function or resource given its name or ARN).
  struct Triggers {
    std::vector<std::string> schedules; // "its Schedule event", "the schedule Nightly"
    std::string other;                  // "its Api event", "AWS::Serverless::Function StartFn"
    // An event rule that would start one per event, but matches only S3 data events that no trail
    // of the template logs (s3DataEventsOnly): "its EventBridgeRule event", or "".
    std::string cloudtrail;
  };
  // `depth`: how many starters away from the state machine (a function that starts it is itself
  // triggered by what names it: its own events, an API, a queue mapping, a permission).
  Triggers triggers(const Block &r, int depth = 0) const {
    Triggers t;
    // SAM: Events of the resource itself, each `Type:` at the first indent below an event's key.
    for (size_t i = r.begin + 1; i < r.end; ++i) {
      if (lines[i].trim() != "Events:") continue;
      size_t d = indentOf(lines[i]), typeIndent = SIZE_MAX, k = i + 1;
      auto inside = [&](size_t k) { return k < r.end && (!isContent(lines[k]) || indentOf(lines[k]) > d); };
      for (k = i + 1; inside(k); ++k)
        if (isContent(lines[k]) && lines[k].trim().startswith("Type:")) typeIndent = std::min(typeIndent, indentOf(lines[k]));
      for (k = i + 1; inside(k); ++k) {
        llvm::StringRef v = lines[k].trim();
        if (indentOf(lines[k]) != typeIndent || !v.consume_front("Type:")) continue;
        v = plainValue(v);
        // The event's block: its key's line (the last line above less indented) to the next such.
        size_t eb = k, ee = k + 1;
        while (eb > i + 1 && (!isContent(lines[eb]) || indentOf(lines[eb]) >= typeIndent)) --eb;
        while (inside(ee) && (!isContent(lines[ee]) || indentOf(lines[ee]) >= typeIndent)) ++ee;
        if (v == "Schedule" || v == "ScheduleV2") t.schedules.push_back("its " + v.str() + " event");
        else if ((v == "EventBridgeRule" || v == "CloudWatchEvent") && s3DataEventsOnly(eb, ee) && !definesTrail()) {
          if (t.cloudtrail.empty()) t.cloudtrail = "its " + v.str() + " event";
        } else if (t.other.empty()) t.other = "its " + v.str() + " event";
      }
    }
    // Elsewhere: each resource that names it is a schedule targeting it, a permission, or a trigger.
    // A reference, not a word in a description or a CDK path: `!Ref Name`, `!GetAtt Name.Arn`,
    // `Ref: Name`, `${Name}` / `${Name.Arn}`, `[Name, Arn]` or `- Name` under Fn::GetAtt.
    auto mentions = [&](llvm::StringRef line) {
      for (size_t at = line.find(r.name); at != llvm::StringRef::npos; at = line.find(r.name, at + 1)) {
        auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '/'; };
        size_t end = at + r.name.size();
        if (end < line.size() && word(line[end])) continue;
        llvm::StringRef before = line.substr(0, at).rtrim("\"' ");
        if (before.endswith("!Ref") || before.endswith("!GetAtt") || before.endswith("Ref:") || before.endswith("${") ||
            before.endswith("[") || before.trim() == "-")
          return true;
      }
      return false;
    };
    for (const Block &o : resources) {
      if (&o == &r) continue;
      bool named = false;
      for (size_t i = o.begin; i < o.end && !named; ++i) named = mentions(lines[i]);
      if (!named) continue;
      bool schedule = (o.type == "AWS::Events::Rule" && says(o, "ScheduleExpression:") && !says(o, "EventPattern:")) ||
                      o.type == "AWS::Scheduler::Schedule";
      if (schedule) {
        t.schedules.push_back("the schedule " + o.name.str());
        continue;
      }
      // What can start an execution once per event it handles: a function, an API, an event rule
      // or pipe, an IoT rule. Tables, log groups, permissions and connectors only name it; a parent
      // state machine starts it as often as the parent runs, which this template does not show.
      static const char *const perEvent[] = {"AWS::Serverless::Function", "AWS::Lambda::Function", "AWS::Serverless::Api",
                                             "AWS::Serverless::HttpApi",  "AWS::ApiGateway::",     "AWS::ApiGatewayV2::",
                                             "AWS::Events::Rule",         "AWS::Pipes::Pipe",      "AWS::IoT::TopicRule",
                                             "AWS::AppSync::"};
      // What invokes a function once per event: an event source mapping (a queue or stream), a
      // permission for a service to invoke it (S3, SNS, an API), a subscription or a notification.
      static const char *const invokesFunction[] = {"AWS::Lambda::EventSourceMapping", "AWS::Lambda::Permission",
                                                    "AWS::SNS::Subscription", "AWS::SNS::Topic", "AWS::S3::Bucket",
                                                    "AWS::Logs::SubscriptionFilter", "AWS::Cognito::"};
      bool starts = false;
      for (const char *k : perEvent) starts |= o.type.startswith(k);
      if (depth > 0)
        for (const char *k : invokesFunction) starts |= o.type.startswith(k);
      if (!starts || !t.other.empty()) continue;
      if (o.type == "AWS::Events::Rule" && s3DataEventsOnly(o.begin, o.end) && !definesTrail()) {
        if (t.cloudtrail.empty()) t.cloudtrail = "the rule " + o.name.str();
        continue;
      }
      const bool function = o.type == "AWS::Serverless::Function" || o.type == "AWS::Lambda::Function";
      if (function && depth == 0) {
        // A function starts an execution per invocation, and is invoked as often as what the
        // template shows triggering it; nothing (reviewers: "invoked by hand, as the README says")
        // shows no crowd, and a function only a schedule runs is one execution per tick.
        Triggers f = triggers(o, depth + 1);
        if (!f.other.empty()) t.other = o.type.str() + " " + o.name.str() + " (" + f.other + ")";
        else if (!f.cloudtrail.empty() && t.cloudtrail.empty()) t.cloudtrail = "the function " + o.name.str() + " (" + f.cloudtrail + ")";
        else
          for (std::string &sch : f.schedules)
            t.schedules.push_back(llvm::StringRef(sch).startswith("its ") ? o.name.str() + "'s " + sch.substr(4)
                                                                           : sch + " (through the function " + o.name.str() + ")");
        continue;
      }
      t.other = o.type.str() + " " + o.name.str();
    }
    return t;
  }
};

// What the files show of the crowd of executions a state machine's retriers run in
// (RetryPolicy::crowd): a trigger per event, only schedules, or nothing. `where`: the template.
void crowdFrom(const TemplateScan::Triggers &t, const std::string &where, Crowd &crowd, std::string &why) {
  std::string in = where.empty() ? "" : " in " + where;
  if (!t.other.empty()) {
    crowd = Crowd::Shown;
    why = "executions are started by " + t.other + in;
  } else if (!t.cloudtrail.empty()) {
    crowd = Crowd::NotShown;
    why = "executions are started by " + t.cloudtrail + in +
          " only as CloudTrail records S3 object calls: those are data events, which reach EventBridge through a trail "
          "that logs them (off by default), and the template defines none";
  } else if (!t.schedules.empty()) {
    std::string s = t.schedules.front();
    for (size_t i = 1; i < t.schedules.size(); ++i) s += (i + 1 == t.schedules.size() ? " and " : ", ") + t.schedules[i];
    crowd = Crowd::Alone;
    why = "only " + s + in + " starts it: " + std::string(kCrowdAloneTail);
  }
}

// Terraform: a main.tf that names the file and sets type = "EXPRESS".
bool terraformSaysExpress(llvm::StringRef text, llvm::StringRef file) {
  if (!text.contains(file)) return false;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (llvm::StringRef l : lines) {
    llvm::StringRef v = l.trim();
    if (!v.consume_front("type")) continue;
    v = v.ltrim();
    if (v.consume_front("=") && v.trim() == "\"EXPRESS\"") return true;
  }
  return false;
}

// What the template beside a standalone ASL file says of the workflow it defines.
struct WorkflowFacts {
  std::string express; // where the Express type was read, or ""
  Crowd crowd = Crowd::NotShown;
  std::string crowd_why;
  std::map<std::string, std::pair<long long, std::string>> function_timeouts; // TemplateScan::functionTimeouts
  std::map<std::string, std::string> substitutions;                            // TemplateScan::substitutions
};
WorkflowFacts workflowOf(const std::string &path) {
  WorkflowFacts f;
  for (const char *name : kTemplateNames) {
    bool found = false;
    std::string text = io::readSibling(path, name, kMaxTemplateBytes, &found);
    if (!found) continue;
    llvm::StringRef n(name);
    if (n.endswith(".tf")) {
      if (f.express.empty() && terraformSaysExpress(text, llvm::sys::path::filename(path))) f.express = "Type EXPRESS in " + n.str();
      continue;
    }
    TemplateScan scan(text);
    const TemplateScan::Block *r = scan.definingResource(relativeFromTemplate(path, n));
    if (!r) continue;
    if (f.express.empty() && scan.express(*r)) f.express = "Type EXPRESS in " + n.str();
    if (f.crowd == Crowd::NotShown) crowdFrom(scan.triggers(*r), n.str(), f.crowd, f.crowd_why);
    if (f.substitutions.empty()) f.substitutions = scan.substitutions(*r);
    if (f.function_timeouts.empty()) {
      f.function_timeouts = scan.functionTimeouts(*r);
      for (auto &[k, v] : f.function_timeouts) v.second += " in " + n.str();
    }
  }
  return f;
}

// --- fixes: add a field to a retrier in the file's own syntax ---------------------------------

std::string keyValue(bool json, std::string_view key, std::string_view value, bool quoteValue) {
  std::string v = quoteValue && json ? "\"" + std::string(value) + "\"" : std::string(value);
  return json ? "\"" + std::string(key) + "\": " + v : std::string(key) + ": " + v;
}

// Where to add `key: value` to the map `retrier`, keeping its style: a line after the last
// single-line scalar member (block YAML), or `, key: value` / `,\n  "key": value` after it (flow
// YAML, JSON). nullopt when no member is a plain single-line value to anchor on.
std::optional<TextEdit> addField(const ExtractContext &cx, const yaml::Node &retrier, std::string_view key,
                                 std::string_view value, bool quoteValue) {
  const SourceFile &src = cx.src;
  // Copies (cheap handles): the iterator's pair is a temporary, so pointers into it dangle (ASan).
  std::optional<yaml::Node> anchorKey, anchorValue;
  for (auto it = retrier.begin(); it != retrier.end(); ++it) {
    const yaml::Node k = it->first, v = it->second; // copies: `it->` is a temporary proxy
    if (!k.IsScalar() || k.Mark().is_null()) continue;
    if (v.IsScalar() && !v.Mark().is_null() && v.Mark().line == k.Mark().line) {
      anchorKey = k;
      anchorValue = v;
    }
  }
  if (!anchorKey) return std::nullopt;
  const bool json = isQuoted(*anchorKey);
  const int keyLine = anchorKey->Mark().line, keyCol = anchorKey->Mark().column;
  std::string kv = keyValue(json, key, value, quoteValue);
  if (retrier.Style() == yaml::EmitterStyle::Flow) {
    Span v = cx.span(*anchorValue);
    Span at{src.path(), v.end_line, v.end_column, v.end_line, v.end_column};
    bool oneLine = retrier.Mark().line == keyLine;
    return src.replace(at, oneLine ? ", " + kv : ",\n" + std::string(keyCol, ' ') + kv);
  }
  return src.insertLineAfter(keyLine, std::string(keyCol, ' ') + kv);
}

// --- one retrier -----------------------------------------------------------------------------

struct StateInfo {
  std::string name, type, path; // path: "States/A/Branches[0]/States/B"
  const yaml::Node *node;
};

// A field that is written with a value. `null` stands for a !Sub placeholder (see
// blankPlaceholders) or an explicit null: its value is unknown, and the caller treats it so.
std::optional<yaml::Node> valueOf(const yaml::Node &map, std::string_view key, bool &unknown) {
  auto n = get(map, key);
  unknown = n && isNull(*n);
  if (!n || unknown) return std::nullopt;
  return n;
}

std::optional<long long> readSeconds(ExtractContext &cx, const yaml::Node &r, const char *field, long long lo,
                                     long long hi, const std::string &anchor, const std::string &rule) {
  auto n = get(r, field);
  if (!n || isNull(*n)) return std::nullopt;
  long long v = requireInt(cx, *n, field, false);
  if (v < lo || v > hi) {
    cx.problem(cx.span(*n), std::string(field) + " " + n->Scalar() + " " + rule, anchor + "/" + field);
    return std::nullopt;
  }
  return v;
}

// The function a Lambda task invokes, as the template's DefinitionSubstitutions name it: Resource
// "${CheckFn}", or Resource arn:aws:states:::lambda:invoke with Parameters.FunctionName "${CheckFn}".
const std::pair<long long, std::string> *lambdaOf(const yaml::Node &task, const Machine &m) {
  if (m.function_timeouts.empty()) return nullptr;
  std::string ref;
  if (auto res = get(task, "Resource"); res && res->IsScalar()) ref = res->Scalar();
  if (llvm::StringRef(ref).startswith("arn:aws:states:::lambda:invoke")) {
    ref.clear();
    for (const char *k : {"Parameters", "Arguments"})
      if (auto params = get(task, k); params && params->IsMap())
        if (auto fn = get(*params, "FunctionName"); fn && fn->IsScalar()) ref = fn->Scalar();
  }
  llvm::StringRef r(ref);
  if (!r.consume_front("${")) return nullptr;
  r = r.split('}').first;
  auto it = m.function_timeouts.find(r.str());
  return it == m.function_timeouts.end() ? nullptr : &it->second;
}

void extractRetrier(ExtractContext &cx, const yaml::Node &r, size_t idx, size_t count, const StateInfo &st,
                    const Machine &m) {
  std::string field = st.path + ".Retry[" + std::to_string(idx) + "]";
  requireMap(cx, r, "Retry[" + std::to_string(idx) + "]");
  RetryPolicy p;
  p.format = std::string(kFormat);
  p.anchor = m.anchor + "/" + st.path + "/Retry[" + std::to_string(idx) + "]";
  p.component = "state '" + st.name + "' Retry[" + std::to_string(idx) + "]" + (m.label.empty() ? "" : " in " + m.label);
  p.where = cx.span(r);
  p.attempts_field = "MaxAttempts";
  p.attempts_count_retries = true;
  // A workflow step: nobody holds a connection open while it retries.
  p.workload = Workload::Background;
  p.per_try_field = "TimeoutSeconds";
  p.deadline_name = "state machine TimeoutSeconds";
  // Step Functions has no retry budget: nothing to set, so RL303 has nothing to ask for.
  p.budget.origin = Origin::NotApplicable;

  // ErrorEquals: required, non-empty; States.ALL alone and only in the last retrier.
  auto errors = get(r, "ErrorEquals");
  if (!errors) {
    cx.problem(p.where, field + " has no ErrorEquals, which is required: Step Functions rejects the state machine", p.anchor + "/ErrorEquals");
    return;
  }
  // A template's value (`${jsonencode(var.retry_errors)}`, read as null): which errors it retries,
  // the file does not say, so nothing can be said of the retrier.
  if (isNull(*errors)) return;
  requireSequence(cx, *errors, field + ".ErrorEquals");
  if (errors->size() == 0) {
    cx.problem(cx.span(*errors), field + ".ErrorEquals is empty: Step Functions rejects the state machine", p.anchor + "/ErrorEquals");
    return;
  }
  // Errors an earlier retrier of this state takes out with MaxAttempts 0 ("A, B"): retried never.
  std::string excluded;
  if (auto all = get(*st.node, "Retry"); all && all->IsSequence())
    for (size_t k = 0; k < idx && k < all->size(); ++k) {
      const yaml::Node earlier = (*all)[k];
      auto n = get(earlier, "MaxAttempts");
      auto names = get(earlier, "ErrorEquals");
      if (!n || !n->IsScalar() || n->Scalar() != "0" || !names || !names->IsSequence()) continue;
      for (const auto &e : *names)
        if (e.IsScalar() && excluded.size() < 200) excluded += (excluded.empty() ? "" : ", ") + e.Scalar();
    }
  struct DeadName {
    Span where;
    std::string name, why; // "<name><why>": `why` starts " never matches …" or " is none of …"
  };
  std::vector<DeadName> dead; // names no error can have, and why
  // Names this state never raises (a timeout it does not set): reported only when the retrier has
  // no other name, and so never fires; beside names that match, one that cannot is harmless.
  std::vector<DeadName> neverRaised;
  std::string resource;
  if (auto res = get(*st.node, "Resource"); res && res->IsScalar()) resource = res->Scalar();
  if (llvm::StringRef r(resource); r.startswith("${") && r.endswith("}"))
    if (auto it = m.substitutions.find(r.drop_front(2).drop_back(1).str()); it != m.substitutions.end()) resource = it->second;
  for (const auto &e : *errors) {
    std::string name = requireString(cx, e, field + ".ErrorEquals entry");
    Condition c;
    c.kind = Condition::Kind::ErrorName;
    c.text = name;
    c.where = cx.span(e);
    // States.ALL matches every error; States.TaskFailed every task error except States.Timeout
    // (docs/formats.md §6, §12.2): both are blanket conditions.
    c.catch_all = name == "States.ALL" || name == "States.TaskFailed";
    if (c.catch_all && !excluded.empty())
      c.catch_all_why = "an earlier retrier takes " + excluded + " out with MaxAttempts 0: the permanent errors are sorted out first";
    else if (llvm::StringRef(resource).contains(".sync") &&
             (name == "States.TaskFailed" || (name == "States.ALL" && !get(*st.node, "TimeoutSeconds") && !get(*st.node, "HeartbeatSeconds"))))
      // States.ALL adds only States.Timeout to TaskFailed, which a task without a timeout never raises.
      c.catch_all_why = "a .sync job's failure reaches the state only as States.TaskFailed: there is no narrower name to retry";
    if (name == "States.Timeout" || name == "States.HeartbeatTimeout") {
      c.may_have_been_processed = true;
      c.why_processed = name + " retries a task that timed out, which may have done its work";
    }
    if (name == "States.ALL" && errors->size() > 1)
      cx.problem(c.where, "States.ALL must be the only name in its ErrorEquals: Step Functions rejects the state machine", p.anchor + "/States.ALL");
    else if (name == "States.ALL" && idx + 1 != count)
      cx.problem(c.where, "States.ALL must be in the last retrier (this is Retry[" + std::to_string(idx) + "] of " + std::to_string(count) + "): Step Functions rejects the state machine",
                 p.anchor + "/States.ALL");
    else if (llvm::StringRef(name).startswith("DynamoDb.") && llvm::StringRef(resource).startswith("arn:aws:states:::dynamodb:")) {
      // Names match exactly. The optimized integration raises DynamoDB.<code> (LocalStack's
      // state_task_service_dynamodb.py, which mirrors AWS); DynamoDb.<code> is the AWS SDK
      // integration's spelling (arn:aws:states:::aws-sdk:dynamodb:…, "ServiceName.ErrorName" in
      // PascalCase, Developer Guide, supported-services-awssdk). docs/formats.md §6.
      dead.push_back({c.where, name, " never matches on " + resource + ", which raises DynamoDB." + name.substr(9) +
                                   " (DynamoDb.* is the AWS SDK integration's spelling)"});
    } else if (name == "States.HeartbeatTimeout" && st.type == "Task" && !get(*st.node, "HeartbeatSeconds") &&
               !get(*st.node, "HeartbeatSecondsPath")) {
      // A heartbeat is only awaited when the state asks for one (Developer Guide, Task state).
      neverRaised.push_back({c.where, name, " never matches: the state sets no HeartbeatSeconds, so no heartbeat is awaited"});
    } else if (name == "States.Timeout" && st.type == "Task" && !get(*st.node, "TimeoutSeconds") && !get(*st.node, "TimeoutSecondsPath") &&
               invokesLambda(resource)) {
      // A request-response invocation (not a callback, `.waitForTaskToken`, whose lost token RL302
      // speaks of). TimeoutSeconds defaults to 99999999 s, longer than any execution lasts (a Standard one a
      // year), and a function that runs out of its own timeout fails as Lambda.Unknown (Developer
      // Guide, Task state; bp-lambda-serviceexception: "Unhandled errors in Lambda are reported as
      // Lambda.Unknown … These include out-of-memory errors and function timeouts").
      neverRaised.push_back({c.where, name, " never matches on this Lambda task: it sets no TimeoutSeconds (the default, 99999999 s, "
                                      "outlasts any execution), and a function that runs out of its own timeout fails as Lambda.Unknown"});
    } else if (std::string_view service = integrationService(name); !service.empty() && st.type == "Task" && invokesLambda(resource)) {
      // Pasted from a Batch or DynamoDB task: a function's invocation raises Lambda.* and the
      // function's own error types, never another integration's names.
      neverRaised.push_back({c.where, name, " never matches on this Lambda task: only the " + std::string(service) +
                                          " integration raises " + std::string(service) + ".* errors"});
    } else if (llvm::StringRef(name).startswith("States.") && !isStatesError(name)) {
      dead.push_back({c.where, name, " is none of the States.* errors Step Functions raises (States.TaskFailed, "
                                   "States.Timeout, …) and never matches"});
    }
    p.retry_on.push_back(std::move(c));
  }
  if (!neverRaised.empty() && dead.size() + neverRaised.size() == errors->size()) {
    dead.insert(dead.end(), neverRaised.begin(), neverRaised.end());
    std::sort(dead.begin(), dead.end(), [](const auto &a, const auto &b) { return std::tie(a.where.line, a.where.column) < std::tie(b.where.line, b.where.column); });
  }
  // One finding per retrier, at its first dead name: one cause, however many names it spells.
  if (!dead.empty()) {
    std::string msg;
    // Names dead for one reason are said once ("A, B and C never match on this Lambda task: …").
    for (size_t i = 0; i < dead.size();) {
      size_t j = i + 1;
      while (j < dead.size() && dead[j].why == dead[i].why) ++j;
      msg += i ? "; " : "";
      for (size_t k = i; k < j; ++k) msg += (k == i ? "" : k + 1 == j ? " and " : ", ") + dead[k].name;
      std::string why = dead[i].why;
      if (j - i > 1) {
        if (why.rfind(" is none of", 0) == 0) why = " are none of" + why.substr(11);
        for (size_t at = why.find("never matches"); at != std::string::npos; at = why.find("never matches", at)) why.erase(at + 11, 2);
      }
      msg += why;
      i = j;
    }
    msg += dead.size() == errors->size() ? ": nothing is ever retried by this retrier" : ": nothing is retried for " +
                                                                                         std::string(dead.size() == 1 ? "it" : "them");
    cx.problem(dead.front().where, msg, p.anchor + "/ErrorEquals");
  }
  if (dead.size() == errors->size()) return; // no name can match: the retrier never fires

  // A try cut off by TimeoutSeconds fails with States.Timeout: only a retrier matching it (or
  // States.ALL) retries it, so only then does a per-try timeout turn a hang into a retry (RL302).
  p.timed_out_try_retried = false;
  for (const Condition &c : p.retry_on)
    if (c.text == "States.ALL" || c.text == "States.Timeout" || c.text == "States.HeartbeatTimeout") p.timed_out_try_retried = true;
  // Lambda's service errors and throttles (Lambda.ServiceException, Lambda.TooManyRequestsException,
  // …) come back from the invocation itself, before the function runs long; Lambda.Unknown is the
  // function's own failure (its timeout included), which can come at any time.
  if (!*p.timed_out_try_retried)
    p.long_try_retried = std::any_of(p.retry_on.begin(), p.retry_on.end(), [](const Condition &c) {
      return !llvm::StringRef(c.text).startswith("Lambda.") || c.text == "Lambda.Unknown";
    });

  // A retrier that only retries a resource's state (Forecast.ResourceInUseException while it
  // changes, Glue.CrawlerRunningException, an execution or item that already exists, a lock's
  // condition check, a job not complete yet, load-balancer targets still draining, an object not
  // written yet: S3.NoSuchKey on a getObject that waits for a `_SUCCESS` file) polls: it
  // retries no failure of a service, so no outage is multiplied and no
  // crowd of failed callers comes back in step. Its findings are advice.
  {
    static constexpr llvm::StringLiteral kBusy[] = {"ResourceInUse", "NotReady",      "InProgress",            "Running",
                                                    "NotStabilized", "AlreadyExists",  "ConditionalCheckFailed", "NotComplete",
                                                    "Incomplete",    "StillDraining",  "NoSuchKey"};
    bool polls = !p.retry_on.empty();
    for (const Condition &c : p.retry_on)
      polls &= std::any_of(std::begin(kBusy), std::end(kBusy), [&](llvm::StringRef w) { return llvm::StringRef(c.text).contains_insensitive(w); });
    if (polls) {
      p.advisory = true;
      p.used_by = "a poll: it retries only " + p.retry_on.front().text + (p.retry_on.size() > 1 ? " and the like" : "") +
                  ", a resource's state, not a failing service";
    }
  }

  // MaxAttempts counts retries: total attempts = MaxAttempts + 1; 0 = never retry these errors.
  bool unknown = false;
  if (auto n = valueOf(r, "MaxAttempts", unknown)) {
    long long v = requireInt(cx, *n, field + ".MaxAttempts", false);
    if (v < 0 || v > kMaxSecondsValue) {
      cx.problem(cx.span(*n), field + ".MaxAttempts " + n->Scalar() + " must be between 0 and 99999999: Step Functions rejects the state machine", p.anchor + "/MaxAttempts");
      return;
    }
    if (v == 0) return; // these errors are not retried: no retry policy
    p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(v, 1'000'000)) + 1), cx.span(*n));
  } else if (unknown) {
    p.max_attempts.origin = Origin::Unknown;
  } else {
    p.max_attempts = defaulted(std::optional<int>(kDefaultMaxAttempts + 1), p.where, kMaxAttemptsSource);
  }

  // Backoff: IntervalSeconds x BackoffRate^(retry-1), capped by MaxDelaySeconds, jittered if FULL.
  Backoff &b = p.backoff;
  b.description = "the retrier's backoff";
  bool scheduleKnown = true;
  auto interval = readSeconds(cx, r, "IntervalSeconds", 1, kMaxSecondsValue, p.anchor,
                              "must be a whole number of seconds from 1 to 99999999 (States Language spec): Step Functions rejects the state machine");
  long long intervalSeconds = kDefaultIntervalSeconds;
  if (auto n = valueOf(r, "IntervalSeconds", unknown)) {
    if (interval) {
      intervalSeconds = *interval;
      b.initial = written(std::optional<Duration>(Duration::s(static_cast<double>(*interval))), cx.span(*n));
    } else {
      scheduleKnown = false;
    }
  } else if (unknown) {
    scheduleKnown = false;
  } else {
    b.initial = defaulted(std::optional<Duration>(Duration::s(kDefaultIntervalSeconds)), p.where, kIntervalSource);
  }

  if (auto n = valueOf(r, "BackoffRate", unknown)) {
    double rate = requireNumber(cx, *n, field + ".BackoffRate", false);
    if (rate < 1.0) {
      cx.problem(cx.span(*n), field + ".BackoffRate " + n->Scalar() + " must be at least 1.0: Step Functions rejects the state machine", p.anchor + "/BackoffRate");
      scheduleKnown = false;
    } else {
      b.multiplier = written(rate, cx.span(*n));
      b.growth = written(rate == 1.0 ? Growth::Constant : Growth::Exponential, cx.span(*n));
    }
  } else if (unknown) {
    scheduleKnown = false;
  } else {
    b.multiplier = defaulted(kDefaultBackoffRate, p.where, kBackoffRateSource);
    b.growth = defaulted(Growth::Exponential, p.where, kBackoffRateSource);
  }
  if (!scheduleKnown) b.growth.origin = Origin::Unknown;
  // A read of the AWS SDK integration (get*, head*, describe*, list*) at a fixed interval.
  if (b.growth.origin == Origin::Written && b.growth.value == Growth::Constant) {
    llvm::StringRef action(resource);
    if (action.consume_front("arn:aws:states:::aws-sdk:") && action.contains(':')) {
      action = action.split(':').second;
      for (llvm::StringRef verb : {"get", "head", "describe", "list"})
        if (action.startswith(verb) && action.size() > verb.size() && std::isupper(static_cast<unsigned char>(action[verb.size()])))
          p.polls_by_reading = "a poll: " + resource.substr(resource.rfind(':') + 1) +
                               " at a fixed interval waits for something to appear, and the count is how long it waits";
    }
  }

  if (auto n = valueOf(r, "MaxDelaySeconds", unknown)) {
    auto v = readSeconds(cx, r, "MaxDelaySeconds", 1, kMaxDelayLimit, p.anchor,
                         "must be a whole number of seconds from 1 to 31622400: Step Functions rejects the state machine");
    if (v) b.cap = written(std::optional<Duration>(Duration::s(static_cast<double>(*v))), cx.span(*n));
    else b.cap.origin = Origin::Unknown;
  } else if (unknown) {
    b.cap.origin = Origin::Unknown;
  } else {
    b.cap = defaulted(std::optional<Duration>(), p.where, kNoCapSource);
    long long cap = std::max(kFixCapMinSeconds, 10 * intervalSeconds);
    if (auto edit = addField(cx, r, "MaxDelaySeconds", std::to_string(cap), false))
      b.cap.fix = Fix{"set MaxDelaySeconds to " + std::to_string(cap), {*edit}};
  }

  if (auto n = valueOf(r, "JitterStrategy", unknown)) {
    std::string v = requireString(cx, *n, field + ".JitterStrategy");
    if (v == "FULL") {
      b.jitter = written(Jitter::Full, cx.span(*n));
      b.jitter_lower = 0;
      // RL105: after the cap. AWS Step Functions developer guide, "Retrying after an error":
      // MaxDelaySeconds caps the retry interval and JitterStrategy FULL randomizes between 0 and
      // that (capped) interval. The runtime is not open source; the documentation is the reference.
      b.jitter_order = builtIn(JitterOrder::AfterCap, cx.span(*n), "Step Functions: FULL jitter draws between 0 and the interval capped by MaxDelaySeconds");
    } else if (v == "NONE") {
      b.jitter = written(Jitter::None, cx.span(*n));
      Span at = cx.span(*n);
      std::string_view ln = cx.src.line(at.line - 1);
      std::string q = at.column - 1 < static_cast<int>(ln.size()) && (ln[at.column - 1] == '"' || ln[at.column - 1] == '\'')
                          ? std::string(1, ln[at.column - 1]) : "";
      b.jitter.fix = Fix{"set JitterStrategy to FULL", {cx.src.replace(at, q + "FULL" + q)}};
    } else {
      cx.problem(cx.span(*n), field + ".JitterStrategy '" + v + "' is not FULL or NONE: Step Functions rejects the state machine", p.anchor + "/JitterStrategy");
      b.jitter.origin = Origin::Unknown;
    }
  } else if (unknown) {
    b.jitter.origin = Origin::Unknown;
  } else {
    b.jitter = defaulted(Jitter::None, p.where, kNoJitterSource);
    if (auto edit = addField(cx, r, "JitterStrategy", "FULL", true)) b.jitter.fix = Fix{"set JitterStrategy to FULL", {*edit}};
  }

  // Per-try timeout: a Task's TimeoutSeconds limits each run of the state (a timed-out run raises
  // States.Timeout, which a retrier can retry). Parallel and Map states have none.
  if (st.type == "Task") {
    if (auto n = valueOf(*st.node, "TimeoutSeconds", unknown)) {
      auto v = readSeconds(cx, *st.node, "TimeoutSeconds", 1, kMaxSecondsValue, p.anchor,
                           "must be a whole number of seconds from 1 to 99999999: Step Functions rejects the state machine");
      if (v) p.per_try_timeout = written(std::optional<Duration>(Duration::s(static_cast<double>(*v))), cx.span(*n));
      else p.per_try_timeout.origin = Origin::Unknown;
      // A Lambda task ends when the function does: its own Timeout, when shorter, bounds each try.
      if (auto fn = lambdaOf(*st.node, m); v && fn && fn->first < *v)
        p.per_try_timeout = builtIn(std::optional<Duration>(Duration::s(static_cast<double>(fn->first))), cx.span(*n),
                                    "the task ends when its function does: " + fn->second);
    } else if (unknown) {
      p.per_try_timeout.origin = Origin::Unknown;
    } else {
      std::string resource;
      if (auto res = get(*st.node, "Resource"); res && res->IsScalar()) resource = res->Scalar();
      bool waitsForWorker = resource.find(":activity:") != std::string::npos ||
                            (resource.size() >= 17 && resource.compare(resource.size() - 17, 17, ".waitForTaskToken") == 0);
      bool bounded = get(*st.node, "TimeoutSecondsPath") || get(*st.node, "HeartbeatSeconds") || get(*st.node, "HeartbeatSecondsPath");
      // Other tasks end when the called service answers (a Lambda function's own timeout, an API call).
      if (waitsForWorker && !bounded) p.per_try_timeout = defaulted(std::optional<Duration>(), p.where, kNoTaskTimeoutSource);
      else p.per_try_timeout.origin = Origin::Unknown;
    }
  } else {
    p.per_try_timeout.origin = Origin::NotApplicable;
  }
  if (m.timeout) p.overall_deadline = written(m.timeout, m.timeoutWhere);
  else p.overall_deadline.origin = Origin::Unknown;
  // The crowd the retrier runs in: iterations of a concurrent Map, or what the template shows of
  // the executions. A throttling error retried is no crowd by itself: one execution a day can be
  // throttled by others' traffic, and its retries meet nobody's.
  p.crowd = m.crowd;
  p.crowd_why = m.crowd_why;
  if (p.crowd == Crowd::NotShown && p.crowd_why.empty())
    p.crowd_why = std::string(kCrowdNotShown);
  if (!m.concurrent_map.empty()) { // inside a concurrent Map: the more specific crowd
    p.crowd = Crowd::Shown;
    p.crowd_why = m.concurrent_map;
  }
  if (!m.after_callback.empty() && p.crowd == Crowd::Shown) {
    // Executions that start together reach this state only when each one's callback returns:
    // they fail here at times of their own, and a schedule without randomness keeps them apart.
    p.crowd = Crowd::OutOfStep;
    p.crowd_why = "they reach it after each one's own " + m.after_callback + ", at times of their own: " + p.crowd_why +
                  ", but not in step";
  }
  if (!m.express.empty()) applyExpressLimit(p, m.express);

  cx.model.policies.push_back(std::move(p));
}

// --- states, at any depth --------------------------------------------------------------------

void extractStates(ExtractContext &cx, const yaml::Node &states, const std::string &path, const Machine &m, int depth);

// The states of one States block whose input is a listObjectsV2 page: every state that leads to
// them (Next, Default, a Choice) is an `s3:listObjectsV2` task that hands on its whole result.
std::unordered_set<std::string> listPagePredecessors(const yaml::Node &states) {
  std::map<std::string, bool> seen; // target -> all predecessors so far are listings
  auto scalar = [](const std::optional<yaml::Node> &n) { return n && n->IsScalar() ? n->Scalar() : std::string(); };
  for (auto it = states.begin(); it != states.end(); ++it) {
    if (!it->second.IsMap()) continue;
    const yaml::Node st = it->second; // a copy: `it->` is a temporary proxy
    const bool listing = scalar(get(st, "Type")) == "Task" && llvm::StringRef(scalar(get(st, "Resource"))).endswith("s3:listObjectsV2") &&
                         !get(st, "ResultSelector") && !get(st, "ResultPath") && !get(st, "OutputPath");
    auto lead = [&](const std::string &to) {
      if (to.empty()) return;
      auto [at, fresh] = seen.try_emplace(to, listing);
      if (!fresh) at->second = at->second && listing;
    };
    lead(scalar(get(st, "Next")));
    lead(scalar(get(st, "Default")));
    for (const char *list : {"Choices", "Catch"})
      if (auto l = get(st, list); l && l->IsSequence())
        for (size_t i = 0; i < l->size(); ++i)
          if ((*l)[i].IsMap()) lead(scalar(get((*l)[i], "Next")));
  }
  std::unordered_set<std::string> out;
  for (auto &[to, all] : seen)
    if (all) out.insert(to);
  return out;
}

// `fromListPage`: every state that leads to this one is an S3 listObjectsV2 task, whose result is
// this state's input (listPagePredecessors).
void extractState(ExtractContext &cx, const std::string &name, const yaml::Node &state, const std::string &path,
                  const Machine &m, int depth, bool fromListPage) {
  // A null state is a value the file does not show: a template's placeholder, or in Terraform an
  // expression not read (`jsondecode(local.step)`). Nothing to read, and nothing wrong with it.
  if (isNull(state)) return;
  requireMap(cx, state, path);
  std::string type;
  if (auto t = get(state, "Type"); t && t->IsScalar()) type = t->Scalar();
  StateInfo st{name, type, path, &state};

  if (auto retry = get(state, "Retry"); retry && !isNull(*retry)) {
    if (type != "Task" && type != "Parallel" && type != "Map") {
      cx.problem(cx.keySpan(state, "Retry"), "Retry on a " + (type.empty() ? std::string("state without Type") : type + " state") +
                     ": only Task, Parallel and Map states can retry, Step Functions rejects the state machine",
                 m.anchor + "/" + path + "/Retry");
    } else {
      requireSequence(cx, *retry, path + ".Retry");
      for (size_t i = 0; i < retry->size(); ++i) {
        try {
          extractRetrier(cx, (*retry)[i], i, retry->size(), st, m);
        } catch (const TypeError &e) {
          cx.error(e);
        }
      }
    }
  }
  if (depth >= kMaxDepth) return;
  if (type == "Parallel") {
    if (auto branches = get(state, "Branches"); branches && branches->IsSequence()) {
      for (size_t i = 0; i < branches->size(); ++i) {
        auto sub = get((*branches)[i], "States");
        if (sub && sub->IsMap()) extractStates(cx, *sub, path + "/Branches[" + std::to_string(i) + "]/States", m, depth + 1);
      }
    }
  } else if (type == "Map") {
    // Its iterations run at once, so their retriers retry in step, when the file shows many: a
    // MaxConcurrency of more than 10, or a distributed Map (an ItemReader or ProcessorConfig Mode
    // DISTRIBUTED: up to 10,000 child executions at once when MaxConcurrency is 0 or absent;
    // Developer Guide, "Map state in Distributed mode"). An inline Map without a limit runs as many
    // iterations as one execution's input holds, which the file does not show (reviewers judged an
    // order's products, one SQS receive, three resource types: no herd). Where the file bounds the
    // items (one listObjectsV2 page in batches), the bound is the count the message quotes.
    Machine inner = m;
    inner.batch_children = 0; // a batch's context holds for the states of that child only
    auto mc = get(state, "MaxConcurrency");
    long long limit = 0;
    const bool numeric = mc && mc->IsScalar() && !llvm::StringRef(mc->Scalar()).getAsInteger(10, limit);
    bool distributed = get(state, "ItemReader").has_value();
    if (auto proc = get(state, "ItemProcessor"); proc && proc->IsMap())
      if (auto cfg = get(*proc, "ProcessorConfig"); cfg && cfg->IsMap())
        if (auto mode = get(*cfg, "Mode"); mode && mode->IsScalar() && mode->Scalar() == "DISTRIBUTED") distributed = true;
    auto batchSize = [&]() -> long long {
      long long n = 0;
      if (auto b = get(state, "ItemBatcher"); b && b->IsMap())
        if (auto mi = get(*b, "MaxItemsPerBatch"); mi && mi->IsScalar() && !llvm::StringRef(mi->Scalar()).getAsInteger(10, n) && n > 0)
          return n;
      return 0;
    }();
    auto itemsPath = [&]() -> std::string {
      auto ip = get(state, "ItemsPath");
      return ip && ip->IsScalar() ? ip->Scalar() : "";
    }();
    // A distributed Map over one listObjectsV2 page, in batches: at most ceil(1,000 / batch) child
    // executions, whatever its MaxConcurrency says. A handful: the crowd, if any, is inside them.
    long long pageChildren = 0;
    if (distributed && fromListPage && batchSize && itemsPath == "$.Contents") {
      pageChildren = (kListPageKeys + batchSize - 1) / batchSize;
      if (numeric && limit > 0) pageChildren = std::min(pageChildren, limit);
    }
    // An inline Map without a limit over the items of its child execution's batch: as many at once
    // as the batch holds, up to 40 (kInlineMapConcurrency), in each of the children.
    const bool unlimited = !mc || (numeric && limit == 0);
    if (m.batch_children && !distributed && unlimited && itemsPath == "$.Items") {
      long long each = std::min(m.batch_items, kInlineMapConcurrency), total = each * m.batch_children;
      if (inner.concurrent_map.empty() && total >= kMapCrowd)
        inner.concurrent_map = "the Map state '" + name + "' has no MaxConcurrency and runs up to " + std::to_string(each) +
                               " iterations at once (" +
                               (each == kInlineMapConcurrency ? "an inline Map's most"
                                                              : "a batch of up to " + std::to_string(m.batch_items) + " items") +
                               ") in each of " + m.batch_why + ": up to " + std::to_string(total) + " at once";
    }
    if (inner.concurrent_map.empty() && pageChildren && pageChildren < kMapCrowd) {
      inner.batch_children = pageChildren;
      inner.batch_items = batchSize;
      inner.batch_why = "up to " + std::to_string(pageChildren) + " child executions of the distributed Map state '" + name +
                        "' (one listObjectsV2 page holds at most 1,000 keys, in batches of " + std::to_string(batchSize) + ")";
    } else if (inner.concurrent_map.empty() && pageChildren) {
      inner.concurrent_map = "the distributed Map state '" + name + "' runs up to " + std::to_string(pageChildren) +
                             " child executions at once (one listObjectsV2 page holds at most 1,000 keys, in batches of " +
                             std::to_string(batchSize) + ")";
    } else if (inner.concurrent_map.empty()) {
      if (numeric && limit > kInlineMapConcurrency && !distributed)
        inner.concurrent_map = "the Map state '" + name + "' runs up to " + std::to_string(kInlineMapConcurrency) +
                               " iterations at once (MaxConcurrency " + mc->Scalar() + "; an inline Map runs at most " +
                               std::to_string(kInlineMapConcurrency) + ")";
      else if (numeric && limit >= kMapCrowd)
        inner.concurrent_map = "the Map state '" + name + "' runs up to " + mc->Scalar() + " iterations at once";
      else if (distributed && unlimited)
        inner.concurrent_map = "the distributed Map state '" + name + "' runs up to 10,000 child executions at once";
      else if (distributed && !numeric)
        // A limit the file leaves to a template (`${var.concurrency}`, read as null): a distributed
        // Map exists to run child executions at once, whatever the number.
        inner.concurrent_map = "the distributed Map state '" + name +
                               "' runs child executions at once, as many as its templated MaxConcurrency lets";
    }
    for (auto key : {"ItemProcessor", "Iterator"}) {
      auto proc = get(state, key);
      if (!proc) continue;
      auto sub = get(*proc, "States");
      if (sub && sub->IsMap()) extractStates(cx, *sub, path + "/" + key + "/States", inner, depth + 1);
    }
  }
}

// A task that waits as long as its worker or job takes: a callback (`.waitForTaskToken`) or a job
// run to completion (`.sync`, `.sync:2`: a child execution, a Batch or Glue job, a query). What it
// waits for, for messages ("callback, the .waitForTaskToken task 'Start job'"), or "".
std::string waitingTask(const std::string &name, const yaml::Node &state) {
  auto t = get(state, "Type");
  auto res = get(state, "Resource");
  if (!t || !t->IsScalar() || t->Scalar() != "Task" || !res || !res->IsScalar()) return "";
  llvm::StringRef r(res->Scalar());
  if (r.endswith(".waitForTaskToken")) return "callback, the .waitForTaskToken task '" + name + "'";
  if (r.startswith("arn:aws:states:::") && (r.endswith(".sync") || r.endswith(".sync:2")))
    return "job, the " + r.substr(r.rfind('.')).str() + " task '" + name + "'";
  return "";
}

// The states of one States block that run after a waiting task of the same block (waitingTask),
// each with what it waits for: every state reachable from that task's Next, Default, Choices or Catch.
std::map<std::string, std::string> statesAfterCallbacks(const yaml::Node &states) {
  auto successors = [&](const yaml::Node &state) {
    std::vector<std::string> out;
    auto add = [&](const std::optional<yaml::Node> &n) {
      if (n && n->IsScalar()) out.push_back(n->Scalar());
    };
    add(get(state, "Next"));
    add(get(state, "Default"));
    for (const char *list : {"Choices", "Catch"})
      if (auto l = get(state, list); l && l->IsSequence())
        for (size_t i = 0; i < l->size(); ++i)
          if ((*l)[i].IsMap()) add(get((*l)[i], "Next"));
    return out;
  };
  // By name, once: a lookup in the YAML map per step would make a large States block quadratic.
  std::unordered_map<std::string, yaml::Node> byName;
  for (auto it = states.begin(); it != states.end(); ++it)
    if (it->first.IsScalar() && it->second.IsMap()) byName.emplace(it->first.Scalar(), it->second);
  std::map<std::string, std::string> after;
  for (auto it = states.begin(); it != states.end(); ++it) { // in the file's order: the first claims a state
    if (!it->first.IsScalar() || !it->second.IsMap()) continue;
    const std::string waits = waitingTask(it->first.Scalar(), it->second);
    if (waits.empty()) continue;
    std::vector<std::string> todo = successors(it->second);
    while (!todo.empty()) { // bounded: each state is entered once
      std::string next = std::move(todo.back());
      todo.pop_back();
      auto st = byName.find(next);
      if (st == byName.end() || !after.emplace(next, waits).second) continue;
      for (std::string &s : successors(st->second)) todo.push_back(std::move(s));
    }
  }
  return after;
}

void extractStates(ExtractContext &cx, const yaml::Node &states, const std::string &path, const Machine &m, int depth) {
  const std::map<std::string, std::string> after = m.after_callback.empty() ? statesAfterCallbacks(states)
                                                                            : std::map<std::string, std::string>();
  std::map<std::string, Machine> later; // one copy per waiting task, not per state after it
  const std::unordered_set<std::string> fromList = listPagePredecessors(states);
  for (auto it = states.begin(); it != states.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    // A member that is no map holds no retrier (`"QueryLanguage": "JSONata"` written inside States
    // instead of beside it): Step Functions rejects it, but there is no retry to read or misread.
    if (it->second.IsScalar() || it->second.IsSequence()) continue;
    try {
      const Machine *mm = &m;
      if (auto a = after.find(it->first.Scalar()); a != after.end()) {
        auto [l, fresh] = later.try_emplace(a->second, m);
        if (fresh) l->second.after_callback = a->second;
        mm = &l->second;
      }
      extractState(cx, it->first.Scalar(), it->second, path + "/" + it->first.Scalar(), *mm, depth,
                   fromList.count(it->first.Scalar()) > 0);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
}

void extractMachine(ExtractContext &cx, const yaml::Node &asl, Machine m) {
  bool unknown = false;
  if (auto t = valueOf(asl, "TimeoutSeconds", unknown)) {
    long long v = requireInt(cx, *t, "TimeoutSeconds", false);
    if (v >= 1 && v <= kMaxSecondsValue) {
      m.timeout = Duration::s(static_cast<double>(v));
      m.timeoutWhere = cx.span(*t);
    } else {
      cx.problem(cx.span(*t), "TimeoutSeconds " + t->Scalar() + " must be a whole number of seconds from 1 to 99999999: Step Functions rejects the state machine",
                 m.anchor + "/TimeoutSeconds");
    }
  }
  extractStates(cx, *get(asl, "States"), "States", m, 0);
}

// --- DefinitionString: ASL JSON inside a YAML string -------------------------------------------

// Moves spans and edits found in the embedded text to the enclosing file. A literal block keeps
// the lines: content line i is file line `line0 + i`, shifted right by `indent`. A single-line
// string found verbatim on its line maps by column. A text put together (Fn::Join) or decoded
// (escapes in a quoted string) maps through `table`, the file position (0-based line, column)
// of each of its bytes, without fixes. Otherwise every span becomes `fallback` and fixes are
// dropped (their offsets would be wrong).
struct Remap {
  const SourceFile &outer;
  bool exact = false;
  int line0 = 0, col0 = 0;
  Span fallback;
  std::vector<std::pair<int, int>> table;
  const SourceFile *inner = nullptr; // the text `table` describes

  bool mapped(int line, int col, int &fileLine, int &fileCol) const {
    const size_t off = inner->offsetOf(line - 1, col - 1);
    if (off >= table.size()) return false;
    fileLine = table[off].first + 1;
    fileCol = table[off].second + 1;
    return true;
  }
  void span(Span &s) const {
    if (!s.known()) return;
    if (!table.empty() && inner) {
      Span out{outer.path(), 0, 0, 0, 0};
      if (!mapped(s.line, s.column, out.line, out.column)) {
        s = fallback;
        return;
      }
      // The last byte of the span, then one past it.
      if (s.end_column > 1 && mapped(s.end_line, s.end_column - 1, out.end_line, out.end_column) &&
          std::tie(out.end_line, out.end_column) >= std::tie(out.line, out.column))
        ++out.end_column;
      else
        out.end_line = out.line, out.end_column = out.column + 1;
      s = out;
      return;
    }
    if (!exact) {
      s = fallback;
      return;
    }
    s.path = outer.path();
    s.line += line0;
    s.end_line += line0;
    s.column += col0;
    s.end_column += col0;
  }
  template <class T> void setting(Setting<T> &st) const {
    span(st.where);
    if (!st.fix) return;
    if (!exact || !table.empty()) {
      st.fix.reset();
      return;
    }
    for (TextEdit &e : st.fix->edits) {
      span(e.where);
      e.offset = outer.offsetOf(e.where.line - 1, e.where.column - 1);
      std::string r;
      for (char c : e.replacement) r += c == '\n' ? "\n" + std::string(col0, ' ') : std::string(1, c);
      e.replacement = r;
    }
  }
  void policy(RetryPolicy &p) const {
    forEachOtherSpan(p, [&](Span &s) { span(s); });
    forEachSetting(p, [&](auto &s) { setting(s); });
  }
};


// A block scalar (`|` or `>`, any chomping) whose header is on the line of `mark`, as the file
// writes it: its lines minus the content's indentation, from 0-based line `line0`, so a position
// in it plus (line0, indent) is the file's. Chomping and folding change only line breaks and
// spaces, which JSON ignores: the text is used only when its other characters are the value's,
// in the same order (the tag line may sit at the content's indentation: `!Sub |` on a line of
// its own). nullopt for an explicit indentation indicator or any other scalar.
struct WrittenBlock {
  std::string text;
  int line0, indent;
};
std::optional<WrittenBlock> blockScalarAsWritten(const SourceFile &src, const yaml::Mark &mark, std::string_view value) {
  std::string_view header = src.line(mark.line);
  size_t i = static_cast<size_t>(std::max(mark.column, 0));
  if (i < header.size() && header[i] == '!') i = header.find(' ', i);
  i = header.find_first_not_of(' ', std::min(i, header.size()));
  if (i == std::string_view::npos || (header[i] != '|' && header[i] != '>')) return std::nullopt;
  for (++i; i < header.size() && (header[i] == '+' || header[i] == '-'); ++i) {}
  if (i < header.size() && header[i] >= '1' && header[i] <= '9') return std::nullopt;

  WrittenBlock out{"", mark.line + 1, -1};
  std::vector<std::string_view> lines;
  for (int l = mark.line + 1; l < src.lineCount(); ++l) {
    std::string_view ln = src.line(l);
    const size_t lead = std::min(ln.find_first_not_of(' '), ln.size());
    if (lead == ln.size()) { // blank: part of the scalar if more content follows
      lines.push_back({});
      continue;
    }
    if (out.indent < 0) out.indent = static_cast<int>(lead);
    if (static_cast<int>(lead) < out.indent) break;
    lines.push_back(ln.substr(static_cast<size_t>(out.indent)));
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (out.indent < 0) return std::nullopt;
  for (std::string_view ln : lines) out.text.append(ln).push_back('\n');

  auto same = [](std::string_view a, std::string_view b) {
    auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
    size_t x = 0, y = 0;
    for (;;) {
      while (x < a.size() && blank(a[x])) ++x;
      while (y < b.size() && blank(b[y])) ++y;
      if (x == a.size() || y == b.size()) return x == a.size() && y == b.size();
      if (a[x++] != b[y++]) return false;
    }
  };
  if (!same(out.text, value)) return std::nullopt;
  return out;
}

// The file position (0-based line, column) of each byte of a single-line scalar's value: plain,
// single-quoted ('' is one quote) or double-quoted with JSON's escapes (an escape's bytes all
// at its backslash). nullopt when the value is not what the line holds there.
std::optional<std::vector<std::pair<int, int>>> scalarPositions(const SourceFile &src, const yaml::Node &n) {
  const yaml::Mark mark = n.Mark();
  if (mark.is_null() || !n.IsScalar()) return std::nullopt;
  std::string_view ln = src.line(mark.line), value = n.view();
  size_t i = static_cast<size_t>(std::max(mark.column, 0));
  if (i < ln.size() && ln[i] == '!') i = ln.find_first_not_of(' ', std::min(ln.find(' ', i), ln.size()));
  if (i == std::string_view::npos || i >= ln.size()) return std::nullopt;
  std::vector<std::pair<int, int>> out;
  std::string decoded;
  auto put = [&](std::string_view bytes, size_t col) {
    decoded += bytes;
    out.insert(out.end(), bytes.size(), {mark.line, static_cast<int>(col)});
  };
  const char q = ln[i];
  if (q != '"' && q != '\'') {
    if (ln.substr(i, value.size()) != value) return std::nullopt;
    for (size_t k = 0; k < value.size(); ++k) out.emplace_back(mark.line, static_cast<int>(i + k));
    return out;
  }
  for (size_t k = i + 1; k < ln.size(); ++k) {
    const char c = ln[k];
    if (c == q && q == '\'' && k + 1 < ln.size() && ln[k + 1] == '\'') {
      put("'", k++);
    } else if (c == q) {
      break;
    } else if (c == '\\' && q == '"' && k + 1 < ln.size()) {
      const char e = ln[k + 1];
      const std::string_view simple = "\"\\/bfnrt", meant = "\"\\/\b\f\n\r\t";
      if (size_t at = simple.find(e); at != std::string_view::npos) {
        put(meant.substr(at, 1), k);
        ++k;
      } else if (e == 'u' && k + 5 < ln.size()) {
        unsigned cp = static_cast<unsigned>(std::stoul(std::string(ln.substr(k + 2, 4)), nullptr, 16));
        std::string utf8;
        if (cp < 0x80) utf8 = std::string(1, static_cast<char>(cp));
        else if (cp < 0x800) utf8 = {static_cast<char>(0xC0 | cp >> 6), static_cast<char>(0x80 | (cp & 0x3F))};
        else utf8 = {static_cast<char>(0xE0 | cp >> 12), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
        put(utf8, k);
        k += 5;
      } else {
        return std::nullopt;
      }
    } else {
      put(std::string_view(&ln[k], 1), k);
    }
  }
  if (decoded != value) return std::nullopt;
  return out;
}

// `Fn::Join: [sep, [parts]]` (or `!Join`) as one text, with the file position of each byte:
// literal parts as written (`!Sub` / `Fn::Sub` ones too: `sub` is set), any other intrinsic
// (!Ref, !GetAtt ...) an unknown value: "x" inside a JSON string, `null` outside, at its place.
std::optional<std::string> joinedText(const SourceFile &src, const yaml::Node &value, std::vector<std::pair<int, int>> &table,
                                      bool &sub) {
  std::optional<yaml::Node> args;
  if (value.Tag() == "!Join") args = value;
  else if (value.IsMap()) args = get(value, "Fn::Join");
  if (!args || !args->IsSequence() || args->size() != 2 || !(*args)[0].IsScalar() || !(*args)[1].IsSequence())
    return std::nullopt;
  const yaml::Node sep = (*args)[0], parts = (*args)[1];
  std::string text;
  bool inString = false;
  auto append = [&](std::string_view bytes, const std::optional<std::vector<std::pair<int, int>>> &at, const yaml::Node &where) {
    for (size_t k = 0; k < bytes.size(); ++k) {
      const char c = bytes[k];
      if (inString && c == '\\' && k + 1 < bytes.size()) {
        text += c;
        table.push_back(at ? (*at)[k] : std::pair<int, int>{where.Mark().line, where.Mark().column});
        ++k;
      } else if (c == '"') {
        inString = !inString;
      }
      text += bytes[k];
      table.push_back(at ? (*at)[k] : std::pair<int, int>{where.Mark().line, where.Mark().column});
    }
  };
  const auto sepAt = scalarPositions(src, sep);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) append(sep.view(), sepAt, sep);
    yaml::Node part = parts[i];
    if (part.IsMap())
      if (auto s = get(part, "Fn::Sub"); s && s->IsScalar()) part = *s, sub = true;
    if (part.IsScalar() && (part.Tag().empty() || part.Tag() == "!" || part.Tag() == "?" || part.Tag() == "!Sub")) {
      sub |= part.Tag() == "!Sub";
      append(part.view(), scalarPositions(src, part), part);
    } else {
      append(inString ? "x" : "null", std::nullopt, parts[i]);
    }
  }
  return text;
}

void extractDefinitionString(ExtractContext &cx, const yaml::Node &value, Machine m) {
  // The literal: a plain string, `!Sub "…"`, `Fn::Sub: "…"`, or the first item of `!Sub [ "…", {…} ]`.
  // Or `Fn::Join` / `!Join` of such strings and other intrinsics.
  const SourceFile &src = cx.src;
  Remap remap{src, false, 0, 0, {}};
  bool sub = false;
  std::string content;
  if (auto joined = joinedText(src, value, remap.table, sub)) {
    content = std::move(*joined);
    remap.fallback = cx.span(value);
  }
  yaml::Node lit = value;
  sub = sub || value.Tag() == "!Sub";
  if (!remap.table.empty()) {
    // put together above
  } else if (value.IsMap() && !get(value, "Fn::Sub")) {
    return; // other functions build the string at deploy time
  } else {
    if (value.IsMap()) lit = *get(value, "Fn::Sub"), sub = true;
    if (lit.IsSequence() && sub && lit.size() > 0) lit = lit[0];
    if (!lit.IsScalar()) return;
    if (!sub && !lit.Tag().empty() && lit.Tag() != "!" && lit.Tag() != "?") return; // another intrinsic
    content = lit.Scalar();
    remap.fallback = cx.span(lit);
  }
  const yaml::Mark mark = lit.Mark();

  // Exact mapping: a single-line string found verbatim (or decoded), or a block scalar read as written.
  if (!remap.table.empty()) {
  } else if (content.find('\n') == std::string::npos) {
    size_t at = src.line(mark.line).find(content);
    if (!content.empty() && at != std::string_view::npos) {
      remap.exact = true;
      remap.line0 = mark.line;
      remap.col0 = static_cast<int>(at);
    } else if (auto at = scalarPositions(src, lit)) {
      remap.table = std::move(*at);
    }
  } else if (auto written = blockScalarAsWritten(src, mark, content)) {
    content = std::move(written->text);
    remap.exact = true;
    remap.line0 = written->line0;
    remap.col0 = written->indent;
  }

  std::string text = sub ? yaml::blankJsonPlaceholders(content) : content;
  std::replace(text.begin(), text.end(), '\t', ' ');
  const SourceFile tableText("", text);
  remap.inner = &tableText;
  if (int depth = nestingDepth(text); depth > cx.options.max_nesting)
    throw TypeError(remap.fallback, "DefinitionString is nested " + std::to_string(depth) + " levels deep, more than the limit of " +
                                        std::to_string(cx.options.max_nesting) + " (--max-nesting)");
  yaml::Stream parsed; // `asl` points into it, and into `text`
  try {
    parsed = yaml::loadFirst(text);
  } catch (const YAML::Exception &e) {
    if (sub) return; // placeholders may only make sense once substituted
    Span at = remap.fallback;
    if (!e.mark.is_null() && (remap.exact || !remap.table.empty())) {
      at = Span{src.path(), e.mark.line + 1, e.mark.column + 1, e.mark.line + 1, e.mark.column + 2};
      remap.span(at);
    }
    throw TypeError(at, "DefinitionString is not valid JSON: " + e.msg);
  }
  const yaml::Node asl = parsed.documents.front();
  if (!isAsl(asl)) return;

  const SourceFile inner(src.path(), text);
  FileModel model;
  std::vector<Diagnostic> errors;
  ExtractContext icx{inner, model, errors, cx.options};
  extractMachine(icx, asl, m);
  for (RetryPolicy &p : model.policies) {
    remap.policy(p);
    cx.model.policies.push_back(std::move(p));
  }
  for (ConfigProblem &pr : model.problems) {
    remap.span(pr.where);
    cx.model.problems.push_back(std::move(pr));
  }
  for (Diagnostic &d : errors) {
    Span s{d.path, d.line, d.column, d.line, d.column + 1};
    remap.span(s);
    cx.errors.push_back(Diagnostic{src.path(), s.line, s.column, d.message});
  }
}

// --- the document ------------------------------------------------------------------------------

bool recognise(const yaml::Node &doc) {
  return isAsl(doc) || !stateMachineResources(doc).empty() || serverlessMachines(doc).has_value();
}

void extract(const yaml::Node &doc, ExtractContext &cx) {
  if (isAsl(doc)) {
    Machine m{"StateMachine", "", std::nullopt, {}, {}};
    WorkflowFacts f = workflowOf(cx.src.path().str());
    m.express = f.express;
    m.crowd = f.crowd;
    m.crowd_why = f.crowd_why;
    m.function_timeouts = std::move(f.function_timeouts);
    m.substitutions = std::move(f.substitutions);
    extractMachine(cx, doc, m);
    return;
  }
  std::optional<TemplateScan> scan; // of this template, when it defines a state machine
  for (const auto &[name, res] : stateMachineResources(doc)) {
    try {
      auto props = get(res, "Properties");
      if (!props || !props->IsMap()) continue;
      Machine m{"StateMachine/" + name, "state machine " + name, std::nullopt, {}, {}};
      if (!scan) scan.emplace(cx.src.text());
      if (const TemplateScan::Block *r = scan->resource(name))
        crowdFrom(scan->triggers(*r), "", m.crowd, m.crowd_why);
      for (const char *typeKey : {"Type", "StateMachineType"})
        if (auto t = get(*props, typeKey); t && t->IsScalar() && t->Scalar() == "EXPRESS") m.express = std::string(typeKey) + ": EXPRESS";
      if (auto def = get(*props, "Definition"); def && isAsl(*def)) extractMachine(cx, *def, m);
      else if (auto ds = get(*props, "DefinitionString")) extractDefinitionString(cx, *ds, m);
    } catch (const TypeError &e) {
      cx.error(e);
    }
  }
  if (auto sms = serverlessMachines(doc)) {
    for (auto it = sms->begin(); it != sms->end(); ++it) {
      if (!it->first.IsScalar()) continue;
      try {
        auto def = get(it->second, "definition");
        if (!def || !isAsl(*def)) continue;
        std::string name = it->first.Scalar();
        Machine m{"StateMachine/" + name, "state machine " + name, std::nullopt, {}, {}};
        if (auto t = get(it->second, "type"); t && t->IsScalar() && (t->Scalar() == "express" || t->Scalar() == "EXPRESS"))
          m.express = "type: " + t->Scalar();
        extractMachine(cx, *def, m);
      } catch (const TypeError &e) {
        cx.error(e);
      }
    }
  }
}

} // namespace

void applyExpressLimit(RetryPolicy &p, const std::string &express) {
  if (p.overall_deadline.written() && p.overall_deadline.value && *p.overall_deadline.value <= Duration::s(kExpressLimitSeconds)) return;
  p.overall_deadline = builtIn(std::optional<Duration>(Duration::s(kExpressLimitSeconds)), p.where,
                               "an Express workflow (" + express + ") ends every execution after 5 minutes (Step Functions quotas)");
  p.deadline_name = "Express workflow's 5-minute limit";
}

std::vector<std::string> stepFunctionsInputNamesBesides(const std::string &path) {
  llvm::StringRef p(path);
  if (!p.endswith(".json") && !p.endswith(".yaml") && !p.endswith(".yml")) return {};
  return {std::begin(kTemplateNames), std::end(kTemplateNames)};
}

std::string stepFunctionsInputsBesides(const std::string &path) {
  llvm::StringRef p(path);
  if (!p.endswith(".json") && !p.endswith(".yaml") && !p.endswith(".yml")) return {};
  std::string out;
  for (const char *name : kTemplateNames) {
    bool found = false;
    std::string text = io::readSibling(path, name, kMaxTemplateBytes, &found);
    if (found) out += std::string(name) + '\0' + text + '\0';
  }
  return out;
}

namespace {
const Extractor &stepFunctionsExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recognise = recognise,
      .extract = extract,
      .markers = {"\"StartAt\"", "StartAt:", "AWS::StepFunctions::StateMachine", "AWS::Serverless::StateMachine", "stateMachines"},
      .priority = 150,
      .prefilter_words = {"startat", "statemachine", "stepfunctions"},
      .retry_keys = {"Retry"},
  };
  return e;
}
const ExtractorRegistration registered(&stepFunctionsExtractor);
} // namespace

} // namespace retrylint
