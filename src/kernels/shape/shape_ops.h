// Shape and data-movement operators (ONNX semantics, latest opset, with the
// older attribute forms accepted where newer opsets moved them to inputs;
// when both are given the input wins).
//
// Every kernel follows the calling convention of op_kernel.h and works for
// every Loom dtype: data is moved by element size (1, 2, 4 or 8 bytes), never
// per dtype, except Cast, Range, the constant value of Pad, the values
// NonZero tests, OneHot reads and EyeLike writes, and the ScatterND /
// ScatterElements reductions.
//
// Views: Reshape, Flatten, Squeeze, Unsqueeze and Identity return tensors
// that share the input's storage (Tensor::reshape); no element is copied.
//
// Exactness: every kernel here only moves or converts elements, and each
// output element is written by exactly one thread from a fixed source, so
// all results are bit-exact across thread counts and ISA levels. The
// scatter reductions combine into a target in the serial order of the
// updates, on one thread per target, which keeps them bit-exact too.
//
// Parallelism: large copies are split with threading::ParallelFor over
// independent output rows or blocks; small tensors run inline on the caller.
//
// Errors: loom::InvalidArgumentError whose message starts with the op name,
// names the input or attribute and gives expected vs. actual. Index
// arguments (axes, starts, indices, pads, repeats, shapes) may be int32 or
// int64 unless noted; out-of-range gather and scatter indices are an error,
// never an out-of-bounds access.
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

// ---- indexed gathers and scatters ----

// GatherND(data, indices:int64|int32); attribute batch_dims b (default 0).
// indices [..., k] holds k-tuples indexing data's axes b .. b+k-1; the
// output is indices.shape[:-1] + data.shape[b+k:]. The first b dims of both
// must be equal; 0 <= b < min(rank(data), rank(indices)), k <= rank - b.
// Negative indices count from the end (shape_ops_gather_nd.cc).
std::vector<Tensor> GatherNDKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
// ScatterND(data, indices:int64|int32, updates): a copy of data with
// output[indices[i]] = f(output[indices[i]], updates[i]) for the tuples in
// row-major order (so among duplicate indices the last one wins for
// "none"); updates.shape = indices.shape[:-1] + data.shape[k:]. Attribute
// reduction: none (default), add, mul, max, min. Integer add/mul wrap;
// float16 computes in float32 and rounds each step; max/min propagate NaN;
// on bool add and max are OR, mul and min AND (NumPy's rules)
// (shape_ops_scatter.cc).
std::vector<Tensor> ScatterNDKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
// ScatterElements(data, indices:int64|int32, updates); attributes axis
// (default 0), reduction as ScatterND. indices and updates have one shape,
// of data's rank, no larger than data's off the axis; element u goes to
// data's position u with coordinate `axis` replaced by indices[u]. Updates
// apply in row-major order (shape_ops_scatter.cc).
std::vector<Tensor> ScatterElementsKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);

// ---- index generation and selection (shape_ops_index.cc) ----

// NonZero(X) -> int64 [rank, count]: the coordinates of the non-zero
// elements in row-major order (a NaN is non-zero, -0.0 is zero). A scalar
// gives [0, 1] or [0, 0].
std::vector<Tensor> NonZeroKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
// Compress(input, condition:bool rank 1); attribute axis (optional). Keeps
// the slices along `axis` (the flattened input without it) whose condition
// is true. A condition shorter than the axis drops the rest; a longer one
// may only hold false past the end (NumPy's compress).
std::vector<Tensor> CompressKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);
// OneHot(indices, depth, values); attribute axis (default -1, range
// [-r-1, r]). indices and depth may be any numeric dtype (floats truncate
// toward zero); depth is one element >= 0; values = [off, on] (shape [2])
// of any dtype, which the output takes. An index in [-depth, depth) sets
// one on_value (negatives count from the end); others leave the row
// off_value.
std::vector<Tensor> OneHotKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

// ---- triangles and diagonals (shape_ops_triangle.cc) ----

// Trilu(input, k?:int64 one element); attribute upper (default 1). Keeps,
// in each matrix of the last two axes, the elements with j - i >= k (upper)
// or j - i <= k (lower); the others become zero.
std::vector<Tensor> TriluKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs);
// EyeLike(input rank 2); attributes dtype (ONNX number, default: input's),
// k (default 0). Output of input's shape with ones at [i, i + k].
std::vector<Tensor> EyeLikeKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);

// ---- depth <-> space (shape_ops_depth_space.cc) ----

// DepthToSpace(input [N, C, H, W]); attributes blocksize (required, > 0),
// mode DCR (default) | CRD -> [N, C / bs^2, H * bs, W * bs].
std::vector<Tensor> DepthToSpaceKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs);
// SpaceToDepth(input [N, C, H, W]); attribute blocksize (required, > 0,
// dividing H and W) -> [N, C * bs^2, H / bs, W / bs].
std::vector<Tensor> SpaceToDepthKernel(const KernelContext& ctx, const Attributes& attrs,
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
// CastLike(input, target_type): Cast to target_type's dtype
// (shape_ops_cast_like.cc).
std::vector<Tensor> CastLikeKernel(const KernelContext& ctx, const Attributes& attrs,
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
