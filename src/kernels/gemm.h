// Single-precision GEMM, row-major:
//
//   C = alpha * op(A) * op(B) + beta * C  (+ bias[j] added to every row i)
//
// op(A) is m x k (A is stored k x m when transpose_a), op(B) is k x n (B is
// stored n x k when transpose_b). Leading dimensions are in elements. With
// beta == 0, C is not read (NaN or garbage in C does not leak into the
// result), as in BLAS.
//
// f32_gemm_reference is the plain triple loop that every optimized path is
// tested against. f32_gemm packs A and B into panels and runs a
// register-blocked micro-kernel for `isa` (see src/kernels/x86/), splitting
// the work over `pool` with ParallelFor; a null pool runs on the caller.
#pragma once

#include <cstdint>

#include "kernels/isa.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::kernels {

struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
  float alpha = 1.0f;
  float beta = 0.0f;
  const float* a = nullptr;
  int64_t lda = 0;
  const float* b = nullptr;
  int64_t ldb = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  const float* bias = nullptr;  // n values, or null
};

// Throws loom::InvalidArgumentError for negative sizes, leading dimensions
// smaller than a row, or null pointers with non-zero sizes. f32_gemm also
// throws it for an `isa` this CPU does not support.
void ValidateGemmArgs(const GemmArgs& args);

void f32_gemm_reference(const GemmArgs& args);

void f32_gemm(const GemmArgs& args, threading::ThreadPool* pool, Isa isa);

}  // namespace loom::kernels
