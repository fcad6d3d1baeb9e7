// Reshape, Flatten, Squeeze, Unsqueeze, Identity: new shapes over the same
// storage (Tensor::reshape), so they cost O(rank) whatever the tensor size.
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"

namespace loom::kernels {
namespace {

using shape_ops::NormalizeAxes;
using shape_ops::ReadIndexList;

std::string ListToString(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// Axes from input `index` if present, else attribute "axes"; `found` says
// whether either was given.
std::vector<int64_t> AxesInputOrAttribute(std::string_view op, const Attributes& attrs,
                                          KernelInputs inputs, size_t index, bool* found) {
  if (const Tensor* axes = OptionalInput(inputs, index)) {
    *found = true;
    return ReadIndexList(op, "axes", *axes);
  }
  *found = attrs.has("axes");
  return attrs.get_ints("axes", {});
}

}  // namespace

std::vector<Tensor> ReshapeKernel(const KernelContext&, const Attributes& attrs,
                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "Reshape";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const Tensor& shape_input = RequiredInput(kOp, inputs, 1, "shape");
  CheckDType(kOp, "shape", shape_input, {DType::kInt64});
  const std::vector<int64_t> requested = ReadIndexList(kOp, "shape", shape_input);
  const bool allow_zero = attrs.get_int("allowzero", 0) != 0;

  std::vector<int64_t> dims(requested.size());
  int inferred = -1;
  int64_t known = 1;  // product of every dim but the inferred one
  bool has_zero = false;
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t dim = requested[i];
    if (dim == -1) {
      if (inferred >= 0) {
        ThrowKernelError(kOp, "input 'shape' " + ListToString(requested) + " has more than one -1");
      }
      inferred = static_cast<int>(i);
      continue;
    }
    if (dim < -1) {
      ThrowKernelError(kOp, "input 'shape' " + ListToString(requested) + " has invalid dimension " +
                                std::to_string(dim));
    }
    if (dim == 0 && !allow_zero) {
      if (static_cast<int>(i) >= data.shape().rank()) {
        ThrowKernelError(kOp, "input 'shape' " + ListToString(requested) + " copies dimension " +
                                  std::to_string(i) + " (0) but input 'data' has shape " +
                                  data.shape().to_string());
      }
      dim = data.shape().dims()[i];
    }
    has_zero = has_zero || dim == 0;
    dims[i] = dim;
    known = shape_ops::CheckedMul(kOp, "the element count of 'shape'", known, dim);
  }
  if (inferred >= 0) {
    if (allow_zero && has_zero) {
      ThrowKernelError(kOp, "input 'shape' " + ListToString(requested) +
                                " has both 0 and -1 with allowzero = 1");
    }
    if (known == 0 || data.num_elements() % known != 0) {
      ThrowKernelError(kOp, "cannot infer the -1 in 'shape' " + ListToString(requested) + ": " +
                                std::to_string(data.num_elements()) +
                                " elements of 'data' (shape " + data.shape().to_string() +
                                ") are not divisible by " + std::to_string(known));
    }
    dims[inferred] = data.num_elements() / known;
    known = data.num_elements();
  }
  if (known != data.num_elements()) {
    ThrowKernelError(kOp, "input 'shape' " + ListToString(requested) + " has " +
                              std::to_string(known) + " elements but 'data' has shape " +
                              data.shape().to_string() + " (" +
                              std::to_string(data.num_elements()) + " elements)");
  }
  return {data.reshape(Shape(std::move(dims)))};
}

std::vector<Tensor> FlattenKernel(const KernelContext&, const Attributes& attrs,
                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "Flatten";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  const int rank = input.shape().rank();
  int64_t axis = attrs.get_int("axis", 1);
  if (axis < -rank || axis > rank) {
    ThrowKernelError(kOp, "attribute 'axis' " + std::to_string(axis) + " is outside [" +
                              std::to_string(-rank) + ", " + std::to_string(rank) +
                              "] for input shape " + input.shape().to_string());
  }
  if (axis < 0) axis += rank;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int d = 0; d < rank; ++d) (d < axis ? outer : inner) *= input.shape().dims()[d];
  return {input.reshape(Shape({outer, inner}))};
}

std::vector<Tensor> SqueezeKernel(const KernelContext&, const Attributes& attrs,
                                  KernelInputs inputs) {
  constexpr std::string_view kOp = "Squeeze";
  CheckInputCount(kOp, inputs, 1, 2);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const Shape& shape = data.shape();
  bool given = false;
  const std::vector<int64_t> axes = AxesInputOrAttribute(kOp, attrs, inputs, 1, &given);
  std::vector<bool> drop(static_cast<size_t>(shape.rank()), false);
  if (given) {
    for (int axis : NormalizeAxes(kOp, axes, shape.rank())) {
      if (shape.dims()[axis] != 1) {
        ThrowKernelError(kOp, "cannot squeeze axis " + std::to_string(axis) + " of 'data' shape " +
                                  shape.to_string() + ": its size is " +
                                  std::to_string(shape.dims()[axis]) + ", expected 1");
      }
      drop[axis] = true;
    }
  } else {
    for (int d = 0; d < shape.rank(); ++d) drop[d] = shape.dims()[d] == 1;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < shape.rank(); ++d) {
    if (!drop[d]) dims.push_back(shape.dims()[d]);
  }
  return {data.reshape(Shape(std::move(dims)))};
}

std::vector<Tensor> UnsqueezeKernel(const KernelContext&, const Attributes& attrs,
                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "Unsqueeze";
  CheckInputCount(kOp, inputs, 1, 2);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  bool given = false;
  const std::vector<int64_t> axes = AxesInputOrAttribute(kOp, attrs, inputs, 1, &given);
  if (!given) ThrowKernelError(kOp, "'axes' is required (input #1 or attribute)");
  const int out_rank = data.shape().rank() + static_cast<int>(axes.size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int axis : NormalizeAxes(kOp, axes, out_rank)) inserted[axis] = true;
  std::vector<int64_t> dims;
  size_t next = 0;
  for (int d = 0; d < out_rank; ++d) dims.push_back(inserted[d] ? 1 : data.shape().dims()[next++]);
  return {data.reshape(Shape(std::move(dims)))};
}

std::vector<Tensor> IdentityKernel(const KernelContext&, const Attributes&, KernelInputs inputs) {
  CheckInputCount("Identity", inputs, 1, 1);
  return {RequiredInput("Identity", inputs, 0, "input")};
}

}  // namespace loom::kernels
