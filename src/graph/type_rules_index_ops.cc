// Type rules of the indexing and rearranging ops (kernels/shape/shape_ops.h):
// GatherND, ScatterND, ScatterElements, NonZero, Compress, OneHot, Trilu,
// EyeLike, DepthToSpace, SpaceToDepth. Data-dependent sizes (NonZero's
// count, Compress's kept slices, a depth known only at run time) are fresh
// UnknownDim()s.
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

// Fails unless input `index` (known rank) has rank >= `min_rank`.
void CheckMinRank(const NodeTypeContext& ctx, size_t index, int min_rank) {
  const int rank = RankOf(ctx, index);
  if (rank >= 0 && rank < min_rank) {
    ctx.Fail("input " + ctx.Describe(index) + " must have rank >= " + std::to_string(min_rank));
  }
}

// A known positive blocksize, or Fail().
int64_t Blocksize(const NodeTypeContext& ctx) {
  if (!ctx.has_attribute("blocksize")) ctx.Fail("attribute 'blocksize' is required");
  const int64_t bs = ctx.GetInt("blocksize", 0);
  if (bs <= 0) ctx.Fail("attribute 'blocksize' must be > 0 (got " + std::to_string(bs) + ")");
  return bs;
}

}  // namespace

// GatherND(data, indices [..., k]): indices.shape[:-1] + data.shape[b+k:].
std::vector<TensorType> InferGatherND(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const DType dtype = ctx.input(0).dtype;
  CheckMinRank(ctx, 0, 1);
  CheckMinRank(ctx, 1, 1);
  const int64_t b = ctx.GetInt("batch_dims", 0);
  const std::optional<SymbolicShape>& data = ctx.input_shape(0);
  const std::optional<SymbolicShape>& indices = ctx.input_shape(1);
  if (!data || !indices) return {TensorType{dtype, std::nullopt}};
  const auto r = static_cast<int64_t>(data->size());
  const auto q = static_cast<int64_t>(indices->size());
  if (b < 0 || b >= std::min(r, q)) {
    ctx.Fail("attribute 'batch_dims' = " + std::to_string(b) + " must be in [0, " +
             std::to_string(std::min(r, q)) + ") for inputs " + ctx.Describe(0) + " and " +
             ctx.Describe(1));
  }
  for (int64_t d = 0; d < b; ++d) {
    UnifyDims(ctx, (*data)[d], (*indices)[d],
              "batch dim " + std::to_string(d) + " of 'data' and 'indices' differs");
  }
  const Dim& k = indices->back();
  if (!k.is_known()) return {TensorType{dtype, std::nullopt}};
  if (k.size() > r - b) {
    ctx.Fail("input " + ctx.Describe(1) + " has tuples of " + std::to_string(k.size()) +
             " indices, more than the " + std::to_string(r - b) + " axes of " + ctx.Describe(0) +
             " after batch_dims");
  }
  SymbolicShape out(indices->begin(), indices->end() - 1);
  out.insert(out.end(), data->begin() + b + k.size(), data->end());
  return {TensorType{dtype, out}};
}

// ScatterND(data, indices, updates), ScatterElements(data, indices,
// updates): data's type.
std::vector<TensorType> InferScatter(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  ctx.CheckSameDType(2, 0);
  const std::string reduction = ctx.GetString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min") {
    ctx.Fail("attribute 'reduction' must be none, add, mul, max or min (got '" + reduction + "')");
  }
  CheckMinRank(ctx, 0, 1);
  CheckMinRank(ctx, 1, 1);
  const std::optional<SymbolicShape>& data = ctx.input_shape(0);
  const std::optional<SymbolicShape>& indices = ctx.input_shape(1);
  const std::optional<SymbolicShape>& updates = ctx.input_shape(2);
  if (ctx.node().op_type == "ScatterElements") {
    if (data) {
      const int rank = static_cast<int>(data->size());
      ctx.NormalizeAxis(ctx.GetInt("axis", 0), rank, "attribute 'axis'");
      ctx.CheckRank(1, rank);
      ctx.CheckRank(2, rank);
    }
    if (indices && updates && indices->size() == updates->size()) {
      for (size_t d = 0; d < indices->size(); ++d) {
        UnifyDims(ctx, (*indices)[d], (*updates)[d],
                  "inputs 'indices' and 'updates' differ on axis " + std::to_string(d));
      }
    }
  } else if (data && indices && updates && indices->back().is_known()) {
    // updates.shape must be indices.shape[:-1] + data.shape[k:].
    const int64_t k = indices->back().size();
    if (k > static_cast<int64_t>(data->size())) {
      ctx.Fail("input " + ctx.Describe(1) + " has tuples of " + std::to_string(k) +
               " indices, more than the rank of " + ctx.Describe(0));
    }
    SymbolicShape expected(indices->begin(), indices->end() - 1);
    expected.insert(expected.end(), data->begin() + k, data->end());
    if (expected.size() != updates->size()) {
      ctx.Fail("input " + ctx.Describe(2) + " must have shape " + shape_to_string(expected) +
               " (indices.shape[:-1] + data.shape[k:])");
    }
    for (size_t d = 0; d < expected.size(); ++d) {
      UnifyDims(ctx, expected[d], (*updates)[d],
                "input " + ctx.Describe(2) + " must have shape " + shape_to_string(expected) +
                    " (indices.shape[:-1] + data.shape[k:])");
    }
  }
  return {ctx.input(0)};
}

