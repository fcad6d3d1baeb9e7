#include "kernels/transformer/transformer_reference.h"

#include <cmath>
#include <vector>

#include "kernels/reference/element_access.h"

namespace loom::kernels {

Tensor RMSNormReference(const Tensor& x, const Tensor& scale, int axis, float epsilon) {
  const std::vector<int64_t>& dims = x.shape().dims();
  int64_t outer = 1;
  for (int a = 0; a < axis; ++a) outer *= dims[static_cast<size_t>(a)];
  const int rank = x.shape().rank();
  int64_t n = 1;
  for (int a = axis; a < rank; ++a) n *= dims[static_cast<size_t>(a)];
  Tensor y(scale.dtype(), x.shape());
  const Shape& ss = scale.shape();
  for (int64_t r = 0; r < outer; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = ReadElementAsDouble(x, r * n + i);
      sum += v * v;
    }
    const double inv = 1.0 / std::sqrt(sum / static_cast<double>(n) + static_cast<double>(epsilon));
    for (int64_t i = 0; i < n; ++i) {
      // The scale element of normalized index i: its dims aligned right.
      int64_t rest = i, s_index = 0, s_stride = 1;
      for (int a = rank - 1, sa = ss.rank() - 1; a >= axis; --a, --sa) {
        const int64_t d = dims[static_cast<size_t>(a)];
        const int64_t coord = rest % d;
        rest /= d;
        if (sa >= 0) {
          if (ss.dim(sa) != 1) s_index += coord * s_stride;
          s_stride *= ss.dim(sa);
        }
      }
      WriteElementFromDouble(
          y, r * n + i,
          ReadElementAsDouble(x, r * n + i) * inv * ReadElementAsDouble(scale, s_index));
    }
  }
  return y;
}

Tensor RotaryEmbeddingReference(const Tensor& x, const Tensor& cos_cache, const Tensor& sin_cache,
                                const Tensor* position_ids, bool interleaved, int64_t num_heads,
                                int64_t rotary_dim) {
  const bool four_d = x.shape().rank() == 4;
  const int64_t batch = x.shape().dim(0);
  const int64_t heads = four_d ? x.shape().dim(1) : num_heads;
  const int64_t seq = four_d ? x.shape().dim(2) : x.shape().dim(1);
  const int64_t depth = four_d ? x.shape().dim(3) : x.shape().dim(2) / num_heads;
  const int64_t half = rotary_dim / 2;
  Tensor y(x.dtype(), x.shape());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t base =
            four_d ? ((b * heads + h) * seq + s) * depth : ((b * seq + s) * heads + h) * depth;
        const int64_t row =
            position_ids != nullptr ? ReadElementAsInt64(*position_ids, b * seq + s) : b * seq + s;
        for (int64_t d = rotary_dim; d < depth; ++d) {
          WriteElementFromDouble(y, base + d, ReadElementAsDouble(x, base + d));
        }
        for (int64_t j = 0; j < half; ++j) {
          const double c = ReadElementAsDouble(cos_cache, row * half + j);
          const double sn = ReadElementAsDouble(sin_cache, row * half + j);
          const int64_t i1 = interleaved ? 2 * j : j;
          const int64_t i2 = interleaved ? 2 * j + 1 : j + half;
          const double x1 = ReadElementAsDouble(x, base + i1);
          const double x2 = ReadElementAsDouble(x, base + i2);
          WriteElementFromDouble(y, base + i1, c * x1 - sn * x2);
          WriteElementFromDouble(y, base + i2, sn * x1 + c * x2);
        }
      }
    }
  }
  return y;
}

}  // namespace loom::kernels
