// Type rules whose output sizes come from the kernels' own formulas:
// Resize (constant scales or sizes, kernels/resize/resize_geometry.h) and
// ConvTranspose (ResolveConvTransposeGeometry). Fresh symbols where the
// sizes are not known before running.
#include "graph/type_rules.h"
#include "kernels/conv/conv_transpose.h"
#include "kernels/resize/resize_geometry.h"
#include "loom/errors.h"

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

// ConvTranspose(X [N, C, ...], W [C, M/group, k...], B? [M]).
std::vector<TensorType> InferConvTranspose(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& w = ctx.input_shape(1);
  if (!x || !w) return {TensorType{dtype, std::nullopt}};
  if (x->size() < 3 || w->size() != x->size()) {
    ctx.Fail("X and W must have the same rank, at least 3");
  }
  const size_t rank = x->size() - 2;
  SymbolicShape out = {(*x)[0], ctx.UnknownDim()};
  const Dim& per_group = (*w)[1];
  if (per_group.is_known()) out[1] = per_group.size() * ctx.GetInt("group", 1);
  std::vector<int64_t> input, kernel;
  bool known = true;
  for (size_t a = 0; a < rank; ++a) {
    known = known && (*x)[a + 2].is_known() && (*w)[a + 2].is_known();
    input.push_back((*x)[a + 2].size());
    kernel.push_back((*w)[a + 2].size());
  }
  if (!known) {
    for (size_t a = 0; a < rank; ++a) out.push_back(ctx.UnknownDim());
    return {TensorType{dtype, out}};
  }
  try {
    const kernels::ConvTransposeGeometry g =
        kernels::ResolveConvTransposeGeometry(ctx.node().attributes, input, kernel);
    for (int64_t o : g.output) out.push_back(o);
  } catch (const InvalidArgumentError& e) {
    ctx.Fail(e.what());
  }
  return {TensorType{dtype, out}};
}

}  // namespace loom::graph
