#include "kernels/op_kernel.h"

#include <vector>

#include "loom/errors.h"

namespace loom::kernels {

void ThrowKernelError(std::string_view op, const std::string& detail) {
  throw InvalidArgumentError(std::string(op) + ": " + detail);
}

void CheckInputCount(std::string_view op, KernelInputs inputs, size_t min_count, size_t max_count) {
  if (inputs.size() >= min_count && inputs.size() <= max_count) return;
  std::string expected = min_count == max_count
                             ? std::to_string(min_count)
                             : std::to_string(min_count) + " to " + std::to_string(max_count);
  ThrowKernelError(op, "expected " + expected + " inputs, got " + std::to_string(inputs.size()));
}

const Tensor& RequiredInput(std::string_view op, KernelInputs inputs, size_t index,
                            std::string_view name) {
  if (index >= inputs.size() || inputs[index] == nullptr) {
    ThrowKernelError(op, "required input '" + std::string(name) + "' (#" + std::to_string(index) +
                             ") is missing");
  }
  return *inputs[index];
}

const Tensor* OptionalInput(KernelInputs inputs, size_t index) {
  return index < inputs.size() ? inputs[index] : nullptr;
}

void CheckDType(std::string_view op, std::string_view name, const Tensor& tensor,
                std::initializer_list<DType> allowed) {
  std::string list;
  for (DType dtype : allowed) {
    if (dtype == tensor.dtype()) return;
    if (!list.empty()) list += ", ";
    list += dtype_name(dtype);
  }
  ThrowKernelError(op, "input '" + std::string(name) + "' must have dtype " +
                           (allowed.size() > 1 ? "one of " : "") + list + " (got " +
                           std::string(dtype_name(tensor.dtype())) + ")");
}

void CheckRank(std::string_view op, std::string_view name, const Tensor& tensor, int rank) {
  if (tensor.shape().rank() == rank) return;
  ThrowKernelError(op, "input '" + std::string(name) + "' must have rank " + std::to_string(rank) +
                           " (got shape " + tensor.shape().to_string() + ")");
}

int NormalizeAxis(std::string_view op, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    ThrowKernelError(
        op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

bool PrepareArgs::HasConstantFloatWeights(size_t max_inputs) const {
  auto is_float32 = [](const Tensor* t) { return t != nullptr && t->dtype() == DType::kFloat32; };
  return num_inputs() <= max_inputs && is_float32(constant(1)) &&
         (!is_present(2) || is_float32(constant(2)));
}

std::vector<Tensor> CallKernel(KernelFn fn, const KernelContext& ctx, const Attributes& attrs,
                               std::initializer_list<const Tensor*> inputs) {
  std::vector<const Tensor*> list(inputs);
  return fn(ctx, attrs, KernelInputs(list.data(), list.size()));
}

AxisExtents ExtentsAroundAxis(const Shape& shape, int axis) {
  AxisExtents e;
  const std::vector<int64_t>& dims = shape.dims();
  for (int d = 0; d < axis; ++d) e.outer *= dims[d];
  e.n = dims[axis];
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) e.inner *= dims[d];
  return e;
}

}  // namespace loom::kernels
