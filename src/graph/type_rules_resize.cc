// Resize's type rule: X's dtype; the output shape from constant scales or
// sizes by the kernel's own formula (kernels/resize/resize_geometry.h), and
// fresh symbols for the resized axes when they are not constant or X's
// dims are symbolic.
#include "graph/type_rules.h"
#include "kernels/resize/resize_geometry.h"

namespace loom::graph {

std::vector<TensorType> InferResize(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 4);
  const DType dtype = ctx.input(0).dtype;
  ctx.CheckDTypeIn(2, {DType::kFloat32});
  ctx.CheckDTypeIn(3, {DType::kInt64});
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  std::vector<int> axes;
  if (auto error = kernels::resize::NormalizeResizeAxes(ctx.GetInts("axes", {}), rank, axes)) {
    ctx.Fail("attribute 'axes': " + *error);
  }
  SymbolicShape out = *x;
  bool known = true;
  std::vector<int64_t> in_dims;
  for (const Dim& d : *x) {
    known = known && d.is_known();
    in_dims.push_back(d.size());
  }
  const Tensor* scales = ctx.constant(2);
  const Tensor* sizes = ctx.constant(3);
  if (scales && scales->num_elements() == 0) scales = nullptr;
  if (sizes && sizes->num_elements() == 0) sizes = nullptr;
  if (known && (scales != nullptr) != (sizes != nullptr)) {
    std::vector<float> scale_values;
    std::vector<int64_t> size_values;
    if (scales)
      scale_values.assign(scales->data<float>(), scales->data<float>() + scales->num_elements());
    if (sizes)
      size_values.assign(sizes->data<int64_t>(), sizes->data<int64_t>() + sizes->num_elements());
    kernels::resize::ResizeShape shape;
    if (auto error = kernels::resize::ComputeResizeShape(
            in_dims, axes, scales ? &scale_values : nullptr, sizes ? &size_values : nullptr,
            ctx.GetString("keep_aspect_ratio_policy", "stretch"), shape)) {
      ctx.Fail(*error);
    }
    for (int d : axes) out[d] = shape.out[d];
    return {TensorType{dtype, out}};
  }
  for (int d : axes) out[d] = ctx.UnknownDim();
  return {TensorType{dtype, out}};
}

}  // namespace loom::graph
