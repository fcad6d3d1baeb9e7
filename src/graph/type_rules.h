// The per-op rules of type inference (type_inference.h): one explicit table,
// sorted by op type, of {op, rule}. A rule sees one node through a
// NodeTypeContext (its inputs' types, its attributes, the values of constant
// inputs) and returns the types of the node's outputs, in order.
//
// Files (each rule family with its test beside it):
//   type_rule_context.cc       NodeTypeContext
//   type_rules.cc              the table and the shared shape arithmetic
//   type_rules_elementwise.cc  unary, binary, variadic, comparisons, Where, Clip, Cast
//   type_rules_conv_pool.cc    Conv, MaxPool, AveragePool, Global*Pool
//   type_rules_nn.cc           MatMul, Gemm, normalizations, Softmax, LoomAttention
//   type_rules_reduce.cc       Reduce*, ArgMax, ArgMin, TopK, CumSum
//   type_rules_shape_ops.cc    Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat
//   type_rules_copy_ops.cc     Split, Slice, Pad, Expand, Tile, Gather, GatherElements
//   type_rules_constant_ops.cc Constant, ConstantOfShape, Range, Shape, Size
//   type_rules_quant.cc        QuantizeLinear, DequantizeLinear,
//                              DynamicQuantizeLinear, MatMulInteger,
//                              QLinearMatMul, ConvInteger, QLinearConv,
//                              LoomQLinearAdd
//   type_rules_recurrent.cc    RNN, GRU, LSTM
//   type_rules_index_ops.cc    GatherND, ScatterND, ScatterElements, NonZero,
//                              Compress, OneHot, Trilu, EyeLike,
//                              DepthToSpace, SpaceToDepth
//   type_rules_transformer.cc  RMSNormalization, RotaryEmbedding, Attention
//   type_rules_vision.cc       GridSample, AffineGrid, RoiAlign, DeformConv,
//                              NonMaxSuppression, Einsum
//   type_rules_signal.cc       DFT, STFT, Hann/Hamming/BlackmanWindow, MelWeightMatrix
//   type_rules_data_ops.cc     Unique, CenterCropPad, Col2Im, TensorScatter,
//                              ReverseSequence, MaxUnpool, Det
//   type_rules_prelu_group_norm.cc  PRelu, GroupNormalization, LoomDropout
//
// Shapes: a dimension a rule cannot know before running (a window over a
// symbolic size, a product of two symbols, a data-dependent size) becomes a
// fresh symbol from UnknownDim(), "?<node>.<k>", so the rank stays known and
// the symbol matches nothing else. A shape whose rank cannot be known is
// nullopt. Rules never guess.
//
// Errors: rules throw loom::InvalidArgumentError through Fail(), whose
// message starts "graph '<g>': node '<n>' (<Op>): " as verify_graph's do.
//
// Thread safety: the table is immutable; a context belongs to one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

// True for a symbol made by NodeTypeContext::UnknownDim.
bool IsUnknownDim(const Dim& dim);

class NodeTypeContext {
 public:
  // `inputs[i]` is the type of node.inputs[i] (nullopt when absent, "");
  // `constants` maps value names to their constant values (initializers
  // that are not graph inputs, and Constant node outputs).
  NodeTypeContext(const Graph& graph, const Node& node,
                  std::vector<std::optional<TensorType>> inputs,
                  const std::map<std::string, Tensor>& constants);

  const Node& node() const { return node_; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }

  // Whether input `index` is given (present and not "").
  bool has_input(size_t index) const;
  // The type of input `index`; Fail()s when it is absent.
  const TensorType& input(size_t index) const;
  // The shape of input `index` (nullopt when unknown); Fail()s when absent.
  const std::optional<SymbolicShape>& input_shape(size_t index) const;
  // "'x' float32[N, 3]": the input's value name and type, for messages.
  std::string Describe(size_t index) const;
  // Fail()s unless the node has between `min_count` and `max_count`
  // (kAnyNumber: no limit) inputs and the first `min_count` are present.
  static constexpr size_t kAnyNumber = static_cast<size_t>(-1);
  void CheckInputCount(size_t min_count, size_t max_count) const;
  // Fail()s unless input `index` (if present) has the dtype of input `like`.
  void CheckSameDType(size_t index, size_t like) const;
  // Fail()s unless input `index` (if present) has one of `allowed`.
  void CheckDTypeIn(size_t index, std::initializer_list<DType> allowed) const;
  // Fail()s when input `index`'s rank is known and differs from `rank`.
  void CheckRank(size_t index, int rank) const;

