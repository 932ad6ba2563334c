// Whether this build runs under AddressSanitizer: its shadow memory takes terabytes of address
// space, so address-space limits (setrlimit RLIMIT_AS, `ulimit -v`) cannot be used there.
#pragma once

namespace retrylint {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

} // namespace retrylint
