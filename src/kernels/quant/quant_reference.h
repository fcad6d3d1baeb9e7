// Plain references of the quantized ops (test oracles): element by element,
// int64 sums, float64 arithmetic where the kernels' comments say so, and
// scales and zero points given as plain vectors.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels::reference {

// QuantizeLinear of a float32 x: scale/zero point per tensor (size 1), per
// axis (block_size 0) or blocked (scale_dims: the scale's shape).
Tensor QuantizeLinearReference(const Tensor& x, const std::vector<float>& scale,
                               const std::vector<int32_t>& zero_point,
                               const std::vector<int64_t>& scale_dims, int axis, int64_t block_size,
                               DType out_dtype);

// DequantizeLinear to float32, the same layouts.
Tensor DequantizeLinearReference(const Tensor& x, const std::vector<float>& scale,
                                 const std::vector<int32_t>& zero_point,
                                 const std::vector<int64_t>& scale_dims, int axis,
                                 int64_t block_size);

// MatMulInteger: zero points per tensor (size 1), per row of A (size M) or
// per column of B (size N). int32 result.
Tensor MatMulIntegerReference(const Tensor& a, const Tensor& b,
                              const std::vector<int32_t>& a_zero_point,
                              const std::vector<int32_t>& b_zero_point);

// ConvInteger: x zero point per tensor, w zero point per tensor or per
// output channel; Conv's attributes. int32 result.
Tensor ConvIntegerReference(const Tensor& x, const Tensor& w, int32_t x_zero_point,
                            const std::vector<int32_t>& w_zero_point, const Attributes& attrs);

// round_half_even(sums * multiplier[c]) + zero_point, saturated to
// `out_dtype` (int8/uint8), where c = (element / inner) % channels;
// `bias` (size channels, or empty) is added to the sums first.
Tensor RequantizeReference(const Tensor& sums, const std::vector<float>& multiplier,
                           const std::vector<int32_t>& bias, int64_t channels, int64_t inner,
                           int32_t zero_point, DType out_dtype);

// LoomQLinearAdd (quant.h) on same-shape int8/uint8 a and b, element by
// element: the float32 dequantize, sum, optional max(., 0) and division
// (the op's definition), then std::nearbyint and a saturating clamp in
// float64.
Tensor QLinearAddReference(const Tensor& a, float a_scale, int32_t a_zero_point, const Tensor& b,
                           float b_scale, int32_t b_zero_point, float y_scale, int32_t y_zero_point,
                           DType out_dtype, bool relu);

}  // namespace loom::kernels::reference
