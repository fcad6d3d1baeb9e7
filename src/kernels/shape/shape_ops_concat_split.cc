// Concat and Split. Viewing each tensor as [outer, axis * inner], every
// input (output) of Concat (Split) is a run of contiguous bytes per outer
// row, so both reduce to memcpy of rows: one ParallelFor over outer rows when
// rows are short, else one ParallelFor over pieces of the rows of every
// tensor.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "base/int_math.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Rows at least this long are cut into pieces of this size, all tensors' in
// one ParallelFor; shorter rows are copied all tensors at a time, one pass
// over rows.
constexpr int64_t kLongRowBytes = 64 * 1024;

// One tensor's part of each outer row: row r of it is row_bytes bytes at
// src + r * src_pitch, copied to dst + r * dst_pitch.
struct RowCopy {
  const std::byte* src;
  int64_t src_pitch;
  std::byte* dst;
  int64_t dst_pitch;
  int64_t row_bytes;
};

// Runs every RowCopy for rows [0, outer); `combined_row_bytes` is the sum of
// their row_bytes.
void CopyRows(const KernelContext& ctx, int64_t outer, int64_t combined_row_bytes,
              const std::vector<RowCopy>& copies) {
  if (outer == 0 || combined_row_bytes == 0) return;
  if (outer == 1 || combined_row_bytes >= kLongRowBytes) {
    // Long rows: every (row, tensor) run cut into pieces of at most
    // kLongRowBytes, all pieces in one ParallelFor (not one per tensor:
    // DenseNet concatenates up to 64 tensors at batch 1).
    struct Piece {
      const std::byte* src;
      std::byte* dst;
      int64_t bytes;
    };
    std::vector<Piece> pieces;
    for (int64_t row = 0; row < outer; ++row) {
      for (const RowCopy& c : copies) {
        for (int64_t at = 0; at < c.row_bytes; at += kLongRowBytes) {
          pieces.push_back({c.src + row * c.src_pitch + at, c.dst + row * c.dst_pitch + at,
                            std::min(kLongRowBytes, c.row_bytes - at)});
        }
      }
    }
    // Serial loop replaced: for each piece: memcpy it.
    threading::ParallelFor(
        ctx.pool, static_cast<int64_t>(pieces.size()),
        threading::MemoryBoundCost(outer * combined_row_bytes,
                                   static_cast<double>(kLongRowBytes) * shape_ops::kCopyNsPerByte),
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const Piece& piece = pieces[static_cast<size_t>(i)];
            std::memcpy(piece.dst, piece.src, static_cast<size_t>(piece.bytes));
          }
        });
    return;
  }
  // Serial loop replaced: for each outer row, for each tensor: memcpy its part.
  threading::ParallelFor(ctx.pool, outer,
                         threading::MemoryBoundCost(
                             outer * combined_row_bytes,
                             static_cast<double>(combined_row_bytes) * shape_ops::kCopyNsPerByte),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t row = begin; row < end; ++row) {
                             for (const RowCopy& c : copies) {
                               if (c.row_bytes == 0) continue;
                               std::memcpy(c.dst + row * c.dst_pitch, c.src + row * c.src_pitch,
                                           static_cast<size_t>(c.row_bytes));
                             }
                           }
                         });
}

// The product of dims [begin, end) of an existing tensor's shape.
int64_t Product(const std::vector<int64_t>& dims, int begin, int end) {
  return base::Product(std::span(dims).subspan(begin, end - begin));
}

}  // namespace

