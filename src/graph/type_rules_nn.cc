// Type rules of the matrix products (kernels/gemm/matmul.h), the
// normalizations (kernels/normalization/normalization.h) and the fused attention
// (kernels/attention/attention.h).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {

// MatMul (NumPy matmul): [..., M, K] x [..., K, N] -> [..., M, N], batch
// dims broadcast; a 1-D A is [1, K] and a 1-D B [K, 1], the added unit dim
// dropped from the result.
std::optional<SymbolicShape> MatMulShape(const NodeTypeContext& ctx, size_t ia, size_t ib) {
  const std::optional<SymbolicShape>& a_shape = ctx.input_shape(ia);
  const std::optional<SymbolicShape>& b_shape = ctx.input_shape(ib);
  for (size_t i : {ia, ib}) {
    if (ctx.input_shape(i) && ctx.input_shape(i)->empty()) {
      ctx.Fail("input " + ctx.Describe(i) + " must have rank >= 1");
    }
  }
  if (!a_shape || !b_shape) return std::nullopt;
  SymbolicShape a = *a_shape;
  SymbolicShape b = *b_shape;
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), Dim(1));
  if (b_vector) b.push_back(Dim(1));
  const Dim& k_a = a[a.size() - 1];
  const Dim& k_b = b[b.size() - 2];
  if (k_a.is_known() && k_b.is_known() && k_a.size() != k_b.size()) {
    ctx.Fail("inner dimensions differ: " + ctx.Describe(ia) + " has K = " + k_a.to_string() + ", " +
             ctx.Describe(ib) + " has K = " + k_b.to_string());
  }
  // Batch dims: everything before the last two, broadcast.
  const size_t a_batch = a.size() - 2;
  const size_t b_batch = b.size() - 2;
  const size_t batch = std::max(a_batch, b_batch);
  SymbolicShape out;
  for (size_t axis = 0; axis < batch; ++axis) {
    const Dim da = axis + a_batch >= batch ? a[axis + a_batch - batch] : Dim(1);
    const Dim db = axis + b_batch >= batch ? b[axis + b_batch - batch] : Dim(1);
    const std::optional<Dim> merged = BroadcastDim(ctx, da, db);
    if (!merged) {
      ctx.Fail("batch dimensions of " + ctx.Describe(ia) + " and " + ctx.Describe(ib) +
               " do not broadcast (" + da.to_string() + " vs " + db.to_string() + ")");
    }
    out.push_back(*merged);
  }
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b[b.size() - 1]);
  return out;
}

namespace {

// MatMul's output type from inputs 0 and 1.
std::vector<TensorType> MatMulOutput(const NodeTypeContext& ctx) {
  ctx.CheckSameDType(1, 0);
  return {TensorType{ctx.input(0).dtype, MatMulShape(ctx, 0, 1)}};
}

}  // namespace

std::vector<TensorType> InferMatMul(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 2);
  return MatMulOutput(ctx);
}

// FusedMatMul (Loom-internal): MatMul(A, B) with B float32 2-D, plus an
// optional bias [N] on the last axis.
std::vector<TensorType> InferFusedMatMul(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckRank(1, 2);
  std::vector<TensorType> out = MatMulOutput(ctx);
  if (ctx.has_input(2)) {
    ctx.CheckSameDType(2, 0);
    ctx.CheckRank(2, 1);
    const std::optional<SymbolicShape>& bias = ctx.input_shape(2);
    const std::optional<SymbolicShape>& b = ctx.input_shape(1);
    if (bias && b && (*bias)[0].is_known() && (*b)[1].is_known() &&
        (*bias)[0].size() != (*b)[1].size()) {
      ctx.Fail("bias " + ctx.Describe(2) + " must have one value per column of " + ctx.Describe(1));
    }
  }
  return out;
}

