// Type rules of the kernels of kernels/shape/shape_ops_data.h: Unique,
// CenterCropPad, Col2Im, TensorScatter, ReverseSequence, MaxUnpool, Det.
// Sizes that come from non-constant inputs, and Unique's data-dependent
// count, are fresh UnknownDim()s.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/type_rules.h"
#include "kernels/onnx_dtype.h"

namespace loom::graph {
namespace {

// The rank of input `index` when known, else -1.
int RankOf(const NodeTypeContext& ctx, size_t index) {
  const std::optional<SymbolicShape>& shape = ctx.input_shape(index);
  return shape ? static_cast<int>(shape->size()) : -1;
}

}  // namespace

// Unique(X) -> Y, indices [?], inverse_indices, counts [?]: Y is X's
// elements flattened ([?]) or X's shape with the axis unknown; there is one
// inverse index per element (no axis) or per slice along axis.
namespace {

// The float dtype a random generator's 'dtype' attribute names, or fallback.
DType RandomFloatDType(const NodeTypeContext& ctx, DType fallback) {
  if (!ctx.has_attribute("dtype")) return fallback;
  const int64_t code = ctx.GetInt("dtype", 1);
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(code);
  if (!dtype || !dtype_is_float(*dtype)) {
    ctx.Fail("attribute 'dtype' = " + std::to_string(code) + " is not a floating-point type");
  }
  return *dtype;
}

}  // namespace

// RandomUniform, RandomNormal: attribute shape and dtype (float32 default).
std::vector<TensorType> InferRandomFromShape(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(0, 0);
  const std::optional<std::vector<int64_t>> dims = ctx.GetInts("shape");
  if (!dims) ctx.Fail("required attribute 'shape' is missing");
  SymbolicShape shape;
  for (int64_t d : *dims) {
    if (d < 0) ctx.Fail("attribute 'shape' has a negative dimension");
    shape.push_back(Dim(d));
  }
  return {TensorType{RandomFloatDType(ctx, DType::kFloat32), shape}};
}

// RandomUniformLike, RandomNormalLike: the input's shape; 'dtype' or the
// input's (which must then be a float type).
std::vector<TensorType> InferRandomLike(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const DType input = ctx.input(0).dtype;
  if (!ctx.has_attribute("dtype") && !dtype_is_float(input)) {
    ctx.Fail("input " + ctx.Describe(0) + " is not floating point and attribute 'dtype' is unset");
  }
  return {TensorType{RandomFloatDType(ctx, input), ctx.input_shape(0)}};
}

// Bernoulli: the input's shape; 'dtype' (any numeric or bool) or the input's.
std::vector<TensorType> InferBernoulli(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  DType dtype = ctx.input(0).dtype;
  if (ctx.has_attribute("dtype")) {
    const int64_t code = ctx.GetInt("dtype", 1);
    const std::optional<DType> requested = kernels::DTypeFromOnnxDataType(code);
    if (!requested || *requested == DType::kString) {
      ctx.Fail("attribute 'dtype' = " + std::to_string(code) + " is not a numeric or bool type");
    }
    dtype = *requested;
  }
  return {TensorType{dtype, ctx.input_shape(0)}};
}

// Multinomial([batch, classes]) -> [batch, sample_size] of int32 or int64.
std::vector<TensorType> InferMultinomial(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckRank(0, 2);
  const int64_t code = ctx.GetInt("dtype", 6);
  if (code != 6 && code != 7) ctx.Fail("attribute 'dtype' must be 6 (INT32) or 7 (INT64)");
  const int64_t samples = ctx.GetInt("sample_size", 1);
  if (samples < 0) ctx.Fail("attribute 'sample_size' must be >= 0");
  std::optional<SymbolicShape> shape;
  if (const std::optional<SymbolicShape>& x = ctx.input_shape(0)) {
    shape = SymbolicShape{(*x)[0], Dim(samples)};
  }
  return {TensorType{code == 6 ? DType::kInt32 : DType::kInt64, shape}};
}

namespace {

// The loss's type: the input's dtype; [N, d1..dk] for reduction none (the
// input's shape without axis 1), a scalar otherwise.
TensorType LossType(const NodeTypeContext& ctx) {
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  if (ctx.num_inputs() > 2 && !ctx.node().inputs[2].empty()) ctx.CheckSameDType(2, 0);
  const std::string reduction = ctx.GetString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    ctx.Fail("attribute 'reduction' = \"" + reduction + "\" is not none, sum or mean");
  }
  if (reduction != "none") return TensorType{ctx.input(0).dtype, SymbolicShape{}};
  std::optional<SymbolicShape> shape = ctx.input_shape(0);
  if (shape) {
    if (shape->size() < 2) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2");
    shape->erase(shape->begin() + 1);
  }
  return TensorType{ctx.input(0).dtype, shape};
}

}  // namespace

std::vector<TensorType> InferNegativeLogLikelihoodLoss(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  return {LossType(ctx)};
}

