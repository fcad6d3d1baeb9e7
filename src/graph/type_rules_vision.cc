// GridSample, NonMaxSuppression and Einsum rules.
#include <optional>
#include <string>
#include <vector>

#include "graph/type_rules.h"
#include "kernels/einsum/einsum.h"
#include "loom/errors.h"

namespace loom::graph {

// GridSample(X [N, C, D1..Dk], grid [N, O1..Ok, k]) -> X's dtype, [N, C, O1..Ok].
std::vector<TensorType> InferGridSample(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat64});
  ctx.CheckDTypeIn(1, {DType::kFloat32, DType::kFloat64});
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& grid = ctx.input_shape(1);
  if (x && x->size() < 3) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 3");
  if (x && grid && grid->size() != x->size()) {
    ctx.Fail("input " + ctx.Describe(1) + " must have the rank of " + ctx.Describe(0));
  }
  if (grid && grid->back().is_known() &&
      grid->back().size() != static_cast<int64_t>(grid->size()) - 2) {
    ctx.Fail("input " + ctx.Describe(1) + " must end in its number of spatial axes (" +
             std::to_string(grid->size() - 2) + ")");
  }
  if (!x || !grid) {
    if (!x && !grid) return {TensorType{dtype, std::nullopt}};
    const size_t rank = x ? x->size() : grid->size();
    SymbolicShape out = UnknownDims(ctx, rank);
    if (x) out[0] = (*x)[0], out[1] = (*x)[1];
    if (grid) {
      out[0] = (*grid)[0];
      for (size_t d = 1; d + 1 < rank; ++d) out[d + 1] = (*grid)[d];
    }
    return {TensorType{dtype, out}};
  }
  SymbolicShape out = {UnifyDims(ctx, (*x)[0], (*grid)[0], "the batch of X and grid"), (*x)[1]};
  for (size_t d = 1; d + 1 < grid->size(); ++d) out.push_back((*grid)[d]);
  return {TensorType{dtype, out}};
}

// NonMaxSuppression(boxes [B, N, 4], scores [B, C, N], ...) -> int64 [?, 3].
std::vector<TensorType> InferNonMaxSuppression(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 5);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckDTypeIn(1, {DType::kFloat32});
  ctx.CheckDTypeIn(2, {DType::kInt64});
  ctx.CheckDTypeIn(3, {DType::kFloat32});
  ctx.CheckDTypeIn(4, {DType::kFloat32});
  ctx.CheckRank(0, 3);
  ctx.CheckRank(1, 3);
  return {TensorType{DType::kInt64, SymbolicShape{ctx.UnknownDim(), 3}}};
}

// Einsum: the inputs' dtype; each output label's size from the inputs
// (ellipsis dims broadcast). Unranked when any input's rank is unknown.
std::vector<TensorType> InferEinsum(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, NodeTypeContext::kAnyNumber);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) ctx.CheckSameDType(i, 0);
  const DType dtype = ctx.input(0).dtype;
  const std::string equation = ctx.GetString("equation", "");
  std::vector<int> ranks;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const std::optional<SymbolicShape>& s = ctx.input_shape(i);
    if (!s) return {TensorType{dtype, std::nullopt}};
    ranks.push_back(static_cast<int>(s->size()));
  }
  kernels::einsum::Equation eq;
  try {
    eq = kernels::einsum::ParseEquation(equation, ranks);
  } catch (const InvalidArgumentError& error) {
    ctx.Fail(error.what());
  }
  SymbolicShape out;
  for (int label : eq.output) {
    std::optional<Dim> dim;
    for (size_t i = 0; i < eq.inputs.size(); ++i) {
      for (size_t a = 0; a < eq.inputs[i].size(); ++a) {
        if (eq.inputs[i][a] != label) continue;
        const Dim& d = (*ctx.input_shape(i))[a];
        if (!dim) {
          dim = d;
        } else if (label >= 52) {
          std::optional<Dim> b = BroadcastDim(ctx, *dim, d);
          if (!b) ctx.Fail("the ellipsis dims of the inputs do not broadcast");
          dim = *b;
        } else {
          dim = UnifyDims(ctx, *dim, d, "the sizes of one label");
        }
      }
    }
    out.push_back(*dim);
  }
  return {TensorType{dtype, out}};
}

}  // namespace loom::graph

