#include "kernels/conv/conv_im2col.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Output positions o in [0, out) whose input o*stride + offset lies in
// [0, size): the half-open range [first, last).
void ValidRange(int64_t offset, int64_t stride, int64_t size, int64_t out, int64_t& first,
                int64_t& last) {
  first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  last = size - 1 - offset < 0 ? 0 : (size - 1 - offset) / stride + 1;
  first = std::min(first, out);
  last = std::clamp(last, first, out);
}

// One row (c, ky, kx) of a 2-D im2col: out_h x out_w values.
void Im2ColRow2d(const float* plane, const SpatialGeometry& g, int64_t ky, int64_t kx, float* row) {
  const int64_t in_h = g.input[0], in_w = g.input[1];
  const int64_t out_h = g.output[0], out_w = g.output[1];
  const int64_t sh = g.stride[0], sw = g.stride[1];
  const int64_t y_offset = ky * g.dilation[0] - g.pad_begin[0];
  const int64_t x_offset = kx * g.dilation[1] - g.pad_begin[1];
  int64_t x_first, x_last;
  ValidRange(x_offset, sw, in_w, out_w, x_first, x_last);
  for (int64_t oy = 0; oy < out_h; ++oy) {
    float* out = row + oy * out_w;
    const int64_t iy = oy * sh + y_offset;
    if (iy < 0 || iy >= in_h) {
      std::memset(out, 0, static_cast<size_t>(out_w) * sizeof(float));
      continue;
    }
    const float* in = plane + iy * in_w + x_offset;
    std::fill(out, out + x_first, 0.0f);
    if (sw == 1) {
      std::memcpy(out + x_first, in + x_first,
                  static_cast<size_t>(x_last - x_first) * sizeof(float));
    } else if (sw == 2) {
      // A constant stride the compiler vectorizes (ResNet's and MobileNet's
      // first layers); the runtime-stride loop below stays scalar.
      for (int64_t ox = x_first; ox < x_last; ++ox) out[ox] = in[2 * ox];
    } else {
      for (int64_t ox = x_first; ox < x_last; ++ox) out[ox] = in[ox * sw];
    }
    std::fill(out + x_last, out + out_w, 0.0f);
  }
}

// Any rank: walks the output positions with an odometer.
void Im2ColRowGeneric(const float* plane, const SpatialGeometry& g,
                      const std::vector<int64_t>& taps, float* row) {
  const int rank = g.rank();
  std::vector<int64_t> o(static_cast<size_t>(rank), 0);
  int64_t count = 1;
  for (int64_t size : g.output) count *= size;
  for (int64_t p = 0; p < count; ++p) {
    int64_t offset = 0;
    bool inside = true;
    for (int a = 0; a < rank; ++a) {
      const int64_t i = o[a] * g.stride[a] - g.pad_begin[a] + taps[a] * g.dilation[a];
      inside = inside && i >= 0 && i < g.input[a];
      offset = offset * g.input[a] + i;
    }
    row[p] = inside ? plane[offset] : 0.0f;
    for (int a = rank - 1; a >= 0 && ++o[a] == g.output[a]; --a) o[a] = 0;
  }
}

}  // namespace

void Im2Col(const float* x, int64_t channels, const SpatialGeometry& g, float* col,
            threading::ThreadPool* pool) {
  int64_t taps = 1, plane = 1, positions = 1;
  for (int a = 0; a < g.rank(); ++a) {
    taps *= g.kernel[a];
    plane *= g.input[a];
    positions *= g.output[a];
  }
  // ~0.3 ns per element copied (memcpy-like rows), more for strided ones.
  const double cost_per_row = 0.3 * static_cast<double>(positions) + 20;
  threading::ParallelFor(pool, channels * taps, cost_per_row, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> tap(static_cast<size_t>(g.rank()));
    for (int64_t r = begin; r < end; ++r) {
      const float* in = x + (r / taps) * plane;
      float* out = col + r * positions;
      int64_t t = r % taps;
      for (int a = g.rank() - 1; a >= 0; --a) {
        tap[a] = t % g.kernel[a];
        t /= g.kernel[a];
      }
      if (g.rank() == 2) {
        Im2ColRow2d(in, g, tap[0], tap[1], out);
      } else {
        Im2ColRowGeneric(in, g, tap, out);
      }
    }
  });
}

}  // namespace loom::kernels
