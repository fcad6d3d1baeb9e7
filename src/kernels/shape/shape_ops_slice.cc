// Slice: each sliced axis becomes (start, count, step), which is exactly a
// StridedCopy plan (offset += start * stride, stride *= step). Unit steps
// on the inner axes leave contiguous rows that are memcpy'd.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "Slice";

struct AxisSlice {
  int64_t start = 0;
  int64_t count = 0;
};

// The ONNX clamping rules for one axis of size `dim` (step != 0).
AxisSlice ResolveAxis(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0) return {};
  // start/end + dim cannot overflow: they are negative here and dim >= 0.
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  AxisSlice slice;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    slice.start = start;
    if (end > start) {
      slice.count = 1 + (end - start - 1) / step;
    }
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    slice.start = start;
    if (start > end) {
      // |step| as unsigned: step may be INT64_MIN.
      const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);
      slice.count = 1 + static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / magnitude);
    }
  }
  return slice;
}

std::vector<int64_t> InputOrAttribute(const Attributes& attrs, KernelInputs inputs, size_t index,
                                      std::string_view name, bool* found) {
  if (const Tensor* t = OptionalInput(inputs, index)) {
    *found = true;
    return shape_ops::ReadIndexList(kOp, name, *t);
  }
  *found = attrs.has(name);
  return attrs.get_ints(name, {});
}

}  // namespace

std::vector<Tensor> SliceKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 5);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const int rank = data.shape().rank();
  bool has_starts = false;
  bool has_ends = false;
  bool has_axes = false;
  bool has_steps = false;
  const std::vector<int64_t> starts = InputOrAttribute(attrs, inputs, 1, "starts", &has_starts);
  const std::vector<int64_t> ends = InputOrAttribute(attrs, inputs, 2, "ends", &has_ends);
  std::vector<int64_t> axes = InputOrAttribute(attrs, inputs, 3, "axes", &has_axes);
  std::vector<int64_t> steps = InputOrAttribute(attrs, inputs, 4, "steps", &has_steps);
  if (!has_starts || !has_ends) {
    ThrowKernelError(kOp, "'starts' and 'ends' are required (inputs #1, #2 or attributes)");
  }
  const size_t n = starts.size();
  if (!has_axes) {
    axes.resize(n);
    for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
  }
  if (!has_steps) steps.assign(n, 1);
  if (ends.size() != n || axes.size() != n || steps.size() != n) {
    ThrowKernelError(kOp, "'starts', 'ends', 'axes' and 'steps' must have the same length (got " +
                              std::to_string(n) + ", " + std::to_string(ends.size()) + ", " +
                              std::to_string(axes.size()) + ", " + std::to_string(steps.size()) +
                              ")");
  }
  const std::vector<int> resolved_axes = shape_ops::NormalizeAxes(kOp, axes, rank);

  const std::vector<int64_t> strides = shape_ops::DenseStrides(data.shape());
  shape_ops::StridedCopyPlan plan;
  plan.element_size = dtype_size(data.dtype());
  plan.dims = data.shape().dims();
  plan.in_strides = strides;
  for (size_t i = 0; i < n; ++i) {
    if (steps[i] == 0) {
      ThrowKernelError(kOp, "'steps' entry " + std::to_string(i) + " (axis " +
                                std::to_string(axes[i]) + ") must not be 0");
    }
    const int axis = resolved_axes[i];
    const AxisSlice slice = ResolveAxis(starts[i], ends[i], steps[i], plan.dims[axis]);
    plan.dims[axis] = slice.count;
    plan.in_offset += slice.start * strides[axis];
    // With count > 1, |step| < dim, so the product stays within the tensor.
    plan.in_strides[axis] = slice.count > 1 ? strides[axis] * steps[i] : 0;
  }
  Tensor output(data.dtype(), Shape(plan.dims));
  if (output.num_elements() > 0) {
    shape_ops::StridedCopy(ctx, plan, data.raw_data(), output.raw_data());
  }
  return {output};
}

}  // namespace loom::kernels
