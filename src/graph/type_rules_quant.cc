// Type rules of the quantized ops (kernels/quant/quant.h): QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
// ConvInteger and QLinearConv; Loom's LoomQLinearAdd.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "graph/type_rules.h"
#include "kernels/onnx_dtype.h"
#include "kernels/spatial_geometry.h"
#include "loom/attributes.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

// The dtype an output_dtype attribute names (nullopt when 0 or absent);
// Fail()s for one outside `allowed`.
std::optional<DType> OutputDTypeAttribute(const NodeTypeContext& ctx,
                                          std::initializer_list<DType> allowed) {
  const int64_t code = ctx.GetInt("output_dtype", 0);
  if (code == 0) return std::nullopt;
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(code);
  if (!dtype || std::find(allowed.begin(), allowed.end(), *dtype) == allowed.end()) {
    ctx.Fail("output_dtype " + std::to_string(code) + " is not supported");
  }
  return dtype;
}

// Conv's output shape of x (input `ix`) and w (input `iw`): [N, M, out...],
// the spatial sizes from Conv's geometry when every size is known.
std::optional<SymbolicShape> ConvShape(const NodeTypeContext& ctx, size_t ix, size_t iw) {
  const std::optional<SymbolicShape>& x = ctx.input_shape(ix);
  const std::optional<SymbolicShape>& w = ctx.input_shape(iw);
  if (x && x->size() < 3) {
    ctx.Fail("input " + ctx.Describe(ix) + " must have rank >= 3 ([N, C, spatial...])");
  }
  if (x && w && w->size() != x->size()) {
    ctx.Fail("inputs " + ctx.Describe(ix) + " and " + ctx.Describe(iw) +
             " must have the same rank");
  }
  const int64_t group = ctx.GetInt("group", 1);
  if (group < 1) ctx.Fail("attribute 'group' must be >= 1 (got " + std::to_string(group) + ")");
  if (!x || !w) return std::nullopt;
  if (w && (*w)[0].is_known() && (*w)[0].size() % group != 0) {
    ctx.Fail("group " + std::to_string(group) + " does not divide the output channels of " +
             ctx.Describe(iw));
  }
  if ((*x)[1].is_known() && (*w)[1].is_known() && (*x)[1].size() != (*w)[1].size() * group) {
    ctx.Fail("input " + ctx.Describe(ix) + " has " + (*x)[1].to_string() + " channels but " +
             ctx.Describe(iw) + " with group " + std::to_string(group) + " expects " +
             std::to_string((*w)[1].size() * group));
  }
  SymbolicShape out = {(*x)[0], (*w)[0]};
  std::vector<int64_t> input, kernel;
  bool known = true;
  for (size_t a = 2; a < x->size(); ++a) {
    known = known && (*x)[a].is_known() && (*w)[a].is_known();
    input.push_back((*x)[a].size());
    kernel.push_back((*w)[a].size());
  }
  if (!known) {
    for (size_t a = 2; a < x->size(); ++a) out.push_back(ctx.UnknownDim());
    return out;
  }
  try {
    const kernels::SpatialGeometry g =
        kernels::ResolveSpatialGeometry(ctx.node().op_type, ctx.node().attributes, input, kernel);
    for (int64_t o : g.output) out.push_back(o);
  } catch (const InvalidArgumentError& e) {
    ctx.Fail(e.what());
  }
  return out;
}

const std::initializer_list<DType> kInt8Types = {DType::kInt8, DType::kUInt8};
const std::initializer_list<DType> kScaleTypes = {DType::kFloat32, DType::kFloat16,
                                                  DType::kBFloat16};

}  // namespace

// QuantizeLinear(x, y_scale, y_zero_point?): x's shape; the zero point's
// dtype, else output_dtype, else uint8.
std::vector<TensorType> InferQuantizeLinear(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt32});
  const std::optional<DType> requested =
      OutputDTypeAttribute(ctx, {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16});
  DType dtype = requested.value_or(DType::kUInt8);
  if (ctx.has_input(2)) {
    ctx.CheckDTypeIn(2, {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16});
    if (requested && *requested != ctx.input(2).dtype) {
      ctx.Fail("output_dtype disagrees with the zero point " + ctx.Describe(2));
    }
    dtype = ctx.input(2).dtype;
  }
  return {TensorType{dtype, ctx.input_shape(0)}};
}

// DequantizeLinear(x, x_scale, x_zero_point?): x's shape; output_dtype,
// else the scale's dtype.
std::vector<TensorType> InferDequantizeLinear(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckDTypeIn(0, {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32});
  ctx.CheckDTypeIn(1, kScaleTypes);
  ctx.CheckSameDType(2, 0);
  const DType dtype = OutputDTypeAttribute(ctx, kScaleTypes).value_or(ctx.input(1).dtype);
  return {TensorType{dtype, ctx.input_shape(0)}};
}

