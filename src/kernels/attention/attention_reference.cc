// LoomAttention by its unfused definition, in double (attention.h): the
// oracle of attention_test.cc.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/attention/attention.h"
#include "kernels/attention/attention_geometry.h"

namespace loom::kernels {

Tensor AttentionReference(const Attributes& attrs, const Tensor& q, const Tensor& k,
                          const Tensor& v, const Tensor* mask) {
  const AttentionGeometry g = ReadAttentionGeometry(attrs, q, k, v, mask);
  Tensor y(DType::kFloat32, g.y_shape);
  const float* qd = q.data<float>();
  const float* kd = k.data<float>();
  const float* vd = v.data<float>();
  float* yd = y.data<float>();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> s(static_cast<size_t>(g.k_len));
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t h = 0; h < g.heads; ++h) {
      for (int64_t i = 0; i < g.q_len; ++i) {
        const float* qi = qd + b * g.q.batch + h * g.q.head + i * g.q.seq;
        double max = -inf;
        for (int64_t j = 0; j < g.k_len; ++j) {
          const float* kj =
              kd + b * g.k.batch + (h / (g.heads / g.kv_heads)) * g.k.head + j * g.k.seq;
          double dot = 0;
          for (int64_t d = 0; d < g.depth; ++d) dot += double{qi[d]} * double{kj[d]};
          double score = dot * double{g.scale};
          if (g.mask != nullptr) {
            const int64_t at = g.MaskOffset(b, h, i) + j * g.mask_key_stride;
            if (g.bool_mask) {
              if (!g.mask->data<bool>()[at]) score = g.mask_fill;
            } else {
              score += g.mask->data<float>()[at];
            }
          }
          if (g.causal && j > i + g.causal_offset) score = -inf;
          s[static_cast<size_t>(j)] = score;
          if (score > max) max = score;
        }
        double sum = 0;
        for (int64_t j = 0; j < g.k_len; ++j) {
          // All -inf: exp(-inf - -inf) = NaN, as the unfused Softmax.
          s[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - max);
          sum += s[static_cast<size_t>(j)];
        }
        float* yi = yd + b * g.y.batch + h * g.y.head + i * g.y.seq;
        for (int64_t c = 0; c < g.v_depth; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < g.k_len; ++j) {
            acc +=
                s[static_cast<size_t>(j)] *
                double{
                    vd[b * g.v.batch + (h / (g.heads / g.kv_heads)) * g.v.head + j * g.v.seq + c]};
          }
          yi[c] = g.k_len == 0 ? 0.0f : static_cast<float>(acc / sum);
        }
      }
    }
  }
  return y;
}

}  // namespace loom::kernels
