// Skinny GEMM kernels for few rows of C (batch-1 style inference), B not
// transposed: no packing; B is streamed once per group of rows of A (up to 8
// rows with AVX-512, 4 with AVX2).
//
// Computes, for rows [0, m) and columns [j0, j1) of C:
//   C[i][j] += alpha * sum_p op(A)[i][p] * B[p][j]
// (C already holds beta * C + bias).
#pragma once

#include "kernels/gemm/gemm.h"

namespace loom::kernels {

using GemmSkinnyKernel = void (*)(const GemmArgs& g, int64_t j0, int64_t j1);

void f32_gemm_skinny__portable(const GemmArgs& g, int64_t j0, int64_t j1);
void f32_gemm_skinny__avx2_fma(const GemmArgs& g, int64_t j0, int64_t j1);
void f32_gemm_skinny__avx512f(const GemmArgs& g, int64_t j0, int64_t j1);

// One row of A against rows [p0, p1) of B, whole rows at a time:
//   acc[j] = sum_{p in [p0, p1)} a[p] * B[p][j]  for j in [0, n)
// (acc is written, not added to). Reading each row of B from start to end
// keeps B one sequential stream; the column-blocked skinny kernel reads
// 1 KiB of every 4 KiB row per pass, which the hardware prefetchers follow
// poorly (a 1 x 4096 x 1024 GEMV ran at 20 GB/s of B, OpenBLAS's at 28).
using GemvRowsKernel = void (*)(const float* a, const float* b, int64_t ldb, int64_t p0, int64_t p1,
                                int64_t n, float* acc);

void f32_gemv_rows__avx2_fma(const float* a, const float* b, int64_t ldb, int64_t p0, int64_t p1,
                             int64_t n, float* acc);
void f32_gemv_rows__avx512f(const float* a, const float* b, int64_t ldb, int64_t p0, int64_t p1,
                            int64_t n, float* acc);

// One row of A against one k block of a prepacked B (PackedGemmMatrix::PackB:
// `panels` panels of nr columns one after another, each kc rows of nr
// contiguous floats, zero beyond the last column). For q < panels, j < nr:
//   sum[q * nr + j] (+)= sum_{p < kc} a[p] * panel_q[p * nr + j]
// written when `accumulate` is false, added to when true. B is read once,
// with the sums in registers: from DRAM (the classifier after the
// convolutions) the four-row kernel above read 1280 x 1024 at 17-18 GB/s and
// this one at 23-25 on Zen 4, from cache 80 vs 90-97
// (bench/results/gemv-packed-2026-12-04.md).
//
// kGemvPackedStreams panels at a time, front to back, so B is read as that
// many sequential streams: a core's hardware prefetcher ramps up again at
// each 4 KiB page, and several streams overlap those ramps. Sixteen cold
// 1280 x 1280 Gemms (105 MB of weights, one row each) on Zen 4, one panel
// at a time against four: 1.04-1.07x faster (node minima) at intra 1, 1.09x
// at intra 2; two streams 0.98x, eight 0.97x against four; a software
// prefetch 2 KiB ahead instead 0.88x (bench/results/nchwc-balance-
// 2026-12-04.md).
inline constexpr int kGemvPackedStreams = 4;

using GemvPackedKernel = void (*)(const float* a, const float* b, int64_t kc, int64_t panels,
                                  int nr, float* sum, bool accumulate);

void f32_gemv_packed__portable(const float* a, const float* b, int64_t kc, int64_t panels, int nr,
                               float* sum, bool accumulate);
// nr = 16 only.
void f32_gemv_packed__avx2_fma(const float* a, const float* b, int64_t kc, int64_t panels, int nr,
                               float* sum, bool accumulate);
// nr = 16 or 32.
void f32_gemv_packed__avx512f(const float* a, const float* b, int64_t kc, int64_t panels, int nr,
                              float* sum, bool accumulate);

}  // namespace loom::kernels
