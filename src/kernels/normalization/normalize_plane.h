// The inner loop BatchNormalization and InstanceNormalization share: one
// plane of one channel normalized with that channel's constants.
#pragma once

#include <cstdint>

namespace loom::kernels {

// Blocks of this many elements with a fixed trip count: GCC vectorizes them
// at -O2 (a plain loop with a runtime trip count it did not).
inline constexpr int kNormalizeLanes = 16;

// y[i] = (x[i] - mean) * a + b for i in [0, n); x and y do not overlap.
template <typename T>
inline void NormalizePlane(const T* __restrict x, T mean, T a, T b, T* __restrict y, int64_t n) {
  int64_t i = 0;
  for (; i + kNormalizeLanes <= n; i += kNormalizeLanes) {
    for (int j = 0; j < kNormalizeLanes; ++j) y[i + j] = (x[i + j] - mean) * a + b;
  }
  for (; i < n; ++i) y[i] = (x[i] - mean) * a + b;
}

}  // namespace loom::kernels
