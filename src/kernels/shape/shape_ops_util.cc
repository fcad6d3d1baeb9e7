#include "kernels/shape/shape_ops_util.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "threading/parallel_for.h"

namespace loom::kernels::shape_ops {
namespace {

// Rows longer than this many bytes are split into blocks so that one huge
// row (axis-0 Concat, a contiguous Slice) still spreads over the pool.
// 64 KiB: large enough that the per-block overhead is noise.
constexpr int64_t kBlockBytes = 64 * 1024;

// One output row: n elements of kSize bytes, read `stride` elements apart.
// memcpy with a constant size compiles to plain moves and keeps the code
// free of type punning (the bytes may be float, Float16, bool...).
template <size_t kSize>
void CopyRow(const std::byte* in, int64_t stride, int64_t n, std::byte* out) {
  if (stride == 1) {
    std::memcpy(out, in, static_cast<size_t>(n) * kSize);
  } else if (stride == 0) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * kSize, in, kSize);
  } else {
    const int64_t step = stride * static_cast<int64_t>(kSize);
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * kSize, in + i * step, kSize);
  }
}

template <size_t kSize>
void RunPlan(const KernelContext& ctx, const StridedCopyPlan& plan, const std::byte* in,
             std::byte* out) {
  const int outer_rank = static_cast<int>(plan.dims.size()) - 1;
  const int64_t inner = plan.dims.back();
  const int64_t inner_stride = plan.in_strides.back();
  int64_t rows = 1;
  for (int d = 0; d < outer_rank; ++d) rows *= plan.dims[d];
  const int64_t block = std::max<int64_t>(1, kBlockBytes / static_cast<int64_t>(kSize));
  const int64_t blocks = (inner + block - 1) / block;
  const double ns_per_element =
      inner_stride == 1 ? kCopyNsPerByte * static_cast<double>(kSize) : kGatherNsPerElement;
  const int64_t bytes = rows * inner * static_cast<int64_t>(kSize);

  // Input offset of the first element of output row `row`.
  auto row_offset = [&](int64_t row, std::vector<int64_t>& index) {
    int64_t offset = plan.in_offset;
    for (int d = outer_rank - 1; d >= 0; --d) {
      index[d] = row % plan.dims[d];
      row /= plan.dims[d];
      offset += index[d] * plan.in_strides[d];
    }
    return offset;
  };

  if (blocks > 1) {
    // Serial loop replaced: for each row, for each block of `block` elements:
    // CopyRow(block). Units are large, so each recomputes its offset.
    threading::ParallelFor(
        ctx.pool, rows * blocks,
        threading::MemoryBoundCost(bytes, static_cast<double>(block) * ns_per_element),
        [&](int64_t begin, int64_t end) {
          std::vector<int64_t> index(outer_rank);
          for (int64_t unit = begin; unit < end; ++unit) {
            const int64_t row = unit / blocks;
            const int64_t first = unit % blocks * block;
            const int64_t count = std::min(block, inner - first);
            const int64_t offset = row_offset(row, index) + first * inner_stride;
            CopyRow<kSize>(in + offset * static_cast<int64_t>(kSize), inner_stride, count,
                           out + (row * inner + first) * static_cast<int64_t>(kSize));
          }
        });
    return;
  }
  // Serial loop replaced: for (row = 0; row < rows; ++row) CopyRow(row).
  // Each shard walks its rows with an odometer instead of dividing per row.
  threading::ParallelFor(
      ctx.pool, rows,
      threading::MemoryBoundCost(bytes, static_cast<double>(inner) * ns_per_element),
      [&](int64_t begin, int64_t end) {
        std::vector<int64_t> index(outer_rank);
        int64_t offset = row_offset(begin, index);
        for (int64_t row = begin; row < end; ++row) {
          CopyRow<kSize>(in + offset * static_cast<int64_t>(kSize), inner_stride, inner,
                         out + row * inner * static_cast<int64_t>(kSize));
          for (int d = outer_rank - 1; d >= 0; --d) {
            offset += plan.in_strides[d];
            if (++index[d] < plan.dims[d]) break;
            offset -= plan.in_strides[d] * plan.dims[d];
            index[d] = 0;
          }
        }
      });
}

}  // namespace

