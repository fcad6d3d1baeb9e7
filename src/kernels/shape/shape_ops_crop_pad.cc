// CenterCropPad: the output is zero-filled, then one box of the input (the
// centered crop) is copied into one box of the output (the centered pad
// position), row by row along the last axis.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops_data.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {

std::vector<Tensor> CenterCropPadKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs) {
  constexpr std::string_view kOp = "CenterCropPad";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input_data");
  const Tensor& shape_input = RequiredInput(kOp, inputs, 1, "shape");
  const std::vector<int64_t> sizes = shape_ops::ReadIndexList(kOp, "shape", shape_input);
  const int rank = x.shape().rank();
  std::vector<int> axes;
  if (attrs.has("axes")) {
    axes = shape_ops::NormalizeAxes(kOp, attrs.get_ints("axes"), rank);
  } else {
    for (int a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (sizes.size() != axes.size()) {
    ThrowKernelError(kOp, "input 'shape' must have one size per axis (" +
                              std::to_string(axes.size()) + " axes, got " +
                              std::to_string(sizes.size()) + " sizes)");
  }
  const std::vector<int64_t>& in_dims = x.shape().dims();
  std::vector<int64_t> out_dims = in_dims;
  std::vector<int64_t> in_start(rank, 0), out_start(rank, 0), length = in_dims;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int a = axes[i];
    if (sizes[i] < 0) {
      ThrowKernelError(kOp, "input 'shape' has a negative size " + std::to_string(sizes[i]) +
                                " for axis " + std::to_string(a));
    }
    out_dims[a] = sizes[i];
    length[a] = std::min(in_dims[a], sizes[i]);
    // The odd element of a difference goes to the end (floor at the start).
    if (sizes[i] < in_dims[a]) in_start[a] = (in_dims[a] - sizes[i]) / 2;
    if (sizes[i] > in_dims[a]) out_start[a] = (sizes[i] - in_dims[a]) / 2;
  }
  Tensor out(x.dtype(), Shape(out_dims));  // zeros: the padding
  if (rank == 0) {
    std::memcpy(out.raw_data(), x.raw_data(), dtype_size(x.dtype()));
    return {out};
  }
  int64_t rows = 1;
  for (int a = 0; a + 1 < rank; ++a) rows *= length[a];
  const int64_t row_len = length[rank - 1];
  if (rows == 0 || row_len == 0) return {out};
  const std::vector<int64_t> in_strides = shape_ops::DenseStrides(x.shape());
  const std::vector<int64_t> out_strides = shape_ops::DenseStrides(out.shape());
  const size_t element = dtype_size(x.dtype());
  const auto* src = static_cast<const std::byte*>(x.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  // Serial loop replaced: for each row r of the box (all axes but the last),
  // copy row_len elements from the input box into the output box.
  threading::ParallelFor(
      ctx.pool, rows,
      static_cast<double>(row_len * static_cast<int64_t>(element)) * shape_ops::kCopyNsPerByte +
          5.0,
      [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          int64_t rest = r, in_off = in_start[rank - 1], out_off = out_start[rank - 1];
          for (int a = rank - 2; a >= 0; --a) {
            const int64_t i = rest % length[a];
            rest /= length[a];
            in_off += (in_start[a] + i) * in_strides[a];
            out_off += (out_start[a] + i) * out_strides[a];
          }
          std::memcpy(dst + out_off * static_cast<int64_t>(element),
                      src + in_off * static_cast<int64_t>(element),
                      static_cast<size_t>(row_len) * element);
        }
      });
  return {out};
}

}  // namespace loom::kernels
