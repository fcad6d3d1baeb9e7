// Type rules of the elementwise ops (kernels/elementwise/elementwise.h) and Cast.
#include <vector>

#include "graph/type_rules.h"
#include "kernels/onnx_dtype.h"

namespace loom::graph {

// Same dtype and shape as input 0 (activations, Identity, Not, ...).
std::vector<TensorType> InferUnary(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  return {ctx.input(0)};
}

// Clip(input, min?, max?): the bounds share the input's dtype.
std::vector<TensorType> InferClip(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 3);
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  return {ctx.input(0)};
}

std::vector<TensorType> InferCast(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const int64_t code = ctx.RequireInt("to");
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(code);
  if (!dtype) {
    ctx.Fail("attribute 'to' = " + std::to_string(code) + " is not a dtype Loom supports (" +
             kernels::SupportedOnnxDataTypes() + ")");
  }
  return {TensorType{*dtype, ctx.input_shape(0)}};
}

std::vector<TensorType> InferCastLike(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  return {TensorType{ctx.input(1).dtype, ctx.input_shape(0)}};
}

std::vector<TensorType> InferIsNaNOrInf(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  return {TensorType{DType::kBool, ctx.input_shape(0)}};
}

// Add Sub Mul Div: A and B of one dtype, broadcast.
std::vector<TensorType> InferArithmetic(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckSameDType(1, 0);
  return {TensorType{ctx.input(0).dtype, BroadcastInputs(ctx, {0, 1})}};
}

// Mod: as arithmetic; float inputs need fmod = 1 (C fmod), as in ONNX.
std::vector<TensorType> InferMod(const NodeTypeContext& ctx) {
  std::vector<TensorType> out = InferArithmetic(ctx);
  const int64_t fmod = ctx.GetInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    ctx.Fail("attribute 'fmod' must be 0 or 1 (got " + std::to_string(fmod) + ")");
  if (dtype_is_float(ctx.input(0).dtype) && fmod == 0) {
    ctx.Fail("input " + ctx.Describe(0) + " is floating point, which requires attribute fmod = 1");
  }
  return out;
}

// Pow(X, Y): the exponent may have any numeric dtype; the result has X's.
std::vector<TensorType> InferPow(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                       DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32,
                       DType::kUInt32, DType::kInt64, DType::kUInt64});
  return {TensorType{ctx.input(0).dtype, BroadcastInputs(ctx, {0, 1})}};
}

// Comparisons and And/Or/Xor: A and B of one dtype, broadcast, bool out.
std::vector<TensorType> InferComparison(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckSameDType(1, 0);
  return {TensorType{DType::kBool, BroadcastInputs(ctx, {0, 1})}};
}

// Max Min Mean Sum: one or more inputs of one dtype, all broadcast.
std::vector<TensorType> InferVariadic(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, NodeTypeContext::kAnyNumber);
  std::vector<size_t> all;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ctx.input(i);  // every input is required
    ctx.CheckSameDType(i, 0);
    all.push_back(i);
  }
  return {TensorType{ctx.input(0).dtype, BroadcastInputs(ctx, all)}};
}

// Where(condition: bool, X, Y): X and Y of one dtype; the three broadcast.
std::vector<TensorType> InferWhere(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  ctx.CheckDTypeIn(0, {DType::kBool});
  ctx.CheckSameDType(2, 1);
  return {TensorType{ctx.input(1).dtype, BroadcastInputs(ctx, {0, 1, 2})}};
}

}  // namespace loom::graph
