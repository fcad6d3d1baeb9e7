// One row of A against whole rows of B (GemvRowsKernel, gemm_skinny.h) with
// AVX2 + FMA: the m = 1 path of the few-row GEMM on CPUs without AVX-512.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/gemm_skinny.h"

namespace loom::kernels {
namespace {

// Lanes [0, count) on (count < 8): the tail of a row.
__m256i TailMask(int64_t count) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lanes);
}

}  // namespace

void f32_gemv_rows__avx2_fma(const float* a, const float* b, int64_t ldb, int64_t p0, int64_t p1,
                             int64_t n, float* acc) {
  // Four rows of B per sweep over acc (n floats, in L1): one load and one
  // store of acc per four FMAs, and each B row read front to back.
  std::fill(acc, acc + n, 0.0f);
  const int64_t full = n & ~int64_t{7};
  const __m256i tail = TailMask(n - full);
  int64_t p = p0;
  for (; p + 4 <= p1; p += 4) {
    const __m256 a0 = _mm256_set1_ps(a[p]), a1 = _mm256_set1_ps(a[p + 1]);
    const __m256 a2 = _mm256_set1_ps(a[p + 2]), a3 = _mm256_set1_ps(a[p + 3]);
    const float* b0 = b + p * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    int64_t j = 0;
    for (; j < full; j += 8) {
      __m256 sum = _mm256_loadu_ps(acc + j);
      sum = _mm256_fmadd_ps(a0, _mm256_loadu_ps(b0 + j), sum);
      sum = _mm256_fmadd_ps(a1, _mm256_loadu_ps(b1 + j), sum);
      sum = _mm256_fmadd_ps(a2, _mm256_loadu_ps(b2 + j), sum);
      sum = _mm256_fmadd_ps(a3, _mm256_loadu_ps(b3 + j), sum);
      _mm256_storeu_ps(acc + j, sum);
    }
    if (j < n) {
      __m256 sum = _mm256_maskload_ps(acc + j, tail);
      sum = _mm256_fmadd_ps(a0, _mm256_maskload_ps(b0 + j, tail), sum);
      sum = _mm256_fmadd_ps(a1, _mm256_maskload_ps(b1 + j, tail), sum);
      sum = _mm256_fmadd_ps(a2, _mm256_maskload_ps(b2 + j, tail), sum);
      sum = _mm256_fmadd_ps(a3, _mm256_maskload_ps(b3 + j, tail), sum);
      _mm256_maskstore_ps(acc + j, tail, sum);
    }
  }
  for (; p < p1; ++p) {
    const __m256 ap = _mm256_set1_ps(a[p]);
    const float* bp = b + p * ldb;
    int64_t j = 0;
    for (; j < full; j += 8) {
      _mm256_storeu_ps(acc + j,
                       _mm256_fmadd_ps(ap, _mm256_loadu_ps(bp + j), _mm256_loadu_ps(acc + j)));
    }
    if (j < n) {
      _mm256_maskstore_ps(
          acc + j, tail,
          _mm256_fmadd_ps(ap, _mm256_maskload_ps(bp + j, tail), _mm256_maskload_ps(acc + j, tail)));
    }
  }
}

}  // namespace loom::kernels
