// Single-precision GEMM, row-major:
//
//   C = alpha * op(A) * op(B) + beta * C  (+ bias[j] added to every row i)
//
// op(A) is m x k (A is stored k x m when transpose_a), op(B) is k x n (B is
// stored n x k when transpose_b). Leading dimensions are in elements. With
// beta == 0, C is not read (NaN or garbage in C does not leak into the
// result), as in BLAS.
//
// An epilogue, when set, runs on each finished piece of C while it is still
// in cache (after the last k block): epilogue.fn(state, &C[i][j0], i, j0,
// count) for row i, columns [j0, j0 + count). Conv uses it for the
// per-channel bias and a fused activation. Each element gets exactly one
// call.
//
// f32_gemm_reference is the plain triple loop that every optimized path is
// tested against. f32_gemm packs B into panels (A too when it comes
// transposed; a row-major A is read in place by the micro-kernel's rows
// form) and runs a register-blocked micro-kernel for `isa` (see
// src/kernels/x86/), splitting the work over `pool` with ParallelFor; a
// null pool runs on the caller. With B prepacked and A in place the whole
// product is one ParallelFor.
//
// Prepare stage: a constant operand (Conv weights as A, MatMul weights as
// B) can be packed once with PackedGemmMatrix and passed as packed_a /
// packed_b; f32_gemm then skips packing it. The raw pointer may still be
// given (the few-row path streams unpacked B and A), or null.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/isa_variant.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::base {
class AlignedBuffer;
}

namespace loom::kernels {

class PackedGemmMatrix;

struct GemmEpilogue {
  void (*fn)(const void* state, float* c, int64_t row, int64_t col, int64_t count) = nullptr;
  const void* state = nullptr;
};

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
  GemmEpilogue epilogue;
  const PackedGemmMatrix* packed_a = nullptr;  // op(A) packed for this isa, or null
  const PackedGemmMatrix* packed_b = nullptr;  // op(B) packed for this isa, or null
};

// op(A) (m x k) or op(B) (k x n) packed into the panels the `isa` micro-kernel
// reads, for every k block. Immutable after construction: one packed matrix
// may serve concurrent f32_gemm calls.
class PackedGemmMatrix {
 public:
  // Packs op(A) of `args` (m, k, a, lda, transpose_a) or op(B) (k, n, b, ldb,
  // transpose_b). Throws like ValidateGemmArgs for bad sizes or an
  // unsupported isa.
  static PackedGemmMatrix PackA(const GemmArgs& args, Isa isa);
  static PackedGemmMatrix PackB(const GemmArgs& args, Isa isa);

  Isa isa() const { return isa_; }
  int panel() const { return panel_; }
  int64_t rows() const { return rows_; }  // m for A, k for B
  int64_t cols() const { return cols_; }  // k for A, n for B
  bool is_a() const { return is_a_; }
  size_t bytes() const;
  // Panels of k block starting at depth pc (see gemm.cc for the layout).
  const float* block(int64_t pc) const;

 private:
  PackedGemmMatrix(Isa isa, int panel, bool is_a, int64_t rows, int64_t cols, size_t floats);

  Isa isa_;
  int panel_;  // MR (A) or NR (B) of the micro-kernel it was packed for
  bool is_a_;
  int64_t rows_, cols_;
  int64_t block_stride_;  // floats per unit of depth: padded m (A) or padded n (B)
  std::shared_ptr<base::AlignedBuffer> data_;
};

// Throws loom::InvalidArgumentError for negative sizes, leading dimensions
// smaller than a row, or null pointers with non-zero sizes. f32_gemm also
// throws it for an `isa` this CPU does not support.
void ValidateGemmArgs(const GemmArgs& args);

void f32_gemm_reference(const GemmArgs& args);

void f32_gemm(const GemmArgs& args, threading::ThreadPool* pool, Isa isa);

// The ISA levels with their own micro-kernels (isa_variant.h).
IsaMask GemmIsaLevels();

// Which packed micro-kernel serves Isa::kAvx512f. kAuto: the 12x32 AVX-512
// one on every CPU (gemm.cc says why Zen 4 too); kNarrow: the 6x16 AVX2
// one. The few-row path uses AVX-512 either way. Tests force each in turn;
// set it before packing, as a PackedGemmMatrix only runs with the kernel it
// was packed for.
enum class Avx512Packing { kAuto, kWide, kNarrow };
void SetAvx512PackingForTesting(Avx512Packing packing);

}  // namespace loom::kernels
