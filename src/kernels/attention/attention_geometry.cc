#include "kernels/attention/attention_geometry.h"

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "kernels/op_kernel.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LoomAttention";

// Whether the attribute `name` asks for [B, S, H, X] ("bshd") rather than
// [B, H, S, X] ("bhsd", the default).
bool SequenceMajor(const Attributes& attrs, std::string_view name) {
  const std::string layout = attrs.get_string(name, "bhsd");
  if (layout != "bhsd" && layout != "bshd") {
    ThrowKernelError(kOp, "attribute '" + std::string(name) +
                              "' must be \"bhsd\" or \"bshd\" (got \"" + layout + "\")");
  }
  return layout == "bshd";
}

// [B, H, S, X] sizes and strides of a rank-4 operand in its layout.
struct Operand {
  int64_t batch, heads, seq, last;
  AttentionStrides strides;
};

Operand ReadOperand(const Shape& shape, bool sequence_major) {
  Operand op{};
  op.batch = shape.dim(0);
  op.heads = shape.dim(sequence_major ? 2 : 1);
  op.seq = shape.dim(sequence_major ? 1 : 2);
  op.last = shape.dim(3);
  op.strides.batch = op.heads * op.seq * op.last;
  op.strides.head = sequence_major ? op.last : op.seq * op.last;
  op.strides.seq = sequence_major ? op.heads * op.last : op.last;
  return op;
}

std::string Got(const Tensor& t) { return " (got shape " + t.shape().to_string() + ")"; }

}  // namespace

AttentionGeometry ReadAttentionGeometry(const Attributes& attrs, const Tensor& q, const Tensor& k,
                                        const Tensor& v, const Tensor* mask) {
  CheckDType(kOp, "Q", q, {DType::kFloat32});
  CheckDType(kOp, "K", k, {DType::kFloat32});
  CheckDType(kOp, "V", v, {DType::kFloat32});
  CheckRank(kOp, "Q", q, 4);
  CheckRank(kOp, "K", k, 4);
  CheckRank(kOp, "V", v, 4);
  const Operand qo = ReadOperand(q.shape(), SequenceMajor(attrs, "q_layout"));
  const Operand ko = ReadOperand(k.shape(), SequenceMajor(attrs, "k_layout"));
  const Operand vo = ReadOperand(v.shape(), SequenceMajor(attrs, "v_layout"));
  const bool y_sequence_major = SequenceMajor(attrs, "output_layout");
  // K's heads may divide Q's (grouped-query attention); none when Q has none.
  const bool heads_fit = qo.heads == 0 ? ko.heads == 0 : ko.heads > 0 && qo.heads % ko.heads == 0;
  if (ko.batch != qo.batch || ko.last != qo.last || (!heads_fit && ko.heads != qo.heads)) {
    ThrowKernelError(kOp, "input 'K' must have Q's batch " + std::to_string(qo.batch) + ", heads " +
                              std::to_string(qo.heads) + " and depth " + std::to_string(qo.last) +
                              " in its layout" + Got(k));
  }
  if (vo.batch != ko.batch || vo.heads != ko.heads || vo.seq != ko.seq) {
    ThrowKernelError(kOp, "input 'V' must have K's batch " + std::to_string(ko.batch) + ", heads " +
                              std::to_string(ko.heads) + " and length " + std::to_string(ko.seq) +
                              " in its layout" + Got(v));
  }
  AttentionGeometry g;
  g.batch = qo.batch;
  g.heads = qo.heads;
  g.kv_heads = ko.heads;
  g.q_len = qo.seq;
  g.k_len = ko.seq;
  g.depth = qo.last;
  g.v_depth = vo.last;
  g.q = qo.strides;
  g.k = ko.strides;
  g.v = vo.strides;
  g.y_shape = y_sequence_major ? Shape({g.batch, g.q_len, g.heads, g.v_depth})
                               : Shape({g.batch, g.heads, g.q_len, g.v_depth});
  g.y = ReadOperand(g.y_shape, y_sequence_major).strides;

  const float default_scale =
      g.depth > 0 ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.depth))) : 1.0f;
  g.scale = attrs.get_float("scale", default_scale);
  const int64_t causal = attrs.get_int("causal", 0);
  if (causal != 0 && causal != 1) {
    ThrowKernelError(kOp, "attribute 'causal' must be 0 or 1 (got " + std::to_string(causal) + ")");
  }
  g.causal = causal == 1;
  g.causal_offset = attrs.get_int("causal_offset", 0);
  if (g.causal_offset < 0) {
    ThrowKernelError(kOp, "attribute 'causal_offset' must be >= 0 (got " +
                              std::to_string(g.causal_offset) + ")");
  }
  g.mask_fill = attrs.get_float("mask_fill", -std::numeric_limits<float>::infinity());

  if (mask != nullptr) {
    CheckDType(kOp, "mask", *mask, {DType::kFloat32, DType::kBool});
    const Shape& ms = mask->shape();
    const int64_t target[4] = {g.batch, g.heads, g.q_len, g.k_len};
    const std::string target_text = Shape({g.batch, g.heads, g.q_len, g.k_len}).to_string();
    if (ms.rank() > 4) {
      ThrowKernelError(
          kOp, "input 'mask' must broadcast to [B, H, Sq, Sk] = " + target_text + Got(*mask));
    }
    int64_t strides[4] = {0, 0, 0, 0};
    int64_t stride = 1;
    for (int a = 3; a >= 4 - ms.rank(); --a) {
      const int64_t size = ms.dim(a - (4 - ms.rank()));
      if (size != target[a] && size != 1) {
        ThrowKernelError(
            kOp, "input 'mask' must broadcast to [B, H, Sq, Sk] = " + target_text + Got(*mask));
      }
      strides[a] = size == 1 ? 0 : stride;
      stride *= size;
    }
    g.mask = mask;
    g.bool_mask = mask->dtype() == DType::kBool;
    g.mask_strides = {strides[0], strides[1], strides[2]};
    g.mask_key_stride = strides[3];
  }
  return g;
}

}  // namespace loom::kernels