// NonZero(X) -> int64 [rank, ?].
std::vector<TensorType> InferNonZero(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const int rank = RankOf(ctx, 0);
  const Dim rows = rank >= 0 ? Dim(int64_t{rank}) : ctx.UnknownDim();
  return {TensorType{DType::kInt64, SymbolicShape{rows, ctx.UnknownDim()}}};
}

// Compress(input, condition): the axis becomes data-dependent; without an
// axis, a 1-D result.
std::vector<TensorType> InferCompress(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kBool});
  ctx.CheckRank(1, 1);
  const DType dtype = ctx.input(0).dtype;
  if (!ctx.has_attribute("axis")) return {TensorType{dtype, SymbolicShape{ctx.UnknownDim()}}};
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  if (x->empty()) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis =
      ctx.NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int>(x->size()), "attribute 'axis'");
  SymbolicShape out = *x;
  out[axis] = ctx.UnknownDim();
  return {TensorType{dtype, out}};
}

// OneHot(indices, depth, values): values' dtype; indices' shape with the
// depth inserted at axis.
std::vector<TensorType> InferOneHot(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  const DType dtype = ctx.input(2).dtype;
  if (ctx.input(1).dtype == DType::kBool) ctx.Fail("input " + ctx.Describe(1) + " must be numeric");
  const std::optional<SymbolicShape>& indices = ctx.input_shape(0);
  if (!indices) return {TensorType{dtype, std::nullopt}};
  const auto rank = static_cast<int64_t>(indices->size());
  const int64_t axis = ctx.GetInt("axis", -1);
  if (axis < -rank - 1 || axis > rank) {
    ctx.Fail("attribute 'axis' = " + std::to_string(axis) + " is out of range [" +
             std::to_string(-rank - 1) + ", " + std::to_string(rank) + "] for input " +
             ctx.Describe(0));
  }
  Dim depth = ctx.UnknownDim();
  const Tensor* constant = ctx.constant(1);
  if (constant != nullptr && constant->num_elements() == 1 &&
      (constant->dtype() == DType::kInt64 || constant->dtype() == DType::kInt32)) {
    const int64_t value = constant->dtype() == DType::kInt64 ? constant->data<int64_t>()[0]
                                                             : constant->data<int32_t>()[0];
    if (value < 0) ctx.Fail("input " + ctx.Describe(1) + " is negative");
    depth = Dim(value);
  }
  SymbolicShape out = *indices;
  out.insert(out.begin() + (axis < 0 ? axis + rank + 1 : axis), depth);
  return {TensorType{dtype, out}};
}

// Trilu(input, k?): the input's type.
std::vector<TensorType> InferTrilu(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  CheckMinRank(ctx, 0, 2);
  return {ctx.input(0)};
}

// EyeLike(input rank 2): the input's shape, attribute dtype's element type.
std::vector<TensorType> InferEyeLike(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckRank(0, 2);
  DType dtype = ctx.input(0).dtype;
  if (ctx.has_attribute("dtype")) {
    const int64_t code = ctx.GetInt("dtype", 0);
    const std::optional<DType> requested = kernels::DTypeFromOnnxDataType(code);
    if (!requested || *requested == DType::kString) {
      ctx.Fail("attribute 'dtype' = " + std::to_string(code) +
               " is not a dtype Loom supports (1 FLOAT, 2 UINT8, 3 INT8, 6 INT32, 7 INT64, 9 "
               "BOOL, 10 FLOAT16, 11 DOUBLE)");
    }
    dtype = *requested;
  }
  return {TensorType{dtype, ctx.input_shape(0)}};
}

// DepthToSpace [N, C, H, W] -> [N, C / bs^2, H * bs, W * bs]; SpaceToDepth
// the other way.
std::vector<TensorType> InferDepthSpace(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  ctx.CheckRank(0, 4);
  const bool to_space = ctx.node().op_type == "DepthToSpace";
  const int64_t bs = Blocksize(ctx);
  const int64_t area = ctx.Mul(bs, bs, "blocksize^2");
  if (to_space) {
    const std::string mode = ctx.GetString("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") {
      ctx.Fail("attribute 'mode' must be DCR or CRD (got '" + mode + "')");
    }
  }
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  // Divides a known dim exactly (or Fails), multiplies it, or leaves a
  // symbol unknown unless bs is 1.
  const auto divide = [&](const Dim& dim, int64_t by, const char* what) -> Dim {
    if (!dim.is_known()) return by == 1 ? dim : ctx.UnknownDim();
    if (dim.size() % by != 0) {
      ctx.Fail("the " + std::string(what) + " (" + dim.to_string() + ") of input " +
               ctx.Describe(0) + " is not a multiple of " + std::to_string(by));
    }
    return Dim(dim.size() / by);
  };
  const auto multiply = [&](const Dim& dim, int64_t by) -> Dim {
    if (!dim.is_known()) return by == 1 ? dim : ctx.UnknownDim();
    return Dim(ctx.Mul(dim.size(), by, "the output size"));
  };
  SymbolicShape out = *x;
  if (to_space) {
    out[1] = divide((*x)[1], area, "channels");
    out[2] = multiply((*x)[2], bs);
    out[3] = multiply((*x)[3], bs);
  } else {
    out[1] = multiply((*x)[1], area);
    out[2] = divide((*x)[2], bs, "height");
    out[3] = divide((*x)[3], bs, "width");
  }
  return {TensorType{dtype, out}};
}

}  // namespace loom::graph
