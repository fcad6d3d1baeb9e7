// NCHWc inner loops (nchwc_micro_kernel_impl.h) with AVX2 + FMA: blocks of
// 8 floats, register tiles of 2 output blocks x 6 columns (12 accumulators,
// 2 weight vectors and one broadcast: 15 of the 16 ymm registers).
#include <immintrin.h>

#include "kernels/nchwc/nchwc_micro_kernel_impl.h"

namespace loom::kernels {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int kBlock = 8;
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
  static V Round(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // 2^n as two factors 2^(n >> 1) and 2^(n - (n >> 1)), each a normal float
  // for n in [-150, 128], so a subnormal product is rounded once.
  static V Scale2(V v, V n) {
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(ni, 1);
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const V s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const V s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(v, s1), s2);
  }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static __m256i LaneIndex(int32_t step) {
    return _mm256_mullo_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0), _mm256_set1_epi32(step));
  }
  static V Gather(const float* base, __m256i index) { return _mm256_i32gather_ps(base, index, 4); }
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
      .tile_blocks = Avx2::kTileBlocks,
      .tile_width = {Avx2::kTileWidth[1], Avx2::kTileWidth[2], Avx2::kTileWidth[2],
                     Avx2::kTileWidth[2]},
  };
  return kKernels;
}

}  // namespace loom::kernels
