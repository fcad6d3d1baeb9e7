#include <algorithm>

#include "kernels/conv/conv_depthwise_row.h"

namespace loom::kernels {

void f32_dwconv_row__portable(const float* const* taps, const float* weights, int num_taps,
                              float bias, float* out, int64_t width) {
  for (int64_t x0 = 0; x0 < width; x0 += kDepthwiseBlock) {
    float acc[kDepthwiseBlock];
    for (float& a : acc) a = bias;
    for (int t = 0; t < num_taps; ++t) {
      const float w = weights[t];
      const float* in = taps[t] + x0;
      for (int64_t i = 0; i < kDepthwiseBlock; ++i) acc[i] += w * in[i];
    }
    std::copy(acc, acc + std::min(kDepthwiseBlock, width - x0), out + x0);
  }
}

}  // namespace loom::kernels
