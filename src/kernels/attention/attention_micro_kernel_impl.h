// The attention micro-kernels (attention_micro_kernel.h) as one template
// over an ISA's vector type, instantiated in f32_attention__avx512f.cc,
// f32_attention__avx2_fma.cc and attention_micro_kernel_portable.cc, each
// compiled with its own flags. An ISA struct A provides:
//
//   V, kLanes                  the vector type and its float count
//   kAccumulators              vector registers the tiles may hold as sums
//   kMaxColumnVectors          the widest tile, in vectors (at most 4): a
//                              tile needs R * C sums, C loaded vectors and
//                              a broadcast in registers
//   Load, Store, Broadcast, Fma(a, b, c) = a * b + c, Zero
//   Add, Sub, Mul, Max (a NaN in either operand may win or lose)
//   Exp                        exp per lane: -inf and below ~-87.3 give 0,
//                              NaN stays NaN
//   ReduceMax, ReduceAdd       across lanes, in a fixed order
//
// Both products are tiled the same way: R rows x C vectors of columns held
// in registers while the shared axis (d for scores, keys for the output)
// runs; each step loads C vectors and broadcasts one value per row. C is
// the widest of 4, 3, 2, 1 (at most kMaxColumnVectors) that the columns
// left allow, R the most rows whose R * C sums fit kAccumulators (at most
// 8).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/attention/attention_micro_kernel.h"

namespace loom::kernels::attention_detail {

template <class A, int C>
constexpr int RowsFor() {
  return std::clamp(A::kAccumulators / C, 1, 8);
}

// Calls f(std::integral_constant<int, C>{}, first_vector) over column
// groups covering `vectors` vectors, each the widest of kMaxC, ..., 2, 1
// that the vectors left allow.
template <int kMaxC, class F>
inline void ForColumnGroups(int64_t vectors, F&& f) {
  int64_t v = 0;
  while (v < vectors) {
    const int64_t left = vectors - v;
    if (kMaxC >= 4 && left >= 4) {
      f(std::integral_constant<int, 4>{}, v);
      v += 4;
    } else if (kMaxC >= 3 && left == 3) {
      f(std::integral_constant<int, 3>{}, v);
      v += 3;
    } else if (kMaxC >= 2 && left >= 2) {
      f(std::integral_constant<int, 2>{}, v);
      v += 2;
    } else {
      f(std::integral_constant<int, 1>{}, v);
      v += 1;
    }
  }
}

// Calls f(std::integral_constant<int, R>{}, first_row) over row tiles of
// kRows rows, then one tile of the rows left (fewer than kRows).
template <int kRows, class F>
inline void ForRowTiles(int64_t rows, F&& f) {
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) f(std::integral_constant<int, kRows>{}, r);
  if constexpr (kRows > 1) {
    if (r < rows) ForRowTiles<kRows - 1>(rows - r, [&](auto tile, int64_t r2) { f(tile, r + r2); });
  }
}

