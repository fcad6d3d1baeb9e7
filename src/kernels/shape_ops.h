// Shape and data-movement operators (ONNX semantics, latest opset, with the
// older attribute forms accepted where newer opsets moved them to inputs;
// when both are given the input wins).
//
// Every kernel follows the calling convention of op_kernel.h and works for
// every Loom dtype: data is moved by element size (1, 2, 4 or 8 bytes), never
// per dtype, except Cast, Range and the constant value of Pad.
//
// Views: Reshape, Flatten, Squeeze, Unsqueeze and Identity return tensors
// that share the input's storage (Tensor::reshape); no element is copied.
//
// Exactness: every kernel here only moves or converts elements, and each
// output element is written by exactly one thread from a fixed source, so
// all results are bit-exact across thread counts and ISA levels.
//
// Parallelism: large copies are split with threading::ParallelFor over
// independent output rows or blocks; small tensors run inline on the caller.
//
// Errors: loom::InvalidArgumentError whose message starts with the op name,
// names the input or attribute and gives expected vs. actual. Index
// arguments (axes, starts, indices, pads, repeats, shapes) may be int32 or
// int64 unless noted; out-of-range gather indices are an error, never an
// out-of-bounds read.
//
// Thread safety: stateless functions; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

// ---- views (shape_ops_reshape.cc) ----

// Reshape(data, shape:int64); attribute allowzero (default 0): 0 in `shape`
// copies the input dimension unless allowzero = 1; one -1 is inferred.
std::vector<Tensor> ReshapeKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
// Flatten(input); attribute axis (default 1, range [-rank, rank]) -> 2-D.
std::vector<Tensor> FlattenKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
// Squeeze(data, axes?); axes as input 1 (opset 13+) or attribute "axes";
// none removes every dimension of size 1. Squeezing a dimension != 1 fails.
std::vector<Tensor> SqueezeKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
// Unsqueeze(data, axes); axes as input 1 (opset 13+) or attribute "axes",
// relative to the output rank.
std::vector<Tensor> UnsqueezeKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
// Identity(input): the same tensor.
std::vector<Tensor> IdentityKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);

// ---- copies ----

// Transpose(data); attribute perm (default: reversed axes). Tiled for the
// case where the innermost axis moves (NCHW <-> NHWC).
std::vector<Tensor> TransposeKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
// Concat(inputs...); attribute axis (required). Zero-sized inputs allowed.
std::vector<Tensor> ConcatKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
// Split(input, split?); attribute axis (default 0). Sizes come from input 1,
// else attribute "split" (opset < 13), else attribute "num_outputs" (opset
// 18: ceil(dim / n) each, the last one smaller). A KernelFn does not know how
// many outputs its node has, so without sizes "num_outputs" is required.
std::vector<Tensor> SplitKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
// Slice(data, starts, ends, axes?, steps?) (opset 10+) or Slice(data) with
// attributes starts/ends/axes (opset 1-9). Negative steps; starts and ends
// clamped as the spec says (INT64_MAX / INT64_MIN mean "to the end").
std::vector<Tensor> SliceKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
// Gather(data, indices); attribute axis (default 0). Negative indices count
// from the end; an index outside [-dim, dim) is an error naming it.
std::vector<Tensor> GatherKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
// GatherElements(data, indices); attribute axis (default 0). Same index
// rules as Gather.
std::vector<Tensor> GatherElementsKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs);
// Pad(data, pads?, constant_value?, axes?); attribute mode = constant |
// reflect | edge. pads = [begin..., end...] from input 1 or attribute "pads"
// (opset < 11); constant value from input 2 or attribute "value" (float,
// opset < 11). Negative pads crop. Reflect mirrors repeatedly when a pad is
// wider than the axis (NumPy behaviour); reflect/edge of an empty axis with
// a positive pad is an error.
std::vector<Tensor> PadKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
// Expand(input, shape): bidirectional broadcast to `shape`.
std::vector<Tensor> ExpandKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
// Tile(input, repeats): repeats >= 0, one per axis.
std::vector<Tensor> TileKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// ---- conversion (shape_ops_cast.cc) ----

// Cast(input); attribute "to" = ONNX TensorProto data type number (FLOAT=1,
// UINT8=2, INT8=3, UINT16=4, INT16=5, INT32=6, INT64=7, BOOL=9, FLOAT16=10,
// DOUBLE=11, UINT32=12, UINT64=13, BFLOAT16=16); every pair of them.
// Defined results where C++ or ONNX leave them open:
// - float -> integer truncates toward zero and saturates: NaN -> 0, values
//   at or beyond the target range -> its min or max (+inf -> max, negative
//   -> 0 for unsigned targets).
// - integer -> integer keeps the low bits (wraps modulo 2^bits, two's
//   complement): int16 -1 -> uint16 65535, uint64 2^64-1 -> int64 -1.
// - integer -> float rounds to nearest even (uint64 2^64-1 -> float32 2^64).
// - anything -> bool is (x != 0), NaN -> true; bool -> anything is 0 or 1.
// - float16 and bfloat16 convert through float32: exact into float32,
//   rounded to nearest even out of it; float64 and the 32/64-bit integers
//   -> float16 / bfloat16 round twice (to float32 first).
std::vector<Tensor> CastKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// ---- shapes and constants (shape_ops_constant.cc) ----

// Shape(data) -> int64 1-D; attributes start (default 0), end (default rank),
// negative values count from the end, both clamped to [0, rank].
std::vector<Tensor> ShapeKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
// Size(data) -> int64 scalar element count.
std::vector<Tensor> SizeKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);
// Constant(); exactly one of the attributes value (tensor, copied),
// value_float, value_floats (float32), value_int, value_ints (int64).
std::vector<Tensor> ConstantKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
// ConstantOfShape(input:int64 shape); attribute value (1-element tensor of
// any dtype, default float32 0).
std::vector<Tensor> ConstantOfShapeKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);
// Range(start, limit, delta): scalars of one dtype, float32, float64, int16,
// int32 or int64; out[i] = start + i * delta for i < max(ceil((limit-start)/delta), 0).
// delta = 0 is an error; the count is checked before allocating.
std::vector<Tensor> RangeKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);

}  // namespace loom::kernels
