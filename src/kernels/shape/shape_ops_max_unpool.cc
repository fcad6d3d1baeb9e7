// MaxUnpool: a zero tensor with X scattered to the flat offsets of I (the
// Indices output of MaxPool). Serial: the writes are a scatter that may
// repeat an offset (the last write wins), and the zero-fill dominates.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops_data.h"
#include "kernels/shape/shape_ops_util.h"

namespace loom::kernels {
namespace {

std::string IntsToString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

std::vector<Tensor> MaxUnpoolKernel(const KernelContext& /*ctx*/, const Attributes& attrs,
                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "MaxUnpool";
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& indices = RequiredInput(kOp, inputs, 1, "I");
  CheckDType(kOp, "I", indices, {DType::kInt64});
  const int rank = x.shape().rank();
  if (rank < 3) {
    ThrowKernelError(kOp,
                     "input 'X' must have rank >= 3 (got shape " + x.shape().to_string() + ")");
  }
  if (!(indices.shape() == x.shape())) {
    ThrowKernelError(kOp, "input 'I' must have the shape of 'X' " + x.shape().to_string() +
                              " (got " + indices.shape().to_string() + ")");
  }
  const int spatial = rank - 2;
  if (!attrs.has("kernel_shape")) {
    ThrowKernelError(kOp, "required attribute 'kernel_shape' is missing");
  }
  const std::vector<int64_t> kernel = attrs.get_ints("kernel_shape");
  const std::vector<int64_t> strides = attrs.get_ints("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads = attrs.get_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (kernel.size() != static_cast<size_t>(spatial) ||
      strides.size() != static_cast<size_t>(spatial) ||
      pads.size() != static_cast<size_t>(2 * spatial)) {
    ThrowKernelError(kOp, "attributes kernel_shape, strides and pads must have " +
                              std::to_string(spatial) + ", " + std::to_string(spatial) + " and " +
                              std::to_string(2 * spatial) + " values for input 'X' " +
                              x.shape().to_string());
  }
  // The unpooled shape: per spatial axis (in - 1) * stride + kernel - pads.
  std::vector<int64_t> unpooled = x.shape().dims();
  for (int d = 0; d < spatial; ++d) {
    if (kernel[d] <= 0 || strides[d] <= 0 || pads[d] < 0 || pads[d + spatial] < 0) {
      ThrowKernelError(kOp, "kernel_shape and strides must be positive and pads >= 0");
    }
    int64_t size = shape_ops::CheckedMul(
        kOp, "the output size", std::max<int64_t>(x.shape().dim(d + 2) - 1, 0), strides[d]);
    if (__builtin_add_overflow(size, kernel[d], &size) ||
        __builtin_sub_overflow(size, pads[d], &size) ||
        __builtin_sub_overflow(size, pads[d + spatial], &size)) {
      ThrowKernelError(kOp, "the output size of axis " + std::to_string(d + 2) + " overflows");
    }
    if (size < 0) {
      ThrowKernelError(
          kOp, "the inferred output size of axis " + std::to_string(d + 2) + " is negative");
    }
    unpooled[d + 2] = size;
  }
  std::vector<int64_t> out_dims = unpooled;
  if (const Tensor* shape_input = OptionalInput(inputs, 2)) {
    out_dims = shape_ops::ReadIndexList(kOp, "output_shape", *shape_input);
    bool fits = out_dims.size() == static_cast<size_t>(rank);
    for (int d = 0; fits && d < rank; ++d) {
      fits = d < 2 ? out_dims[d] == unpooled[d] : out_dims[d] >= unpooled[d];
    }
    if (!fits) {
      ThrowKernelError(kOp, "input 'output_shape' " + IntsToString(out_dims) +
                                " must keep N and C and be at least the unpooled shape " +
                                IntsToString(unpooled));
    }
  }
  Tensor out(x.dtype(), Shape(out_dims));  // zeros
  int64_t total = 1;
  for (int64_t d : unpooled) total *= d;
  const int64_t* index = indices.data<int64_t>();
  const size_t element = dtype_size(x.dtype());
  const auto* src = static_cast<const std::byte*>(x.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  // I holds offsets into the unpooled shape, which sits at the origin of a
  // larger output_shape (the extra elements at each axis' end stay zero).
  const bool same = out_dims == unpooled;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    if (index[i] < 0 || index[i] >= total) {
      ThrowKernelError(kOp, "input 'I' value " + std::to_string(index[i]) + " at " +
                                std::to_string(i) + " is outside the unpooled output's " +
                                std::to_string(total) + " elements");
    }
    int64_t offset = index[i];
    if (!same) {
      int64_t rest = index[i], stride = 1;
      offset = 0;
      for (int d = rank - 1; d >= 0; --d) {
        offset += (rest % unpooled[d]) * stride;
        rest /= unpooled[d];
        stride *= out_dims[d];
      }
    }
    std::memcpy(dst + offset * static_cast<int64_t>(element),
                src + i * static_cast<int64_t>(element), element);
  }
  return {out};
}

}  // namespace loom::kernels
