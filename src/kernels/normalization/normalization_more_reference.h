// Plain references for normalization_more.h (the test oracle): textbook
// formulas in double with explicit multi-index loops, one output element at
// a time. Results are rounded to X's dtype once. No threads.
#pragma once

#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

// x / ||line||_p along `axis` (non-negative); NaN for a zero norm.
Tensor LpNormReference(const Tensor& x, int axis, int p);

// Groups of C / groups channels normalized per sample; scale, bias [C].
Tensor GroupNormReference(const Tensor& x, const Tensor& scale, const Tensor& bias, int groups,
                          double epsilon);

// Across-channel LRN as in the ONNX operator definition.
Tensor LrnReference(const Tensor& x, double alpha, double beta, double bias, int size);

// (x - mean) / (sqrt(var) + 1e-9) over `axes` (non-negative).
Tensor MvnReference(const Tensor& x, const std::vector<int>& axes);

}  // namespace loom::kernels
