// Skinny GEMM, AVX2 + FMA. A group of R rows of C (R = 4, 2 or 1) is computed
// 64 / R columns at a time with 8 ymm accumulators; each B row segment is
// loaded once per group. Columns left over (fewer than one step) are done in
// scalar code.
#include <immintrin.h>

#include <algorithm>

#include "kernels/gemm_skinny.h"

namespace loom::kernels {
namespace {

constexpr int kAccumulators = 8;
// Depth blocks keep the B rows of a block close in the TLB and L2.
constexpr int64_t kDepth = 128;

inline float ElementA(const GemmArgs& g, int64_t i, int64_t p) {
  return g.transpose_a ? g.a[p * g.lda + i] : g.a[i * g.lda + p];
}

// Rows [i0, i0 + kRows) of C, columns [j0, j1).
template <int kRows>
void RowGroup(const GemmArgs& g, int64_t i0, int64_t j0, int64_t j1) {
  constexpr int kVectors = kAccumulators / kRows;
  constexpr int64_t kStep = 8 * kVectors;
  const int64_t vector_end = j0 + (j1 - j0) / kStep * kStep;
  const __m256 alpha = _mm256_set1_ps(g.alpha);
  for (int64_t p0 = 0; p0 < g.k; p0 += kDepth) {
    const int64_t p1 = std::min(g.k, p0 + kDepth);
    for (int64_t j = j0; j < vector_end; j += kStep) {
      __m256 acc[kRows][kVectors];
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm256_setzero_ps();
      }
      for (int64_t p = p0; p < p1; ++p) {
        const float* b = g.b + p * g.ldb + j;
        __m256 a[kRows];
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) a[r] = _mm256_set1_ps(ElementA(g, i0 + r, p));
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
          const __m256 bv = _mm256_loadu_ps(b + 8 * v);
#pragma GCC unroll 4
          for (int r = 0; r < kRows; ++r) acc[r][v] = _mm256_fmadd_ps(a[r], bv, acc[r][v]);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        float* c = g.c + (i0 + r) * g.ldc + j;
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
          _mm256_storeu_ps(c + 8 * v,
                           _mm256_fmadd_ps(alpha, acc[r][v], _mm256_loadu_ps(c + 8 * v)));
        }
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    float* c = g.c + (i0 + r) * g.ldc;
    for (int64_t j = vector_end; j < j1; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < g.k; ++p) sum += ElementA(g, i0 + r, p) * g.b[p * g.ldb + j];
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
