// Which axes a reduction runs over, and the reduction recast in a canonical
// form the loops in reduce.cc and reduce_arg.cc walk without per-element
// index arithmetic.
//
// Canonical form: size-1 dimensions are dropped (they change no offset) and
// neighbouring dimensions of the same kind (kept / reduced) are merged, so
// a [N, C, H, W] reduction over {2, 3} becomes kept [N*C] + reduced [H*W]:
// one contiguous run per output. Each group is a (size, stride) pair.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

// Sorted, non-negative, unique axes of the ONNX reduce ops. Reads the axes
// input (int64, rank 1) if present, else the "axes" attribute. When none
// are given: every axis, or none at all if noop_with_empty_axes = 1.
// Throws for a bad axes input, an out-of-range or a repeated axis.
std::vector<int> ResolveReduceAxes(std::string_view op, const Attributes& attrs,
                                   const Tensor* axes_input, int rank);

struct ReduceDim {
  int64_t size;
  int64_t stride;  // in elements
};

struct ReduceGeometry {
  Shape output_shape;
  int64_t num_outputs = 1;
  int64_t reduce_count = 1;  // elements combined into each output
  // Canonical form, outermost first; filled only when the input is not
  // empty. kept / reduced hold the groups of each kind in order.
  std::vector<ReduceDim> kept;
  std::vector<ReduceDim> reduced;
  // True when the innermost group is reduced: each output then reads
  // reduce_count / inner contiguous runs of `inner` elements. Otherwise
  // the innermost group (size `inner`) is kept and outputs come in
  // contiguous rows of `inner`.
  bool inner_reduced = false;
  int64_t inner = 1;
};

// `axes` sorted, unique and in range (as ResolveReduceAxes returns).
ReduceGeometry MakeReduceGeometry(const Shape& input, const std::vector<int>& axes, bool keepdims);

// Walks the offsets of a list of groups in row-major order, one step at a
// time (a division-free odometer).
class ReduceOdometer {
 public:
  explicit ReduceOdometer(const std::vector<ReduceDim>& dims, size_t count, int64_t start = 0);
  int64_t offset() const { return offset_; }
  void Next();
  void Reset();  // back to the first position

 private:
  std::vector<ReduceDim> dims_;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;
};

}  // namespace loom::kernels