template <class A, int R, int C>
inline void ScoreTile(const float* q, int64_t q_stride, int64_t depth, const float* kt,
                      int64_t cols, float* s, int64_t s_stride) {
  using V = typename A::V;
  V acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = A::Zero();
  for (int64_t d = 0; d < depth; ++d) {
    V k[C];
    for (int c = 0; c < C; ++c) k[c] = A::Load(kt + d * cols + c * A::kLanes);
    for (int r = 0; r < R; ++r) {
      const V b = A::Broadcast(q[r * q_stride + d]);
      for (int c = 0; c < C; ++c) acc[r][c] = A::Fma(b, k[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) A::Store(s + r * s_stride + c * A::kLanes, acc[r][c]);
}

template <class A>
void Scores(const float* q, int64_t q_stride, int64_t rows, int64_t depth, const float* kt,
            int64_t cols, float* s, int64_t s_stride) {
  ForColumnGroups<A::kMaxColumnVectors>(cols / A::kLanes, [&](auto group, int64_t v) {
    constexpr int C = decltype(group)::value;
    const int64_t c0 = v * A::kLanes;
    ForRowTiles<RowsFor<A, C>()>(rows, [&](auto tile, int64_t r) {
      constexpr int R = decltype(tile)::value;
      ScoreTile<A, R, C>(q + r * q_stride, q_stride, depth, kt + c0, cols, s + r * s_stride + c0,
                         s_stride);
    });
  });
}

template <class A, int R, int C>
inline void AccumulateTile(const float* p, int64_t p_stride, int64_t keys, const float* v,
                           int64_t v_stride, float* acc, int64_t acc_stride) {
  using V = typename A::V;
  V sum[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) sum[r][c] = A::Load(acc + r * acc_stride + c * A::kLanes);
  for (int64_t j = 0; j < keys; ++j) {
    V row[C];
    for (int c = 0; c < C; ++c) row[c] = A::Load(v + j * v_stride + c * A::kLanes);
    for (int r = 0; r < R; ++r) {
      const V b = A::Broadcast(p[r * p_stride + j]);
      for (int c = 0; c < C; ++c) sum[r][c] = A::Fma(b, row[c], sum[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) A::Store(acc + r * acc_stride + c * A::kLanes, sum[r][c]);
}

template <class A>
void Accumulate(const float* p, int64_t p_stride, int64_t rows, int64_t keys, const float* v,
                int64_t v_stride, int64_t width, float* acc, int64_t acc_stride) {
  ForColumnGroups<A::kMaxColumnVectors>(width / A::kLanes, [&](auto group, int64_t vec) {
    constexpr int C = decltype(group)::value;
    const int64_t c0 = vec * A::kLanes;
    ForRowTiles<RowsFor<A, C>()>(rows, [&](auto tile, int64_t r) {
      constexpr int R = decltype(tile)::value;
      AccumulateTile<A, R, C>(p + r * p_stride, p_stride, keys, v + c0, v_stride,
                              acc + r * acc_stride + c0, acc_stride);
    });
  });
}

// AttentionMicroKernels::softmax_row. The last n % kLanes elements go
// through a vector-sized buffer padded with -inf, so every step is a whole
// vector and padding adds nothing to the max or (as exp(-inf) = 0) the sum.
template <class A>
void SoftmaxRow(float* x, int64_t n, float scale, const float* add, float* max, float* sum,
                float* acc, int64_t width) {
  using V = typename A::V;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const int64_t whole = n / A::kLanes * A::kLanes;
  const int64_t tail = n - whole;
  alignas(64) float buffer[A::kLanes];
  const V s = A::Broadcast(scale);
  V top = A::Broadcast(-kInf);
  for (int64_t j = 0; j < whole; j += A::kLanes) {
    V y = A::Mul(A::Load(x + j), s);
    if (add != nullptr) y = A::Add(y, A::Load(add + j));
    A::Store(x + j, y);
    top = A::Max(top, y);
  }
  if (tail > 0) {
    for (int64_t j = 0; j < tail; ++j) {
      buffer[j] = x[whole + j] * scale + (add != nullptr ? add[whole + j] : 0.0f);
    }
    for (int64_t j = tail; j < A::kLanes; ++j) buffer[j] = -kInf;
    top = A::Max(top, A::Load(buffer));
  }
  const float old_max = *max;
  const float new_max = std::max(old_max, A::ReduceMax(top));
  if (new_max == -kInf) {
    // exp(-inf - -inf) would be NaN: these keys add nothing yet.
    std::fill(x, x + n, 0.0f);
    return;
  }
  const V m = A::Broadcast(new_max);
  V total = A::Zero();
  for (int64_t j = 0; j < whole; j += A::kLanes) {
    const V e = A::Exp(A::Sub(A::Load(x + j), m));
    A::Store(x + j, e);
    total = A::Add(total, e);
  }
  if (tail > 0) {
    const V e = A::Exp(A::Sub(A::Load(buffer), m));
    A::Store(buffer, e);
    total = A::Add(total, e);
    std::copy(buffer, buffer + tail, x + whole);
  }
  if (new_max != old_max) {
    const float alpha = std::exp(old_max - new_max);  // 0 on the first block
    const V a = A::Broadcast(alpha);
    for (int64_t c = 0; c < width; c += A::kLanes) A::Store(acc + c, A::Mul(A::Load(acc + c), a));
    *sum *= alpha;
    *max = new_max;
  }
  *sum += A::ReduceAdd(total);
}

template <class A>
constexpr AttentionMicroKernels MakeTable(Isa isa) {
  return AttentionMicroKernels{isa, A::kLanes, Scores<A>, Accumulate<A>, SoftmaxRow<A>};
}

}  // namespace loom::kernels::attention_detail
