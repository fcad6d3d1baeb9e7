// 6 x 16 tile with AVX2 + FMA: 12 ymm accumulators, 2 for B, 1 broadcast of
// A, within the 16 ymm registers. Compiled with -mavx2 -mfma (CMakeLists).
// Two forms: A packed (f32_gemm_6x16__avx2_fma) and A read in place, row by
// row (f32_gemm_6x16_rows__avx2_fma): the same arithmetic in the same order
// and the same store, so the same bits.
#include <immintrin.h>

#include "kernels/gemm/gemm_micro_kernel.h"

namespace loom::kernels {
namespace {

constexpr int kMr = 6, kNr = 16;

// Stores rows [0, mr) (mr <= MR) of a tile: C = alpha * acc (+ C if
// accumulate). A full 6 x 16 tile in vectors; an edge tile spilled, then
// the valid corner added. Unrolled: any loop indexing acc at run time would
// make GCC keep acc in memory and store it on every k step (measured: half
// the speed).
template <int MR>
__attribute__((always_inline)) inline void StoreTile(__m256 (&acc)[MR][2], float* c, int64_t ldc,
                                                     float alpha, int mr, int nr, bool accumulate) {
  const __m256 scale = _mm256_set1_ps(alpha);
  if (MR == kMr && mr == kMr && nr == kNr) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      float* row = c + i * ldc;
      if (accumulate) {
        _mm256_storeu_ps(row, _mm256_fmadd_ps(scale, acc[i][0], _mm256_loadu_ps(row)));
        _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(scale, acc[i][1], _mm256_loadu_ps(row + 8)));
      } else {
        _mm256_storeu_ps(row, _mm256_mul_ps(scale, acc[i][0]));
        _mm256_storeu_ps(row + 8, _mm256_mul_ps(scale, acc[i][1]));
      }
    }
    return;
  }
  alignas(32) float tile[MR][kNr];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_store_ps(tile[i], acc[i][0]);
    _mm256_store_ps(tile[i] + 8, acc[i][1]);
  }
  for (int i = 0; i < mr; ++i) {
    for (int j = 0; j < nr; ++j) {
      c[i * ldc + j] = alpha * tile[i][j] + (accumulate ? c[i * ldc + j] : 0.0f);
    }
  }
}

// MR rows of A in place (row i at a + i * lda); only those rows are read
// and multiplied.
template <int MR>
void RowsTile(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
              float alpha, int nr, bool accumulate) {
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  const float* a0 = a;
  const float* a3 = a + 3 * lda;
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b + p * kNr);
    const __m256 b1 = _mm256_load_ps(b + p * kNr + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const float* base = i < 3 ? a0 : a3;
      const __m256 ai = _mm256_broadcast_ss(base + (i % 3) * lda + p);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  StoreTile<MR>(acc, c, ldc, alpha, MR, nr, accumulate);
}

}  // namespace

void f32_gemm_6x16__avx2_fma(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             float alpha, int mr, int nr, bool accumulate) {
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
  StoreTile<kMr>(acc, c, ldc, alpha, mr, nr, accumulate);
}

void f32_gemm_6x16_rows__avx2_fma(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                                  int64_t ldc, float alpha, int mr, int nr, bool accumulate,
                                  const float* /*prefetch: not measured on an AVX2 CPU yet*/,
                                  int /*prefetch_every*/) {
  WithRowCount<kMr>(mr, [&](auto rows) {
    RowsTile<decltype(rows)::value>(kc, a, lda, b, c, ldc, alpha, nr, accumulate);
  });
}

}  // namespace loom::kernels
