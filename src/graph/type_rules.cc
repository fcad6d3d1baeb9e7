// The shape arithmetic shared by the rules, and the rule table.
#include "graph/type_rules.h"

#include <algorithm>
#include <array>

#include "graph/control_flow.h"
#include "graph/sequence_ops.h"

namespace loom::graph {

// ---- shape arithmetic ----

std::string IntsToString(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

SymbolicShape ToSymbolicShape(const Shape& shape) {
  return SymbolicShape(shape.dims().begin(), shape.dims().end());
}

std::optional<Dim> BroadcastDim(const NodeTypeContext& ctx, const Dim& a, const Dim& b) {
  if (a == b) return a;
  if (a.is_known() && a.size() == 1) return b;
  if (b.is_known() && b.size() == 1) return a;
  if (a.is_known() && b.is_known()) return std::nullopt;
  if (a.is_known()) return a;  // a symbol meets a known size: the known size wins
  if (b.is_known()) return b;
  return ctx.UnknownDim();  // two different symbols: either may be 1
}

std::optional<SymbolicShape> BroadcastInputs(const NodeTypeContext& ctx,
                                             std::initializer_list<size_t> indices) {
  return BroadcastInputs(ctx, std::vector<size_t>(indices));
}

std::optional<SymbolicShape> BroadcastInputs(const NodeTypeContext& ctx,
                                             const std::vector<size_t>& indices) {
  size_t rank = 0;
  bool all_known = true;
  for (size_t i : indices) {
    if (!ctx.has_input(i)) continue;
    if (!ctx.input_shape(i)) {
      all_known = false;
      continue;
    }
    rank = std::max(rank, ctx.input_shape(i)->size());
  }
  // Per output axis: the dim so far and the input that set its known size
  // (to name both sides of a clash). Unknown-rank inputs are skipped here,
  // so clashes among the known shapes are still reported.
  SymbolicShape out(rank, Dim(1));
  std::vector<size_t> source(rank, 0);
  for (size_t i : indices) {
    if (!ctx.has_input(i) || !ctx.input_shape(i)) continue;
    const SymbolicShape& shape = *ctx.input_shape(i);
    const size_t shift = rank - shape.size();
    for (size_t k = 0; k < shape.size(); ++k) {
      const size_t axis = shift + k;
      const std::optional<Dim> merged = BroadcastDim(ctx, out[axis], shape[k]);
      if (!merged) {
        ctx.Fail("inputs " + ctx.Describe(source[axis]) + " and " + ctx.Describe(i) +
                 " do not broadcast (axis " + std::to_string(axis) + ": " + out[axis].to_string() +
                 " vs " + shape[k].to_string() + ")");
      }
      if (merged->is_known() && !(*merged == out[axis])) source[axis] = i;
      out[axis] = *merged;
    }
  }
  if (!all_known) return std::nullopt;
  return out;
}

Dim UnifyDims(const NodeTypeContext& ctx, const Dim& a, const Dim& b, const std::string& what) {
  if (a.is_known() && b.is_known() && a.size() != b.size()) {
    ctx.Fail(what + " (" + a.to_string() + " vs " + b.to_string() + ")");
  }
  return a.is_known() ? a : (b.is_known() ? b : a);
}

Dim ProductDim(const NodeTypeContext& ctx, std::span<const Dim> dims) {
  int64_t product = 1;
  const Dim* symbol = nullptr;
  int symbols = 0;
  for (const Dim& dim : dims) {
    if (dim.is_known()) {
      if (dim.size() == 0) return Dim(0);
      product = ctx.Mul(product, dim.size(), "the product of dimensions");
    } else {
      symbol = &dim;
      ++symbols;
    }
  }
  if (symbols == 0) return Dim(product);
  if (symbols == 1 && product == 1) return *symbol;
  return ctx.UnknownDim();
}

Dim SumDim(const NodeTypeContext& ctx, std::span<const Dim> dims) {
  int64_t sum = 0;
  const Dim* symbol = nullptr;
  int symbols = 0;
  for (const Dim& dim : dims) {
    if (dim.is_known()) {
      sum = ctx.Add(sum, dim.size(), "the sum of dimensions");
    } else {
      symbol = &dim;
      ++symbols;
    }
  }
  if (symbols == 0) return Dim(sum);
  if (symbols == 1 && sum == 0) return *symbol;
  return ctx.UnknownDim();
}

std::optional<std::vector<int64_t>> InputOrAttribute(const NodeTypeContext& ctx, size_t index,
                                                     std::string_view name, bool* given) {
  if (ctx.has_input(index)) {
    *given = true;
    return ctx.ConstantInts(index);
  }
  std::optional<std::vector<int64_t>> attribute = ctx.GetInts(name);
  *given = attribute.has_value();
  return attribute;
}

std::vector<int> NormalizeAxes(const NodeTypeContext& ctx, const std::vector<int64_t>& axes,
                               int rank) {
  std::vector<int> out;
  for (int64_t axis : axes) {
    const int a = ctx.NormalizeAxis(axis, rank, "axis");
    if (std::find(out.begin(), out.end(), a) != out.end()) {
      ctx.Fail("axes " + IntsToString(axes) + " name axis " + std::to_string(a) + " twice");
    }
    out.push_back(a);
  }
  return out;
}

SymbolicShape UnknownDims(const NodeTypeContext& ctx, size_t rank) {
  SymbolicShape out;
  for (size_t i = 0; i < rank; ++i) out.push_back(ctx.UnknownDim());
  return out;
}

// ---- the table ----

namespace {

// Sorted by op type (a test checks), so lookups can binary-search.
constexpr auto kTypeRules = std::to_array<TypeRule>({
    {"Abs", InferUnary},
    {"Acos", InferUnary},
    {"Acosh", InferUnary},
    {"Add", InferArithmetic},
    {"AffineGrid", InferAffineGrid},
    {"And", InferComparison},
    {"ArgMax", InferArgReduce},
    {"ArgMin", InferArgReduce},
    {"Asin", InferUnary},
    {"Asinh", InferUnary},
    {"Atan", InferUnary},
    {"Atanh", InferUnary},
    {"Attention", InferAttention},
    {"AveragePool", InferAveragePool},
    {"BatchNormalization", InferBatchNormalization},
    {"Bernoulli", InferBernoulli},
    {"BitShift", InferArithmetic},
    {"BitwiseAnd", InferArithmetic},
    {"BitwiseNot", InferUnary},
    {"BitwiseOr", InferArithmetic},
    {"BitwiseXor", InferArithmetic},
    {"BlackmanWindow", InferWindow},
    {"Cast", InferCast},
    {"CastLike", InferCastLike},
    {"Ceil", InferUnary},
    {"Celu", InferUnary},
    {"CenterCropPad", InferCenterCropPad},
    {"Clip", InferClip},
    {"Col2Im", InferCol2Im},
    {"Compress", InferCompress},
    {"Concat", InferConcat},
    {"ConcatFromSequence", InferConcatFromSequence},
    {"Constant", InferConstant},
    {"ConstantOfShape", InferConstantOfShape},
    {"Conv", InferConv},
    {"ConvInteger", InferConvInteger},
    {"ConvTranspose", InferConvTranspose},
    {"Cos", InferUnary},
    {"Cosh", InferUnary},
    {"CumSum", InferCumSum},
    {"DFT", InferDft},
    {"DeformConv", InferDeformConv},
    {"DepthToSpace", InferDepthSpace},
    {"DequantizeLinear", InferDequantizeLinear},
    {"Det", InferDet},
    {"Div", InferArithmetic},
    {"DynamicQuantizeLinear", InferDynamicQuantizeLinear},
    {"Einsum", InferEinsum},
    {"Elu", InferUnary},
    {"Equal", InferComparison},
    {"Erf", InferUnary},
    {"Exp", InferUnary},
    {"Expand", InferExpand},
    {"EyeLike", InferEyeLike},
    {"Flatten", InferFlatten},
    {"Floor", InferUnary},
    {"FusedMatMul", InferFusedMatMul},
    {"GRU", InferRecurrent},
    {"Gather", InferGather},
    {"GatherElements", InferGatherElements},
    {"GatherND", InferGatherND},
    {"Gelu", InferUnary},
    {"Gemm", InferGemm},
    {"GlobalAveragePool", InferGlobalPool},
    {"GlobalLpPool", InferGlobalPool},
    {"GlobalMaxPool", InferGlobalPool},
    {"Greater", InferComparison},
    {"GreaterOrEqual", InferComparison},
    {"GridSample", InferGridSample},
    {"GroupNormalization", InferGroupNormalization},
    {"HammingWindow", InferWindow},
    {"HannWindow", InferWindow},
    {"HardSigmoid", InferUnary},
    {"HardSwish", InferUnary},
    {"Hardmax", InferSoftmax},
    {"Identity", InferUnary},
    {"If", InferIf},
    {"InstanceNormalization", InferInstanceNormalization},
    {"IsInf", InferIsNaNOrInf},
    {"IsNaN", InferIsNaNOrInf},
    {"LRN", InferUnary},
    {"LSTM", InferRecurrent},
    {"LayerNormalization", InferLayerNormalization},
    {"LeakyRelu", InferUnary},
    {"Less", InferComparison},
    {"LessOrEqual", InferComparison},
    {"Log", InferUnary},
    {"LogSoftmax", InferSoftmax},
    {"LoomAttention", InferLoomAttention},
    {"LoomDropout", InferLoomDropout},
    {"LoomQLinearAdd", InferLoomQLinearAdd},
    {"Loop", InferLoop},
    {"LpNormalization", InferUnary},
    {"LpPool", InferAveragePool},
    {"MatMul", InferMatMul},
    {"MatMulInteger", InferMatMulInteger},
    {"Max", InferVariadic},
    {"MaxPool", InferMaxPool},
    {"MaxRoiPool", InferMaxRoiPool},
    {"MaxUnpool", InferMaxUnpool},
    {"Mean", InferVariadic},
    {"MeanVarianceNormalization", InferUnary},
    {"MelWeightMatrix", InferMelWeightMatrix},
    {"Min", InferVariadic},
    {"Mish", InferUnary},
    {"Mod", InferMod},
    {"Mul", InferArithmetic},
    {"Multinomial", InferMultinomial},
    {"NchwcAveragePool", InferNchwcPool},
    {"NchwcChannelAffine", InferNchwcChannelAffine},
    {"NchwcConv", InferNchwcConv},
    {"NchwcGlobalAveragePool", InferNchwcGlobalPool},
    {"NchwcGlobalMaxPool", InferNchwcGlobalPool},
    {"NchwcMaxPool", InferNchwcPool},
    {"NchwcReorderInput", InferNchwcReorderInput},
    {"NchwcReorderOutput", InferNchwcReorderOutput},
    {"Neg", InferUnary},
    {"NegativeLogLikelihoodLoss", InferNegativeLogLikelihoodLoss},
    {"NonMaxSuppression", InferNonMaxSuppression},
    {"NonZero", InferNonZero},
    {"Not", InferUnary},
    {"OneHot", InferOneHot},
    {"Optional", InferOptional},
    {"OptionalGetElement", InferOptionalGetElement},
    {"OptionalHasElement", InferOptionalHasElement},
    {"Or", InferComparison},
    {"PRelu", InferPRelu},
    {"Pad", InferPad},
    {"Pow", InferPow},
    {"QLinearConv", InferQLinearConv},
    {"QLinearMatMul", InferQLinearMatMul},
    {"QuantizeLinear", InferQuantizeLinear},
    {"RMSNormalization", InferRMSNormalization},
    {"RNN", InferRecurrent},
    {"RandomNormal", InferRandomFromShape},
    {"RandomNormalLike", InferRandomLike},
    {"RandomUniform", InferRandomFromShape},
    {"RandomUniformLike", InferRandomLike},
    {"Range", InferRange},
    {"Reciprocal", InferUnary},
    {"ReduceL1", InferReduce},
    {"ReduceL2", InferReduce},
    {"ReduceLogSum", InferReduce},
    {"ReduceLogSumExp", InferReduce},
    {"ReduceMax", InferReduce},
    {"ReduceMean", InferReduce},
    {"ReduceMin", InferReduce},
    {"ReduceProd", InferReduce},
    {"ReduceSum", InferReduce},
    {"ReduceSumSquare", InferReduce},
    {"RegexFullMatch", InferRegexFullMatch},
    {"Relu", InferUnary},
    {"Reshape", InferReshape},
    {"Resize", InferResize},
    {"ReverseSequence", InferReverseSequence},
    {"RoiAlign", InferRoiAlign},
    {"RotaryEmbedding", InferRotaryEmbedding},
    {"Round", InferUnary},
    {"STFT", InferStft},
    {"Scan", InferScan},
    {"ScatterElements", InferScatter},
    {"ScatterND", InferScatter},
    {"Selu", InferUnary},
    {"SequenceAt", InferSequenceAt},
    {"SequenceConstruct", InferSequenceConstruct},
    {"SequenceEmpty", InferSequenceEmpty},
    {"SequenceErase", InferSequenceErase},
    {"SequenceInsert", InferSequenceInsert},
    {"SequenceLength", InferSequenceLength},
    {"SequenceMap", InferSequenceMap},
    {"Shape", InferShape},
    {"Shrink", InferUnary},
    {"Sigmoid", InferUnary},
    {"Sign", InferUnary},
    {"Silu", InferUnary},
    {"Sin", InferUnary},
    {"Sinh", InferUnary},
    {"Size", InferSize},
    {"Slice", InferSlice},
    {"Softmax", InferSoftmax},
    {"SoftmaxCrossEntropyLoss", InferSoftmaxCrossEntropyLoss},
    {"Softplus", InferUnary},
    {"Softsign", InferUnary},
    {"SpaceToDepth", InferDepthSpace},
    {"Split", InferSplit},
    {"SplitToSequence", InferSplitToSequence},
    {"Sqrt", InferUnary},
    {"Squeeze", InferSqueeze},
    {"StringConcat", InferArithmetic},
    {"StringNormalizer", InferStringNormalizer},
    {"StringSplit", InferStringSplit},
    {"Sub", InferArithmetic},
    {"Sum", InferVariadic},
    {"Tan", InferUnary},
    {"Tanh", InferUnary},
    {"TensorScatter", InferTensorScatter},
    {"TfIdfVectorizer", InferTfIdfVectorizer},
    {"ThresholdedRelu", InferUnary},
    {"Tile", InferTile},
    {"TopK", InferTopK},
    {"Transpose", InferTranspose},
    {"Trilu", InferTrilu},
    {"Unique", InferUnique},
    {"Unsqueeze", InferUnsqueeze},
    {"Where", InferWhere},
    {"Xor", InferComparison},
});

}  // namespace

std::span<const TypeRule> TypeRules() { return kTypeRules; }

const TypeRule* FindTypeRule(std::string_view op) {
  auto it = std::lower_bound(kTypeRules.begin(), kTypeRules.end(), op,
                             [](const TypeRule& r, std::string_view name) { return r.op < name; });
  return it != kTypeRules.end() && it->op == op ? &*it : nullptr;
}

}  // namespace loom::graph
