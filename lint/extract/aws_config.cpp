// AWS shared config file (~/.aws/config, also `credentials`): per-profile `retry_mode` and
// `max_attempts`.
//
// Field facts: AWS SDKs and Tools Reference Guide, "Retry behavior"
// (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html);
// the AWS SDK for C++ (aws/aws-sdk-cpp src/aws-cpp-sdk-core: ClientConfiguration.cpp
// InitRetryStrategy, DefaultRetryStrategy.h, StandardRetryStrategy, RetryQuotaContainer).
// See docs/formats.md §5.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "lint/extract/aws_common.h"
#include "lint/extract/extractors.h"
#include "lint/extract/ini.h"

namespace retrylint {
using aws::kCppLegacyAttempts;
using aws::kQuotaSource;
using aws::kStandardAttempts;
using aws::setStandardBackoff;
namespace {

constexpr std::string_view kFormat = "aws-shared-config";

constexpr const char *kStandardAttemptsSource =
    "AWS SDK default in standard/adaptive mode: 3 attempts (AWS SDKs and Tools Reference Guide, retry behavior)";
// With retry_mode unset: standard mode, 3 attempts, in every SDK since the 2026 retry behaviour became
// the default on 2026-11-10 (AWS Developer Tools Blog, "Updated default retry behavior for AWS SDKs and
// tools": all SDKs but Java 2.x and Kotlin; the AWS SDK for C++ from 1.11.926, aws/aws-sdk-cpp#3832).
// Older AWS SDK for C++ versions fall back to DefaultRetryStrategy (10 retries) in InitRetryStrategy().
constexpr const char *kUnsetModeSource =
    "AWS SDK default with no retry_mode: standard mode, 3 attempts (AWS SDKs and Tools Reference Guide, retry "
    "behavior; the default in all SDKs but Java 2.x and Kotlin since 2026-11-10, AWS Developer Tools Blog "
    "\"Updated default retry behavior\"); AWS SDK for C++ versions before 1.11.926 fall back to their legacy "
    "DefaultRetryStrategy, 11 attempts (aws-sdk-cpp ClientConfiguration.cpp InitRetryStrategy, aws/aws-sdk-cpp#3832)";
constexpr const char *kNewRetriesSource =
    "AWS_NEW_RETRIES_2026=true: standard mode, 3 attempts (DynamoDB 4), a 500-token retry quota (AWS SDKs and Tools "
    "Reference Guide, retry behavior; aws/aws-sdk-cpp#3832)";
constexpr const char *kOptedOutSource =
    "AWS_NEW_RETRIES_2026=false keeps the retry behaviour from before 2026: the SDKs that defaulted to legacy mode "
    "(the AWS SDK for C++: DefaultRetryStrategy, 10 retries = 11 attempts, no quota) stay there (aws/aws-sdk-cpp#3832)";
// Legacy mode: attempts are SDK-specific. The AWS SDK for C++'s DefaultRetryStrategy(maxRetries = 10):
// 11 attempts (aws-sdk-cpp include/aws/core/client/DefaultRetryStrategy.h). Java v2 legacy: 4 attempts
// (RetryMode.LEGACY, "up to 3 retries"); botocore legacy: 5 attempts.
constexpr const char *kLegacyAttemptsSource =
    "AWS SDK for C++ legacy mode: DefaultRetryStrategy, 10 retries = 11 attempts (aws-sdk-cpp DefaultRetryStrategy.h); "
    "other SDKs differ in legacy mode (Java 4, Python 5 attempts)";
// Standard mode backoff: delay = random(0, 1) x base x 2^retry, capped at 20 s; base 1 s
// (SDKs and Tools Reference Guide, standard mode; aws-sdk-cpp StandardRetryStrategy:
// min(rand()%1000 * 2^n ms, 20000 ms)). The 2026 revision uses 50 ms for transient errors.
constexpr double kStandardBaseSeconds = 1.0;
constexpr double kStandardCapSeconds = 20.0;
constexpr const char *kStandardBackoffSource =
    "AWS standard retry mode: fully jittered exponential backoff, base 1 s, capped at 20 s (AWS SDKs and Tools "
    "Reference Guide, retry behavior; aws-sdk-cpp StandardRetryStrategy)";

// Keys that only AWS's config and credentials files use; with `[default]` or `[services …]`
// one of them must be present for the file to be claimed.
bool isAwsKey(std::string_view k) {
  static const char *const keys[] = {
      "region", "output", "max_attempts", "retry_mode", "aws_access_key_id", "aws_secret_access_key",
      "aws_session_token", "role_arn", "source_profile", "credential_source", "credential_process",
      "sso_session", "sso_start_url", "sso_region", "sso_account_id", "sso_role_name", "sso_registration_scopes",
      "endpoint_url", "ca_bundle", "duration_seconds", "external_id", "mfa_serial", "role_session_name",
      "web_identity_token_file", "defaults_mode", "use_fips_endpoint", "use_dualstack_endpoint", "cli_pager",
      "services", "sts_regional_endpoints", "metadata_service_timeout", "metadata_service_num_attempts",
      "ignore_configured_endpoint_urls"};
  for (const char *key : keys)
    if (k == key) return true;
  return false;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}


// Recognised by content: the first setting-bearing line is a section header, and a section is
// `[profile …]` / `[sso-session …]`, or `[default]` / `[services …]` next to an AWS key.
bool recogniseText(const SourceFile &src) {
  bool distinctive = false, generic = false, awsKey = false, first = true;
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view ln = trimmed(src.line(l));
    if (ln.empty() || ln[0] == '#' || ln[0] == ';') continue;
    if (ln[0] == '[') {
      size_t close = ln.find(']');
      if (close == std::string_view::npos) continue;
      std::string_view name = trimmed(ln.substr(1, close - 1));
      if (name.rfind("profile ", 0) == 0 || name.rfind("sso-session ", 0) == 0) distinctive = true;
      if (name == "default" || name.rfind("services ", 0) == 0) generic = true;
    } else {
      if (first) return false; // INI files start with a section; YAML, JSON and C++ do not
      size_t eq = ln.find('=');
      if (eq != std::string_view::npos && isAwsKey(lower(trimmed(ln.substr(0, eq))))) awsKey = true;
    }
    first = false;
  }
  return distinctive || (generic && awsKey);
}

bool isCredentialsFile(const std::string &path) {
  size_t slash = path.find_last_of("/\\");
  return path.substr(slash == std::string::npos ? 0 : slash + 1) == "credentials";
}


void extractProfile(ExtractContext &cx, const IniSection &s, std::string profile, bool credentials) {
  const SourceFile &src = cx.src;
  const IniEntry *mode = s.find("retry_mode");
  const IniEntry *attempts = s.find("max_attempts");
  if (credentials && !mode && !attempts) return; // credentials files hold no retry settings

  RetryPolicy p;
  p.format = std::string(kFormat);
  p.component = "AWS profile " + profile;
  p.anchor = "profile/" + profile;
  p.where = sectionSpan(src, s);
  aws::RetrySettings set;
  if (mode) set.mode = mode->value, set.mode_at = valueSpan(src, *mode);
  if (attempts) set.attempts = attempts->value, set.attempts_at = valueSpan(src, *attempts);
  aws::applyRetrySettings(cx, set, p);
  if (p.max_attempts.origin == Origin::Defaulted)
    p.max_attempts.fix = Fix{"set max_attempts = 1 (no retry)", {src.insertLineAfter(s.line0, "max_attempts = 1")}, /*safe=*/false};
  p.implicit = !mode && !attempts;
  cx.model.policies.push_back(std::move(p));
}

void extractText(const SourceFile &src, ExtractContext &cx) {
  IniFile f;
  try {
    f = parseIni(src);
  } catch (const IniError &e) {
    throw TypeError(Span{src.path(), e.line0 + 1, e.col0 + 1, e.line0 + 1, e.col0 + 2}, std::string("invalid INI: ") + e.what());
  }
  const bool credentials = isCredentialsFile(src.path());
  for (const IniSection &s : f.sections) {
    std::string profile;
    if (s.name == "default") profile = "default";
    else if (s.name.rfind("profile ", 0) == 0) profile = std::string(trimmed(std::string_view(s.name).substr(8)));
    else if (credentials && s.name.find(' ') == std::string::npos) profile = s.name;
    else continue; // [sso-session …], [services …]: no retry settings
    extractProfile(cx, s, profile, credentials);
  }
}

} // namespace

