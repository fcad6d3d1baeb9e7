// The register tile of the VNNI QLinearConv (quant/qlinear_conv_vnni.h):
// 8 output channels x 16 * V pixels of int32 sums (8 * V zmm accumulators,
// V <= 3 leaves room for the V pixel vectors and a broadcast weight word).
// Per channel quad and tap: V loads of 16 pixel words, 8 weight broadcasts,
// 8 * V vpdpbusd. The epilogue adds the bias (modulo 2^32, as the sums
// wrap), multiplies in float64, rounds half to even, adds the zero point
// and saturates: RoundSaturate's arithmetic (quant_common.h), exactly.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/quant/qlinear_conv_vnni.h"
#include "kernels/quant/requantize16__avx512.h"

// GCC 12 warns inside its own AVX-512 conversion intrinsics, whose "undefined"
// pass-through operand is an uninitialized variable by design.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace loom::kernels {
namespace {

constexpr int kPrefetchAhead = 512;

inline __m512i BroadcastWord(const int8_t* p) {
  int32_t word;
  std::memcpy(&word, p, sizeof(word));
  return _mm512_set1_epi32(word);
}

constexpr int R = kVnniRows;
constexpr int kOutStride = 16 * kVnniVectors;

template <int V>
__attribute__((always_inline)) inline void Tile(const VnniConvTile& t, uint8_t* out) {
  __m512i acc[R][V];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 6
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_si512();
  }
  const int8_t* w = t.weights;
  for (int64_t c = 0; c < t.quads; ++c) {
    const int64_t base = c * t.quad_stride;
    for (int64_t k = 0; k < t.num_taps; ++k, w += 4 * R) {
      const uint32_t* p = t.taps[k] + base;
      // The weights stream once per tile (from L3 in deep layers, whose
      // weights outgrow L2); fetch a few hundred bytes ahead.
      _mm_prefetch(reinterpret_cast<const char*>(w + kPrefetchAhead), _MM_HINT_T0);
      __m512i x[V];
#pragma GCC unroll 6
      for (int v = 0; v < V; ++v) x[v] = _mm512_loadu_si512(p + 16 * v);
#pragma GCC unroll 12
      for (int r = 0; r < R; ++r) {
        const __m512i wr = BroadcastWord(w + 4 * r);
#pragma GCC unroll 6
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x[v], wr);
      }
    }
  }
  const __m512d zero_point = _mm512_set1_pd(static_cast<double>(t.zero_point));
  const __m512d lo = _mm512_set1_pd(static_cast<double>(t.min));
  const __m512d hi = _mm512_set1_pd(static_cast<double>(t.max));
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    const __m512i bias = _mm512_set1_epi32(t.bias[r]);
    const __m512d mult[2] = {_mm512_set1_pd(t.multiplier[r]), _mm512_set1_pd(t.multiplier[r])};
#pragma GCC unroll 6
    for (int v = 0; v < V; ++v) {
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(out + r * kOutStride + 16 * v),
          x86::Requantize16(_mm512_add_epi32(acc[r][v], bias), mult, zero_point, lo, hi));
    }
  }
}

}  // namespace

void u8s8_conv_8x48__avx512vnni(const VnniConvTile& tile, int vectors, uint8_t* out) {
  static_assert(kVnniVectors >= 1 && kVnniVectors <= 6);
  switch (vectors) {
    case 1:
      Tile<1>(tile, out);
      return;
    case 2:
      if constexpr (kVnniVectors >= 2) Tile<2>(tile, out);
      return;
    case 3:
      if constexpr (kVnniVectors >= 3) Tile<3>(tile, out);
      return;
    case 4:
      if constexpr (kVnniVectors >= 4) Tile<4>(tile, out);
      return;
    case 5:
      if constexpr (kVnniVectors >= 5) Tile<5>(tile, out);
      return;
    default:
      if constexpr (kVnniVectors >= 6) Tile<kVnniVectors>(tile, out);
      return;
  }
}

}  // namespace loom::kernels

namespace loom::kernels {

void StoreKeptPixels__avx512(const uint8_t* tile, int64_t stride, int64_t channels, int64_t q0,
                             int64_t count, int64_t wph, int64_t out_h, int64_t out_w,
                             uint8_t* out) {
  for (int64_t oh = q0 / wph; oh * wph < q0 + count; ++oh) {
    const int64_t s = std::max(q0, oh * wph);
    const int64_t e = std::min(q0 + count, oh * wph + out_w);
    if (s >= e) continue;
    // Lanes [s - q0, e - q0) of each tile row go to output row oh from
    // column s - oh * wph; the store's lane 0 sits s - q0 bytes before.
    const __mmask64 mask = (~uint64_t{0} >> (64 - (e - s))) << (s - q0);
    const uintptr_t lane0 = reinterpret_cast<uintptr_t>(out + oh * out_w + (s - oh * wph)) -
                            static_cast<uintptr_t>(s - q0);
    for (int64_t r = 0; r < channels; ++r) {
      const __m512i row = _mm512_maskz_loadu_epi8(mask, tile + r * stride);
      _mm512_mask_storeu_epi8(
          reinterpret_cast<void*>(lane0 + static_cast<uintptr_t>(r * out_h * out_w)), mask, row);
    }
  }
}

}  // namespace loom::kernels
