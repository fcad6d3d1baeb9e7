// Attention micro-kernels (attention_micro_kernel_impl.h) with AVX2 + FMA:
// 8 floats a vector, up to 12 accumulators (2 x 6 tiles), leaving room in
// the 16 ymm registers for the loaded vectors and a broadcast.
#include <immintrin.h>

#include "kernels/attention/attention_micro_kernel_impl.h"
#include "kernels/x86/exp8__avx2_fma.h"

namespace loom::kernels {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kAccumulators = 12;
  // 6 x 2 tiles, as the GEMM's 6 x 16: 12 sums + 2 loaded vectors + 1
  // broadcast = 15 of the 16 ymm registers. A 3 x 4 tile (12 + 4 + 1)
  // does not fit: GCC then reloaded each vector of K or V from memory once
  // per row (13 loads per 12 FMAs instead of 8).
  static constexpr int kMaxColumnVectors = 2;
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Broadcast(float x) { return _mm256_set1_ps(x); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Zero() { return _mm256_setzero_ps(); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static float ReduceAdd(V v) {
    const __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 q = _mm_add_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
  }
  static float ReduceMax(V v) {
    const __m128 h = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 q = _mm_max_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_max_ss(q, _mm_movehdup_ps(q)));
  }
  static V Exp(V x) { return Exp8(x); }  // x86/exp8__avx2_fma.h
};

}  // namespace

const AttentionMicroKernels& AttentionMicroKernelsAvx2() {
  static constexpr AttentionMicroKernels kKernels =
      attention_detail::MakeTable<Avx2>(Isa::kAvx2Fma);
  return kKernels;
}

}  // namespace loom::kernels