// SoftmaxCrossEntropyLoss: the loss, and log_prob with the scores' type.
std::vector<TensorType> InferSoftmaxCrossEntropyLoss(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  return {LossType(ctx), ctx.input(0)};
}

// StringSplit(X) -> Y: X's shape plus the most pieces (unknown); Z: X's shape.
std::vector<TensorType> InferStringSplit(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kString});
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  std::optional<SymbolicShape> y;
  if (x) {
    y = *x;
    y->push_back(ctx.UnknownDim());
  }
  return {TensorType{DType::kString, y}, TensorType{DType::kInt64, x}};
}

// StringNormalizer([C] or [1, C]) -> [C'] or [1, C'], C' unknown (stopwords).
std::vector<TensorType> InferStringNormalizer(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kString});
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kString, std::nullopt}};
  if (x->size() == 1) return {TensorType{DType::kString, SymbolicShape{ctx.UnknownDim()}}};
  if (x->size() == 2 && (*x)[0] == Dim(1)) {
    return {TensorType{DType::kString, SymbolicShape{1, ctx.UnknownDim()}}};
  }
  ctx.Fail("input " + ctx.Describe(0) + " must have shape [C] or [1, C]");
}

// TfIdfVectorizer([C] or [N, C]) -> float32 [W] or [N, W], W =
// max(ngram_indexes) + 1.
std::vector<TensorType> InferTfIdfVectorizer(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const bool strings = ctx.has_attribute("pool_strings");
  if (strings == ctx.has_attribute("pool_int64s")) {
    ctx.Fail("exactly one of the attributes 'pool_int64s' and 'pool_strings' must be set");
  }
  if (strings) {
    ctx.CheckDTypeIn(0, {DType::kString});
  } else {
    ctx.CheckDTypeIn(0, {DType::kInt32, DType::kInt64});
  }
  const std::vector<int64_t> indexes = ctx.GetInts("ngram_indexes", {});
  if (indexes.empty()) ctx.Fail("attribute 'ngram_indexes' is missing or empty");
  const int64_t width = *std::max_element(indexes.begin(), indexes.end()) + 1;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kFloat32, std::nullopt}};
  if (x->size() == 1) return {TensorType{DType::kFloat32, SymbolicShape{width}}};
  if (x->size() == 2) return {TensorType{DType::kFloat32, SymbolicShape{(*x)[0], width}}};
  ctx.Fail("input " + ctx.Describe(0) + " must have shape [C] or [N, C]");
}

std::vector<TensorType> InferRegexFullMatch(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckDTypeIn(0, {DType::kString});
  if (!ctx.has_attribute("pattern")) ctx.Fail("required attribute 'pattern' is missing");
  return {TensorType{DType::kBool, ctx.input_shape(0)}};
}

std::vector<TensorType> InferUnique(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const Dim unique = ctx.UnknownDim();
  std::optional<SymbolicShape> y = SymbolicShape{unique};
  std::optional<SymbolicShape> inverse;
  if (ctx.has_attribute("axis")) {
    y = std::nullopt;
    if (x) {
      if (x->empty())
        ctx.Fail("attribute 'axis' needs an input of rank >= 1, got " + ctx.Describe(0));
      const int axis =
          ctx.NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int>(x->size()), "attribute 'axis'");
      y = *x;
      (*y)[axis] = unique;
      inverse = SymbolicShape{(*x)[axis]};
    }
  } else if (x) {
    inverse = SymbolicShape{ProductDim(ctx, *x)};
  } else {
    inverse = SymbolicShape{ctx.UnknownDim()};
  }
  return {TensorType{dtype, y}, TensorType{DType::kInt64, SymbolicShape{unique}},
          TensorType{DType::kInt64, inverse}, TensorType{DType::kInt64, SymbolicShape{unique}}};
}

// CenterCropPad(input_data, shape): the listed axes (attribute axes, else
// all) take the sizes of the constant `shape`, unknown when it is not
// constant.
std::vector<TensorType> InferCenterCropPad(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  std::vector<int> axes;
  if (const std::optional<std::vector<int64_t>> listed = ctx.GetInts("axes")) {
    axes = NormalizeAxes(ctx, *listed, rank);
  } else {
    for (int a = 0; a < rank; ++a) axes.push_back(a);
  }
  const std::optional<std::vector<int64_t>> sizes = ctx.ConstantInts(1);
  if (sizes && sizes->size() != axes.size()) {
    ctx.Fail("input " + ctx.Describe(1) + " must hold one size per axis (" +
             std::to_string(axes.size()) + ")");
  }
  SymbolicShape out = *x;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (sizes && (*sizes)[i] < 0) ctx.Fail("input " + ctx.Describe(1) + " has a negative size");
    out[axes[i]] = sizes ? Dim((*sizes)[i]) : ctx.UnknownDim();
  }
  return {TensorType{dtype, out}};
}

