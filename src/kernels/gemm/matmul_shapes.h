// Shape arithmetic of MatMul: NumPy's promotion of 1-D operands and the
// broadcasting of batch dimensions, shared by the kernel and its reference.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

struct MatMulShapes {
  int64_t m = 0, k = 0, n = 0;
  std::vector<int64_t> output;    // the result's dimensions
  std::vector<int64_t> a_offset;  // per output batch: A's first element
  std::vector<int64_t> b_offset;  // per output batch: B's first element
  bool b_has_batch = false;       // false: A's batch can fold into M
};

// Throws InvalidArgumentError("<op>: ...") naming both shapes when the
// inner dimensions differ or the batch dimensions do not broadcast.
MatMulShapes ResolveMatMulShapes(std::string_view op, const Shape& a, const Shape& b);

}  // namespace loom::kernels