std::vector<Tensor> ConcatKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  constexpr std::string_view kOp = "Concat";
  if (inputs.empty()) ThrowKernelError(kOp, "expected at least 1 input, got 0");
  const Tensor& first = RequiredInput(kOp, inputs, 0, "inputs[0]");
  const int rank = first.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'inputs[0]' must have rank >= 1 (got shape [])");
  if (!attrs.has("axis")) ThrowKernelError(kOp, "attribute 'axis' is required");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis"), rank);

  std::vector<int64_t> out_dims = first.shape().dims();
  out_dims[axis] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "inputs[" + std::to_string(i) + "]";
    const Tensor& input = RequiredInput(kOp, inputs, i, name);
    if (input.dtype() != first.dtype()) CheckDType(kOp, name, input, {first.dtype()});
    bool same = input.shape().rank() == rank;
    for (int d = 0; same && d < rank; ++d) {
      same = d == axis || input.shape().dims()[d] == first.shape().dims()[d];
    }
    if (!same) {
      ThrowKernelError(kOp, "input '" + name + "' has shape " + input.shape().to_string() +
                                ", expected the dimensions of " + first.shape().to_string() +
                                " except on axis " + std::to_string(axis));
    }
    out_dims[axis] += input.shape().dims()[axis];
  }
  // Every byte is copied from an input: no zero fill.
  Tensor output = Tensor::uninitialized(first.dtype(), Shape(out_dims));
  if (output.num_elements() == 0) return {output};

  const auto element_bytes = static_cast<int64_t>(dtype_size(first.dtype()));
  const int64_t outer = Product(out_dims, 0, axis);
  const int64_t inner_bytes = Product(out_dims, axis + 1, rank) * element_bytes;
  const int64_t out_row_bytes = out_dims[axis] * inner_bytes;
  auto* out = static_cast<std::byte*>(output.raw_data());
  std::vector<RowCopy> copies;
  int64_t offset = 0;
  for (const Tensor* input : inputs) {
    const int64_t bytes = input->shape().dims()[axis] * inner_bytes;
    copies.push_back({static_cast<const std::byte*>(input->raw_data()), bytes, out + offset,
                      out_row_bytes, bytes});
    offset += bytes;
  }
  CopyRows(ctx, outer, out_row_bytes, copies);
  return {output};
}

std::vector<Tensor> SplitKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs) {
  constexpr std::string_view kOp = "Split";
  CheckInputCount(kOp, inputs, 1, 2);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  const int rank = input.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'input' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", 0), rank);
  const int64_t dim = input.shape().dims()[axis];

  std::vector<int64_t> sizes;
  if (const Tensor* split = OptionalInput(inputs, 1)) {
    CheckDType(kOp, "split", *split, {DType::kInt64});
    sizes = shape_ops::ReadIndexList(kOp, "split", *split);
  } else if (attrs.has("split")) {
    sizes = attrs.get_ints("split");
  } else if (attrs.has("num_outputs")) {
    const int64_t n = attrs.get_int("num_outputs");
    if (n < 1) {
      ThrowKernelError(kOp, "attribute 'num_outputs' must be >= 1 (got " + std::to_string(n) + ")");
    }
    const int64_t chunk = dim / n + (dim % n != 0 ? 1 : 0);
    if (chunk * (n - 1) > dim) {
      ThrowKernelError(kOp, "cannot split axis " + std::to_string(axis) + " of size " +
                                std::to_string(dim) + " into " + std::to_string(n) +
                                " outputs of at most " + std::to_string(chunk));
    }
    sizes.assign(static_cast<size_t>(n), chunk);
    sizes.back() = dim - chunk * (n - 1);
  } else {
    ThrowKernelError(kOp,
                     "split sizes are missing: give input 'split', attribute 'split' or "
                     "attribute 'num_outputs' (the kernel cannot see the node's output "
                     "count)");
  }
  if (sizes.empty()) ThrowKernelError(kOp, "'split' must not be empty");
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0 || size > dim) {
      ThrowKernelError(kOp, "'split' entry " + std::to_string(size) + " is outside [0, " +
                                std::to_string(dim) + "]");
    }
    total += size;
  }
  if (total != dim) {
    ThrowKernelError(kOp, "'split' sizes sum to " + std::to_string(total) + ", expected " +
                              std::to_string(dim) + " (axis " + std::to_string(axis) +
                              " of 'input' shape " + input.shape().to_string() + ")");
  }

  const auto element_bytes = static_cast<int64_t>(dtype_size(input.dtype()));
  const std::vector<int64_t>& dims = input.shape().dims();
  const int64_t outer = Product(dims, 0, axis);
  const int64_t inner_bytes = Product(dims, axis + 1, rank) * element_bytes;
  std::vector<Tensor> outputs;
  for (int64_t size : sizes) {
    std::vector<int64_t> out_dims = dims;
    out_dims[axis] = size;
    // Every byte is copied from the input: no zero fill.
    outputs.push_back(Tensor::uninitialized(input.dtype(), Shape(std::move(out_dims))));
  }
  if (input.num_elements() == 0) return outputs;  // no pointer arithmetic on null data
  const int64_t in_row_bytes = dim * inner_bytes;
  const auto* in = static_cast<const std::byte*>(input.raw_data());
  std::vector<RowCopy> copies;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t bytes = sizes[i] * inner_bytes;
    copies.push_back(
        {in + offset, in_row_bytes, static_cast<std::byte*>(outputs[i].raw_data()), bytes, bytes});
    offset += bytes;
  }
  CopyRows(ctx, outer, in_row_bytes, copies);
  return outputs;
}

}  // namespace loom::kernels
