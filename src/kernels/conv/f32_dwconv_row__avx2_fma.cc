// The depthwise row (conv_depthwise_row.h) with AVX2 + FMA: 32 outputs in
// four ymm accumulators, one broadcast weight and four loads per tap.
#include <immintrin.h>

#include <algorithm>

#include "kernels/conv/conv_depthwise_row.h"

namespace loom::kernels {

void f32_dwconv_row__avx2_fma(const float* const* taps, const float* weights, int num_taps,
                              float bias, float* out, int64_t width) {
  static_assert(kDepthwiseBlock == 32, "four 8-float accumulators");
  for (int64_t x0 = 0; x0 < width; x0 += kDepthwiseBlock) {
    __m256 a0 = _mm256_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0;
    for (int t = 0; t < num_taps; ++t) {
      const __m256 w = _mm256_set1_ps(weights[t]);
      const float* in = taps[t] + x0;
      a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(in), a0);
      a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(in + 8), a1);
      a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(in + 16), a2);
      a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(in + 24), a3);
    }
    if (width - x0 >= kDepthwiseBlock) {
      _mm256_storeu_ps(out + x0, a0);
      _mm256_storeu_ps(out + x0 + 8, a1);
      _mm256_storeu_ps(out + x0 + 16, a2);
      _mm256_storeu_ps(out + x0 + 24, a3);
    } else {
      alignas(32) float tail[kDepthwiseBlock];
      _mm256_store_ps(tail, a0);
      _mm256_store_ps(tail + 8, a1);
      _mm256_store_ps(tail + 16, a2);
      _mm256_store_ps(tail + 24, a3);
      std::copy(tail, tail + (width - x0), out + x0);
    }
  }
}

}  // namespace loom::kernels
