// GEMM micro-kernels: each computes one MR x NR tile of C from packed panels.
//
//   a: kc x MR, packed column by column (a[p * MR + i] = A[i][p])
//   b: kc x NR, packed row by row       (b[p * NR + j] = B[p][j])
//   C[i][j] = alpha * sum_p a[p*MR+i] * b[p*NR+j] (+ C[i][j] if accumulate)
//                                                     for i < mr, j < nr
//
// accumulate = false (the first k block of a GEMM with beta = 0 and no bias)
// writes C without reading it: the caller then skips initializing C, which
// for a short k (a pointwise convolution's 16-96 input channels) saves two
// of the four passes over C.
//
// Panels are zero-padded to MR / NR, so a kernel may compute the full tile
// and store only the valid mr x nr corner.
#pragma once

#include <cstdint>
#include <type_traits>

namespace loom::kernels {

using GemmMicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                 float alpha, int mr, int nr, bool accumulate);

void f32_gemm_4x8__portable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                            float alpha, int mr, int nr, bool accumulate);
void f32_gemm_6x16__avx2_fma(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             float alpha, int mr, int nr, bool accumulate);
void f32_gemm_12x32__avx512f(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             float alpha, int mr, int nr, bool accumulate);

// The same tile with A read in place instead of packed: A[i][p] =
// a[i * lda + p] for i < mr (only those rows are read, and only they are
// multiplied). The multiply-adds and their order are those of the packed
// kernel, so both give the same bits. Small products skip packing A, a
// scalar transpose that took a quarter of a 64 x 128 x 128 MatMul.
//
// `prefetch` (or null): cache lines the caller reads next, which the kernel
// prefetches into L1 while it computes, one line every `prefetch_every`
// steps (2 or 4: kc / 2 or kc / 4 lines from `prefetch` on; the AVX-512
// kernel; the AVX2 one ignores it). The driver points each row tile of a
// unit at its slice of the next B panel: weights streamed from L3 then
// arrive spread over the unit's tiles instead of all during its first
// (gemm.cc, RunPrepackedB).
using GemmRowsMicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, const float* b,
                                     float* c, int64_t ldc, float alpha, int mr, int nr,
                                     bool accumulate, const float* prefetch, int prefetch_every);

// For the rows forms: calls f(std::integral_constant<int, r>{}) with r = mr
// clamped to [1, kMaxRows], turning the run-time row count of a tile into a
// compile-time one (each ISA file instantiates it with its own lambda).
template <int kMaxRows, class F>
inline void WithRowCount(int mr, F&& f) {
  if constexpr (kMaxRows > 1) {
    if (mr < kMaxRows) return WithRowCount<kMaxRows - 1>(mr, f);
  }
  f(std::integral_constant<int, kMaxRows>{});
}

void f32_gemm_6x16_rows__avx2_fma(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                                  int64_t ldc, float alpha, int mr, int nr, bool accumulate,
                                  const float* prefetch, int prefetch_every);
void f32_gemm_12x32_rows__avx512f(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                                  int64_t ldc, float alpha, int mr, int nr, bool accumulate,
                                  const float* prefetch, int prefetch_every);

}  // namespace loom::kernels
