// ONNX reductions (opset 18 semantics, older forms accepted):
//
//   ReduceSum  ReduceMean  ReduceProd  ReduceMax  ReduceMin
//   ReduceL1 (sum |x|)  ReduceL2 (sqrt sum x^2)  ReduceSumSquare
//   ReduceLogSumExp (log sum exp x)  ReduceLogSum (log sum x) -> see reduce.cc
//   ArgMax  ArgMin (int64 indices)                     -> see reduce_arg.cc
//   TopK (the k largest or smallest along an axis)     -> see reduce_topk.cc
//   CumSum (running sums along an axis)                -> see reduce_cumsum.cc
//
// Inputs: data, optional axes (int64, rank 1). Attributes: keepdims (default
// 1), noop_with_empty_axes (default 0), and the pre-opset-18 attribute
// "axes" (the input wins when both are given). Axes may be negative;
// repeated axes are an error. No axes (or an empty list) reduces every axis,
// unless noop_with_empty_axes = 1: then each element is reduced on its own,
// so ReduceSum/Max/Min/Mean/Prod return a copy, ReduceSumSquare x^2,
// ReduceL1 and ReduceL2 |x|, ReduceLogSumExp x, ReduceLogSum log x (as the ONNX reference
// implementation does).
//
// Reducing an empty set (a reduced axis of size 0): Sum, SumSquare, L1 and
// L2 give 0, Prod 1, Max -inf (lowest value for integers), Min +inf
// (highest), LogSumExp and LogSum -inf, Mean NaN for floats and 0 for integers.
// Max and Min propagate NaN. ArgMax/ArgMin of an empty axis is an error.
//
// Dtypes: float32 (fast path: vectorized for each ISA level), float64,
// bfloat16 (reduced in float32, each output rounded back once), int32,
// uint32, int64, uint64 for every op except ReduceLogSumExp and ReduceLogSum
// (float32, float64, bfloat16); ReduceMax and ReduceMin also take int8 and uint8;
// ArgMax and ArgMin take every numeric dtype but float16 (16-bit integers
// included, as ONNX allows there but not in the reductions). Integer sums
// and products wrap around on overflow (modulo 2^bits), never UB. Integer
// ReduceL2 is the truncated square root; integer ReduceMean truncates
// (unsigned: divides the wrapped unsigned sum). float16 has no reduction
// kernel yet.
//
// Parallelism and determinism: work is split over independent outputs (or
// over fixed-size blocks of a long contiguous reduced run, combined in block
// order), so every result is bit-exact across thread counts. Results may
// differ in the last bits between ISA levels and from the reference, which
// accumulates in double.
//
// Errors (loom::InvalidArgumentError, message starting with the op name):
// unsupported dtype, axes input not int64 rank 1, axis out of range,
// repeated axis, ArgMax/ArgMin over an empty axis.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> ReduceSumKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> ReduceMeanKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> ReduceProdKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> ReduceMaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> ReduceMinKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> ReduceL1Kernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
std::vector<Tensor> ReduceL2Kernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
std::vector<Tensor> ReduceSumSquareKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);
std::vector<Tensor> ReduceLogSumExpKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);
std::vector<Tensor> ReduceLogSumKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs);

// ArgMax / ArgMin: attributes axis (default 0), keepdims (default 1),
// select_last_index (default 0: the first of equal extremes). A NaN counts
// as the extreme (the first NaN wins, as in NumPy).
std::vector<Tensor> ArgMaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
std::vector<Tensor> ArgMinKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

// TopK(X, K:int64 one element) -> Values, Indices (int64); attributes axis
// (default -1), largest (default 1), sorted (default 1). 0 <= K <= the axis
// length. Outputs are always sorted (largest: descending), equal values by
// ascending index, as ONNX asks; "sorted" = 0 leaves the order open, so
// the sorted order serves it too. A NaN ranks above every number (first
// when largest, last when smallest), as in the ONNX reference. float32,
// float64, float16, int8, uint8, int32, int64. Parallel over the lines
// along the axis.
std::vector<Tensor> TopKKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// CumSum(x, axis:int32|int64 one element); attributes exclusive (default
// 0: y[i] includes x[i]), reverse (default 0: sums run from the axis
// start). float32, float64, float16 (summed in float32, each output rounded
// once), int32, int64 (wrap around on overflow). Each running sum is the
// serial one, bit-exact across thread counts; parallel over independent
// lines and column blocks.
std::vector<Tensor> CumSumKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

}  // namespace loom::kernels
