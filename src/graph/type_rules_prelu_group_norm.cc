// Type rules of PRelu (slope broadcast to X), GroupNormalization and
// LoomDropout.
#include <string>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {

// PRelu(X, slope) -> X's type. slope broadcasts unidirectionally: it may
// not grow X, so the broadcast of both must be X's shape where both are
// known.
std::vector<TensorType> InferPRelu(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  ctx.CheckSameDType(1, 0);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  const std::optional<SymbolicShape>& slope = ctx.input_shape(1);
  if (x && slope) {
    if (slope->size() > x->size()) {
      ctx.Fail("input " + ctx.Describe(1) + " has a higher rank than " + ctx.Describe(0) +
               " (slope must broadcast to X)");
    }
    const std::optional<SymbolicShape> both = BroadcastInputs(ctx, {0, 1});
    for (size_t k = 0; k < x->size(); ++k) {
      if ((*x)[k].is_known() && (*both)[k].is_known() && (*x)[k].size() != (*both)[k].size()) {
        ctx.Fail("input " + ctx.Describe(1) + " does not broadcast to " + ctx.Describe(0) +
                 " (axis " + std::to_string(k) + ")");
      }
    }
  }
  return {ctx.input(0)};
}

// GroupNormalization(X [N, C, ...], scale [C], bias [C]) -> X's type.
std::vector<TensorType> InferGroupNormalization(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  const int64_t groups = ctx.RequireInt("num_groups");
  if (groups < 1)
    ctx.Fail("attribute 'num_groups' must be >= 1 (got " + std::to_string(groups) + ")");
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (x && x->size() < 2) {
    ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 2 ([N, C, ...])");
  }
  if (x && (*x)[1].is_known() && (*x)[1].size() % groups != 0) {
    ctx.Fail("attribute 'num_groups' (" + std::to_string(groups) +
             ") must divide the channels of " + ctx.Describe(0));
  }
  for (size_t i : {1, 2}) {
    ctx.CheckSameDType(i, 0);
    ctx.CheckRank(i, 1);
    const std::optional<SymbolicShape>& p = ctx.input_shape(i);
    if (x && p) {
      UnifyDims(
          ctx, (*p)[0], (*x)[1],
          "input " + ctx.Describe(i) + " must have one value per channel of " + ctx.Describe(0));
    }
  }
  return {ctx.input(0)};
}

// LoomDropout(data, ratio?, training_mode?) -> data's type, bool mask.
std::vector<TensorType> InferLoomDropout(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 3);
  ctx.CheckDTypeIn(2, {DType::kBool});
  return {ctx.input(0), TensorType{DType::kBool, ctx.input_shape(0)}};
}

}  // namespace loom::graph