namespace aws {
void applyRetrySettings(ExtractContext &cx, const RetrySettings &set, RetryPolicy &p) {
  p.attempts_field = set.attempts_name;
  p.attempts_count_retries = false;
  p.budget_field = set.mode_name + " = standard (retry quota)";
  // Timeouts are client settings in code (ClientConfiguration.requestTimeoutMs), not in this file.
  p.per_try_timeout.origin = Origin::Unknown;
  p.overall_deadline.origin = Origin::Unknown;
  p.budget.origin = Origin::Unknown;
  p.adaptive_rate_limit = defaulted(false, p.where, "");

  // AWS_NEW_RETRIES_2026: "true" selects the 2026 behaviour in every SDK, "false" keeps the
  // behaviour from before it (both compared without case, as botocore's _resolve_new_retries does).
  std::optional<bool> newRetries;
  if (set.new_retries) {
    std::string v = lower(*set.new_retries);
    if (v == "true") newRetries = true;
    else if (v == "false") newRetries = false;
    else
      cx.problem(set.new_retries_at, "AWS_NEW_RETRIES_2026 '" + *set.new_retries + "' is neither true nor false: the SDKs read anything but 'true' as false, and keep their retry behaviour from before 2026",
                 p.anchor + "/AWS_NEW_RETRIES_2026");
  }

  enum class Mode { Unset, Legacy, Standard, Adaptive, Invalid } m = Mode::Unset;
  Span modeWhere = p.where;
  if (set.mode) {
    modeWhere = set.mode_at;
    const std::string &v = *set.mode;
    if (v == "legacy") m = Mode::Legacy;
    else if (v == "standard") m = Mode::Standard;
    else if (v == "adaptive") m = Mode::Adaptive;
    else {
      m = Mode::Invalid;
      std::string l = lower(v);
      std::string hint = (l == "legacy" || l == "standard" || l == "adaptive")
                             ? "; write '" + l + "': the AWS SDK for C++ compares case-sensitively and otherwise falls back to its legacy DefaultRetryStrategy (10 retries)"
                             : ": SDKs that validate it (aws-sdk-go-v2, botocore) fail to load " + set.holder + ", and the AWS SDK for C++ silently falls back to its legacy DefaultRetryStrategy (10 retries)";
      cx.problem(modeWhere, set.mode_name + " '" + v + "' is not legacy, standard or adaptive" + hint, p.anchor + "/" + set.mode_name);
    }
  }

  // max_attempts: total attempts, the first included; a whole number > 0.
  if (set.attempts) {
    const Span &where = set.attempts_at;
    const std::string &v = *set.attempts;
    errno = 0;
    char *end = nullptr;
    long long n = v.empty() ? 0 : std::strtoll(v.c_str(), &end, 10);
    bool isInt = !v.empty() && end && *end == '\0' && errno == 0;
    if (!isInt || n < 1) {
      std::string runtime = isInt ? "the AWS SDKs require a number greater than 0 (1 = no retries); the AWS SDK for C++ reads 0 as no retries, other SDKs reject " + set.holder
                                  : "aws-sdk-go-v2 and botocore fail to load " + set.holder + ", and the AWS SDK for C++ ignores it and uses its default";
      cx.problem(where, set.attempts_name + " '" + v + "' is not a whole number greater than 0 (it counts attempts, the first included): " + runtime,
                 p.anchor + "/" + set.attempts_name);
      p.max_attempts.origin = Origin::Unknown;
    } else {
      p.max_attempts = written(std::optional<int>(static_cast<int>(std::min<long long>(n, 1'000'000))), where);
    }
  } else if (m == Mode::Standard || m == Mode::Adaptive) {
    p.max_attempts = defaulted(std::optional<int>(kStandardAttempts), modeWhere, kStandardAttemptsSource);
  } else if (m == Mode::Legacy) {
    // Which SDK reads the file is not in it (the AWS CLI, a Ruby or a C++ program alike): the count
    // is the AWS SDK for C++'s, said so, and its findings are advice (one level down).
    p.max_attempts = defaulted(std::optional<int>(kCppLegacyAttempts), modeWhere, kLegacyAttemptsSource);
    p.advisory = true;
  } else if (m == Mode::Unset && newRetries == false) {
    // Opted out of the 2026 behaviour: the AWS SDK for C++ (and the SDKs that defaulted to legacy)
    // keep legacy mode, whose counts and backoff differ per SDK.
    p.max_attempts = defaulted(std::optional<int>(kCppLegacyAttempts), set.new_retries_at, kOptedOutSource);
    p.advisory = true;
  } else if (m == Mode::Unset) {
    p.max_attempts = defaulted(std::optional<int>(kStandardAttempts), newRetries ? set.new_retries_at : p.where,
                               newRetries ? kNewRetriesSource : kUnsetModeSource);
  } else {
    p.max_attempts.origin = Origin::Unknown; // an invalid mode: what runs depends on the SDK
  }

  if (m == Mode::Standard || m == Mode::Adaptive || (m == Mode::Unset && newRetries == true)) {
    setStandardBackoff(p, modeWhere);
    p.budget = builtIn(true, modeWhere, kQuotaSource);
  }
  // Legacy and unset modes: backoff and quota are SDK-specific (C++ legacy: no jitter, no cap, no
  // quota; Java legacy: jittered with a token bucket). The model leaves them Unknown.
  if (m == Mode::Adaptive) p.adaptive_rate_limit = written(true, modeWhere);
}

void setStandardBackoff(RetryPolicy &p, const Span &where) {
  Backoff &b = p.backoff;
  b.growth = builtIn(Growth::Exponential, where, kStandardBackoffSource);
  b.initial = builtIn(std::optional<Duration>(Duration::s(kStandardBaseSeconds)), where, kStandardBackoffSource);
  b.multiplier = builtIn(2.0, where, kStandardBackoffSource);
  b.cap = builtIn(std::optional<Duration>(Duration::s(kStandardCapSeconds)), where, kStandardBackoffSource);
  b.jitter = builtIn(Jitter::Full, where, kStandardBackoffSource);
  b.jitter_lower = 0;
  // RL105: after the cap, as the SDKs reference guide specifies and botocore implements
  // (boto/botocore botocore/retries/standard.py ExponentialBackoff.delay_amount:
  // rand(0, 1) * min(base * 2^(attempt-1), 20)). The shared config is read by every SDK; one
  // differs: aws-sdk-go-v2 aws/retry/jitter_backoff.go ExponentialJitterBackoff returns exactly
  // maxBackoff (20 s, no jitter) once attempt > log2(20), i.e. from retry 5 on. That is Go-only
  // and not visible from this file, so it is not modelled here.
  b.jitter_order = builtIn(JitterOrder::AfterCap, where, "AWS SDKs: full jitter over the capped wait (SDKs and Tools Reference Guide; botocore retries/standard.py)");
  b.description = "the AWS SDKs' standard backoff (jittered, 20 s cap)";
}
} // namespace aws

namespace {
const Extractor &awsSharedConfigExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recogniseText = recogniseText,
      .extractText = extractText,
      .priority = 140,
      // ~/.aws/config and credentials by AWS's naming; INI files by the usual extensions.
      .file_kinds = {"config", "credentials", ".ini", ".cfg", ".conf"},
  };
  return e;
}
const ExtractorRegistration registered(&awsSharedConfigExtractor);
} // namespace

} // namespace retrylint
