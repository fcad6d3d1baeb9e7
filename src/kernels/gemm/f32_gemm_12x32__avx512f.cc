// 12 x 32 tile with AVX-512F: 24 zmm accumulators, 2 for B, 1 broadcast of
// A, within the 32 zmm registers. Compiled with -mavx512f (CMakeLists).
// Two forms: A packed (f32_gemm_12x32__avx512f) and A read in place, row by
// row (f32_gemm_12x32_rows__avx512f): the same multiply-adds in the same
// order and the same store, so the same bits.
#include <immintrin.h>

#include "kernels/gemm/gemm_micro_kernel.h"

namespace loom::kernels {
namespace {

constexpr int kMr = 12, kNr = 32;

// Stores rows [0, mr) (mr <= MR) of a tile: C = alpha * acc (+ C if
// accumulate). A full 12 x 32 tile in plain vectors (alpha * acc alone
// without accumulate, C never read); an edge tile through masks, where a
// zero read mask gives 0, so C is not read either. The loops are fully
// unrolled so every acc index is a constant and the accumulators stay in
// registers.
template <int MR>
__attribute__((always_inline)) inline void StoreTile(__m512 (&acc)[MR][2], float* c, int64_t ldc,
                                                     float alpha, int mr, int nr, bool accumulate) {
  const __m512 scale = _mm512_set1_ps(alpha);
  if (MR == kMr && mr == kMr && nr == kNr) {
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      float* row = c + i * ldc;
      if (accumulate) {
        _mm512_storeu_ps(row, _mm512_fmadd_ps(scale, acc[i][0], _mm512_loadu_ps(row)));
        _mm512_storeu_ps(row + 16, _mm512_fmadd_ps(scale, acc[i][1], _mm512_loadu_ps(row + 16)));
      } else {
        _mm512_storeu_ps(row, _mm512_mul_ps(scale, acc[i][0]));
        _mm512_storeu_ps(row + 16, _mm512_mul_ps(scale, acc[i][1]));
      }
    }
    return;
  }
  const __mmask16 lo = static_cast<__mmask16>(nr >= 16 ? 0xffff : (1u << nr) - 1);
  const __mmask16 hi = static_cast<__mmask16>(nr >= 32  ? 0xffff
                                              : nr > 16 ? (1u << (nr - 16)) - 1
                                                        : 0);
  const __mmask16 read_lo = accumulate ? lo : 0;
  const __mmask16 read_hi = accumulate ? hi : 0;
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    if (i >= mr) break;
    float* row = c + i * ldc;
    _mm512_mask_storeu_ps(row, lo,
                          _mm512_fmadd_ps(scale, acc[i][0], _mm512_maskz_loadu_ps(read_lo, row)));
    _mm512_mask_storeu_ps(
        row + 16, hi, _mm512_fmadd_ps(scale, acc[i][1], _mm512_maskz_loadu_ps(read_hi, row + 16)));
  }
}

// MR rows of A in place: row i at a + i * lda. Only the MR rows are read
// and multiplied, so an edge tile of 4 rows costs 4 rows' work, not 12.
// kEvery > 0: one cache line of `prefetch` every kEvery steps (prefetcht0).
template <int MR, int kEvery>
void RowsTile(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
              float alpha, int nr, bool accumulate, const float* prefetch) {
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  // Rows in three groups of up to four, each addressed from its own base
  // with lda and 3 * lda in registers: few general registers, no spills.
  const float* a0 = a;
  const float* a4 = a + 4 * lda;
  const float* a8 = a + 8 * lda;
  const int64_t lda3 = 3 * lda;
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b + p * kNr);
    const __m512 b1 = _mm512_load_ps(b + p * kNr + 16);
    if (kEvery > 0 && p % kEvery == 0) {
      _mm_prefetch(reinterpret_cast<const char*>(prefetch + p / kEvery * 16), _MM_HINT_T0);
    }
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      const float* base = i < 4 ? a0 : i < 8 ? a4 : a8;
      const int j = i % 4;
      const float* at = j == 0 ? base : j == 1 ? base + lda : j == 2 ? base + 2 * lda : base + lda3;
      const __m512 ai = _mm512_set1_ps(at[p]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  StoreTile<MR>(acc, c, ldc, alpha, MR, nr, accumulate);
}

}  // namespace

void f32_gemm_12x32__avx512f(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             float alpha, int mr, int nr, bool accumulate) {
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
  StoreTile<kMr>(acc, c, ldc, alpha, mr, nr, accumulate);
}

void f32_gemm_12x32_rows__avx512f(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                                  int64_t ldc, float alpha, int mr, int nr, bool accumulate,
                                  const float* prefetch, int prefetch_every) {
  WithRowCount<kMr>(mr, [&](auto rows) {
    constexpr int kRows = decltype(rows)::value;
    if (prefetch == nullptr) {
      RowsTile<kRows, 0>(kc, a, lda, b, c, ldc, alpha, nr, accumulate, nullptr);
    } else if (prefetch_every <= 2) {
      RowsTile<kRows, 2>(kc, a, lda, b, c, ldc, alpha, nr, accumulate, prefetch);
    } else {
      RowsTile<kRows, 4>(kc, a, lda, b, c, ldc, alpha, nr, accumulate, prefetch);
    }
  });
}

}  // namespace loom::kernels
