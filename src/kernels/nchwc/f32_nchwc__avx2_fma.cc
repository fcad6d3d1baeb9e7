// NCHWc inner loops (nchwc_micro_kernel_impl.h) with AVX2 + FMA: blocks of
// 8 floats, register tiles of 2 output blocks x 6 columns (12 accumulators,
// 2 weight vectors and one broadcast: 15 of the 16 ymm registers).
#include <immintrin.h>

#include "kernels/nchwc/nchwc_micro_kernel_impl.h"
#include "kernels/x86/exp8__avx2_fma.h"

namespace loom::kernels {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int kBlock = 8;
  // Pointwise tiles prefetch the next tile's input (PrefetchNextTile):
  // measured on Zen 3.
  static constexpr bool kPrefetchNextTile = true;
  static constexpr int kRegisters = 16;  // vector registers
  static constexpr int kTileBlocks = 2;
  // Within 16 registers: 1 x 12 (14), 2 x 6 (15).
  static constexpr int kTileWidth[3] = {0, 12, 6};
  static constexpr int kDepthwiseWidth = 8;
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Div(V a, V b) { return _mm256_div_ps(a, b); }
  // The AVX2 exp of every kernel (unary Exp/Sigmoid/SiLU, softmax).
  static V Exp(V x) { return Exp8(x); }
  static V ExpForSigmoid(V t) { return ExpForSigmoid8(t); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  // r[i] lane j -> r[j] lane i: pairs of rows interleaved, then quads
  // within each 128-bit half, then the halves of rows 4 apart.
  static void Transpose(V (&r)[8]) {
    V t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
      t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
      t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    // u[4q + m], half j: rows 4q..4q+3 of column 4j + m.
    for (int q = 0; q < 8; q += 4) {
      u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
      u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xEE);
      u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
      u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
    }
    for (int m = 0; m < 4; ++m) {
      r[m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x20);
      r[4 + m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x31);
    }
  }
  static V Zero() { return _mm256_setzero_ps(); }
};

}  // namespace

const NchwcMicroKernels& NchwcMicroKernelsAvx2() {
  static constexpr NchwcMicroKernels kKernels{
      .isa = Isa::kAvx2Fma,
      .block = Avx2::kBlock,
      .conv_segment = nchwc_detail::ConvSegmentAnyInput<Avx2>,
      .depthwise_segment = nchwc_detail::DepthwiseSegment<Avx2>,
      .affine_plane = nchwc_detail::AffinePlane<Avx2>,
      .pool_row = nchwc_detail::PoolRow<Avx2>,
      .global_pool = nchwc_detail::GlobalPool<Avx2>,
      .reorder_in = nchwc_detail::ReorderIn<Avx2>,
      .reorder_out = nchwc_detail::ReorderOut<Avx2>,
      .winograd_input = nchwc_detail::WinogradInput<Avx2>,
      .winograd_output = nchwc_detail::WinogradOutput<Avx2>,
      .tile_blocks = Avx2::kTileBlocks,
      .tile_width = {Avx2::kTileWidth[1], Avx2::kTileWidth[2], Avx2::kTileWidth[2],
                     Avx2::kTileWidth[2]},
  };
  return kKernels;
}

}  // namespace loom::kernels
