// Skinny GEMM, AVX-512F. A group of R rows of C is computed 16 x V columns at
// a time with R x V zmm accumulators (8 x 3, 4 x 4, 2 x 8, 1 x 16: long
// contiguous B segments for few rows, fewer passes over B for more rows);
// each B row segment is loaded once per group.
#include <immintrin.h>

#include <algorithm>

#include "kernels/gemm_skinny.h"

namespace loom::kernels {
namespace {

// Depth blocks keep the B rows of a block close in the TLB and L2.
constexpr int64_t kDepth = 128;

inline float ElementA(const GemmArgs& g, int64_t i, int64_t p) {
  return g.transpose_a ? g.a[p * g.lda + i] : g.a[i * g.lda + p];
}

inline __mmask16 MaskFor(int64_t cols_left) {
  const int64_t n = std::clamp<int64_t>(cols_left, 0, 16);
  return static_cast<__mmask16>(n == 16 ? 0xffff : (1u << n) - 1);
}

// Rows [i0, i0 + kRows) of C, columns [j0, j1).
template <int kRows, int kVectors>
void RowGroup(const GemmArgs& g, int64_t i0, int64_t j0, int64_t j1) {
  // Registers: accumulators, plus either every B vector and one broadcast or
  // every broadcast and one B vector, whichever fits in the 32 zmm.
  constexpr bool kLoadAllB = kRows * kVectors + kVectors + 1 <= 32;
  static_assert(kLoadAllB || kRows * kVectors + kRows + 1 <= 32, "tile does not fit");
  const __m512 alpha = _mm512_set1_ps(g.alpha);
  for (int64_t p0 = 0; p0 < g.k; p0 += kDepth) {
    const int64_t p1 = std::min(g.k, p0 + kDepth);
    for (int64_t j = j0; j < j1; j += 16 * kVectors) {
      __mmask16 masks[kVectors];
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) masks[v] = MaskFor(j1 - j - 16 * v);
      __m512 acc[kRows][kVectors];
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 16
        for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_setzero_ps();
      }
      for (int64_t p = p0; p < p1; ++p) {
        const float* b = g.b + p * g.ldb + j;
        if constexpr (kLoadAllB) {
          __m512 bv[kVectors];
#pragma GCC unroll 16
          for (int v = 0; v < kVectors; ++v) bv[v] = _mm512_maskz_loadu_ps(masks[v], b + 16 * v);
#pragma GCC unroll 8
          for (int r = 0; r < kRows; ++r) {
            const __m512 a = _mm512_set1_ps(ElementA(g, i0 + r, p));
#pragma GCC unroll 16
            for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_fmadd_ps(a, bv[v], acc[r][v]);
          }
        } else {
          __m512 a[kRows];
#pragma GCC unroll 8
          for (int r = 0; r < kRows; ++r) a[r] = _mm512_set1_ps(ElementA(g, i0 + r, p));
#pragma GCC unroll 16
          for (int v = 0; v < kVectors; ++v) {
            const __m512 bv = _mm512_maskz_loadu_ps(masks[v], b + 16 * v);
#pragma GCC unroll 8
            for (int r = 0; r < kRows; ++r) acc[r][v] = _mm512_fmadd_ps(a[r], bv, acc[r][v]);
          }
        }
      }
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        float* c = g.c + (i0 + r) * g.ldc + j;
#pragma GCC unroll 16
        for (int v = 0; v < kVectors; ++v) {
          const __m512 old = _mm512_maskz_loadu_ps(masks[v], c + 16 * v);
          _mm512_mask_storeu_ps(c + 16 * v, masks[v], _mm512_fmadd_ps(alpha, acc[r][v], old));
        }
      }
    }
  }
}

