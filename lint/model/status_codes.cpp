#include "lint/model/status_codes.h"

#include <array>
#include <cctype>

namespace retrylint {
namespace {
constexpr std::array<std::string_view, 17> kGrpcNames = {
    "OK",                 // 0
    "CANCELLED",          // 1
    "UNKNOWN",            // 2
    "INVALID_ARGUMENT",   // 3
    "DEADLINE_EXCEEDED",  // 4
    "NOT_FOUND",          // 5
    "ALREADY_EXISTS",     // 6
    "PERMISSION_DENIED",  // 7
    "RESOURCE_EXHAUSTED", // 8
    "FAILED_PRECONDITION",// 9
    "ABORTED",            // 10
    "OUT_OF_RANGE",       // 11
    "UNIMPLEMENTED",      // 12
    "INTERNAL",           // 13
    "UNAVAILABLE",        // 14
    "DATA_LOSS",          // 15
    "UNAUTHENTICATED",    // 16
};
} // namespace

std::optional<int> grpcCodeFromName(std::string_view name) {
  for (size_t i = 0; i < kGrpcNames.size(); ++i)
    if (kGrpcNames[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<int> grpcCodeFromAnyCase(std::string_view name) {
  std::string upper;
  upper.reserve(name.size());
  for (char c : name) upper += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return grpcCodeFromName(upper);
}

std::string grpcCodeName(int code) {
  if (code >= 0 && code < static_cast<int>(kGrpcNames.size())) return std::string(kGrpcNames[code]);
  return std::to_string(code);
}

bool grpcCodeIsPermanent(int code) {
  switch (code) {
  case 3: case 5: case 6: case 7: case 9: case 11: case 12: case 16: return true;
  default: return false;
  }
}

bool grpcCodeMayHaveBeenProcessed(int code) {
  // UNKNOWN, DEADLINE_EXCEEDED, ABORTED, INTERNAL, DATA_LOSS: the call reached the server
  // application and may have taken effect. UNAVAILABLE, RESOURCE_EXHAUSTED and CANCELLED are
  // what Istio's own "safe" default retries (istio/istio PR #52111).
  switch (code) {
  case 2: case 4: case 10: case 13: case 15: return true;
  default: return false;
  }
}

bool httpCodeIsPermanent(int code) {
  return code >= 400 && code <= 499 && code != 408 && code != 425 && code != 429;
}

bool httpCodeMayHaveBeenProcessed(int code) {
  if (code == 408) return true;
  return code >= 500 && code <= 599 && code != 501 && code != 505;
}

std::string refusedBeforeProcessing(const std::string &by) {
  return "a 503 the server itself answers means it refused the request before acting on it, but a proxy between " + by +
         " and the server (a mesh sidecar, a load balancer) can answer 503 after the request was processed";
}

bool httpCodeInRange(int code) { return code >= 100 && code <= 599; }

} // namespace retrylint