std::vector<int64_t> ReadIndexList(std::string_view op, std::string_view name,
                                   const Tensor& tensor) {
  CheckDType(op, name, tensor, {DType::kInt64, DType::kInt32});
  if (tensor.shape().rank() > 1) {
    ThrowKernelError(op, "input '" + std::string(name) + "' must have rank 1 (got shape " +
                             tensor.shape().to_string() + ")");
  }
  std::vector<int64_t> values(static_cast<size_t>(tensor.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] =
        tensor.dtype() == DType::kInt64 ? tensor.data<int64_t>()[i] : tensor.data<int32_t>()[i];
  }
  return values;
}

std::vector<int64_t> ReadIndexTensor(std::string_view op, std::string_view name,
                                     const Tensor& tensor) {
  CheckDType(op, name, tensor, {DType::kInt64, DType::kInt32});
  const auto count = static_cast<size_t>(tensor.num_elements());
  if (tensor.dtype() == DType::kInt64) {
    const int64_t* p = tensor.data<int64_t>();
    return std::vector<int64_t>(p, p + count);
  }
  const int32_t* p = tensor.data<int32_t>();
  return std::vector<int64_t>(p, p + count);
}

std::vector<int> NormalizeAxes(std::string_view op, const std::vector<int64_t>& axes, int rank) {
  std::vector<int> result;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    const int a = NormalizeAxis(op, axis, rank);
    if (seen[a]) ThrowKernelError(op, "axis " + std::to_string(axis) + " is repeated in 'axes'");
    seen[a] = true;
    result.push_back(a);
  }
  return result;
}

std::vector<int64_t> DenseStrides(const Shape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dims()[d + 1];
  return strides;
}

int64_t CheckedMul(std::string_view op, std::string_view what, int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    ThrowKernelError(op, std::string(what) + " overflows int64 (" + std::to_string(a) + " * " +
                             std::to_string(b) + ")");
  }
  return product;
}

StridedCopyPlan SimplifyPlan(StridedCopyPlan plan) {
  StridedCopyPlan simple;
  simple.element_size = plan.element_size;
  simple.in_offset = plan.in_offset;
  for (size_t d = 0; d < plan.dims.size(); ++d) {
    const int64_t dim = plan.dims[d];
    const int64_t stride = plan.in_strides[d];
    if (dim == 0) {
      simple.dims = {0};
      simple.in_strides = {1};
      return simple;
    }
    if (dim == 1) continue;
    // The outer neighbour steps exactly over this dim: one longer dim.
    if (!simple.dims.empty() && simple.in_strides.back() == stride * dim) {
      simple.dims.back() *= dim;
      simple.in_strides.back() = stride;
      continue;
    }
    simple.dims.push_back(dim);
    simple.in_strides.push_back(stride);
  }
  if (simple.dims.empty()) {
    simple.dims = {1};
    simple.in_strides = {1};
  }
  return simple;
}

void StridedCopy(const KernelContext& ctx, const StridedCopyPlan& plan, const void* in, void* out) {
  const StridedCopyPlan simple = SimplifyPlan(plan);
  if (simple.dims.back() == 0) return;
  const auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  switch (simple.element_size) {
    case 1:
      return RunPlan<1>(ctx, simple, src, dst);
    case 2:
      return RunPlan<2>(ctx, simple, src, dst);
    case 4:
      return RunPlan<4>(ctx, simple, src, dst);
    default:
      return RunPlan<8>(ctx, simple, src, dst);
  }
}

void Copy2D(const KernelContext& ctx, int64_t rows, int64_t row_bytes, const void* src,
            int64_t src_pitch, void* dst, int64_t dst_pitch) {
  if (rows == 0 || row_bytes == 0) return;
  const auto* in = static_cast<const std::byte*>(src);
  auto* out = static_cast<std::byte*>(dst);
  const int64_t blocks = (row_bytes + kBlockBytes - 1) / kBlockBytes;
  const int64_t unit_bytes = std::min(row_bytes, kBlockBytes);
  // Serial loop replaced: for each row, for each kBlockBytes block: memcpy.
  threading::ParallelFor(ctx.pool, rows * blocks,
                         threading::MemoryBoundCost(
                             rows * row_bytes, static_cast<double>(unit_bytes) * kCopyNsPerByte),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t row = unit / blocks;
                             const int64_t first = unit % blocks * kBlockBytes;
                             const int64_t count = std::min(kBlockBytes, row_bytes - first);
                             std::memcpy(out + row * dst_pitch + first,
                                         in + row * src_pitch + first, static_cast<size_t>(count));
                           }
                         });
}

}  // namespace loom::kernels::shape_ops
