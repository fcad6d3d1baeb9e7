// NCHWc inner loops (nchwc_micro_kernel_impl.h) with AVX-512F: blocks of 16
// floats, register tiles of up to 4 output blocks x 6 pixels (24
// accumulators, 4 weight vectors and one broadcast: 29 of the 32 zmm
// registers), wider for fewer blocks.
#include <immintrin.h>

#include "kernels/nchwc/nchwc_micro_kernel_impl.h"

namespace loom::kernels {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int kBlock = 16;
  // Not measured with AVX-512 (Intel, Zen 4): PrefetchNextTile off.
  static constexpr bool kPrefetchNextTile = false;
  static constexpr int kRegisters = 32;  // vector registers
  static constexpr int kTileBlocks = 4;
  // Accumulators + weight vectors + one broadcast within 32 registers:
  // 1 x 12 (14), 2 x 12 (27), 3 x 8 (28), 4 x 6 (29).
  static constexpr int kTileWidth[5] = {0, 12, 12, 8, 6};
  static constexpr int kDepthwiseWidth = 8;
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Div(V a, V b) { return _mm512_div_ps(a, b); }
  // Round and Scale2 in the masked form, as for Max.
  static V Round(V a) {
    return _mm512_maskz_roundscale_ps(0xFFFF, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  // vscalefps: v * 2^floor(n), rounded once, so subnormal and infinite
  // results come out right.
  static V Scale2(V v, V n) { return _mm512_maskz_scalef_ps(0xFFFF, v, n); }
  // The masked form: GCC 12 warns that the plain one reads an undefined vector.
  static V Max(V a, V b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  static V Min(V a, V b) { return _mm512_maskz_min_ps(0xFFFF, a, b); }
  // r[i] lane j -> r[j] lane i: pairs of rows interleaved, then quads
  // within each 128-bit lane, then 128-bit lanes across rows 4 and 8 apart.
  // The masked forms, as for Max.
  static void Transpose(V (&r)[16]) {
    V t[16], u[16];
    for (int k = 0; k < 16; k += 2) {
      t[k] = _mm512_maskz_unpacklo_ps(0xFFFF, r[k], r[k + 1]);
      t[k + 1] = _mm512_maskz_unpackhi_ps(0xFFFF, r[k], r[k + 1]);
    }
    // u[4q + m], 128-bit lane j: rows 4q..4q+3 of column 4j + m.
    for (int q = 0; q < 16; q += 4) {
      u[q] = _mm512_maskz_shuffle_ps(0xFFFF, t[q], t[q + 2], 0x44);
      u[q + 1] = _mm512_maskz_shuffle_ps(0xFFFF, t[q], t[q + 2], 0xEE);
      u[q + 2] = _mm512_maskz_shuffle_ps(0xFFFF, t[q + 1], t[q + 3], 0x44);
      u[q + 3] = _mm512_maskz_shuffle_ps(0xFFFF, t[q + 1], t[q + 3], 0xEE);
    }
    for (int m = 0; m < 4; ++m) {
      // Lanes 0 and 2 (then 1 and 3) of u[m], u[4 + m], u[8 + m], u[12 + m].
      const V even_lo = _mm512_maskz_shuffle_f32x4(0xFFFF, u[m], u[4 + m], 0x88);
      const V even_hi = _mm512_maskz_shuffle_f32x4(0xFFFF, u[8 + m], u[12 + m], 0x88);
      const V odd_lo = _mm512_maskz_shuffle_f32x4(0xFFFF, u[m], u[4 + m], 0xDD);
      const V odd_hi = _mm512_maskz_shuffle_f32x4(0xFFFF, u[8 + m], u[12 + m], 0xDD);
      r[m] = _mm512_maskz_shuffle_f32x4(0xFFFF, even_lo, even_hi, 0x88);
      r[8 + m] = _mm512_maskz_shuffle_f32x4(0xFFFF, even_lo, even_hi, 0xDD);
      r[4 + m] = _mm512_maskz_shuffle_f32x4(0xFFFF, odd_lo, odd_hi, 0x88);
      r[12 + m] = _mm512_maskz_shuffle_f32x4(0xFFFF, odd_lo, odd_hi, 0xDD);
    }
  }
  static V Zero() { return _mm512_setzero_ps(); }
};

}  // namespace

const NchwcMicroKernels& NchwcMicroKernelsAvx512() {
  static constexpr NchwcMicroKernels kKernels{
      .isa = Isa::kAvx512f,
      .block = Avx512::kBlock,
      .conv_segment = nchwc_detail::ConvSegmentAnyInput<Avx512>,
      .depthwise_segment = nchwc_detail::DepthwiseSegment<Avx512>,
      .affine_plane = nchwc_detail::AffinePlane<Avx512>,
      .pool_row = nchwc_detail::PoolRow<Avx512>,
      .global_pool = nchwc_detail::GlobalPool<Avx512>,
      .reorder_in = nchwc_detail::ReorderIn<Avx512>,
      .reorder_out = nchwc_detail::ReorderOut<Avx512>,
      .winograd_input = nchwc_detail::WinogradInput<Avx512>,
      .winograd_output = nchwc_detail::WinogradOutput<Avx512>,
      .tile_blocks = Avx512::kTileBlocks,
      .tile_width = {Avx512::kTileWidth[1], Avx512::kTileWidth[2], Avx512::kTileWidth[3],
                     Avx512::kTileWidth[4]},
  };
  return kKernels;
}

}  // namespace loom::kernels