  // The value of input `index` when it is a constant, else null.
  const Tensor* constant(size_t index) const;
  // The number of values in an index-list input (rank 0: 1, rank 1: its
  // size) when known; Fail()s for rank > 1.
  std::optional<int64_t> ListLength(size_t index) const;
  // A constant rank-0 or rank-1 int32/int64 input's values; nullopt when
  // the input is absent or not constant. Fail()s for another dtype or rank.
  std::optional<std::vector<int64_t>> ConstantInts(size_t index) const;

  // Attributes: `fallback` when absent; Fail()s when present with another kind.
  bool has_attribute(std::string_view name) const;
  int64_t GetInt(std::string_view name, int64_t fallback) const;
  float GetFloat(std::string_view name, float fallback) const;
  std::string GetString(std::string_view name, std::string fallback) const;
  std::optional<std::vector<int64_t>> GetInts(std::string_view name) const;
  std::vector<int64_t> GetInts(std::string_view name, std::vector<int64_t> fallback) const;
  std::optional<std::vector<float>> GetFloats(std::string_view name) const;
  std::optional<Tensor> GetTensor(std::string_view name) const;
  // Fail()s when the attribute is absent.
  int64_t RequireInt(std::string_view name) const;

  // Resolves a possibly negative axis against `rank` ([-rank, rank)), or
  // Fail()s naming `what` ("attribute 'axis'").
  int NormalizeAxis(int64_t axis, int rank, std::string_view what) const;

  // A fresh symbol for a dimension that is unknown until the node runs.
  Dim UnknownDim() const;

  // Throws InvalidArgumentError("graph '<g>': node '<n>' (<Op>): <detail>").
  [[noreturn]] void Fail(const std::string& detail) const;

  // a * b and a + b, or Fail()s naming `what` when the result overflows
  // int64: sizes and attributes come from untrusted model files.
  int64_t Mul(int64_t a, int64_t b, std::string_view what) const;
  int64_t Add(int64_t a, int64_t b, std::string_view what) const;

 private:
  const AttributeValue* FindAttribute(std::string_view name, size_t kind,
                                      std::string_view kind_name) const;

  const Graph& graph_;
  const Node& node_;
  std::vector<std::optional<TensorType>> inputs_;
  const std::map<std::string, Tensor>& constants_;
  mutable int next_unknown_ = 0;
};

using TypeRuleFn = std::vector<TensorType> (*)(const NodeTypeContext& ctx);

struct TypeRule {
  std::string_view op;  // ONNX op type, as in the kernel registry
  TypeRuleFn infer;
};

// Every rule, sorted by op type (a test checks, and that every registered
// kernel has one).
std::span<const TypeRule> TypeRules();

// The rule for `op`, or null.
const TypeRule* FindTypeRule(std::string_view op);

// ---- shape arithmetic shared by the rules ----

// "[2, 3]" for a list of integers.
std::string IntsToString(const std::vector<int64_t>& values);

// The shape of a tensor as a SymbolicShape.
SymbolicShape ToSymbolicShape(const Shape& shape);

// The broadcast of two dims (see BroadcastInputs), nullopt when they clash.
std::optional<Dim> BroadcastDim(const NodeTypeContext& ctx, const Dim& a, const Dim& b);

// MatMul's output shape of inputs `ia` and `ib` (NumPy matmul: batch dims
// broadcast; a 1-D operand promoted and its unit dim dropped); nullopt when
// a shape is unknown. Fails on rank 0, different known K, or batch dims
// that do not broadcast. MatMul, MatMulInteger and QLinearMatMul use it.
std::optional<SymbolicShape> MatMulShape(const NodeTypeContext& ctx, size_t ia, size_t ib);

