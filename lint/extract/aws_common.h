// AWS retry facts shared by the shared-config dialect (aws_config.cpp) and the C++ front end's
// AWS SDK for C++ strategies (lint/cpp/config.cpp). Sources: docs/formats.md §5.
#pragma once
#include <optional>
#include <string>

#include "lint/extract/yaml_util.h"
#include "lint/model/policy.h"

namespace retrylint::aws {

// Standard and adaptive modes make 3 attempts unless max_attempts is set (SDKs and Tools
// Reference Guide, "Retry behavior"; aws-sdk-cpp RetryStrategy.h StandardRetryStrategy(long maxAttempts = 3),
// AdaptiveRetryStrategy.h AdaptiveRetryStrategy(long maxAttempts = 3)).
inline constexpr int kStandardAttempts = 3;
// The AWS SDK for C++'s legacy DefaultRetryStrategy(long maxRetries = 10, long scaleFactor = 25):
// 11 attempts (aws-sdk-cpp include/aws/core/client/DefaultRetryStrategy.h).
inline constexpr int kCppLegacyAttempts = 11;
inline constexpr const char *kQuotaSource =
    "AWS standard/adaptive retry quota: a 500-token bucket that stops retries when empty (aws-sdk-cpp "
    "DefaultRetryQuotaContainer)";

// Standard mode backoff: fully jittered exponential, base 1 s, capped at 20 s
// (aws-sdk-cpp RetryStrategy.cpp: min(GetRandomValue() % 1000 * 2^min(n, 15), 20000) ms).
void setStandardBackoff(RetryPolicy &p, const Span &where);

// One set of AWS SDK retry settings, as a file writes them: a shared-config profile's retry_mode
// and max_attempts, or AWS_RETRY_MODE, AWS_MAX_ATTEMPTS and AWS_NEW_RETRIES_2026 in an environment.
struct RetrySettings {
  std::optional<std::string> mode, attempts, new_retries;
  Span mode_at, attempts_at, new_retries_at;
  std::string mode_name = "retry_mode", attempts_name = "max_attempts";
  std::string holder = "the profile"; // what an SDK fails to load when a value is invalid
};
// Fills a policy whose format, component, anchor and where are set: attempts (written, or the
// mode's default), backoff and retry quota of the standard and adaptive modes, the adaptive rate
// limiter; values the SDKs reject or read otherwise are problems (RL901).
void applyRetrySettings(ExtractContext &cx, const RetrySettings &s, RetryPolicy &p);

} // namespace retrylint::aws
