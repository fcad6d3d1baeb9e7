// One row of A against whole rows of B (GemvRowsKernel, gemm_skinny.h) with
// AVX2 + FMA: the m = 1 path of the few-row GEMM on CPUs without AVX-512.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/gemm/gemm_skinny.h"

namespace loom::kernels {
namespace {

// Lanes [0, count) on (count < 8): the tail of a row.
__m256i TailMask(int64_t count) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lanes);
}

// kPanels panels of 16 columns at once (as many streams through memory;
// gemm_skinny.h), two ymm per panel row, and kChains
// chains per ymm (depth p goes to chain p % kChains): 2 x kPanels x kChains
// independent sums, so FMAs do not wait on each other.
template <int kPanels, int kChains>
void GemvPanelGroup(const float* a, const float* b, int64_t kc, float* sum, bool accumulate) {
  __m256 lo[kPanels][kChains], hi[kPanels][kChains];
  for (int q = 0; q < kPanels; ++q) {
    for (int c = 0; c < kChains; ++c) lo[q][c] = hi[q][c] = _mm256_setzero_ps();
  }
  int64_t p = 0;
  for (; p + kChains <= kc; p += kChains) {
    for (int c = 0; c < kChains; ++c) {
      const __m256 x = _mm256_set1_ps(a[p + c]);
      for (int q = 0; q < kPanels; ++q) {
        const float* row = b + q * kc * 16 + (p + c) * 16;
        lo[q][c] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row), lo[q][c]);
        hi[q][c] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 8), hi[q][c]);
      }
    }
  }
  for (; p < kc; ++p) {
    const __m256 x = _mm256_set1_ps(a[p]);
    for (int q = 0; q < kPanels; ++q) {
      const float* row = b + q * kc * 16 + p * 16;
      lo[q][0] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row), lo[q][0]);
      hi[q][0] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 8), hi[q][0]);
    }
  }
  for (int q = 0; q < kPanels; ++q) {
    __m256 low = lo[q][0], high = hi[q][0];
    for (int c = 1; c < kChains; ++c) {
      low = _mm256_add_ps(low, lo[q][c]);
      high = _mm256_add_ps(high, hi[q][c]);
    }
    float* out = sum + q * 16;
    if (accumulate) {
      low = _mm256_add_ps(low, _mm256_loadu_ps(out));
      high = _mm256_add_ps(high, _mm256_loadu_ps(out + 8));
    }
    _mm256_storeu_ps(out, low);
    _mm256_storeu_ps(out + 8, high);
  }
}

}  // namespace

void f32_gemv_packed__avx2_fma(const float* a, const float* b, int64_t kc, int64_t panels,
                               int /*nr: 16*/, float* sum, bool accumulate) {
  int64_t q = 0;
  for (; q + kGemvPackedStreams <= panels; q += kGemvPackedStreams) {
    GemvPanelGroup<kGemvPackedStreams, 1>(a, b + q * kc * 16, kc, sum + q * 16, accumulate);
  }
  for (; q < panels; ++q) GemvPanelGroup<1, 4>(a, b + q * kc * 16, kc, sum + q * 16, accumulate);
}

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
