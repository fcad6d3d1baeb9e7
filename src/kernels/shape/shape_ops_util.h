// Helpers shared by the shape_ops kernels (internal to the family):
// reading index-list inputs, normalizing axis lists, and the two copy
// engines every data-movement op is built from.
//
// StridedCopy writes a dense output whose element at multi-index i comes
// from input element in_offset + sum(i[d] * in_strides[d]). Slice (stride =
// step), Expand (stride 0), Tile (interleaved stride-0 axes) and Transpose's
// easy case are all plans for it. Copy2D moves rows of bytes between two
// pitched buffers (Concat, Split).
//
// Both parallelize over independent output rows or blocks with ParallelFor;
// every output byte has exactly one writer, so results are bit-exact for any
// thread count. Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels::shape_ops {

// Guess: a streaming copy moves ~10 bytes per ns on one core (L2/L3-bound).
inline constexpr double kCopyNsPerByte = 0.1;
// Guess: a strided element read/write costs ~1 ns (cache misses amortized).
inline constexpr double kGatherNsPerElement = 1.0;

// The values of a rank-0 or rank-1 int32/int64 tensor (`name` for errors).
std::vector<int64_t> ReadIndexList(std::string_view op, std::string_view name,
                                   const Tensor& tensor);

// Every value of an int32/int64 tensor of any rank, as int64 (`name` for
// errors).
std::vector<int64_t> ReadIndexTensor(std::string_view op, std::string_view name,
                                     const Tensor& tensor);

// Resolves each axis against `rank` (negatives count from the end) and
// rejects duplicates; the result keeps the given order.
std::vector<int> NormalizeAxes(std::string_view op, const std::vector<int64_t>& axes, int rank);

// GatherND / ScatterND indexing (shape_ops_gather_nd.cc): `indices`
// [..., k] (int32/int64, rank >= 1) holds k-tuples indexing the axes
// batch_dims .. batch_dims + k - 1 of data; the first batch_dims dims of
// both are batch dims (the caller checks they match). Returns, per tuple in
// row-major order, the element offset in data of the slice it selects, and
// sets *slice to the elements per slice. Negative indices count from the
// end; k > rank - batch_dims or an index out of range is an error naming it.
std::vector<int64_t> IndexTupleOffsets(std::string_view op, const Shape& data_shape,
                                       const Tensor& indices, int batch_dims, int64_t* slice);

// Row-major element strides of `shape`.
std::vector<int64_t> DenseStrides(const Shape& shape);

// a * b, or an InvalidArgumentError "<op>: <what> overflows" when it does
// not fit int64 (operands must be >= 0).
int64_t CheckedMul(std::string_view op, std::string_view what, int64_t a, int64_t b);

struct StridedCopyPlan {
  size_t element_size = 4;          // 1, 2, 4 or 8 bytes
  std::vector<int64_t> dims;        // output dims (dense row-major)
  std::vector<int64_t> in_strides;  // input stride per output dim, in elements
  int64_t in_offset = 0;            // input element of output element 0
};

// Drops size-1 dims and merges neighbours that are contiguous in the input,
// so the innermost loop is as long as possible. A plan with no elements
// keeps a 0 dim; an all-ones plan becomes one dim of size 1.
StridedCopyPlan SimplifyPlan(StridedCopyPlan plan);

// Executes a plan; `in` and `out` are the tensors' first elements.
void StridedCopy(const KernelContext& ctx, const StridedCopyPlan& plan, const void* in, void* out);

// out[i] = Cast(in[i]) for i < count, with the conversion rules documented
// at CastKernel (shape_ops.h). Defined in shape_ops_cast.cc; parallel over
// elements when the context has a pool.
void ConvertElements(const KernelContext& ctx, const void* in, DType in_type, void* out,
                     DType out_type, int64_t count);

// for (r = 0; r < rows; ++r) memcpy(dst + r * dst_pitch, src + r * src_pitch, row_bytes);
void Copy2D(const KernelContext& ctx, int64_t rows, int64_t row_bytes, const void* src,
            int64_t src_pitch, void* dst, int64_t dst_pitch);

}  // namespace loom::kernels::shape_ops
