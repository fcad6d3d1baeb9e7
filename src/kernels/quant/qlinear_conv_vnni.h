// QLinearConv on 8-bit integers with AVX-512 VNNI (vpdpbusd: four u8 x s8
// products summed into each int32 lane) or, where the CPU has it, Intel AMX
// (tdpbusd: a 16 x 64 by 64 x 16 u8 x s8 tile product), for 2-D
// convolutions with one group whose quantization parameters are constants;
// prepared once per node (registry.h's prepare stage). Any other QLinearConv
// runs the general int16 kernel (conv_integer.cc). All give the same bits:
// the sums are exact (modulo 2^32), and the requantization is the same
// float64 product and round half to even as quant.h states.
//
// Measured on one core of a Xeon with AMX (2026-12-05): vpdpbusd peaks at
// ~470 G multiply-adds/s, tdpbusd at ~2,600 G; ResNet-18's 3x3 layers ran
// 0.36-0.45 ms with the VNNI tile, 0.14-0.18 ms with the AMX tile.
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
#include <memory>

#include "kernels/isa_variant.h"
#include "kernels/op_kernel.h"

namespace loom::kernels {

// The register tile's shape: output channels x 16-pixel vectors (24
// accumulators). On the Xeon of 2026-12-05, 8 x 3 was the fastest on
// ResNet-18's layers; 6 x 4, 12 x 2 and 4 x 6 were 0-17 % slower (only
// 6 x 4 won, by 9 %, on the 7x7 layers; bench/results/quantized-2026-12-05.md).
inline constexpr int kVnniRows = 8;
inline constexpr int kVnniVectors = 3;

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

// The AMX tile (Intel AMX-INT8): 32 pixels x 32 output channels, per step
// two A tiles (16 pixels, a row of K bytes each, pixel_stride apart), two B
// tiles of packed weights (K / 4 rows of 16 channels x 4 bytes,
// b_tile_bytes each) and four tdpbusd. Two layouts feed it:
// - 64 input channels or more: x copied as [phase][Hph][Wph][Cp] bytes
//   (channels padded to Cp, a multiple of 64); a step is one tap and one
//   64-channel chunk (K = 64); weights [taps][Cp / 64][2][16][64].
// - up to 4 input channels (a network's first layer): the VNNI layout (one
//   word of 4 channels per pixel); a step is one kernel row and one stride
//   phase of columns, whose taps are consecutive words of each pixel's row
//   (K = 4 x taps, rows overlapping, pixel_stride 4 bytes); weights
//   [steps][2][taps][64].
// taps[t]: step t's byte address of this tile's first pixel, chunk 0.
// bias and multiplier [32]. Results go to out[r * 32 + p]. The calling
// thread configures its tiles first (AmxTilesConfigure) and releases them
// when done.
struct AmxConvTile {
  const uint8_t* const* taps;
  int64_t num_taps;
  int64_t chunks;        // K = 64 steps per tap (1 in the few-channel layout)
  int64_t pixel_stride;  // bytes from one pixel's A row to the next
  int64_t b_tile_bytes;  // one B tile: K / 4 rows x 64 bytes
  const int8_t* weights;
  const int32_t* bias;       // [32]
  const double* multiplier;  // [32]
  int32_t zero_point, min, max;
};
void u8s8_conv_32x32__amx(const AmxConvTile& tile, uint8_t* out);
// The 64 bytes ldtilecfg reads: accumulators 16 x 64 bytes, A tiles 16 rows
// of a_bytes, B tiles b_rows rows of 64 bytes.
struct alignas(64) AmxTileConfig {
  uint8_t bytes[64];
};
void MakeAmxTileConfig(int a_bytes, int b_rows, AmxTileConfig* out);
void AmxTilesConfigure(const AmxTileConfig& config);
void AmxTilesRelease();
// Whether the CPU has AMX-INT8 and the OS granted this process the tile
// state (asked once).
bool AmxConvSupported();

// Which tile a prepared node runs: AMX where the CPU has it and the layer
// has 64 input channels or more, or at most 4 with 3 or more taps per step
// (a stem), else the VNNI tile; tests force each.
enum class QuantConvTiles { kAuto, kVnni, kAmx };

// PrepareQLinearConv (quant.h) with the tile choice; null also when kAmx is
// forced on a CPU without AMX.
std::unique_ptr<PreparedKernel> PrepareQLinearConvWithTiles(const PrepareArgs& args,
                                                            QuantConvTiles tiles);

// A tile's results (tile[r * stride + p], stride <= 64; phase-grid pixels
// q0 .. q0 + count - 1) into the output planes (channel r at
// out + r * out_h * out_w), dropping the pixels with ow >= out_w: one
// masked store per channel and output row. AVX-512BW (as both tiles).
void StoreKeptPixels__avx512(const uint8_t* tile, int64_t stride, int64_t channels, int64_t q0,
                             int64_t count, int64_t wph, int64_t out_h, int64_t out_w,
                             uint8_t* out);

// Whether this CPU has the instructions u8s8_conv_8x48__avx512vnni uses.
bool VnniConvSupported();
// Whether a context at `isa` runs the prepared VNNI kernel (isa_variant.h's
// rule, and VnniConvSupported()), and the levels with a prepared kernel.
bool UseVnniConv(Isa isa);
IsaMask QLinearConvPreparedIsaLevels();

}  // namespace loom::kernels
