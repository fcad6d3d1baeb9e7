// 6 x 16 tile with AVX2 + FMA: 12 ymm accumulators, 2 for B, 1 broadcast of
// A, within the 16 ymm registers. Compiled with -mavx2 -mfma (CMakeLists).
#include <immintrin.h>

#include "kernels/gemm_micro_kernel.h"

namespace loom::kernels {

void f32_gemm_6x16__avx2_fma(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             float alpha, int mr, int nr, bool accumulate) {
  constexpr int kMr = 6, kNr = 16;
  __m256 acc[kMr][2];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b + p * kNr);
    const __m256 b1 = _mm256_load_ps(b + p * kNr + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + p * kMr + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  const __m256 scale = _mm256_set1_ps(alpha);
  if (mr == kMr && nr == kNr) {
    if (accumulate) {
#pragma GCC unroll 6
      for (int i = 0; i < kMr; ++i) {
        float* row = c + i * ldc;
        _mm256_storeu_ps(row, _mm256_fmadd_ps(scale, acc[i][0], _mm256_loadu_ps(row)));
        _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(scale, acc[i][1], _mm256_loadu_ps(row + 8)));
      }
    } else {
#pragma GCC unroll 6
      for (int i = 0; i < kMr; ++i) {
        float* row = c + i * ldc;
        _mm256_storeu_ps(row, _mm256_mul_ps(scale, acc[i][0]));
        _mm256_storeu_ps(row + 8, _mm256_mul_ps(scale, acc[i][1]));
      }
    }
    return;
  }
  // Edge tile: spill, then add the valid corner. Unrolled like the loops
  // above: any loop indexing acc at run time would make GCC keep acc in
  // memory and store it on every k step (measured: half the speed).
  alignas(32) float tile[kMr][kNr];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    _mm256_store_ps(tile[i], acc[i][0]);
    _mm256_store_ps(tile[i] + 8, acc[i][1]);
  }
  for (int i = 0; i < mr; ++i) {
    for (int j = 0; j < nr; ++j) {
      c[i * ldc + j] = alpha * tile[i][j] + (accumulate ? c[i * ldc + j] : 0.0f);
    }
  }
}

}  // namespace loom::kernels
