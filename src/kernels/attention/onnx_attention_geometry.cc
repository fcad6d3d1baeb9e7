#include "kernels/attention/onnx_attention_geometry.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "Attention";

std::string Got(const Tensor& t) { return " (got shape " + t.shape().to_string() + ")"; }

}  // namespace

OnnxAttentionGeometry ReadOnnxAttentionGeometry(const Attributes& attrs, KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 3, 7);
  OnnxAttentionGeometry g;
  g.q = &RequiredInput(kOp, inputs, 0, "Q");
  g.k = &RequiredInput(kOp, inputs, 1, "K");
  g.v = &RequiredInput(kOp, inputs, 2, "V");
  g.mask = OptionalInput(inputs, 3);
  g.past_key = OptionalInput(inputs, 4);
  g.past_value = OptionalInput(inputs, 5);
  g.nonpad = OptionalInput(inputs, 6);
  const auto floats = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16};
  CheckDType(kOp, "Q", *g.q, floats);
  CheckDType(kOp, "K", *g.k, {g.q->dtype()});
  CheckDType(kOp, "V", *g.v, floats);
  const Shape& qs = g.q->shape();
  const Shape& ks = g.k->shape();
  const Shape& vs = g.v->shape();
  const int rank = qs.rank();
  if (rank != 3 && rank != 4) {
    ThrowKernelError(kOp, "input 'Q' must have rank 3 or 4" + Got(*g.q));
  }
  CheckRank(kOp, "K", *g.k, rank);
  CheckRank(kOp, "V", *g.v, rank);
  g.three_d = rank == 3;
  g.batch = qs.dim(0);
  if (g.three_d) {
    g.q_heads = attrs.get_int("q_num_heads", 0);
    g.kv_heads = attrs.get_int("kv_num_heads", 0);
    if (g.q_heads <= 0 || g.kv_heads <= 0) {
      ThrowKernelError(kOp,
                       "3-D inputs need attributes 'q_num_heads' and 'kv_num_heads' > 0 (got " +
                           std::to_string(g.q_heads) + ", " + std::to_string(g.kv_heads) + ")");
    }
    g.q_len = qs.dim(1);
    g.kv_len = ks.dim(1);
    if (qs.dim(2) % g.q_heads != 0 || ks.dim(2) % g.kv_heads != 0 || vs.dim(2) % g.kv_heads != 0) {
      ThrowKernelError(kOp, "the hidden sizes of Q " + qs.to_string() + ", K " + ks.to_string() +
                                " and V " + vs.to_string() + " must divide by q_num_heads " +
                                std::to_string(g.q_heads) + " and kv_num_heads " +
                                std::to_string(g.kv_heads));
    }
    g.depth = qs.dim(2) / g.q_heads;
    g.v_depth = vs.dim(2) / g.kv_heads;
    if (ks.dim(2) / g.kv_heads != g.depth) {
      ThrowKernelError(kOp, "input 'K' must have Q's head size " + std::to_string(g.depth) +
                                " per head" + Got(*g.k));
    }
  } else {
    g.q_heads = qs.dim(1);
    g.kv_heads = ks.dim(1);
    g.q_len = qs.dim(2);
    g.kv_len = ks.dim(2);
    g.depth = qs.dim(3);
    g.v_depth = vs.dim(3);
    if (ks.dim(3) != g.depth) {
      ThrowKernelError(kOp,
                       "input 'K' must have Q's head size " + std::to_string(g.depth) + Got(*g.k));
    }
    if (vs.dim(1) != g.kv_heads) {
      ThrowKernelError(kOp,
                       "input 'V' must have K's heads " + std::to_string(g.kv_heads) + Got(*g.v));
    }
  }
  if (ks.dim(0) != g.batch || vs.dim(0) != g.batch) {
    ThrowKernelError(kOp, "inputs 'K' and 'V' must have Q's batch " + std::to_string(g.batch) +
                              " (got K " + ks.to_string() + ", V " + vs.to_string() + ")");
  }
  if (vs.dim(g.three_d ? 1 : 2) != g.kv_len) {
    ThrowKernelError(
        kOp, "input 'V' must have K's sequence length " + std::to_string(g.kv_len) + Got(*g.v));
  }
  const bool heads_fit =
      g.q_heads == 0 ? g.kv_heads == 0 : g.kv_heads > 0 && g.q_heads % g.kv_heads == 0;
  if (!heads_fit) {
    ThrowKernelError(kOp, "K/V heads " + std::to_string(g.kv_heads) + " must divide Q's heads " +
                              std::to_string(g.q_heads));
  }
  if ((g.past_key == nullptr) != (g.past_value == nullptr)) {
    ThrowKernelError(kOp, "inputs 'past_key' and 'past_value' must be given together");
  }
  if (g.past_key != nullptr) {
    CheckDType(kOp, "past_key", *g.past_key, {g.q->dtype()});
    CheckDType(kOp, "past_value", *g.past_value, {g.v->dtype()});
    const Shape& pk = g.past_key->shape();
    const Shape& pv = g.past_value->shape();
    if (pk.rank() != 4 || pk.dim(0) != g.batch || pk.dim(1) != g.kv_heads || pk.dim(3) != g.depth) {
      ThrowKernelError(kOp, "input 'past_key' must have shape [" + std::to_string(g.batch) + ", " +
                                std::to_string(g.kv_heads) + ", P, " + std::to_string(g.depth) +
                                "]" + Got(*g.past_key));
    }
    g.past_len = pk.dim(2);
    if (!(pv == Shape({g.batch, g.kv_heads, g.past_len, g.v_depth}))) {
      ThrowKernelError(kOp, "input 'past_value' must have shape " +
                                Shape({g.batch, g.kv_heads, g.past_len, g.v_depth}).to_string() +
                                Got(*g.past_value));
    }
  }
  g.total = g.past_len + g.kv_len;
  if (g.nonpad != nullptr) {
    CheckDType(kOp, "nonpad_kv_seqlen", *g.nonpad, {DType::kInt64});
    if (!(g.nonpad->shape() == Shape({g.batch}))) {
      ThrowKernelError(kOp, "input 'nonpad_kv_seqlen' must have shape [" + std::to_string(g.batch) +
                                "]" + Got(*g.nonpad));
    }
  }
  if (g.mask != nullptr) {
    const Shape& ms = g.mask->shape();
    const int64_t target[3] = {g.batch, g.q_heads, g.q_len};
    const std::string want = "must broadcast to [B, Hq, Sq, <= T] = [" + std::to_string(g.batch) +
                             ", " + std::to_string(g.q_heads) + ", " + std::to_string(g.q_len) +
                             ", <= " + std::to_string(g.total) + "]";
    if (ms.rank() < 1 || ms.rank() > 4 || ms.dim(ms.rank() - 1) > g.total) {
      ThrowKernelError(kOp, "input 'attn_mask' " + want + Got(*g.mask));
    }
    g.mask_len = ms.dim(ms.rank() - 1);
    int64_t strides[3] = {0, 0, 0};
    int64_t stride = g.mask_len;
    for (int a = 2; a >= 4 - ms.rank(); --a) {
      const int64_t size = ms.dim(a - (4 - ms.rank()));
      if (size != target[a] && size != 1) {
        ThrowKernelError(kOp, "input 'attn_mask' " + want + Got(*g.mask));
      }
      strides[a] = size == 1 ? 0 : stride;
      stride *= size;
    }
    g.mask_batch = strides[0];
    g.mask_head = strides[1];
    g.mask_seq = strides[2];
  }
  const float default_scale =
      g.depth > 0 ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.depth))) : 1.0f;
  g.scale = attrs.get_float("scale", default_scale);
  const int64_t causal = attrs.get_int("is_causal", 0);
  if (causal != 0 && causal != 1) {
    ThrowKernelError(kOp,
                     "attribute 'is_causal' must be 0 or 1 (got " + std::to_string(causal) + ")");
  }
  g.causal = causal == 1;
  g.softcap = attrs.get_float("softcap", 0.0f);
  if (!(g.softcap >= 0.0f)) {
    ThrowKernelError(kOp,
                     "attribute 'softcap' must be >= 0 (got " + std::to_string(g.softcap) + ")");
  }
  g.qk_mode = attrs.get_int("qk_matmul_output_mode", 0);
  if (g.qk_mode < 0 || g.qk_mode > 3) {
    ThrowKernelError(kOp, "attribute 'qk_matmul_output_mode' must be 0, 1, 2 or 3 (got " +
                              std::to_string(g.qk_mode) + ")");
  }
  g.outputs = attrs.get_int("loom_outputs", 4);
  // Sizes the outputs will take: checked before any allocation.
  const double kMaxElements = 1e12;
  if (static_cast<double>(g.batch) * static_cast<double>(g.q_heads) * static_cast<double>(g.q_len) *
              static_cast<double>(g.total) >
          kMaxElements ||
      static_cast<double>(g.batch) * static_cast<double>(g.kv_heads) *
              static_cast<double>(g.total) * static_cast<double>(g.depth + g.v_depth) >
          kMaxElements) {
    ThrowKernelError(kOp, "the attention sizes are too large");
  }
  return g;
}