// DynamicQuantizeLinear(x) -> y uint8 (x's shape), y_scale float32 [],
// y_zero_point uint8 [].
std::vector<TensorType> InferDynamicQuantizeLinear(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  return {TensorType{DType::kUInt8, ctx.input_shape(0)},
          TensorType{DType::kFloat32, SymbolicShape{}}, TensorType{DType::kUInt8, SymbolicShape{}}};
}

// MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> int32, MatMul's shape.
std::vector<TensorType> InferMatMulInteger(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 4);
  ctx.CheckDTypeIn(0, kInt8Types);
  ctx.CheckDTypeIn(1, kInt8Types);
  ctx.CheckSameDType(2, 0);
  ctx.CheckSameDType(3, 1);
  return {TensorType{DType::kInt32, MatMulShape(ctx, 0, 1)}};
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) ->
// y_zp's dtype (a's when absent), MatMul's shape of a and b.
std::vector<TensorType> InferQLinearMatMul(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(8, 8);
  ctx.CheckDTypeIn(0, kInt8Types);
  ctx.CheckDTypeIn(3, kInt8Types);
  ctx.CheckSameDType(2, 0);
  ctx.CheckSameDType(5, 3);
  ctx.CheckDTypeIn(1, kScaleTypes);
  ctx.CheckSameDType(4, 1);
  ctx.CheckSameDType(6, 1);
  DType dtype = ctx.input(0).dtype;
  if (ctx.has_input(7)) {
    ctx.CheckDTypeIn(7, kInt8Types);
    dtype = ctx.input(7).dtype;
  }
  return {TensorType{dtype, MatMulShape(ctx, 0, 3)}};
}

// ConvInteger(x, w, x_zero_point?, w_zero_point?) -> int32, Conv's shape.
std::vector<TensorType> InferConvInteger(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 4);
  ctx.CheckDTypeIn(0, kInt8Types);
  ctx.CheckDTypeIn(1, kInt8Types);
  ctx.CheckSameDType(2, 0);
  ctx.CheckSameDType(3, 1);
  return {TensorType{DType::kInt32, ConvShape(ctx, 0, 1)}};
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?) ->
// y_zp's dtype (x's when absent), Conv's shape of x and w.
std::vector<TensorType> InferQLinearConv(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(8, 9);
  ctx.CheckDTypeIn(0, kInt8Types);
  ctx.CheckDTypeIn(3, kInt8Types);
  ctx.CheckSameDType(2, 0);
  ctx.CheckSameDType(5, 3);
  ctx.CheckDTypeIn(1, {DType::kFloat32});
  ctx.CheckDTypeIn(4, {DType::kFloat32});
  ctx.CheckDTypeIn(6, {DType::kFloat32});
  if (ctx.has_input(8)) ctx.CheckDTypeIn(8, {DType::kInt32});
  DType dtype = ctx.input(0).dtype;
  if (ctx.has_input(7)) {
    ctx.CheckDTypeIn(7, kInt8Types);
    dtype = ctx.input(7).dtype;
  }
  return {TensorType{dtype, ConvShape(ctx, 0, 3)}};
}

// LoomQLinearAdd(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) ->
// y_zp's dtype, the shape a and b share (no broadcasting: a known
// difference fails).
std::vector<TensorType> InferLoomQLinearAdd(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(8, 8);
  ctx.CheckDTypeIn(0, kInt8Types);
  ctx.CheckDTypeIn(3, kInt8Types);
  ctx.CheckSameDType(2, 0);
  ctx.CheckSameDType(5, 3);
  ctx.CheckDTypeIn(1, {DType::kFloat32});
  ctx.CheckDTypeIn(4, {DType::kFloat32});
  ctx.CheckDTypeIn(6, {DType::kFloat32});
  ctx.CheckDTypeIn(7, kInt8Types);
  const std::optional<SymbolicShape>& a = ctx.input_shape(0);
  const std::optional<SymbolicShape>& b = ctx.input_shape(3);
  if (a && b) {
    bool differ = a->size() != b->size();
    for (size_t i = 0; !differ && i < a->size(); ++i) {
      differ = (*a)[i].is_known() && (*b)[i].is_known() && (*a)[i].size() != (*b)[i].size();
    }
    if (differ) {
      ctx.Fail("inputs " + ctx.Describe(0) + " and " + ctx.Describe(3) +
               " must have the same shape (no broadcasting)");
    }
  }
  // Where one side knows a dimension the other leaves symbolic, keep it.
  std::optional<SymbolicShape> shape = a ? a : b;
  if (a && b) {
    for (size_t i = 0; i < shape->size(); ++i) {
      if (!(*shape)[i].is_known() && (*b)[i].is_known()) (*shape)[i] = (*b)[i];
    }
  }
  return {TensorType{ctx.input(7).dtype, shape}};
}

}  // namespace loom::graph
