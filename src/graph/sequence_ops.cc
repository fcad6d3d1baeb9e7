// Type rules of the sequence and optional ops (sequence_ops.h).
#include "graph/sequence_ops.h"

#include <algorithm>
#include <array>
#include <string>

#include "kernels/onnx_dtype.h"

namespace loom::graph {
namespace {

constexpr std::array<std::string_view, 12> kSequenceOps = {
    "ConcatFromSequence", "Optional",          "OptionalGetElement", "OptionalHasElement",
    "SequenceAt",         "SequenceConstruct", "SequenceEmpty",      "SequenceErase",
    "SequenceInsert",     "SequenceLength",    "SequenceMap",        "SplitToSequence",
};

const TensorType& RequireSequence(const NodeTypeContext& ctx, size_t index) {
  const TensorType& type = ctx.input(index);
  if (type.kind != ValueKind::kSequence) {
    ctx.Fail("input " + ctx.Describe(index) + " must be a sequence");
  }
  return type;
}

const TensorType& RequireTensor(const NodeTypeContext& ctx, size_t index) {
  const TensorType& type = ctx.input(index);
  if (!type.is_tensor()) ctx.Fail("input " + ctx.Describe(index) + " must be a tensor");
  return type;
}

// A position input: a scalar int32 or int64 tensor (ONNX's own tests also
// give a one-element 1-D tensor, which ONNX Runtime accepts).
void CheckPosition(const NodeTypeContext& ctx, size_t index) {
  if (!ctx.has_input(index)) return;
  RequireTensor(ctx, index);
  ctx.CheckDTypeIn(index, {DType::kInt32, DType::kInt64});
  const std::optional<SymbolicShape>& shape = ctx.input_shape(index);
  if (!shape) return;
  for (const Dim& dim : *shape) {
    if (dim.is_known() && dim.size() != 1) {
      ctx.Fail("input " + ctx.Describe(index) + " must be a scalar (one element)");
    }
  }
}

// What two element shapes share: the same dims, unknown where they differ,
// unknown rank where the ranks differ.
std::optional<SymbolicShape> Common(const NodeTypeContext& ctx,
                                    const std::optional<SymbolicShape>& a,
                                    const std::optional<SymbolicShape>& b) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  SymbolicShape merged;
  for (size_t i = 0; i < a->size(); ++i) {
    merged.push_back((*a)[i] == (*b)[i] ? (*a)[i] : ctx.UnknownDim());
  }
  return merged;
}

DType DTypeAttribute(const NodeTypeContext& ctx, std::string_view name, int64_t fallback) {
  const int64_t code = ctx.GetInt(name, fallback);
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(code);
  if (!dtype) {
    ctx.Fail("attribute '" + std::string(name) + "' is ONNX element type " + std::to_string(code) +
             ", which Loom does not support");
  }
  return *dtype;
}

}  // namespace

bool IsSequenceOp(std::string_view op) {
  return std::find(kSequenceOps.begin(), kSequenceOps.end(), op) != kSequenceOps.end();
}

bool TakesNonTensorValues(std::string_view op) {
  return IsSequenceOp(op) || IsControlFlowOp(op) || op == "Identity";
}

std::vector<TensorType> InferSequenceEmpty(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(0, 0);
  constexpr int64_t kOnnxFloat = 1;
  return {SequenceType({DTypeAttribute(ctx, "dtype", kOnnxFloat), std::nullopt})};
}

std::vector<TensorType> InferSequenceConstruct(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, NodeTypeContext::kAnyNumber);
  TensorType element = RequireTensor(ctx, 0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    RequireTensor(ctx, i);
    ctx.CheckSameDType(i, 0);
    element.shape = Common(ctx, element.shape, ctx.input(i).shape);
  }
  return {SequenceType(element)};
}

std::vector<TensorType> InferSequenceInsert(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  const TensorType& sequence = RequireSequence(ctx, 0);
  const TensorType& tensor = RequireTensor(ctx, 1);
  if (tensor.dtype != sequence.dtype) {
    ctx.Fail("input " + ctx.Describe(1) + " does not have the dtype of sequence " +
             ctx.Describe(0));
  }
  CheckPosition(ctx, 2);
  // An empty sequence's elements say nothing yet, but the type cannot tell.
  return {SequenceType({sequence.dtype, Common(ctx, sequence.shape, tensor.shape)})};
}

std::vector<TensorType> InferSequenceAt(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  const TensorType& sequence = RequireSequence(ctx, 0);
  CheckPosition(ctx, 1);
  return {sequence.element_of_sequence()};
}

std::vector<TensorType> InferSequenceErase(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  const TensorType& sequence = RequireSequence(ctx, 0);
  CheckPosition(ctx, 1);
  return {sequence};
}

