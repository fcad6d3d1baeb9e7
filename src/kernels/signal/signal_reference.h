// Plain reference versions of the signal kernels (signal.h): the O(n^2)
// definition of the DFT, one output element at a time, in float64.
#pragma once

#include <cstdint>

#include "loom/tensor.h"

namespace loom::kernels::signal {

// DFT of x (shape checked; axis normalized, not the last) at length n.
Tensor DftReference(const Tensor& x, int axis, int64_t n, bool inverse, bool onesided);

}  // namespace loom::kernels::signal
