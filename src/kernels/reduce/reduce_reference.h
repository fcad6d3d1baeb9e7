// Plain reference reductions: the test oracle for reduce.h. For each output
// element they gather its input values with explicit multi-index arithmetic
// and apply the textbook formula, accumulating in double (floats) or in
// wrapping 64-bit integers (integers). Slow on purpose; no threads, no ISA.
#pragma once

#include <string_view>
#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

// `op` is the ONNX name ("ReduceSum", ..., "ReduceLogSum"); `axes` are
// sorted, unique and non-negative (empty = reduce nothing: each element
// alone). Semantics as documented in reduce.h.
Tensor ReduceReference(std::string_view op, const Tensor& x, const std::vector<int>& axes,
                       bool keepdims);

// ArgMax (is_max) or ArgMin along `axis` (non-negative); int64 output.
Tensor ArgReduceReference(bool is_max, const Tensor& x, int axis, bool keepdims,
                          bool select_last_index);

}  // namespace loom::kernels
