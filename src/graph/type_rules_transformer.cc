// Type rules of the ONNX transformer ops: RMSNormalization,
// RotaryEmbedding (opset 23) and Attention (opsets 23, 24).
#include <string>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {
namespace {

// known / k when known and divisible, else a fresh symbol; Fail()s when a
// known size does not divide.
Dim DivideDim(const NodeTypeContext& ctx, const Dim& dim, int64_t k, const std::string& what) {
  if (!dim.is_known()) return ctx.UnknownDim();
  if (k <= 0 || dim.size() % k != 0) ctx.Fail(what);
  return dim.size() / k;
}

}  // namespace

std::vector<TensorType> InferRMSNormalization(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  const int64_t stash_type = ctx.GetInt("stash_type", 1);
  if (stash_type != 1) {
    ctx.Fail("stash_type " + std::to_string(stash_type) + " is not supported (only 1 = float32)");
  }
  // Y has scale's dtype and X's shape.
  const DType y_dtype = ctx.input(1).dtype;
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{y_dtype, std::nullopt}};
  const int rank = static_cast<int>(x->size());
  if (rank == 0) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis = ctx.NormalizeAxis(ctx.GetInt("axis", -1), rank, "attribute 'axis'");
  if (const std::optional<SymbolicShape>& s = ctx.input_shape(1)) {
    const std::string what =
        "input " + ctx.Describe(1) + " must broadcast to X.shape[axis:] of " + ctx.Describe(0);
    const size_t normalized = x->size() - static_cast<size_t>(axis);
    for (size_t k = 1; k <= s->size(); ++k) {
      const Dim& d = (*s)[s->size() - k];
      if (!d.is_known() || d.size() == 1) continue;
      if (k > normalized) ctx.Fail(what);
      const Dim& xd = (*x)[x->size() - k];
      if (xd.is_known() && xd.size() != d.size()) ctx.Fail(what);
    }
  }
  return {TensorType{y_dtype, *x}};
}

std::vector<TensorType> InferRotaryEmbedding(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 4);
  ctx.CheckDTypeIn(0, {DType::kFloat32, DType::kFloat16, DType::kBFloat16});
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  ctx.CheckDTypeIn(3, {DType::kInt64});
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (x && x->size() != 3 && x->size() != 4) {
    ctx.Fail("input " + ctx.Describe(0) + " must have rank 3 or 4");
  }
  if (x && x->size() == 3 && ctx.GetInt("num_heads", 0) <= 0) {
    ctx.Fail("3-D input " + ctx.Describe(0) + " needs attribute 'num_heads' > 0");
  }
  return {ctx.input(0)};
}

// Attention (opset 23/24): Y, present_key, present_value, qk_matmul_output.
std::vector<TensorType> InferAttention(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 7);
  const auto floats = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16};
  ctx.CheckDTypeIn(0, floats);
  ctx.CheckSameDType(1, 0);
  ctx.CheckDTypeIn(2, floats);
  ctx.CheckSameDType(4, 0);
  ctx.CheckSameDType(5, 2);
  ctx.CheckDTypeIn(6, {DType::kInt64});
  const DType q_dtype = ctx.input(0).dtype;
  const DType v_dtype = ctx.input(2).dtype;
  const std::optional<SymbolicShape>& q = ctx.input_shape(0);
  const std::optional<SymbolicShape>& k = ctx.input_shape(1);
  const std::optional<SymbolicShape>& v = ctx.input_shape(2);
  const auto unknown = [&](DType dtype) { return TensorType{dtype, std::nullopt}; };
  if (!q || !k || !v) {
    return {unknown(q_dtype), unknown(q_dtype), unknown(v_dtype), unknown(q_dtype)};
  }
  if ((q->size() != 3 && q->size() != 4) || k->size() != q->size() || v->size() != q->size()) {
    ctx.Fail("inputs " + ctx.Describe(0) + ", " + ctx.Describe(1) + " and " + ctx.Describe(2) +
             " must all have rank 3 or all rank 4");
  }
  Dim batch = UnifyDims(ctx, (*q)[0], (*k)[0], "input " + ctx.Describe(1) + " must have Q's batch");
  batch = UnifyDims(ctx, batch, (*v)[0], "input " + ctx.Describe(2) + " must have Q's batch");
  Dim q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, depth = 0, v_depth = 0;
  if (q->size() == 4) {
    q_heads = (*q)[1];
    kv_heads =
        UnifyDims(ctx, (*k)[1], (*v)[1], "input " + ctx.Describe(2) + " must have K's heads");
    q_len = (*q)[2];
    kv_len = UnifyDims(ctx, (*k)[2], (*v)[2], "input " + ctx.Describe(2) + " must have K's length");
    depth =
        UnifyDims(ctx, (*q)[3], (*k)[3], "input " + ctx.Describe(1) + " must have Q's head size");
    v_depth = (*v)[3];
  } else {
    const int64_t qh = ctx.GetInt("q_num_heads", 0);
    const int64_t kvh = ctx.GetInt("kv_num_heads", 0);
    if (qh <= 0 || kvh <= 0) {
      ctx.Fail("3-D inputs need attributes 'q_num_heads' and 'kv_num_heads' > 0 (got " +
               std::to_string(qh) + ", " + std::to_string(kvh) + ")");
    }
    q_heads = qh;
    kv_heads = kvh;
    q_len = (*q)[1];
    kv_len = UnifyDims(ctx, (*k)[1], (*v)[1], "input " + ctx.Describe(2) + " must have K's length");
    depth = DivideDim(ctx, (*q)[2], qh,
                      "input " + ctx.Describe(0) + "'s hidden size must divide by q_num_heads");
    DivideDim(ctx, (*k)[2], kvh,
              "input " + ctx.Describe(1) + "'s hidden size must divide by kv_num_heads");
    v_depth = DivideDim(ctx, (*v)[2], kvh,
                        "input " + ctx.Describe(2) + "'s hidden size must divide by kv_num_heads");
  }
  Dim total = kv_len;
  if (ctx.has_input(4)) {
    const std::optional<SymbolicShape>& past = ctx.input_shape(4);
    if (past && past->size() != 4) ctx.Fail("input " + ctx.Describe(4) + " must have rank 4");
    const Dim past_len = past ? (*past)[2] : ctx.UnknownDim();
    const Dim parts[] = {past_len, kv_len};
    total = SumDim(ctx, parts);
  }
  const Dim k_depth = q->size() == 4 ? (*k)[3] : DivideDim(ctx, (*k)[2], kv_heads.size(), "");
  SymbolicShape y;
  if (q->size() == 4) {
    y = {batch, q_heads, q_len, v_depth};
  } else {
    const Dim parts[] = {q_heads, v_depth};
    y = {batch, q_len, ProductDim(ctx, parts)};
  }
  return {TensorType{q_dtype, y},
          TensorType{q_dtype, SymbolicShape{batch, kv_heads, total, k_depth}},
          TensorType{v_dtype, SymbolicShape{batch, kv_heads, total, v_depth}},
          TensorType{q_dtype, SymbolicShape{batch, q_heads, q_len, total}}};
}

}  // namespace loom::graph
