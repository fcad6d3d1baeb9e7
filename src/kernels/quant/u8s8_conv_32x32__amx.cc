// The AMX tile of the quantized convolution (quant/qlinear_conv_vnni.h):
// 32 pixels x 32 output channels of int32 sums in four accumulator tiles,
// per (tap, 64-channel chunk) two 16-pixel A tiles (rows of 64 channel
// bytes, one pixel apart), two 16-channel B tiles of packed weights and
// four tdpbusd. The epilogue is the VNNI tile's arithmetic (bias modulo
// 2^32, float64 product, round half to even, zero point, saturation), then
// a byte transpose to output-channel rows.
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "kernels/quant/byte_transpose.h"
#include "kernels/quant/qlinear_conv_vnni.h"
#include "kernels/quant/requantize16__avx512.h"

// GCC 12 warns inside its own AVX-512 conversion intrinsics, whose "undefined"
// pass-through operand is an uninitialized variable by design.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace loom::kernels {
namespace {

// The layout ldtilecfg reads (64 bytes).
struct TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

bool RequestAmxState() {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("amx-tile") || !__builtin_cpu_supports("amx-int8") ||
      !__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) {
    return false;
  }
  // Linux hands out the 8 KiB tile state only on request (once per process).
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

}  // namespace

bool AmxConvSupported() {
  static const bool supported = RequestAmxState();
  return supported;
}

void MakeAmxTileConfig(int a_bytes, int b_rows, AmxTileConfig* out) {
  static_assert(sizeof(TileConfig) == sizeof(AmxTileConfig::bytes));
  TileConfig config;
  for (int t = 0; t < 4; ++t) {  // accumulators: 16 pixels x 16 channels of int32
    config.rows[t] = 16;
    config.colsb[t] = 64;
  }
  for (int t = 4; t < 6; ++t) {  // A: 16 pixels x a_bytes
    config.rows[t] = 16;
    config.colsb[t] = static_cast<uint16_t>(a_bytes);
  }
  for (int t = 6; t < 8; ++t) {  // B: b_rows x 16 channels x 4
    config.rows[t] = static_cast<uint8_t>(b_rows);
    config.colsb[t] = 64;
  }
  std::memcpy(out->bytes, &config, sizeof(config));
}

void AmxTilesConfigure(const AmxTileConfig& config) {
  // Filled long before (by MakeAmxTileConfig): GCC 12 does not see ldtilecfg
  // read its operand and dropped the stores that filled a local one.
  _tile_loadconfig(config.bytes);
}

void AmxTilesRelease() { _tile_release(); }

void u8s8_conv_32x32__amx(const AmxConvTile& t, uint8_t* out) {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  const int8_t* w = t.weights;
  const int64_t stride = t.pixel_stride;
  for (int64_t k = 0; k < t.num_taps; ++k) {
    const uint8_t* a = t.taps[k];
    for (int64_t c = 0; c < t.chunks; ++c, w += 2 * t.b_tile_bytes) {
      _tile_loadd(4, a + 64 * c, stride);
      _tile_loadd(5, a + 16 * stride + 64 * c, stride);
      _tile_loadd(6, w, 64);
      _tile_loadd(7, w + t.b_tile_bytes, 64);
      _tile_dpbusd(0, 4, 6);
      _tile_dpbusd(1, 4, 7);
      _tile_dpbusd(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
  }
  alignas(64) int32_t sums[32][32];  // [pixel][output channel]
  _tile_stored(0, &sums[0][0], 128);
  _tile_stored(1, &sums[0][16], 128);
  _tile_stored(2, &sums[16][0], 128);
  _tile_stored(3, &sums[16][16], 128);

  const __m512d zero_point = _mm512_set1_pd(static_cast<double>(t.zero_point));
  const __m512d lo = _mm512_set1_pd(static_cast<double>(t.min));
  const __m512d hi = _mm512_set1_pd(static_cast<double>(t.max));
  __m128i q[2][32];  // [channel half][pixel]: 16 channels' bytes
  for (int v = 0; v < 2; ++v) {
    const __m512i bias = _mm512_loadu_si512(t.bias + 16 * v);
    const __m512d mult[2] = {_mm512_loadu_pd(t.multiplier + 16 * v),
                             _mm512_loadu_pd(t.multiplier + 16 * v + 8)};
    for (int p = 0; p < 32; ++p) {
      const __m512i s = _mm512_add_epi32(_mm512_load_si512(&sums[p][16 * v]), bias);
      q[v][p] = x86::Requantize16(s, mult, zero_point, lo, hi);
    }
  }
  // [pixel][channel] -> out[channel][pixel], in 16 x 16 blocks.
  for (int v = 0; v < 2; ++v) {
    for (int h = 0; h < 2; ++h) {
      __m128i block[16];
      for (int i = 0; i < 16; ++i) block[i] = q[v][16 * h + i];
      bytes::Transpose16x16(block);
      for (int i = 0; i < 16; ++i) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (16 * v + i) * 32 + 16 * h), block[i]);
      }
    }
  }
}

}  // namespace loom::kernels