// Multidirectional (NumPy) broadcasting of the shapes of inputs `indices`
// (absent ones skipped). Per axis: equal dims stay; a known 1 yields to the
// other; a symbol meeting a known size k takes k (the symbol must be k or 1
// at run time, and both give k); two different symbols give UnknownDim().
// Two known sizes that are neither equal nor 1 Fail(), naming both inputs,
// their shapes and the axis. nullopt when any input's shape is unknown.
std::optional<SymbolicShape> BroadcastInputs(const NodeTypeContext& ctx,
                                             std::initializer_list<size_t> indices);
std::optional<SymbolicShape> BroadcastInputs(const NodeTypeContext& ctx,
                                             const std::vector<size_t>& indices);

// Two dims that must be equal (Concat's other axes, MatMul's K): the known
// one when either is known (Fail()ing with `what` when both are and differ),
// else `a`.
Dim UnifyDims(const NodeTypeContext& ctx, const Dim& a, const Dim& b, const std::string& what);

// The product of `dims`: a known size when all are known, the symbol when
// exactly one is symbolic and the rest multiply to 1, else UnknownDim().
Dim ProductDim(const NodeTypeContext& ctx, std::span<const Dim> dims);

// The same for a sum (Concat's axis): known when all are known, the symbol
// when one is symbolic and the rest add to 0, else UnknownDim().
Dim SumDim(const NodeTypeContext& ctx, std::span<const Dim> dims);

// An integer-list argument: input `index` when given (nullopt inside when
// it is not a constant), else the attribute `name`; `given` says whether
// either exists.
std::optional<std::vector<int64_t>> InputOrAttribute(const NodeTypeContext& ctx, size_t index,
                                                     std::string_view name, bool* given);

// Resolves a list of axes against `rank`; Fail()s on a repeat.
std::vector<int> NormalizeAxes(const NodeTypeContext& ctx, const std::vector<int64_t>& axes,
                               int rank);

// `rank` fresh UnknownDim()s.
SymbolicShape UnknownDims(const NodeTypeContext& ctx, size_t rank);

// ---- the rules, by family ----

// type_rules_elementwise.cc
std::vector<TensorType> InferUnary(const NodeTypeContext& ctx);
std::vector<TensorType> InferClip(const NodeTypeContext& ctx);
std::vector<TensorType> InferCast(const NodeTypeContext& ctx);
// CastLike(input, target_type): input's shape, target_type's dtype.
std::vector<TensorType> InferCastLike(const NodeTypeContext& ctx);
// IsNaN, IsInf: input's shape, bool.
std::vector<TensorType> InferIsNaNOrInf(const NodeTypeContext& ctx);
std::vector<TensorType> InferArithmetic(const NodeTypeContext& ctx);
std::vector<TensorType> InferMod(const NodeTypeContext& ctx);
std::vector<TensorType> InferPow(const NodeTypeContext& ctx);
std::vector<TensorType> InferComparison(const NodeTypeContext& ctx);
std::vector<TensorType> InferVariadic(const NodeTypeContext& ctx);
std::vector<TensorType> InferWhere(const NodeTypeContext& ctx);

// type_rules_resize.cc (Resize and ConvTranspose: output sizes from the
// kernels' own formulas)
std::vector<TensorType> InferResize(const NodeTypeContext& ctx);
std::vector<TensorType> InferConvTranspose(const NodeTypeContext& ctx);

// type_rules_conv_pool.cc
std::vector<TensorType> InferConv(const NodeTypeContext& ctx);
std::vector<TensorType> InferMaxPool(const NodeTypeContext& ctx);
std::vector<TensorType> InferAveragePool(const NodeTypeContext& ctx);
std::vector<TensorType> InferGlobalPool(const NodeTypeContext& ctx);
std::vector<TensorType> InferNchwcConv(const NodeTypeContext& ctx);
std::vector<TensorType> InferNchwcReorderInput(const NodeTypeContext& ctx);
std::vector<TensorType> InferNchwcReorderOutput(const NodeTypeContext& ctx);
std::vector<TensorType> InferNchwcPool(const NodeTypeContext& ctx);
std::vector<TensorType> InferNchwcGlobalPool(const NodeTypeContext& ctx);
std::vector<TensorType> InferNchwcChannelAffine(const NodeTypeContext& ctx);

