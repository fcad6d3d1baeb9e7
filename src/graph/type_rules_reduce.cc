// Type rules of the reductions (kernels/reduce/reduce.h): Reduce*, ArgMax/ArgMin,
// TopK and CumSum.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {
namespace {

// The reduced shape of `x` over `axes` (normalized, distinct).
SymbolicShape Reduced(const SymbolicShape& x, const std::vector<bool>& reduced, bool keepdims) {
  SymbolicShape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(x[d]);
    } else if (keepdims) {
      out.push_back(Dim(1));
    }
  }
  return out;
}

}  // namespace

// Reduce*(data, axes?): axes from input 1 (a constant) or attribute "axes";
// none or empty reduces every axis unless noop_with_empty_axes = 1.
std::vector<TensorType> InferReduce(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 2);
  const DType dtype = ctx.input(0).dtype;
  const bool keepdims = ctx.GetInt("keepdims", 1) != 0;
  const bool noop_with_empty_axes = ctx.GetInt("noop_with_empty_axes", 0) != 0;
  std::optional<std::vector<int64_t>> axes;
  if (ctx.has_input(1)) {
    ctx.CheckDTypeIn(1, {DType::kInt64});
    ctx.CheckRank(1, 1);
    axes = ctx.ConstantInts(1);
    if (!axes) {
      // Axes known only at run time: with keepdims the rank stays and each
      // dim is either kept or 1; without, even the rank is unknown.
      const std::optional<SymbolicShape>& x = ctx.input_shape(0);
      if (!keepdims || !x) return {TensorType{dtype, std::nullopt}};
      SymbolicShape out;
      for (const Dim& d : *x) out.push_back(d.is_known() && d.size() == 1 ? d : ctx.UnknownDim());
      return {TensorType{dtype, out}};
    }
  } else {
    axes = ctx.GetInts("axes");
  }
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  std::vector<bool> reduced(x->size(), false);
  if (!axes || axes->empty()) {
    if (noop_with_empty_axes) return {ctx.input(0)};
    reduced.assign(x->size(), true);
  } else {
    for (int64_t axis : *axes) {
      const int a = ctx.NormalizeAxis(axis, rank, "axis");
      if (reduced[a]) {
        ctx.Fail("axes " + IntsToString(*axes) + " name axis " + std::to_string(a) +
                 " more than once (input " + ctx.Describe(0) + ")");
      }
      reduced[a] = true;
    }
  }
  return {TensorType{dtype, Reduced(*x, reduced, keepdims)}};
}

// ArgMax, ArgMin: int64 indices along attribute axis (default 0).
std::vector<TensorType> InferArgReduce(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kInt64, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  if (rank == 0) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis = ctx.NormalizeAxis(ctx.GetInt("axis", 0), rank, "attribute 'axis'");
  if ((*x)[axis].is_known() && (*x)[axis].size() == 0) {
    ctx.Fail("cannot reduce the empty axis " + std::to_string(axis) + " of input " +
             ctx.Describe(0));
  }
  std::vector<bool> reduced(x->size(), false);
  reduced[axis] = true;
  return {TensorType{DType::kInt64, Reduced(*x, reduced, ctx.GetInt("keepdims", 1) != 0)}};
}

// TopK(X, K) -> Values (X's dtype), Indices (int64): X's shape with the axis
// K long (known when K is a constant).
std::vector<TensorType> InferTopK(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt64});
  const std::optional<int64_t> length = ctx.ListLength(1);
  if (length && *length != 1) ctx.Fail("input " + ctx.Describe(1) + " must hold one value");
  const DType dtype = ctx.input(0).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{dtype, std::nullopt}, TensorType{DType::kInt64, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  if (rank == 0) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis = ctx.NormalizeAxis(ctx.GetInt("axis", -1), rank, "attribute 'axis'");
  SymbolicShape out = *x;
  out[axis] = ctx.UnknownDim();
  if (const std::optional<std::vector<int64_t>> k = ctx.ConstantInts(1)) {
    const Dim& dim = (*x)[axis];
    if (k->size() != 1 || (*k)[0] < 0 || (dim.is_known() && (*k)[0] > dim.size())) {
      ctx.Fail("input " + ctx.Describe(1) + " = " + IntsToString(*k) +
               " must be one value in [0, " + dim.to_string() + "] (axis " + std::to_string(axis) +
               " of " + ctx.Describe(0) + ")");
    }
    out[axis] = Dim((*k)[0]);
  }
  return {TensorType{dtype, out}, TensorType{DType::kInt64, out}};
}

// CumSum(x, axis): x's type.
std::vector<TensorType> InferCumSum(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckDTypeIn(1, {DType::kInt32, DType::kInt64});
  const std::optional<int64_t> length = ctx.ListLength(1);
  if (length && *length != 1) ctx.Fail("input " + ctx.Describe(1) + " must hold one value");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (x) {
    if (x->empty()) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
    if (const std::optional<std::vector<int64_t>> axis = ctx.ConstantInts(1)) {
      ctx.NormalizeAxis((*axis)[0], static_cast<int>(x->size()), "input 'axis'");
    }
  }
  return {ctx.input(0)};
}

}  // namespace loom::graph
