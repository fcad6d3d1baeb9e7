// The quantized-inference ops (ONNX): QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv; and Loom's internal LoomQLinearAdd.
//
// Integer types: Loom has int8, uint8, int16, uint16 and int32; the float8,
// int4, uint4 and float4 variants of these ops are refused (the importer
// reports them before any kernel runs).
//
// Arithmetic, as ONNX's reference does it:
// - QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point);
//   the division in float32 (float16 and bfloat16 widened first, int32 in
//   float64), rounding once.
// - DequantizeLinear: y = (x - zero_point) * scale, rounded once to the
//   scale's type (or output_dtype): in float32 for 8/16-bit x (x - zero is
//   exact there), in float64 for int32 x.
// - The integer products (MatMulInteger, ConvInteger and the QLinear* ops)
//   subtract the zero points, widen to int16 (exact: a difference of two
//   8-bit values lies in [-255, 255]) and accumulate in int32 (wrapping
//   modulo 2^32 as ONNX Runtime does). Results are exact, so every thread
//   count gives the same bits.
// - QLinear* requantize: y = saturate(round_half_even(acc * m) + y_zero_point)
//   with m = a_scale * b_scale / y_scale in float32 and the product in
//   float64.
//
// Scales and zero points: per tensor (a scalar or one-element 1-D tensor),
// per axis (QuantizeLinear/DequantizeLinear: 1-D, one per x.shape[axis]),
// blocked (opset 21: block_size > 0, the shape of x with
// ceil(x.shape[axis] / block_size) along axis); MatMulInteger/QLinearMatMul:
// A's per row ([M] or [..., M, 1]), B's per column ([N] or [..., 1, N]);
// ConvInteger/QLinearConv: W's per output channel ([M]).
//
// Thread safety: stateless kernels (op_kernel.h).
#pragma once

#include <memory>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> QuantizeLinearKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs);
std::vector<Tensor> DequantizeLinearKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs);
// Outputs y (uint8), y_scale (float32 scalar), y_zero_point (uint8 scalar).
std::vector<Tensor> DynamicQuantizeLinearKernel(const KernelContext& ctx, const Attributes& attrs,
                                                KernelInputs inputs);
std::vector<Tensor> MatMulIntegerKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);
std::vector<Tensor> QLinearMatMulKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);
std::vector<Tensor> ConvIntegerKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
std::vector<Tensor> QLinearConvKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
// LoomQLinearAdd(a, a_scale, a_zero_point, b, b_scale, b_zero_point,
// y_scale, y_zero_point) {relu = 0}: Loom-internal, written by FuseQdqAdd
// (graph/passes/qdq_add_fusion.cc) for DequantizeLinear x 2 → Add →
// [Relu →] QuantizeLinear. a and b int8 or uint8 (each its own), of the
// same shape (no broadcasting); every scale a one-element float32 tensor,
// every zero point a one-element tensor (a's and b's of their input's
// dtype, y's int8 or uint8: y's dtype). Per element, in float32, the
// unfused path's operations in its order, so the results are the same bits:
//   s = float(a - a_zp) * a_scale + float(b - b_zp) * b_scale
//   s = max(s, 0) when relu = 1
//   y = saturate(round_half_even(s / y_scale) + y_zp)
// Parallel over elements (inline below 1 MiB touched, as copies are).
std::vector<Tensor> QLinearAddKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
// QLinearConv's prepare stage: 2-D, one group, constant quantization
// parameters, on a CPU with AVX-512 VNNI at isa avx512f
// (qlinear_conv_vnni.h); null otherwise (the kernel above runs).
std::unique_ptr<PreparedKernel> PrepareQLinearConv(const PrepareArgs& args);

}  // namespace loom::kernels
