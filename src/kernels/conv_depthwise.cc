#include "kernels/conv_depthwise.h"

#include <algorithm>

#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

void Plane(const float* x, const float* w, float bias, const SpatialGeometry& g,
           const Activation& activation, Isa isa, float* y) {
  const int64_t in_h = g.input[0], in_w = g.input[1];
  const int64_t out_h = g.output[0], out_w = g.output[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const int64_t sh = g.stride[0], sw = g.stride[1];
  for (int64_t oy = 0; oy < out_h; ++oy) {
    float* out = y + oy * out_w;
    std::fill(out, out + out_w, bias);
    for (int64_t ky = 0; ky < kh; ++ky) {
      const int64_t iy = oy * sh - g.pad_begin[0] + ky * g.dilation[0];
      if (iy < 0 || iy >= in_h) continue;
      const float* row = x + iy * in_w;
      for (int64_t kx = 0; kx < kw; ++kx) {
        const float weight = w[ky * kw + kx];
        const int64_t offset = kx * g.dilation[1] - g.pad_begin[1];
        // Output columns whose tap lands inside the row.
        int64_t first = offset >= 0 ? 0 : (-offset + sw - 1) / sw;
        int64_t last = in_w - 1 - offset < 0 ? 0 : (in_w - 1 - offset) / sw + 1;
        first = std::min(first, out_w);
        last = std::clamp(last, first, out_w);
        const float* in = row + offset;
        if (sw == 1) {
          for (int64_t ox = first; ox < last; ++ox) out[ox] += weight * in[ox];
        } else {
          for (int64_t ox = first; ox < last; ++ox) out[ox] += weight * in[ox * sw];
        }
      }
    }
    if (activation.kind != ActivationKind::kIdentity) ApplyActivation(activation, out, out_w, isa);
  }
}

}  // namespace

void DepthwiseConv2d(const float* x, const float* w, const float* bias, int64_t planes,
                     int64_t channels, const SpatialGeometry& g, const Activation& activation,
                     Isa isa, float* y, threading::ThreadPool* pool) {
  const int64_t in_plane = g.input[0] * g.input[1];
  const int64_t out_plane = g.output[0] * g.output[1];
  const int64_t taps = g.kernel[0] * g.kernel[1];
  // ~0.25 ns per multiply-add at AVX2 width; a guess, no better than that.
  const double cost = 0.25 * static_cast<double>(out_plane * taps) + 50;
  threading::ParallelFor(pool, planes, cost, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % channels;
      Plane(x + p * in_plane, w + c * taps, bias[c], g, activation, isa, y + p * out_plane);
    }
  });
}

}  // namespace loom::kernels
