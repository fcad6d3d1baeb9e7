// Gather and GatherElements. Indices are checked and normalized in one
// serial pass before anything is copied (an out-of-range index is an error
// naming it, never a read outside `data`); the copy then runs in parallel
// over independent output rows.
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// The indices as int64 in [0, dim), or an error naming the first bad one.
std::vector<int64_t> NormalizedIndices(std::string_view op, const Tensor& indices, int64_t dim,
                                       int axis, const Shape& data_shape) {
  CheckDType(op, "indices", indices, {DType::kInt64, DType::kInt32});
  std::vector<int64_t> values(static_cast<size_t>(indices.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t index =
        indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[i] : indices.data<int32_t>()[i];
    if (index < -dim || index >= dim) {
      ThrowKernelError(op, "index " + std::to_string(index) + " at position " + std::to_string(i) +
                               " of 'indices' is out of range [" + std::to_string(-dim) + ", " +
                               std::to_string(dim) + ") for axis " + std::to_string(axis) +
                               " of 'data' shape " + data_shape.to_string());
    }
    values[i] = index < 0 ? index + dim : index;
  }
  return values;
}

// Gather as rows: for (o, k): out[o][k][:] = in[o][index[k]][:], where a row
// is `row_bytes` bytes; kSize > 0 fixes the row size at compile time (rows
// of one element), 0 means row_bytes.
template <size_t kSize>
void GatherRows(const KernelContext& ctx, const std::byte* in, std::byte* out, int64_t outer,
                int64_t dim, const std::vector<int64_t>& index, int64_t row_bytes) {
  const auto count = static_cast<int64_t>(index.size());
  const size_t bytes = kSize > 0 ? kSize : static_cast<size_t>(row_bytes);
  // Serial loop replaced: for (o < outer) for (k < count) memcpy(row).
  // ~2 ns per row covers the index load and the call.
  threading::ParallelFor(
      ctx.pool, outer * count, static_cast<double>(row_bytes) * shape_ops::kCopyNsPerByte + 2.0,
      [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
          const int64_t o = unit / count;
          const int64_t k = unit % count;
          std::memcpy(out + unit * row_bytes, in + (o * dim + index[k]) * row_bytes, bytes);
        }
      });
}

}  // namespace

std::vector<Tensor> GatherKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  constexpr std::string_view kOp = "Gather";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const Tensor& indices = RequiredInput(kOp, inputs, 1, "indices");
  const int rank = data.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'data' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", 0), rank);
  const std::vector<int64_t>& dims = data.shape().dims();
  const std::vector<int64_t> index =
      NormalizedIndices(kOp, indices, dims[axis], axis, data.shape());

  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + axis);
  out_dims.insert(out_dims.end(), indices.shape().dims().begin(), indices.shape().dims().end());
  out_dims.insert(out_dims.end(), dims.begin() + axis + 1, dims.end());
  Tensor output(data.dtype(), Shape(std::move(out_dims)));
  if (output.num_elements() == 0) return {output};

  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  int64_t inner = 1;
  for (int d = axis + 1; d < rank; ++d) inner *= dims[d];
  const size_t element_size = dtype_size(data.dtype());
  const int64_t row_bytes = inner * static_cast<int64_t>(element_size);
  const auto* in = static_cast<const std::byte*>(data.raw_data());
  auto* out = static_cast<std::byte*>(output.raw_data());
  if (inner != 1) {
    GatherRows<0>(ctx, in, out, outer, dims[axis], index, row_bytes);
  } else if (element_size == 1) {
    GatherRows<1>(ctx, in, out, outer, dims[axis], index, row_bytes);
  } else if (element_size == 2) {
    GatherRows<2>(ctx, in, out, outer, dims[axis], index, row_bytes);
  } else if (element_size == 4) {
    GatherRows<4>(ctx, in, out, outer, dims[axis], index, row_bytes);
  } else {
    GatherRows<8>(ctx, in, out, outer, dims[axis], index, row_bytes);
  }
  return {output};
}

std::vector<Tensor> GatherElementsKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs) {
  constexpr std::string_view kOp = "GatherElements";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const Tensor& indices = RequiredInput(kOp, inputs, 1, "indices");
  const int rank = data.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'data' must have rank >= 1 (got shape [])");
  CheckRank(kOp, "indices", indices, rank);
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", 0), rank);
  const std::vector<int64_t>& dims = data.shape().dims();
  const std::vector<int64_t>& out_dims = indices.shape().dims();
  for (int d = 0; d < rank; ++d) {
    if (d != axis && out_dims[d] > dims[d]) {
      ThrowKernelError(kOp, "input 'indices' shape " + indices.shape().to_string() +
                                " exceeds 'data' shape " + data.shape().to_string() + " on axis " +
                                std::to_string(d));
    }
  }
  const std::vector<int64_t> index =
      NormalizedIndices(kOp, indices, dims[axis], axis, data.shape());
  Tensor output(data.dtype(), indices.shape());
  if (output.num_elements() == 0) return {output};

  const std::vector<int64_t> strides = shape_ops::DenseStrides(data.shape());
  const int last = rank - 1;
  const int64_t cols = out_dims[last];
  const int64_t rows = output.num_elements() / cols;
  // Along the last axis the data column is the index itself, otherwise j.
  const int64_t col_step = axis == last ? 0 : 1;
  const int64_t axis_stride = strides[axis];
  const auto element_size = static_cast<int64_t>(dtype_size(data.dtype()));
  const auto* in = static_cast<const std::byte*>(data.raw_data());
  auto* out = static_cast<std::byte*>(output.raw_data());
  // Serial loop replaced: for each output row (all axes but the last), for
  // each column j: out = data[row's axes, j, with axis `axis` := index].
  threading::ParallelFor(
      ctx.pool, rows, static_cast<double>(cols) * shape_ops::kGatherNsPerElement,
      [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          int64_t base = 0;
          int64_t rest = row;
          for (int d = last - 1; d >= 0; --d) {
            const int64_t i = rest % out_dims[d];
            rest /= out_dims[d];
            if (d != axis) base += i * strides[d];
          }
          for (int64_t j = 0; j < cols; ++j) {
            const int64_t src = base + j * col_step + index[row * cols + j] * axis_stride;
            std::memcpy(out + (row * cols + j) * element_size, in + src * element_size,
                        static_cast<size_t>(element_size));
          }
        }
      });
  return {output};
}

}  // namespace loom::kernels
