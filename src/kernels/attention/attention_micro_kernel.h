// The inner loops of LoomAttention (attention.h), one table per ISA level:
// the two small matrix products of each key block, register-tiled. They
// never parallelize: attention.cc calls them inside its ParallelFor units.
#pragma once

#include <cstdint>

#include "kernels/isa_variant.h"

namespace loom::kernels {

struct AttentionMicroKernels {
  Isa isa;
  int lanes;  // floats per vector: packed widths are multiples of it
  // The score block: for r < rows, c < cols (a multiple of lanes)
  //   s[r * s_stride + c] = Σ_{d < depth} q[r * q_stride + d] * kt[d * cols + c]
  // with d ascending for every element.
  void (*scores)(const float* q, int64_t q_stride, int64_t rows, int64_t depth, const float* kt,
                 int64_t cols, float* s, int64_t s_stride);
  // The output block: for r < rows, c < width (a multiple of lanes)
  //   acc[r * acc_stride + c] += Σ_{j < keys} p[r * p_stride + j] * v[j * v_stride + c]
  // with j ascending for every element.
  void (*accumulate)(const float* p, int64_t p_stride, int64_t rows, int64_t keys, const float* v,
                     int64_t v_stride, int64_t width, float* acc, int64_t acc_stride);
  // One query row of a key block through the online softmax:
  //   x[j] = x[j] * scale + add[j] (add may be null) for j < n;
  //   m = max(*max, max_j x[j]); x[j] = exp(x[j] - m);
  //   when m > *max: acc[0, width) *= exp(*max - m), *sum *= the same, *max = m;
  //   *sum += Σ_j x[j] (in an order that depends only on n).
  // When m is -inf (nothing but -inf so far) x becomes 0 and nothing else
  // changes. x has room for n rounded up to whole vectors; add has n floats.
  void (*softmax_row)(float* x, int64_t n, float scale, const float* add, float* max, float* sum,
                      float* acc, int64_t width);
};

const AttentionMicroKernels& AttentionMicroKernelsPortable();
const AttentionMicroKernels& AttentionMicroKernelsAvx2();    // f32_attention__avx2_fma.cc
const AttentionMicroKernels& AttentionMicroKernelsAvx512();  // f32_attention__avx512f.cc

// The table for `isa`; throws InvalidArgumentError if this CPU does not run
// `isa`.
const AttentionMicroKernels& AttentionMicroKernelsFor(Isa isa);
// The ISA levels with tables of their own (isa_variant.h).
IsaMask AttentionIsaLevels();

}  // namespace loom::kernels
