// ONNX Attention (onnx_attention.h): the fused path through LoomAttention's
// units and the plain path in double.
#include "kernels/attention/onnx_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/attention/attention.h"
#include "kernels/attention/onnx_attention_geometry.h"
#include "kernels/reference/element_access.h"
#include "kernels/transformer/compute_buffer.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// An output the node does not have (past loom_outputs): never read.
Tensor Placeholder(DType dtype) { return Tensor(dtype, Shape({0})); }

// The fused kernel handles these: float32 throughout, no softcap, no
// qk_matmul_output, a float32 or bool mask (or none).
bool FusedPathFits(const OnnxAttentionGeometry& g) {
  const bool mask_fits =
      g.mask == nullptr || g.mask->dtype() == DType::kFloat32 || g.mask->dtype() == DType::kBool;
  return g.q->dtype() == DType::kFloat32 && g.v->dtype() == DType::kFloat32 && g.softcap == 0.0f &&
         g.outputs < 4 && mask_fits;
}

// The additive bias at (b, h, i, j) from the mask, the padding past its
// last dim and nonpad_kv_seqlen (the causal part is separate).
struct BiasReader {
  const OnnxAttentionGeometry& g;
  const int64_t* nonpad;

  explicit BiasReader(const OnnxAttentionGeometry& geometry)
      : g(geometry), nonpad(g.nonpad != nullptr ? g.nonpad->data<int64_t>() : nullptr) {}

  double operator()(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (nonpad != nullptr && j >= nonpad[b]) return -kInfinity;
    if (g.mask == nullptr) return 0.0;
    if (j >= g.mask_len) return -kInfinity;
    const int64_t at = g.MaskOffset(b, h, i) + j;
    if (g.mask->dtype() == DType::kBool) return g.mask->data<bool>()[at] ? 0.0 : -kInfinity;
    return ReadElementAsDouble(*g.mask, at);
  }
};

// The mask handed to LoomAttention: the attn_mask itself when it covers
// every key and nothing else hides keys, else one float mask
// [B or 1, Hq or 1, Sq, T] holding the whole bias.
Tensor FusedMask(const OnnxAttentionGeometry& g, threading::ThreadPool* pool) {
  if (g.nonpad == nullptr && g.mask != nullptr && g.mask_len == g.total) return *g.mask;
  const int64_t batches = g.nonpad != nullptr || g.mask_batch != 0 ? g.batch : 1;
  const int64_t heads = g.mask_head != 0 ? g.q_heads : 1;
  Tensor mask = Tensor::uninitialized(DType::kFloat32, Shape({batches, heads, g.q_len, g.total}));
  float* out = mask.data<float>();
  const BiasReader bias(g);
  // Serial equivalent: for each (b, h, i) row of the mask: its T biases.
  threading::ParallelFor(pool, batches * heads * g.q_len, 2.0 * static_cast<double>(g.total),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             const int64_t i = r % g.q_len, bh = r / g.q_len;
                             for (int64_t j = 0; j < g.total; ++j) {
                               out[r * g.total + j] =
                                   static_cast<float>(bias(bh / heads, bh % heads, i, j));
                             }
                           }
                         });
  return mask;
}

std::vector<Tensor> RunFused(const KernelContext& ctx, const OnnxAttentionGeometry& g) {
  const bool need_present = g.past_key != nullptr || g.outputs >= 2;
  Tensor present_key = need_present ? BuildPresent(g, true, ctx.pool) : Placeholder(g.q->dtype());
  Tensor present_value =
      need_present ? BuildPresent(g, false, ctx.pool) : Placeholder(g.v->dtype());
  Attributes attrs;
  attrs.set("scale", g.scale);
  attrs.set("causal", int64_t{g.causal ? 1 : 0});
  attrs.set("causal_offset", g.past_len);
  const std::string layout = g.three_d ? "bshd" : "bhsd";
  attrs.set("q_layout", layout).set("output_layout", layout);
  // The new K/V in place when there is no past; else the present ones.
  Tensor k, v;
  if (need_present) {
    k = present_key;
    v = present_value;
    attrs.set("k_layout", std::string("bhsd")).set("v_layout", std::string("bhsd"));
  } else {
    k = g.three_d ? g.k->reshape(Shape({g.batch, g.kv_len, g.kv_heads, g.depth})) : *g.k;
    v = g.three_d ? g.v->reshape(Shape({g.batch, g.kv_len, g.kv_heads, g.v_depth})) : *g.v;
    attrs.set("k_layout", layout).set("v_layout", layout);
  }
  const Tensor q = g.three_d ? g.q->reshape(Shape({g.batch, g.q_len, g.q_heads, g.depth})) : *g.q;
  const bool has_mask = g.mask != nullptr || g.nonpad != nullptr;
  const Tensor mask = has_mask ? FusedMask(g, ctx.pool) : Tensor();
  const Tensor* in[] = {&q, &k, &v, has_mask ? &mask : nullptr};
  Tensor y = AttentionKernel(ctx, attrs, in)[0];
  if (g.three_d) y = y.reshape(Shape({g.batch, g.q_len, g.q_heads * g.v_depth}));
  return {y, present_key, present_value, Placeholder(g.q->dtype())};
}

