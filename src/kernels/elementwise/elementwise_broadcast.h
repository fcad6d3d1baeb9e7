// Broadcast plans: the iteration structure of an elementwise op over up to
// three broadcast inputs, prepared once per call so the hot loops never do
// index math per element.
//
// MakeBroadcastPlan drops output dimensions of size 1 and merges
// neighbouring dimensions that every input walks contiguously (or not at
// all), so common cases collapse to one or two dimensions:
//   same shapes         -> dims [n],    strides {1, 1}
//   tensor op scalar    -> dims [n],    strides {1, 0}
//   [m, n] op [n]       -> dims [m, n], strides {(n, 1), (0, 1)}
// The innermost stride of every input is 0 or 1, so ForEachRun hands out
// runs that a loop over contiguous (or repeated) elements can process.
//
// Thread safety: a plan is immutable after construction; ForEachRun may be
// called on one plan from many threads.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/op_kernel.h"
#include "loom/tensor.h"

namespace loom::kernels {

inline constexpr int kMaxBroadcastInputs = 3;

using InputOffsets = std::array<int64_t, kMaxBroadcastInputs>;

struct BroadcastPlan {
  Shape out_shape;
  int num_inputs = 0;
  // Collapsed output dimensions, outermost first; never empty.
  std::vector<int64_t> dims;
  // strides[d][k]: elements input k advances per step along dims[d]; 0 where
  // the input is broadcast. strides.back()[k] is 0 or 1.
  std::vector<InputOffsets> strides;

  int64_t inner_size() const { return dims.back(); }
  int64_t inner_stride(int input) const { return strides.back()[input]; }
};

// The plan for broadcasting `shapes` (1 to kMaxBroadcastInputs of them)
// together. Throws InvalidArgumentError "<op>: inputs 'A' [2, 3] and 'B'
// [4] cannot be broadcast: ..." naming the clashing inputs.
BroadcastPlan MakeBroadcastPlan(std::string_view op, std::span<const Shape* const> shapes,
                                std::span<const std::string_view> names);

// Calls run(out_offset, in_offsets, length) for consecutive runs covering
// output elements [begin, end) in order; each run lies within one innermost
// row, so input k's elements are in_offsets[k] + i * inner_stride(k).
template <typename RunFn>
void ForEachRun(const BroadcastPlan& plan, int64_t begin, int64_t end, RunFn&& run) {
  if (begin >= end) return;
  const int outer_rank = static_cast<int>(plan.dims.size()) - 1;
  const int64_t inner = plan.inner_size();
  // Odometer over the outer dimensions, started at element `begin`.
  std::vector<int64_t> index(static_cast<size_t>(outer_rank), 0);
  InputOffsets base{};
  int64_t rest = begin / inner;
  for (int d = outer_rank - 1; d >= 0; --d) {
    index[d] = rest % plan.dims[d];
    rest /= plan.dims[d];
    for (int k = 0; k < plan.num_inputs; ++k) base[k] += index[d] * plan.strides[d][k];
  }
  int64_t position = begin % inner;
  int64_t out = begin;
  while (out < end) {
    const int64_t length = std::min(inner - position, end - out);
    InputOffsets offsets = base;
    for (int k = 0; k < plan.num_inputs; ++k) offsets[k] += position * plan.inner_stride(k);
    run(out, offsets, length);
    out += length;
    position = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      for (int k = 0; k < plan.num_inputs; ++k) base[k] += plan.strides[d][k];
      if (++index[d] < plan.dims[d]) break;
      for (int k = 0; k < plan.num_inputs; ++k) base[k] -= plan.strides[d][k] * plan.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace loom::kernels
