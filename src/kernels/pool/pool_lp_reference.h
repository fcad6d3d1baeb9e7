// Plain LpPool (the test oracle for pool_lp.cc): explicit pads, strides and
// dilations, no ceil_mode; output size floor((in + pb + pe - ((k - 1) * d
// + 1)) / s) + 1 per axis. Powers summed in double; padding adds nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

Tensor LpPoolReference(const Tensor& x, const std::vector<int64_t>& kernel,
                       const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                       const std::vector<int64_t>& dilations, int p);

}  // namespace loom::kernels
