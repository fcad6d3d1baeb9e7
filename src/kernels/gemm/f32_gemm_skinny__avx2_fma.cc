// Skinny GEMM, AVX2 + FMA. A group of R rows of C (R = 4, 2 or 1) is computed
// 64 / R columns at a time with 8 ymm accumulators; each B row segment is
// loaded once per group. Columns left over (fewer than one step) are done in
// scalar code.
#include <immintrin.h>

#include <algorithm>

#include "kernels/gemm/gemm_skinny.h"

namespace loom::kernels {
namespace {

constexpr int kAccumulators = 8;
// Depth blocks keep the B rows of a block close in the TLB and L2.
constexpr int64_t kDepth = 128;

// Rows [i0, i0 + kRows) of C, columns [j0, j1). op(A)[i0 + r][p] is
// a[r * a_row + p * a_depth]; every address lives in a local, so the inner
// loop is loads, broadcasts and FMAs (through GemmArgs, GCC reloaded its
// fields, recomputed addresses and tested transpose_a on every step, as in
// the AVX-512 kernel).
template <int kRows>
void RowGroup(const GemmArgs& g, int64_t i0, int64_t j0, int64_t j1) {
  constexpr int kVectors = kAccumulators / kRows;
  constexpr int64_t kStep = 8 * kVectors;
  const int64_t vector_end = j0 + (j1 - j0) / kStep * kStep;
  const __m256 alpha = _mm256_set1_ps(g.alpha);
  const int64_t a_row = g.transpose_a ? 1 : g.lda;
  const int64_t a_depth = g.transpose_a ? g.lda : 1;
  const float* const a_base = g.transpose_a ? g.a + i0 : g.a + i0 * g.lda;
  const int64_t ldb = g.ldb, ldc = g.ldc, k = g.k;
  const float* const b_base = g.b;
  float* const c_base = g.c + i0 * ldc;
  for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
    const int64_t p1 = std::min(k, p0 + kDepth);
    for (int64_t j = j0; j < vector_end; j += kStep) {
      __m256 acc[kRows][kVectors];
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm256_setzero_ps();
      }
      const float* b = b_base + p0 * ldb + j;
      const float* a = a_base + p0 * a_depth;
      for (int64_t p = p0; p < p1; ++p, b += ldb, a += a_depth) {
        __m256 ar[kRows];
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) ar[r] = _mm256_set1_ps(a[r * a_row]);
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
          const __m256 bv = _mm256_loadu_ps(b + 8 * v);
#pragma GCC unroll 4
          for (int r = 0; r < kRows; ++r) acc[r][v] = _mm256_fmadd_ps(ar[r], bv, acc[r][v]);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        float* c = c_base + r * ldc + j;
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
          _mm256_storeu_ps(c + 8 * v,
                           _mm256_fmadd_ps(alpha, acc[r][v], _mm256_loadu_ps(c + 8 * v)));
        }
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    float* c = c_base + r * ldc;
    const float* a = a_base + r * a_row;
    for (int64_t j = vector_end; j < j1; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[p * a_depth] * b_base[p * ldb + j];
      c[j] += g.alpha * sum;
    }
  }
}

}  // namespace

void f32_gemm_skinny__avx2_fma(const GemmArgs& g, int64_t j0, int64_t j1) {
  int64_t i = 0;
  for (; i + 4 <= g.m; i += 4) RowGroup<4>(g, i, j0, j1);
  if (i + 2 <= g.m) {
    RowGroup<2>(g, i, j0, j1);
    i += 2;
  }
  if (i < g.m) RowGroup<1>(g, i, j0, j1);
}

}  // namespace loom::kernels
