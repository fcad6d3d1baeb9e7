// Skinny GEMM, AVX-512F. A group of R rows of C is computed 16 x V columns at
// a time with R x V zmm accumulators (8 x 3, 4 x 4, 2 x 8, 1 x 16: long
// contiguous B segments for few rows, fewer passes over B for more rows);
// each B row segment is loaded once per group.
#include <immintrin.h>

#include <algorithm>

#include "kernels/gemm/gemm_skinny.h"

namespace loom::kernels {
namespace {

// Depth blocks keep the B rows of a block close in the TLB and L2.
constexpr int64_t kDepth = 128;

inline __mmask16 MaskFor(int64_t cols_left) {
  const int64_t n = std::clamp<int64_t>(cols_left, 0, 16);
  return static_cast<__mmask16>(n == 16 ? 0xffff : (1u << n) - 1);
}

// One segment of 16 * kVectors columns of kRows rows of C over depths
// [p0, p1): op(A)[r][p] is a[r * a_row + p * a_depth], B's row p starts at
// b + p * ldb, C's row r at c + r * ldc. kMasked: the segment runs past the
// last column (masks say which lanes are real); whole segments load and
// store plainly, so no mask register is live in their loop. Every address
// is a local: reading them through GemmArgs made GCC reload its fields,
// recompute addresses with imul and test transpose_a on every step (~45
// instructions for 16 FMAs).
template <int kRows, int kVectors, bool kMasked>
__attribute__((always_inline)) inline void Segment(const float* a, int64_t a_row, int64_t a_depth,
                                                   const float* b, int64_t ldb, float* c,
                                                   int64_t ldc, int64_t p0, int64_t p1,
                                                   int64_t cols, __m512 alpha) {
  // Registers: accumulators, plus either every B vector and one broadcast or
  // every broadcast and one B vector, whichever fits in the 32 zmm.
  constexpr bool kLoadAllB = kRows * kVectors + kVectors + 1 <= 32;
  static_assert(kLoadAllB || kRows * kVectors + kRows + 1 <= 32, "tile does not fit");
  __mmask16 masks[kVectors];
#pragma GCC unroll 16
  for (int v = 0; v < kVectors; ++v) masks[v] = kMasked ? MaskFor(cols - 16 * v) : 0xffff;
  auto load = [&](const float* from, int v) {
    return kMasked ? _mm512_maskz_loadu_ps(masks[v], from) : _mm512_loadu_ps(from);
  };
  __m512 acc[kRows][kVectors];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  b += p0 * ldb;
  a += p0 * a_depth;
  for (int64_t p = p0; p < p1; ++p, b += ldb, a += a_depth) {
    if constexpr (kLoadAllB) {
      __m512 bv[kVectors];
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) bv[v] = load(b + 16 * v, v);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const __m512 ar = _mm512_set1_ps(a[r * a_row]);
#pragma GCC unroll 16
        for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_fmadd_ps(ar, bv[v], acc[r][v]);
      }
    } else {
      __m512 ar[kRows];
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) ar[r] = _mm512_set1_ps(a[r * a_row]);
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) {
        const __m512 bv = load(b + 16 * v, v);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) acc[r][v] = _mm512_fmadd_ps(ar[r], bv, acc[r][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    float* row = c + r * ldc;
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) {
      const __m512 updated = _mm512_fmadd_ps(alpha, acc[r][v], load(row + 16 * v, v));
      if (kMasked) {
        _mm512_mask_storeu_ps(row + 16 * v, masks[v], updated);
      } else {
        _mm512_storeu_ps(row + 16 * v, updated);
      }
    }
  }
}

// Rows [i0, i0 + kRows) of C, columns [j0, j1), in segments of 16 *
// kVectors columns and depth blocks of kDepth.
template <int kRows, int kVectors>
void RowGroup(const GemmArgs& g, int64_t i0, int64_t j0, int64_t j1) {
  constexpr int64_t kCols = 16 * kVectors;
  const __m512 alpha = _mm512_set1_ps(g.alpha);
  const int64_t a_row = g.transpose_a ? 1 : g.lda;
  const int64_t a_depth = g.transpose_a ? g.lda : 1;
  const float* const a = g.transpose_a ? g.a + i0 : g.a + i0 * g.lda;
  float* const c = g.c + i0 * g.ldc;
  for (int64_t p0 = 0; p0 < g.k; p0 += kDepth) {
    const int64_t p1 = std::min(g.k, p0 + kDepth);
    int64_t j = j0;
    for (; j + kCols <= j1; j += kCols) {
      Segment<kRows, kVectors, false>(a, a_row, a_depth, g.b + j, g.ldb, c + j, g.ldc, p0, p1,
                                      kCols, alpha);
    }
    if (j < j1) {
      Segment<kRows, kVectors, true>(a, a_row, a_depth, g.b + j, g.ldb, c + j, g.ldc, p0, p1,
                                     j1 - j, alpha);
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