std::vector<TensorType> InferSequenceLength(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  RequireSequence(ctx, 0);
  return {TensorType{DType::kInt64, SymbolicShape{}}};
}

std::vector<TensorType> InferSplitToSequence(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  const TensorType& input = RequireTensor(ctx, 0);
  if (ctx.has_input(1)) {
    RequireTensor(ctx, 1);
    ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  }
  if (!input.shape) return {SequenceType({input.dtype, std::nullopt})};
  SymbolicShape shape = *input.shape;
  const int axis =
      ctx.NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int>(shape.size()), "attribute 'axis'");
  if (ctx.has_input(1)) {
    shape[axis] = ctx.UnknownDim();  // the parts may differ
  } else if (ctx.GetInt("keepdims", 1) != 0) {
    shape[axis] = Dim(1);
  } else {
    shape.erase(shape.begin() + axis);
  }
  return {SequenceType({input.dtype, shape})};
}

std::vector<TensorType> InferConcatFromSequence(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const TensorType& sequence = RequireSequence(ctx, 0);
  if (!ctx.has_attribute("axis")) ctx.Fail("attribute 'axis' is required");
  const bool new_axis = ctx.GetInt("new_axis", 0) != 0;
  if (!sequence.shape) return {TensorType{sequence.dtype, std::nullopt}};
  SymbolicShape shape = *sequence.shape;
  const int rank = static_cast<int>(shape.size());
  const int axis =
      ctx.NormalizeAxis(ctx.RequireInt("axis"), new_axis ? rank + 1 : rank, "attribute 'axis'");
  if (new_axis) {
    shape.insert(shape.begin() + axis, ctx.UnknownDim());
  } else {
    shape[axis] = ctx.UnknownDim();
  }
  return {TensorType{sequence.dtype, shape}};
}

std::vector<TensorType> InferOptional(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(0, 1);
  if (ctx.has_input(0)) {
    const TensorType& held = ctx.input(0);
    if (held.is_optional()) ctx.Fail("input " + ctx.Describe(0) + " is already an optional");
    return {OptionalType(held)};
  }
  if (!ctx.has_attribute("dtype")) {
    ctx.Fail("without an input, the attribute 'type' must say what the optional may hold");
  }
  TensorType held{DTypeAttribute(ctx, "dtype", 0), std::nullopt};
  if (ctx.GetInt("sequence", 0) != 0) held = SequenceType(held);
  return {OptionalType(held)};
}

std::vector<TensorType> InferOptionalHasElement(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(0, 1);
  return {TensorType{DType::kBool, SymbolicShape{}}};
}

std::vector<TensorType> InferOptionalGetElement(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  return {ctx.input(0).element_of_optional()};
}

ControlFlowTypes InferSequenceMapTypes(const NodeTypeContext& ctx) {
  const size_t onnx_inputs = ctx.node().num_onnx_inputs();
  if (onnx_inputs < 1) ctx.Fail("expected at least 1 input (input_sequence)");
  RequireSequence(ctx, 0);
  std::vector<TensorType> input_types;
  for (size_t i = 0; i < onnx_inputs; ++i) {
    if (!ctx.has_input(i)) ctx.Fail("input " + std::to_string(i) + " is absent");
    const TensorType& type = ctx.input(i);
    if (type.is_optional()) ctx.Fail("input " + ctx.Describe(i) + " is an optional");
    input_types.push_back(type.element_of_sequence());
  }
  for (size_t i = onnx_inputs; i < ctx.num_inputs(); ++i) input_types.push_back(ctx.input(i));
  std::shared_ptr<Graph> body =
      TypeSubgraph(ctx, "body", RequireSubgraph(ctx, "body"), input_types);
  if (body->outputs.size() != ctx.num_outputs()) {
    ctx.Fail("the body has " + std::to_string(body->outputs.size()) + " outputs but the node has " +
             std::to_string(ctx.num_outputs()));
  }
  ControlFlowTypes result;
  for (const ValueInfo& output : body->outputs) {
    if (!output.type.is_tensor()) {
      ctx.Fail("body output '" + output.name + "' is " + output.type.to_string() +
               "; SequenceMap's body gives tensors");
    }
    // Each element comes from its own run: only the rank and known dims of
    // the body's type hold for all of them, so symbols become unknown.
    TensorType element = output.type;
    if (element.shape) {
      for (Dim& dim : *element.shape) {
        if (!dim.is_known()) dim = ctx.UnknownDim();
      }
    }
    result.outputs.push_back(SequenceType(element));
  }
  result.subgraphs = {{"body", std::move(body)}};
  return result;
}

std::vector<TensorType> InferSequenceMap(const NodeTypeContext& ctx) {
  return InferSequenceMapTypes(ctx).outputs;
}

}  // namespace loom::graph
