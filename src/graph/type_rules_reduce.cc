// Type rules of the reductions (kernels/reduce.h): Reduce* and ArgMax/ArgMin.
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

}  // namespace loom::graph
