// Plain references for the bitwise ops (elementwise_bitwise.h) and PRelu:
// per output element, the multi-index and each input's broadcast offset
// are recomputed; integers go through uint64 bit patterns, floats through
// double. No threads, no shortcuts. The test oracle for those kernels.
#pragma once

#include <string_view>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

// op: "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift" (attrs'
// direction) with inputs a, b; "BitwiseNot" with b == nullptr.
Tensor BitwiseReference(std::string_view op, const Attributes& attrs, const Tensor& a,
                        const Tensor* b);

// x < 0 ? slope * x : x, slope broadcast to x's shape.
Tensor PReluReference(const Tensor& x, const Tensor& slope);

}  // namespace loom::kernels