// Gemm: Y [M, N] = alpha * op(A) op(B) + beta * C, C broadcast to [M, N].
std::vector<TensorType> InferGemm(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  ctx.CheckRank(0, 2);
  ctx.CheckRank(1, 2);
  const bool trans_a = ctx.GetInt("transA", 0) != 0;
  const bool trans_b = ctx.GetInt("transB", 0) != 0;
  const std::optional<SymbolicShape>& a = ctx.input_shape(0);
  const std::optional<SymbolicShape>& b = ctx.input_shape(1);
  const Dim m = a ? (*a)[trans_a ? 1 : 0] : ctx.UnknownDim();
  const Dim n = b ? (*b)[trans_b ? 0 : 1] : ctx.UnknownDim();
  if (a && b) {
    const Dim& k_a = (*a)[trans_a ? 0 : 1];
    const Dim& k_b = (*b)[trans_b ? 1 : 0];
    if (k_a.is_known() && k_b.is_known() && k_a.size() != k_b.size()) {
      ctx.Fail("inner dimensions differ: op(A) of " + ctx.Describe(0) + " has K = " +
               k_a.to_string() + ", op(B) of " + ctx.Describe(1) + " has K = " + k_b.to_string() +
               " (transA " + std::to_string(trans_a) + ", transB " + std::to_string(trans_b) + ")");
    }
  }
  if (ctx.has_input(2)) {
    if (const std::optional<SymbolicShape>& c = ctx.input_shape(2)) {
      // Unidirectional: each dim of C is 1 or the matching dim of [M, N].
      const SymbolicShape target = {m, n};
      bool ok = c->size() <= 2;
      for (size_t i = 0; ok && i < c->size(); ++i) {
        const Dim& dc = (*c)[c->size() - 1 - i];
        const Dim& dt = target[1 - i];
        ok = !dc.is_known() || !dt.is_known() || dc.size() == 1 || dc.size() == dt.size();
      }
      if (!ok) {
        ctx.Fail("input " + ctx.Describe(2) +
                 " does not broadcast to [M, N] = " + shape_to_string(target));
      }
    }
  }
  return {TensorType{ctx.input(0).dtype, SymbolicShape{m, n}}};
}

namespace {

// Checks that inputs first..last (each [C]) match X's channel axis 1.
void CheckPerChannel(const NodeTypeContext& ctx, size_t first, size_t last) {
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  for (size_t i = first; i <= last; ++i) {
    ctx.CheckSameDType(i, 0);
    ctx.CheckRank(i, 1);
    const std::optional<SymbolicShape>& p = ctx.input_shape(i);
    if (x && p) {
      UnifyDims(
          ctx, (*p)[0], (*x)[1],
          "input " + ctx.Describe(i) + " must have one value per channel of " + ctx.Describe(0));
    }
  }
}

void CheckMinRank(const NodeTypeContext& ctx, size_t min_rank, const char* layout) {
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (x && x->size() < min_rank) {
    ctx.Fail("input " + ctx.Describe(0) + " must have rank >= " + std::to_string(min_rank) + " (" +
             layout + ")");
  }
}

}  // namespace

// BatchNormalization (inference): X [N, C, ...], scale, B, mean, var [C].
std::vector<TensorType> InferBatchNormalization(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(5, 5);
  if (ctx.GetInt("training_mode", 0) != 0) {
    ctx.Fail("training_mode = 1 is not supported (inference only)");
  }
  CheckMinRank(ctx, 2, "[N, C, ...]");
  CheckPerChannel(ctx, 1, 4);
  return {ctx.input(0)};
}

// InstanceNormalization: input [N, C, D...], scale [C], B [C].
std::vector<TensorType> InferInstanceNormalization(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  CheckMinRank(ctx, 3, "[N, C, spatial...]");
  CheckPerChannel(ctx, 1, 2);
  return {ctx.input(0)};
}