// Col2Im(input [N, C * prod(block), L], image_shape, block_shape) ->
// [N, C, image...].
std::vector<TensorType> InferCol2Im(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  ctx.CheckDTypeIn(2, {DType::kInt64});
  ctx.CheckRank(0, 3);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<std::vector<int64_t>> image = ctx.ConstantInts(1);
  const std::optional<std::vector<int64_t>> block = ctx.ConstantInts(2);
  const std::optional<int64_t> spatial = ctx.ListLength(1);
  if (!spatial) return {TensorType{dtype, std::nullopt}};
  SymbolicShape out = {x ? (*x)[0] : ctx.UnknownDim(), ctx.UnknownDim()};
  if (x && block && (*x)[1].is_known()) {
    int64_t block_size = 1;
    for (int64_t b : *block) block_size = ctx.Mul(block_size, b, "the block size");
    if (block_size <= 0 || (*x)[1].size() % block_size != 0) {
      ctx.Fail("input " + ctx.Describe(0) + " dim 1 must be a multiple of the block size " +
               std::to_string(block_size));
    }
    out[1] = Dim((*x)[1].size() / block_size);
  }
  for (int64_t d = 0; d < *spatial; ++d) {
    out.push_back(image ? Dim((*image)[d]) : ctx.UnknownDim());
  }
  return {TensorType{dtype, out}};
}

// TensorScatter(past_cache, update, write_indices?): past_cache's type.
std::vector<TensorType> InferTensorScatter(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckSameDType(1, 0);
  ctx.CheckDTypeIn(2, {DType::kInt64});
  const int rank = RankOf(ctx, 0);
  if (rank >= 0) {
    if (rank < 2) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2");
    ctx.CheckRank(1, rank);
    if (ctx.NormalizeAxis(ctx.GetInt("axis", -2), rank, "attribute 'axis'") == 0) {
      ctx.Fail("attribute 'axis' must not be the batch axis 0");
    }
  }
  const std::string mode = ctx.GetString("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    ctx.Fail("attribute 'mode' must be linear or circular (got '" + mode + "')");
  }
  return {ctx.input(0)};
}

// ReverseSequence(input, sequence_lens): input's type.
std::vector<TensorType> InferReverseSequence(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  ctx.CheckRank(1, 1);
  const int rank = RankOf(ctx, 0);
  if (rank >= 0 && rank < 2) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2");
  return {ctx.input(0)};
}

// MaxUnpool(X, I, output_shape?): the constant output_shape, else per
// spatial axis (in - 1) * stride + kernel - pad_begin - pad_end.
std::vector<TensorType> InferMaxUnpool(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  ctx.CheckDTypeIn(2, {DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (ctx.has_input(2)) {
    if (const std::optional<std::vector<int64_t>> shape = ctx.ConstantInts(2)) {
      SymbolicShape out;
      for (int64_t d : *shape) out.push_back(Dim(d));
      return {TensorType{dtype, out}};
    }
    if (x) return {TensorType{dtype, UnknownDims(ctx, x->size())}};
    return {TensorType{dtype, std::nullopt}};
  }
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  if (rank < 3) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 3");
  const size_t spatial = static_cast<size_t>(rank - 2);
  const std::optional<std::vector<int64_t>> kernel = ctx.GetInts("kernel_shape");
  if (!kernel) ctx.Fail("attribute 'kernel_shape' is required");
  const std::vector<int64_t> strides = ctx.GetInts("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads = ctx.GetInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (kernel->size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial) {
    ctx.Fail("attributes kernel_shape, strides and pads must have " + std::to_string(spatial) +
             ", " + std::to_string(spatial) + " and " + std::to_string(2 * spatial) +
             " values for input " + ctx.Describe(0));
  }
  SymbolicShape out = *x;
  for (size_t d = 0; d < spatial; ++d) {
    const Dim& in = (*x)[d + 2];
    if (!in.is_known()) {
      out[d + 2] = ctx.UnknownDim();
      continue;
    }
    if ((*kernel)[d] <= 0 || strides[d] <= 0 || pads[d] < 0 || pads[d + spatial] < 0) {
      ctx.Fail("kernel_shape and strides must be positive and pads >= 0");
    }
    int64_t size = ctx.Mul(std::max<int64_t>(in.size() - 1, 0), strides[d], "the output size");
    size = ctx.Add(size, (*kernel)[d], "the output size");
    size =
        ctx.Add(ctx.Add(size, -pads[d], "the output size"), -pads[d + spatial], "the output size");
    if (size < 0) ctx.Fail("the output size of spatial axis " + std::to_string(d) + " is negative");
    out[d + 2] = Dim(size);
  }
  return {TensorType{dtype, out}};
}

// Det(X [..., M, M]) -> [...].
std::vector<TensorType> InferDet(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  if (x->size() < 2) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2");
  UnifyDims(ctx, (*x)[x->size() - 2], x->back(),
            "input " + ctx.Describe(0) + " must hold square matrices");
  return {TensorType{dtype, SymbolicShape(x->begin(), x->end() - 2)}};
}

}  // namespace loom::graph
