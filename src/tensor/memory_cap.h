// The process-wide count behind loom::memory_cap() (include/loom/tensor.h):
// Storage reserves its bytes here before allocating and releases them when
// it dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace loom::detail {

// Counts `bytes` as held by tensors; throws RuntimeError (nothing counted)
// when that would pass the cap, InvalidArgumentError for an invalid
// LOOM_MAX_MEMORY.
void ReserveTensorBytes(size_t bytes);
void ReleaseTensorBytes(size_t bytes) noexcept;

// Replaces the cap until the returned value's destructor (tests only).
class ScopedMemoryCapForTesting {
 public:
  explicit ScopedMemoryCapForTesting(int64_t bytes);
  ~ScopedMemoryCapForTesting();
  ScopedMemoryCapForTesting(const ScopedMemoryCapForTesting&) = delete;
  ScopedMemoryCapForTesting& operator=(const ScopedMemoryCapForTesting&) = delete;

 private:
  int64_t previous_bytes_;
  std::string previous_source_;
};

}  // namespace loom::detail
