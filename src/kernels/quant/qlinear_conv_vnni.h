// QLinearConv on 8-bit integers with AVX-512 VNNI (vpdpbusd: four u8 x s8
// products summed into each int32 lane), for 2-D convolutions with one
// group whose quantization parameters are constants; prepared once per node
// (registry.h's prepare stage). Any other QLinearConv runs the general
// int16 kernel (conv_integer.cc). Both give the same bits: the sums are
// exact (modulo 2^32), and the requantization is the same float64 product
// and round half to even as quant.h states.
//
// Layout. Activations are read as "quads": 4 input channels side by side in
// one 32-bit word per pixel ([C/4][H][W][4] bytes), so one vpdpbusd adds 4
// channels' products for 16 output pixels against one broadcast word of
// weights. Per call, x is copied into that layout with its padding written
// out (as the zero point) and, for stride s > 1, split into the s x s stride
// phases (phase (a, b) holds padded pixels (s*i + a, s*j + b)), so that every
// tap reads its 16 pixels from consecutive words:
//
//   q = oh * Wph + ow           (output pixel on the phase grid's width Wph)
//   tap (kh, kw) reads phase ((kh*dh) % sh, (kw*dw) % sw) at word
//                 q + ((kh*dh) / sh) * Wph + (kw*dw) / sw
//
// Outputs with ow >= Wout are computed and dropped. Signed activations are
// read with their sign bit flipped (x + 128, and the zero point + 128), which
// leaves x - x_zero_point unchanged. Weights are stored as w - w_zero_point
// (the node is prepared only where that fits int8); the zero point's share,
// x_zero_point * sum(w), is taken out of the bias once.
//
// The serial loop the parallel one replaces (units of 8 output channels x
// 48 pixels):
//   for each image: for each unit: for each channel quad: for each tap:
//     acc[8][48] += quad words . weights   ; then y = requantize(acc + bias)
#pragma once

#include <cstdint>

#include "kernels/op_kernel.h"

namespace loom::kernels {

// The register tile's shape: output channels x 16-pixel vectors.
#ifndef LOOM_VNNI_ROWS
#define LOOM_VNNI_ROWS 8
#define LOOM_VNNI_VECTORS 3
#endif
inline constexpr int kVnniRows = LOOM_VNNI_ROWS;
inline constexpr int kVnniVectors = LOOM_VNNI_VECTORS;

// One register tile: 8 output channels x 16 * vectors (1..3) pixels.
// taps[t] points at tap t's first word for this tile's first pixel in
// channel quad 0; quad c adds c * quad_stride words. weights: [quads][taps]
// [8][4] int8. The results, requantized, go to out[r * 48 + p] (int8 or
// uint8 bytes) for r < 8, p < 16 * vectors.
struct VnniConvTile {
  const uint32_t* const* taps;
  int64_t num_taps;
  int64_t quads;
  int64_t quad_stride;  // in 32-bit words
  const int8_t* weights;
  const int32_t* bias;       // [8]
  const double* multiplier;  // [8]
  int32_t zero_point, min, max;
};
void u8s8_conv_8x48__avx512vnni(const VnniConvTile& tile, int vectors, uint8_t* out);

// Whether this CPU has the instructions u8s8_conv_8x48__avx512vnni uses.
bool VnniConvSupported();

}  // namespace loom::kernels