// type_rules_nn.cc
std::vector<TensorType> InferMatMul(const NodeTypeContext& ctx);
std::vector<TensorType> InferFusedMatMul(const NodeTypeContext& ctx);
std::vector<TensorType> InferGemm(const NodeTypeContext& ctx);
std::vector<TensorType> InferBatchNormalization(const NodeTypeContext& ctx);
std::vector<TensorType> InferInstanceNormalization(const NodeTypeContext& ctx);
std::vector<TensorType> InferLayerNormalization(const NodeTypeContext& ctx);
// Softmax, LogSoftmax and Hardmax: the input's type.
std::vector<TensorType> InferSoftmax(const NodeTypeContext& ctx);
std::vector<TensorType> InferLoomAttention(const NodeTypeContext& ctx);

// type_rules_reduce.cc
std::vector<TensorType> InferReduce(const NodeTypeContext& ctx);
std::vector<TensorType> InferArgReduce(const NodeTypeContext& ctx);
std::vector<TensorType> InferTopK(const NodeTypeContext& ctx);
std::vector<TensorType> InferCumSum(const NodeTypeContext& ctx);

// type_rules_shape_ops.cc
std::vector<TensorType> InferReshape(const NodeTypeContext& ctx);
std::vector<TensorType> InferFlatten(const NodeTypeContext& ctx);
std::vector<TensorType> InferSqueeze(const NodeTypeContext& ctx);
std::vector<TensorType> InferUnsqueeze(const NodeTypeContext& ctx);
std::vector<TensorType> InferTranspose(const NodeTypeContext& ctx);
std::vector<TensorType> InferConcat(const NodeTypeContext& ctx);

// type_rules_copy_ops.cc
std::vector<TensorType> InferSplit(const NodeTypeContext& ctx);
std::vector<TensorType> InferSlice(const NodeTypeContext& ctx);
std::vector<TensorType> InferPad(const NodeTypeContext& ctx);
std::vector<TensorType> InferExpand(const NodeTypeContext& ctx);
std::vector<TensorType> InferTile(const NodeTypeContext& ctx);
std::vector<TensorType> InferGather(const NodeTypeContext& ctx);
std::vector<TensorType> InferGatherElements(const NodeTypeContext& ctx);

// type_rules_index_ops.cc
std::vector<TensorType> InferGatherND(const NodeTypeContext& ctx);
// ScatterND and ScatterElements: data's type.
std::vector<TensorType> InferScatter(const NodeTypeContext& ctx);
std::vector<TensorType> InferNonZero(const NodeTypeContext& ctx);
std::vector<TensorType> InferCompress(const NodeTypeContext& ctx);
std::vector<TensorType> InferOneHot(const NodeTypeContext& ctx);
std::vector<TensorType> InferTrilu(const NodeTypeContext& ctx);
std::vector<TensorType> InferEyeLike(const NodeTypeContext& ctx);
// DepthToSpace and SpaceToDepth.
std::vector<TensorType> InferDepthSpace(const NodeTypeContext& ctx);

// type_rules_vision.cc
std::vector<TensorType> InferGridSample(const NodeTypeContext& ctx);
std::vector<TensorType> InferNonMaxSuppression(const NodeTypeContext& ctx);
std::vector<TensorType> InferAffineGrid(const NodeTypeContext& ctx);
std::vector<TensorType> InferRoiAlign(const NodeTypeContext& ctx);
std::vector<TensorType> InferMaxRoiPool(const NodeTypeContext& ctx);
std::vector<TensorType> InferDeformConv(const NodeTypeContext& ctx);
std::vector<TensorType> InferEinsum(const NodeTypeContext& ctx);

