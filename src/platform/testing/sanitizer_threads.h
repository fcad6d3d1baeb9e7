// ThreadSanitizer runs a background thread of its own (named like the
// process) that can appear at any time. Tests that count OS threads allow
// exactly this many extra, and only in TSan builds.
#pragma once

namespace loom::platform {

#if defined(__SANITIZE_THREAD__)
inline constexpr int kSanitizerThreads = 1;
#else
inline constexpr int kSanitizerThreads = 0;
#endif

// Whether `actual` threads is `expected` plus, at most, the sanitizer's own.
inline bool ThreadCountMatches(size_t actual, size_t expected) {
  return actual >= expected && actual <= expected + kSanitizerThreads;
}

}  // namespace loom::platform
