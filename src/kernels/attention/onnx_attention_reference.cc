// ONNX Attention by its definition (onnx_attention.h), serial, in double:
// the oracle of onnx_attention_test.cc. Reads every element through
// ReadElementAsDouble, K/V through past or new input by position.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/attention/onnx_attention.h"
#include "kernels/attention/onnx_attention_geometry.h"
#include "kernels/reference/element_access.h"

namespace loom::kernels {

std::vector<Tensor> OnnxAttentionReference(const Attributes& attrs,
                                           const std::vector<const Tensor*>& inputs) {
  const OnnxAttentionGeometry g = ReadOnnxAttentionGeometry(attrs, inputs);
  const double inf = std::numeric_limits<double>::infinity();
  // Element (b, kh, j, d) of present K (key) or V.
  const auto present = [&](bool key, int64_t b, int64_t kh, int64_t j, int64_t d) {
    const int64_t last = key ? g.depth : g.v_depth;
    if (j < g.past_len) {
      return ReadElementAsDouble(key ? *g.past_key : *g.past_value,
                                 ((b * g.kv_heads + kh) * g.past_len + j) * last + d);
    }
    return ReadElementAsDouble(key ? *g.k : *g.v, g.KvOffset(b, kh, j - g.past_len, last) + d);
  };
  Tensor present_key(g.q->dtype(), Shape({g.batch, g.kv_heads, g.total, g.depth}));
  Tensor present_value(g.v->dtype(), Shape({g.batch, g.kv_heads, g.total, g.v_depth}));
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t kh = 0; kh < g.kv_heads; ++kh) {
      for (int64_t j = 0; j < g.total; ++j) {
        for (int64_t d = 0; d < g.depth; ++d) {
          WriteElementFromDouble(present_key, ((b * g.kv_heads + kh) * g.total + j) * g.depth + d,
                                 present(true, b, kh, j, d));
        }
        for (int64_t d = 0; d < g.v_depth; ++d) {
          WriteElementFromDouble(present_value,
                                 ((b * g.kv_heads + kh) * g.total + j) * g.v_depth + d,
                                 present(false, b, kh, j, d));
        }
      }
    }
  }
  const Shape y_shape = g.three_d ? Shape({g.batch, g.q_len, g.q_heads * g.v_depth})
                                  : Shape({g.batch, g.q_heads, g.q_len, g.v_depth});
  Tensor y(g.q->dtype(), y_shape);
  Tensor qk(g.q->dtype(), Shape({g.batch, g.q_heads, g.q_len, g.total}));
  std::vector<double> raw(static_cast<size_t>(g.total)), biased(raw), capped(raw), p(raw);
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t h = 0; h < g.q_heads; ++h) {
      const int64_t kh = h / (g.q_heads / g.kv_heads);
      for (int64_t i = 0; i < g.q_len; ++i) {
        double max = -inf;
        for (int64_t j = 0; j < g.total; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < g.depth; ++d) {
            dot += ReadElementAsDouble(*g.q, g.QOffset(b, h, i) + d) * present(true, b, kh, j, d);
          }
          const size_t js = static_cast<size_t>(j);
          raw[js] = dot * double{g.scale};
          double bias = 0;
          if (g.mask != nullptr) {
            if (j >= g.mask_len) {
              bias = -inf;
            } else {
              const int64_t at = g.MaskOffset(b, h, i) + j;
              bias = g.mask->dtype() == DType::kBool ? (g.mask->data<bool>()[at] ? 0.0 : -inf)
                                                     : ReadElementAsDouble(*g.mask, at);
            }
          }
          if (g.causal && j > i + g.past_len) bias += -inf;
          if (g.nonpad != nullptr && j >= g.nonpad->data<int64_t>()[b]) bias += -inf;
          biased[js] = raw[js] + bias;
          capped[js] = g.softcap > 0 ? g.softcap * std::tanh(biased[js] / g.softcap) : biased[js];
          max = std::max(max, capped[js]);
        }
        double sum = 0;
        for (size_t j = 0; j < p.size(); ++j) {
          p[j] = std::exp(capped[j] - max);
          sum += p[j];
        }
        for (int64_t j = 0; j < g.total; ++j) {
          const size_t js = static_cast<size_t>(j);
          p[js] /= sum;
          const double out[4] = {raw[js], biased[js], capped[js], p[js]};
          WriteElementFromDouble(qk, ((b * g.q_heads + h) * g.q_len + i) * g.total + j,
                                 out[g.qk_mode]);
        }
        for (int64_t c = 0; c < g.v_depth; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < g.total; ++j) {
            acc += p[static_cast<size_t>(j)] * present(false, b, kh, j, c);
          }
          const int64_t at = g.three_d ? ((b * g.q_len + i) * g.q_heads + h) * g.v_depth + c
                                       : ((b * g.q_heads + h) * g.q_len + i) * g.v_depth + c;
          WriteElementFromDouble(y, at, acc);
        }
      }
    }
  }
  return {y, present_key, present_value, qk};
}

}  // namespace loom::kernels