namespace loom::graph {

// AffineGrid(theta [N, k, k + 1], size [k + 2]) -> theta's dtype,
// [N, spatial..., k]: the spatial sizes when size is a constant.
std::vector<TensorType> InferAffineGrid(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat64});
  ctx.CheckDTypeIn(1, {DType::kInt64});
  ctx.CheckRank(0, 3);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<std::vector<int64_t>> size = ctx.ConstantInts(1);
  if (size) {
    if (size->size() != 4 && size->size() != 5) {
      ctx.Fail("input " + ctx.Describe(1) + " must hold 4 or 5 sizes");
    }
    SymbolicShape out = {(*size)[0]};
    for (size_t d = 2; d < size->size(); ++d) out.push_back((*size)[d]);
    out.push_back(static_cast<int64_t>(size->size()) - 2);
    return {TensorType{dtype, out}};
  }
  const std::optional<SymbolicShape>& theta = ctx.input_shape(0);
  if (theta && (*theta)[1].is_known()) {
    const int64_t k = (*theta)[1].size();
    if (k != 2 && k != 3) ctx.Fail("input " + ctx.Describe(0) + " must be [N, 2, 3] or [N, 3, 4]");
    SymbolicShape out = UnknownDims(ctx, static_cast<size_t>(k) + 2);
    out[0] = (*theta)[0];
    out.back() = k;
    return {TensorType{dtype, out}};
  }
  return {TensorType{dtype, std::nullopt}};
}

// MaxRoiPool(X [N, C, H, W], rois [R, 5]) -> [R, C, PH, PW].
std::vector<TensorType> InferMaxRoiPool(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat64});
  ctx.CheckSameDType(1, 0);
  ctx.CheckRank(0, 4);
  ctx.CheckRank(1, 2);
  const std::vector<int64_t> pooled = ctx.GetInts("pooled_shape", {});
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) {
    ctx.Fail("attribute 'pooled_shape' must be two positive sizes");
  }
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& rois = ctx.input_shape(1);
  return {TensorType{ctx.input(0).dtype,
                     SymbolicShape{rois ? (*rois)[0] : ctx.UnknownDim(),
                                   x ? (*x)[1] : ctx.UnknownDim(), pooled[0], pooled[1]}}};
}

// RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]) -> [R, C, oh, ow].
std::vector<TensorType> InferRoiAlign(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat64});
  ctx.CheckSameDType(1, 0);
  ctx.CheckDTypeIn(2, {DType::kInt64});
  ctx.CheckRank(0, 4);
  ctx.CheckRank(1, 2);
  ctx.CheckRank(2, 1);
  const int64_t oh = ctx.GetInt("output_height", 1), ow = ctx.GetInt("output_width", 1);
  if (oh < 1 || ow < 1) ctx.Fail("attributes output_height and output_width must be positive");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& rois = ctx.input_shape(1);
  const std::optional<SymbolicShape>& batch = ctx.input_shape(2);
  Dim r = ctx.UnknownDim();
  if (rois && batch) {
    r = UnifyDims(ctx, (*rois)[0], (*batch)[0], "the number of regions in rois and batch_indices");
  } else if (rois) {
    r = (*rois)[0];
  } else if (batch) {
    r = (*batch)[0];
  }
  return {TensorType{ctx.input(0).dtype, SymbolicShape{r, x ? (*x)[1] : ctx.UnknownDim(), oh, ow}}};
}

}  // namespace loom::graph

namespace loom::graph {

// DeformConv(X [N, C, H, W], W [OC, ...], offset [N, ..., oh, ow], B?, mask?)
// -> float32 [N, OC, oh, ow].
std::vector<TensorType> InferDeformConv(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 5);
  for (size_t i = 0; i < 5; ++i) ctx.CheckDTypeIn(i, {DType::kFloat32});
  ctx.CheckRank(0, 4);
  ctx.CheckRank(1, 4);
  ctx.CheckRank(2, 4);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& w = ctx.input_shape(1);
  const std::optional<SymbolicShape>& offset = ctx.input_shape(2);
  SymbolicShape out = {x ? (*x)[0] : ctx.UnknownDim(), w ? (*w)[0] : ctx.UnknownDim(),
                       offset ? (*offset)[2] : ctx.UnknownDim(),
                       offset ? (*offset)[3] : ctx.UnknownDim()};
  return {TensorType{DType::kFloat32, out}};
}

}  // namespace loom::graph