Tensor BuildPresent(const OnnxAttentionGeometry& g, bool key, threading::ThreadPool* pool) {
  const Tensor& fresh = key ? *g.k : *g.v;
  const Tensor* past = key ? g.past_key : g.past_value;
  const int64_t last = key ? g.depth : g.v_depth;
  Tensor present =
      Tensor::uninitialized(fresh.dtype(), Shape({g.batch, g.kv_heads, g.total, last}));
  const size_t elem = dtype_size(fresh.dtype());
  const size_t row_bytes = static_cast<size_t>(last) * elem;
  auto* out = static_cast<unsigned char*>(present.raw_data());
  const auto* in = static_cast<const unsigned char*>(fresh.raw_data());
  const auto* old = past != nullptr ? static_cast<const unsigned char*>(past->raw_data()) : nullptr;
  // Serial equivalent: for each (b, kv head): the past rows, then the new.
  threading::ParallelFor(
      pool, g.batch * g.kv_heads, 0.1 * static_cast<double>(g.total * last),
      [&](int64_t begin, int64_t end) {
        for (int64_t bh = begin; bh < end; ++bh) {
          const int64_t b = bh / g.kv_heads, kh = bh % g.kv_heads;
          unsigned char* dst = out + static_cast<size_t>(bh * g.total) * row_bytes;
          if (old != nullptr && g.past_len > 0) {
            std::memcpy(dst, old + static_cast<size_t>(bh * g.past_len) * row_bytes,
                        static_cast<size_t>(g.past_len) * row_bytes);
          }
          dst += static_cast<size_t>(g.past_len) * row_bytes;
          for (int64_t j = 0; j < g.kv_len; ++j) {
            std::memcpy(dst + static_cast<size_t>(j) * row_bytes,
                        in + static_cast<size_t>(g.KvOffset(b, kh, j, last)) * elem, row_bytes);
          }
        }
      });
  return present;
}

}  // namespace loom::kernels
