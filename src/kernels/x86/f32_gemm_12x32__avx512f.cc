// 12 x 32 tile with AVX-512F: 24 zmm accumulators, 2 for B, 1 broadcast of
// A, within the 32 zmm registers. Compiled with -mavx512f (CMakeLists).
#include <immintrin.h>

#include "kernels/gemm_micro_kernel.h"

namespace loom::kernels {

void f32_gemm_12x32__avx512f(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             float alpha, int mr, int nr, bool accumulate) {
  constexpr int kMr = 12, kNr = 32;
  __m512 acc[kMr][2];
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b + p * kNr);
    const __m512 b1 = _mm512_load_ps(b + p * kNr + 16);
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      const __m512 ai = _mm512_set1_ps(a[p * kMr + i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  const __m512 scale = _mm512_set1_ps(alpha);
  if (mr == kMr && nr == kNr) {
    if (accumulate) {
#pragma GCC unroll 12
      for (int i = 0; i < kMr; ++i) {
        float* row = c + i * ldc;
        _mm512_storeu_ps(row, _mm512_fmadd_ps(scale, acc[i][0], _mm512_loadu_ps(row)));
        _mm512_storeu_ps(row + 16, _mm512_fmadd_ps(scale, acc[i][1], _mm512_loadu_ps(row + 16)));
      }
    } else {
#pragma GCC unroll 12
      for (int i = 0; i < kMr; ++i) {
        float* row = c + i * ldc;
        _mm512_storeu_ps(row, _mm512_mul_ps(scale, acc[i][0]));
        _mm512_storeu_ps(row + 16, _mm512_mul_ps(scale, acc[i][1]));
      }
    }
    return;
  }
  // Edge tile: masked stores. The loop is fully unrolled so every acc index
  // is a constant and the accumulators stay in registers.
  const __mmask16 lo = static_cast<__mmask16>(nr >= 16 ? 0xffff : (1u << nr) - 1);
  const __mmask16 hi = static_cast<__mmask16>(nr >= 32  ? 0xffff
                                              : nr > 16 ? (1u << (nr - 16)) - 1
                                                        : 0);
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    if (i >= mr) break;
    float* row = c + i * ldc;
    // A zero mask reads nothing and gives 0: with accumulate off, C is
    // never read.
    const __mmask16 read_lo = accumulate ? lo : 0;
    const __mmask16 read_hi = accumulate ? hi : 0;
    _mm512_mask_storeu_ps(row, lo,
                          _mm512_fmadd_ps(scale, acc[i][0], _mm512_maskz_loadu_ps(read_lo, row)));
    _mm512_mask_storeu_ps(
        row + 16, hi, _mm512_fmadd_ps(scale, acc[i][1], _mm512_maskz_loadu_ps(read_hi, row + 16)));
  }
}

}  // namespace loom::kernels
