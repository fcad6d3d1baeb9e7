// Direct depthwise 2-D convolution (one filter per channel, ONNX Conv with
// group == C == M), NCHW float32. For each plane (n, c):
//
//   y[oy][ox] = bias[c] + sum_{ky, kx} w[c][ky][kx] * x[oy*sh - ph + ky*dh][ox*sw - pw + kx*dw]
//   then the activation (padding reads as 0).
//
// The plane is first rearranged by stride phase with its zero padding
// (conv_depthwise.cc, PhasedPlane) so that each tap's inputs for the whole
// output plane form one contiguous run; one call of the ISA's row kernel
// then computes every output of the plane, taps in (ky, kx) order.
// Parallel over the N * C planes; bit-exact across thread counts.
#pragma once

#include <cstdint>

#include "kernels/elementwise/activation.h"
#include "kernels/isa_variant.h"
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

// The ISA levels with their own row kernel (isa_variant.h).
IsaMask DepthwiseRowIsaLevels();

}  // namespace loom::kernels