// type_rules_signal.cc
std::vector<TensorType> InferDft(const NodeTypeContext& ctx);
std::vector<TensorType> InferStft(const NodeTypeContext& ctx);
// HannWindow, HammingWindow and BlackmanWindow.
std::vector<TensorType> InferWindow(const NodeTypeContext& ctx);
std::vector<TensorType> InferMelWeightMatrix(const NodeTypeContext& ctx);
// type_rules_quant.cc (kernels/quant/quant.h)
std::vector<TensorType> InferQuantizeLinear(const NodeTypeContext& ctx);
std::vector<TensorType> InferDequantizeLinear(const NodeTypeContext& ctx);
std::vector<TensorType> InferDynamicQuantizeLinear(const NodeTypeContext& ctx);
std::vector<TensorType> InferMatMulInteger(const NodeTypeContext& ctx);
std::vector<TensorType> InferQLinearMatMul(const NodeTypeContext& ctx);
std::vector<TensorType> InferConvInteger(const NodeTypeContext& ctx);
std::vector<TensorType> InferQLinearConv(const NodeTypeContext& ctx);
std::vector<TensorType> InferLoomQLinearAdd(const NodeTypeContext& ctx);
// type_rules_recurrent.cc
// RNN, GRU, LSTM -> Y [seq, dirs, batch, hidden], Y_h (and LSTM's Y_c)
// [dirs, batch, hidden]; layout 1 puts batch first.
std::vector<TensorType> InferRecurrent(const NodeTypeContext& ctx);
// type_rules_data_ops.cc
std::vector<TensorType> InferUnique(const NodeTypeContext& ctx);
// The string operators (kernels/strings/string_ops.h); StringConcat is
// InferArithmetic.
std::vector<TensorType> InferStringSplit(const NodeTypeContext& ctx);
// The random generators (kernels/random/random_ops.h).
std::vector<TensorType> InferRandomFromShape(const NodeTypeContext& ctx);
std::vector<TensorType> InferRandomLike(const NodeTypeContext& ctx);
std::vector<TensorType> InferBernoulli(const NodeTypeContext& ctx);
std::vector<TensorType> InferMultinomial(const NodeTypeContext& ctx);
// The loss functions (kernels/loss/loss_functions.h).
std::vector<TensorType> InferNegativeLogLikelihoodLoss(const NodeTypeContext& ctx);
std::vector<TensorType> InferSoftmaxCrossEntropyLoss(const NodeTypeContext& ctx);
std::vector<TensorType> InferStringNormalizer(const NodeTypeContext& ctx);
std::vector<TensorType> InferRegexFullMatch(const NodeTypeContext& ctx);
std::vector<TensorType> InferTfIdfVectorizer(const NodeTypeContext& ctx);
std::vector<TensorType> InferCenterCropPad(const NodeTypeContext& ctx);
std::vector<TensorType> InferCol2Im(const NodeTypeContext& ctx);
std::vector<TensorType> InferTensorScatter(const NodeTypeContext& ctx);
std::vector<TensorType> InferReverseSequence(const NodeTypeContext& ctx);
std::vector<TensorType> InferMaxUnpool(const NodeTypeContext& ctx);
std::vector<TensorType> InferDet(const NodeTypeContext& ctx);
// type_rules_prelu_group_norm.cc
std::vector<TensorType> InferPRelu(const NodeTypeContext& ctx);
// LoomDropout (kernels/elementwise/elementwise.h) -> data's type and a bool mask.
std::vector<TensorType> InferLoomDropout(const NodeTypeContext& ctx);
std::vector<TensorType> InferGroupNormalization(const NodeTypeContext& ctx);

// type_rules_constant_ops.cc
// The value of a Constant node when it is an integer or tensor constant
// (what Reshape, Slice ... read as constant inputs), else nullopt.
std::optional<Tensor> ConstantNodeValue(const Node& node);
std::vector<TensorType> InferConstant(const NodeTypeContext& ctx);
std::vector<TensorType> InferConstantOfShape(const NodeTypeContext& ctx);
std::vector<TensorType> InferRange(const NodeTypeContext& ctx);
std::vector<TensorType> InferShape(const NodeTypeContext& ctx);
std::vector<TensorType> InferSize(const NodeTypeContext& ctx);

// type_rules_transformer.cc
std::vector<TensorType> InferAttention(const NodeTypeContext& ctx);
std::vector<TensorType> InferRMSNormalization(const NodeTypeContext& ctx);
std::vector<TensorType> InferRotaryEmbedding(const NodeTypeContext& ctx);

}  // namespace loom::graph