// LayerNormalization -> Y (X's type), Mean and InvStdDev (float32,
// X.shape[:axis] followed by ones).
std::vector<TensorType> InferLayerNormalization(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(2, 3);
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  const int64_t stash_type = ctx.GetInt("stash_type", 1);
  if (stash_type != 1) {
    ctx.Fail("stash_type " + std::to_string(stash_type) + " is not supported (only 1 = float32)");
  }
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) {
    return {ctx.input(0), TensorType{DType::kFloat32, std::nullopt},
            TensorType{DType::kFloat32, std::nullopt}};
  }
  const int rank = static_cast<int>(x->size());
  if (rank == 0) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
  const int axis = ctx.NormalizeAxis(ctx.GetInt("axis", -1), rank, "attribute 'axis'");
  // Scale and B have X.shape[axis:], leading ones allowed: compare the
  // trailing dims of the shorter against the longer.
  const SymbolicShape normalized(x->begin() + axis, x->end());
  for (size_t i : {1, 2}) {
    if (!ctx.has_input(i) || !ctx.input_shape(i)) continue;
    const SymbolicShape& p = *ctx.input_shape(i);
    const size_t common = std::min(p.size(), normalized.size());
    const std::string what = "input " + ctx.Describe(i) + " must have shape " +
                             shape_to_string(normalized) + " (X.shape[axis:] of " +
                             ctx.Describe(0) + ")";
    for (size_t k = 1; k <= common; ++k) {
      UnifyDims(ctx, p[p.size() - k], normalized[normalized.size() - k], what);
    }
    // The extra leading dims of the longer one must be ones.
    const SymbolicShape& longer = p.size() > normalized.size() ? p : normalized;
    for (size_t k = 0; k + common < longer.size(); ++k) {
      if (longer[k].is_known() && longer[k].size() != 1) ctx.Fail(what);
    }
  }
  SymbolicShape stats(x->begin(), x->begin() + axis);
  stats.resize(x->size(), Dim(1));
  return {ctx.input(0), TensorType{DType::kFloat32, stats}, TensorType{DType::kFloat32, stats}};
}

// Softmax, LogSoftmax, Hardmax: the input's type; the axis must lie within the rank.
std::vector<TensorType> InferSoftmax(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  if (const std::optional<SymbolicShape>& x = ctx.input_shape(0)) {
    if (x->empty()) ctx.Fail("input " + ctx.Describe(0) + " must have rank >= 1");
    ctx.NormalizeAxis(ctx.GetInt("axis", -1), static_cast<int>(x->size()), "attribute 'axis'");
  }
  return {ctx.input(0)};
}

// LoomAttention(Q, K, V, mask?) (kernels/attention/attention.h): Q, K, V
// rank 4 in their layouts ("bhsd" [B, H, S, X] or "bshd" [B, S, H, X]);
// the output takes B, H and Sq from Q and Dv from V, in output_layout.
std::vector<TensorType> InferLoomAttention(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 4);
  ctx.CheckDTypeIn(0, {DType::kFloat32});
  ctx.CheckSameDType(1, 0);
  ctx.CheckSameDType(2, 0);
  ctx.CheckDTypeIn(3, {DType::kFloat32, DType::kBool});
  for (size_t i = 0; i < 3; ++i) ctx.CheckRank(i, 4);
  const auto sequence_major = [&](std::string_view name) {
    const std::string layout = ctx.GetString(name, "bhsd");
    if (layout != "bhsd" && layout != "bshd") {
      ctx.Fail("attribute '" + std::string(name) + "' must be \"bhsd\" or \"bshd\" (got \"" +
               layout + "\")");
    }
    return layout == "bshd";
  };
  const bool q_major = sequence_major("q_layout");
  sequence_major("k_layout");
  sequence_major("v_layout");
  const bool y_major = sequence_major("output_layout");
  const std::optional<SymbolicShape>& q = ctx.input_shape(0);
  const std::optional<SymbolicShape>& v = ctx.input_shape(2);
  if (!q || !v) return {TensorType{DType::kFloat32, UnknownDims(ctx, 4)}};
  const Dim& batch = (*q)[0];
  const Dim& heads = (*q)[q_major ? 2 : 1];
  const Dim& q_len = (*q)[q_major ? 1 : 2];
  const Dim& v_depth = (*v)[3];
  SymbolicShape y = y_major ? SymbolicShape{batch, q_len, heads, v_depth}
                            : SymbolicShape{batch, heads, q_len, v_depth};
  return {TensorType{DType::kFloat32, y}};
}

}  // namespace loom::graph
