// Direct depthwise 2-D convolution (one filter per channel, ONNX Conv with
// group == C == M), NCHW float32:
//
//   for each plane (n, c), each output row oy:
//     y[oy][:] = bias[c]; for (ky, kx): y[oy][ox] += w[c][ky][kx] * x[oy*sh - ph + ky*dh][ox*sw -
//     pw + kx*dw] then the activation
//
// Window taps that fall in the padding are skipped by clipping the ox range
// per tap (no bounds test per element); for stride 1 the inner loop is a
// contiguous multiply-add the compiler vectorizes. Parallel over the planes.
#pragma once

#include <cstdint>

#include "kernels/activation.h"
#include "kernels/spatial_geometry.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::kernels {

// x: planes (= N * C) planes of in_h x in_w; w: C filters of kh x kw;
// bias: C values; y: planes of out_h x out_w.
void DepthwiseConv2d(const float* x, const float* w, const float* bias, int64_t planes,
                     int64_t channels, const SpatialGeometry& geometry,
                     const Activation& activation, Isa isa, float* y, threading::ThreadPool* pool);

}  // namespace loom::kernels