// Panels of 16 * kVectors columns; kChains independent sums per vector
// (depth p goes to chain p % kChains) so FMAs do not wait on each other.
// kPanels panels at a time: as many streams through memory (gemm_skinny.h).
template <int kVectors, int kChains, int kPanels>
void GemvPanelGroup(const float* a, const float* b, int64_t kc, float* sum, bool accumulate) {
  constexpr int kNr = 16 * kVectors;
  __m512 acc[kPanels][kChains][kVectors];
  for (auto& panel : acc) {
    for (auto& chain : panel) {
      for (__m512& v : chain) v = _mm512_setzero_ps();
    }
  }
  int64_t p = 0;
  for (; p + kChains <= kc; p += kChains) {
    for (int c = 0; c < kChains; ++c) {
      const __m512 x = _mm512_set1_ps(a[p + c]);
      for (int q = 0; q < kPanels; ++q) {
        const float* row = b + q * kc * kNr + (p + c) * kNr;
        for (int v = 0; v < kVectors; ++v) {
          acc[q][c][v] = _mm512_fmadd_ps(x, _mm512_loadu_ps(row + 16 * v), acc[q][c][v]);
        }
      }
    }
  }
  for (; p < kc; ++p) {
    const __m512 x = _mm512_set1_ps(a[p]);
    for (int q = 0; q < kPanels; ++q) {
      const float* row = b + q * kc * kNr + p * kNr;
      for (int v = 0; v < kVectors; ++v) {
        acc[q][0][v] = _mm512_fmadd_ps(x, _mm512_loadu_ps(row + 16 * v), acc[q][0][v]);
      }
    }
  }
  for (int q = 0; q < kPanels; ++q) {
    for (int v = 0; v < kVectors; ++v) {
      __m512 total = acc[q][0][v];
      for (int c = 1; c < kChains; ++c) total = _mm512_add_ps(total, acc[q][c][v]);
      float* out = sum + q * kNr + 16 * v;
      if (accumulate) total = _mm512_add_ps(total, _mm512_loadu_ps(out));
      _mm512_storeu_ps(out, total);
    }
  }
}

template <int kVectors, int kChains>
void GemvPanels(const float* a, const float* b, int64_t kc, int64_t panels, float* sum,
                bool accumulate) {
  constexpr int kNr = 16 * kVectors;
  int64_t q = 0;
  for (; q + kGemvPackedStreams <= panels; q += kGemvPackedStreams) {
    GemvPanelGroup<kVectors, kChains, kGemvPackedStreams>(a, b + q * kc * kNr, kc, sum + q * kNr,
                                                          accumulate);
  }
  for (; q < panels; ++q) {
    GemvPanelGroup<kVectors, kChains, 1>(a, b + q * kc * kNr, kc, sum + q * kNr, accumulate);
  }
}

}  // namespace

void f32_gemv_packed__avx512f(const float* a, const float* b, int64_t kc, int64_t panels, int nr,
                              float* sum, bool accumulate) {
  if (nr == 32) {
    GemvPanels<2, 2>(a, b, kc, panels, sum, accumulate);
  } else {
    GemvPanels<1, 4>(a, b, kc, panels, sum, accumulate);
  }
}

void f32_gemv_rows__avx512f(const float* a, const float* b, int64_t ldb, int64_t p0, int64_t p1,
                            int64_t n, float* acc) {
  // Four rows of B per sweep over acc (n floats, in L1): one load and one
  // store of acc per four FMAs, and each B row read front to back.
  std::fill(acc, acc + n, 0.0f);
  int64_t p = p0;
  for (; p + 4 <= p1; p += 4) {
    const __m512 a0 = _mm512_set1_ps(a[p]), a1 = _mm512_set1_ps(a[p + 1]);
    const __m512 a2 = _mm512_set1_ps(a[p + 2]), a3 = _mm512_set1_ps(a[p + 3]);
    const float* b0 = b + p * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    for (int64_t j = 0; j < n; j += 16) {
      const __mmask16 mask = MaskFor(n - j);
      __m512 sum = _mm512_maskz_loadu_ps(mask, acc + j);
      sum = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(mask, b0 + j), sum);
      sum = _mm512_fmadd_ps(a1, _mm512_maskz_loadu_ps(mask, b1 + j), sum);
      sum = _mm512_fmadd_ps(a2, _mm512_maskz_loadu_ps(mask, b2 + j), sum);
      sum = _mm512_fmadd_ps(a3, _mm512_maskz_loadu_ps(mask, b3 + j), sum);
      _mm512_mask_storeu_ps(acc + j, mask, sum);
    }
  }
  for (; p < p1; ++p) {
    const __m512 ap = _mm512_set1_ps(a[p]);
    const float* bp = b + p * ldb;
    for (int64_t j = 0; j < n; j += 16) {
      const __mmask16 mask = MaskFor(n - j);
      const __m512 sum = _mm512_fmadd_ps(ap, _mm512_maskz_loadu_ps(mask, bp + j),
                                         _mm512_maskz_loadu_ps(mask, acc + j));
      _mm512_mask_storeu_ps(acc + j, mask, sum);
    }
  }
}

void f32_gemm_skinny__avx512f(const GemmArgs& g, int64_t j0, int64_t j1) {
  int64_t i = 0;
  for (; i + 8 <= g.m; i += 8) RowGroup<8, 3>(g, i, j0, j1);
  if (i + 4 <= g.m) {
    RowGroup<4, 4>(g, i, j0, j1);
    i += 4;
  }
  if (i + 2 <= g.m) {
    RowGroup<2, 8>(g, i, j0, j1);
    i += 2;
  }
  if (i < g.m) RowGroup<1, 16>(g, i, j0, j1);
}

}  // namespace loom::kernels
