// Skinny GEMM kernels for few rows of C (batch-1 style inference), B not
// transposed: no packing; B is streamed once per group of rows of A (up to 8
// rows with AVX-512, 4 with AVX2).
//
// Computes, for rows [0, m) and columns [j0, j1) of C:
//   C[i][j] += alpha * sum_p op(A)[i][p] * B[p][j]
// (C already holds beta * C + bias).
#pragma once

#include "kernels/gemm.h"

namespace loom::kernels {

using GemmSkinnyKernel = void (*)(const GemmArgs& g, int64_t j0, int64_t j1);

void f32_gemm_skinny__portable(const GemmArgs& g, int64_t j0, int64_t j1);
void f32_gemm_skinny__avx2_fma(const GemmArgs& g, int64_t j0, int64_t j1);
void f32_gemm_skinny__avx512f(const GemmArgs& g, int64_t j0, int64_t j1);

}  // namespace loom::kernels
