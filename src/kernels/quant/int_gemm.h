// The integer product under MatMulInteger, ConvInteger and the QLinear* ops:
//
//   C[m, n] = sum_k A[m, k] * B[k, n]      (int16 operands, int32 sums)
//
// with the zero points already subtracted from A and B, so every operand
// lies in [-255, 255]. Sums wrap modulo 2^32, as ONNX Runtime's int32
// accumulation does.
//
// B is packed in k pairs, (B[2p, n], B[2p + 1, n]) side by side, so one
// multiply-add of pairs (x86's vpmaddwd: a0 * b0 + a1 * b1 in int32, exact
// because |a * b| <= 255 * 255) adds two k steps per column. The tile
// kernels come from a table by ISA (portable; AVX2 in
// quant/s16_gemm_4x16__avx2.cc), all exact, so every ISA and thread count
// gives the same bits.
//
// Parallel over (row group, column block) units: the serial loop
//   for each unit: for each k pair: C[rows, cols] += A[rows, pair] . B[pair, cols]
#pragma once

#include <cstdint>

#include "kernels/isa_variant.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::kernels {

// One tile: rows <= 4 rows of A (row stride lda, k values, pairs = ceil(k/2)
// pairs), `cols` columns of the pair-packed B (row stride ldbp int16 per
// pair row, i.e. 2 * n), into C (row stride ldc), every element written.
using Int16GemmTileFn = void (*)(int64_t rows, int64_t cols, int64_t k, const int16_t* a,
                                 int64_t lda, const int16_t* bp, int64_t ldbp, int32_t* c,
                                 int64_t ldc);

void s16_gemm_tile__portable(int64_t rows, int64_t cols, int64_t k, const int16_t* a, int64_t lda,
                             const int16_t* bp, int64_t ldbp, int32_t* c, int64_t ldc);
void s16_gemm_4x16__avx2(int64_t rows, int64_t cols, int64_t k, const int16_t* a, int64_t lda,
                         const int16_t* bp, int64_t ldbp, int32_t* c, int64_t ldc);

// The tile kernel for the highest level `isa` allows.
Int16GemmTileFn Int16GemmTileFor(Isa isa);
// The ISA levels with tiles of their own (isa_variant.h).
IsaMask Int16GemmIsaLevels();

// a: m x k with row stride lda; b: k x n with row stride ldb; c: m x n with
// row stride ldc (every element written).
void Int16Gemm(threading::ThreadPool* pool, Isa isa, int64_t m, int64_t k, int64_t n,
               const int16_t* a, int64_t lda, const int16_t* b, int64_t ldb, int32_t* c,
               int64_t ldc);

}  // namespace loom::kernels