// The plain path: one (b, h, i) row at a time in double.
std::vector<Tensor> RunPlain(const KernelContext& ctx, const OnnxAttentionGeometry& g) {
  const Tensor present_key = BuildPresent(g, true, ctx.pool);
  const Tensor present_value = BuildPresent(g, false, ctx.pool);
  const Tensor qd = InComputeType<double>(*g.q);
  const Tensor kd = InComputeType<double>(present_key);
  const Tensor vd = InComputeType<double>(present_value);
  const double* qp = qd.data<double>();
  const double* kp = kd.data<double>();
  const double* vp = vd.data<double>();
  const bool want_qk = g.outputs >= 4;
  Tensor y =
      Tensor::uninitialized(DType::kFloat64, Shape({g.batch, g.q_heads, g.q_len, g.v_depth}));
  Tensor qk = want_qk ? Tensor::uninitialized(DType::kFloat64,
                                              Shape({g.batch, g.q_heads, g.q_len, g.total}))
                      : Tensor();
  double* yp = y.data<double>();
  double* qkp = want_qk ? qk.data<double>() : nullptr;
  const BiasReader bias(g);
  const double scale = g.scale;
  const double cap = g.softcap;
  // Serial equivalent: for each (b, h, i): the row's scores, softmax and
  // weighted sum of V's rows.
  threading::ParallelFor(
      ctx.pool, g.batch * g.q_heads * g.q_len,
      3.0 * static_cast<double>(g.total * (g.depth + g.v_depth)), [&](int64_t begin, int64_t end) {
        std::vector<double> s(static_cast<size_t>(g.total));
        for (int64_t r = begin; r < end; ++r) {
          const int64_t i = r % g.q_len, bh = r / g.q_len;
          const int64_t b = bh / g.q_heads, h = bh % g.q_heads;
          const int64_t kh = g.KvHead(h);
          const double* qi = qp + g.QOffset(b, h, i);
          double* qk_row = qkp != nullptr ? qkp + r * g.total : nullptr;
          double max = -kInfinity;
          for (int64_t j = 0; j < g.total; ++j) {
            const double* kj = kp + ((b * g.kv_heads + kh) * g.total + j) * g.depth;
            double dot = 0;
            for (int64_t d = 0; d < g.depth; ++d) dot += qi[d] * kj[d];
            double x = dot * scale;
            if (qk_row != nullptr && g.qk_mode == 0) qk_row[j] = x;
            x += bias(b, h, i, j);
            if (g.causal && j > i + g.past_len) x = -kInfinity;
            if (qk_row != nullptr && g.qk_mode == 1) qk_row[j] = x;
            if (cap > 0) x = cap * std::tanh(x / cap);
            if (qk_row != nullptr && g.qk_mode == 2) qk_row[j] = x;
            s[static_cast<size_t>(j)] = x;
            max = std::max(max, x);
          }
          double sum = 0;
          for (int64_t j = 0; j < g.total; ++j) {
            // Every score -inf: exp(NaN) makes the row NaN, as the ONNX
            // reference's softmax.
            s[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - max);
            sum += s[static_cast<size_t>(j)];
          }
          for (int64_t j = 0; j < g.total; ++j) s[static_cast<size_t>(j)] /= sum;
          if (qk_row != nullptr && g.qk_mode == 3) {
            std::copy(s.begin(), s.end(), qk_row);
          }
          double* yi = yp + r * g.v_depth;
          std::fill(yi, yi + g.v_depth, 0.0);
          for (int64_t j = 0; j < g.total; ++j) {
            const double p = s[static_cast<size_t>(j)];
            const double* vj = vp + ((b * g.kv_heads + kh) * g.total + j) * g.v_depth;
            for (int64_t c = 0; c < g.v_depth; ++c) yi[c] += p * vj[c];
          }
        }
      });
  if (g.three_d) {
    // [B, Hq, Sq, Dv] -> [B, Sq, Hq * Dv].
    Tensor t =
        Tensor::uninitialized(DType::kFloat64, Shape({g.batch, g.q_len, g.q_heads * g.v_depth}));
    double* tp = t.data<double>();
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t h = 0; h < g.q_heads; ++h) {
        for (int64_t i = 0; i < g.q_len; ++i) {
          std::copy(yp + ((b * g.q_heads + h) * g.q_len + i) * g.v_depth,
                    yp + ((b * g.q_heads + h) * g.q_len + i + 1) * g.v_depth,
                    tp + ((b * g.q_len + i) * g.q_heads + h) * g.v_depth);
        }
      }
    }
    y = t;
  }
  return {FromComputeType(y, g.q->dtype()), present_key, present_value,
          want_qk ? FromComputeType(qk, g.q->dtype()) : Placeholder(g.q->dtype())};
}

}  // namespace

std::vector<Tensor> OnnxAttentionKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs) {
  const OnnxAttentionGeometry g = ReadOnnxAttentionGeometry(attrs, inputs);
  return FusedPathFits(g) ? RunFused(ctx, g) : RunPlain(ctx, g);
}

}  // namespace loom::kernels
