// Status-code vocabularies: gRPC canonical codes and the HTTP facts the rules need.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace retrylint {

// gRPC canonical status codes 0..16 (grpc/grpc-proto google/rpc/code.proto).
std::optional<int> grpcCodeFromName(std::string_view upperCaseName);
// Case-insensitive lookup, for "unavailable" and Envoy's kebab names ("deadline-exceeded").
std::optional<int> grpcCodeFromAnyCase(std::string_view name);
std::string grpcCodeName(int code);

// gRPC codes that give the same answer on every try (retrying them is RL401):
// INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, FAILED_PRECONDITION,
// OUT_OF_RANGE, UNIMPLEMENTED, UNAUTHENTICATED.
bool grpcCodeIsPermanent(int code);
// gRPC codes after which the server may already have acted on the call (RL403):
// UNKNOWN, DEADLINE_EXCEEDED, ABORTED, INTERNAL, DATA_LOSS.
bool grpcCodeMayHaveBeenProcessed(int code);

// HTTP 4xx other than 408 (Request Timeout), 425 (Too Early) and 429 (Too Many Requests):
// the request was understood and refused; it fails the same way on every try.
bool httpCodeIsPermanent(int code);
// An HTTP status after which the server may have processed the request (408, 5xx but 501/505).
bool httpCodeMayHaveBeenProcessed(int code);
// Why a 503 that the server itself answers says the request was refused, not processed (RFC 9110
// section 15.6.4: "currently unable to handle the request"), for a proxy (`by`: "NGINX") that
// passes on only its upstream servers' own answers. Set as Condition::refusal_why.
std::string refusedBeforeProcessing(const std::string &by);
// A code that exists as an HTTP status (100..599).
bool httpCodeInRange(int code);

} // namespace retrylint
