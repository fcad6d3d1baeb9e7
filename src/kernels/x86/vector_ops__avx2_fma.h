// Vector ops for x86/vector_math_impl.h with AVX2 + FMA: 8 floats, masks as
// all-ones lanes of a float vector. Compile with -mavx2 -mfma.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace loom::kernels {
namespace {

struct Avx2Ops {
  using V = __m256;
  using M = __m256;
  static constexpr int kLanes = 8;
  static V Set(float v) { return _mm256_set1_ps(v); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Div(V a, V b) { return _mm256_div_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }    // a * b + c
  static V Fnma(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b
  // Both return b when either operand is NaN.
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V And(V a, V b) { return _mm256_and_ps(a, b); }
  static V Or(V a, V b) { return _mm256_or_ps(a, b); }
  static V Abs(V x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
  static M Less(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static M Greater(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static M GreaterEqual(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
  static M NotGreaterEqual(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_NGE_UQ); }
  static M Equal(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static M Unordered(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
  // m ? if_true : if_false, lane by lane.
  static V Select(M m, V if_true, V if_false) { return _mm256_blendv_ps(if_false, if_true, m); }
  static V SelectOrZero(M m, V v) { return _mm256_and_ps(m, v); }
  static V RoundNearest(V v) {
    return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static V RoundDown(V v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  static V RoundUp(V v) { return _mm256_round_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
  // p * 2^n for integral n in [-150, 129], as p * 2^(n >> 1) * 2^(n - (n >> 1)).
  static V ScaleByPow2(V p, V n) {
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(ni, 1);
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const V s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const V s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  }
  // 2^n for integral n in [-126, 127] (a normal power of two).
  static V Pow2(V n) {
    const __m256i biased = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(biased, 23));
  }
  // The biased exponent field of each lane, as a float.
  static V ExponentField(V v) {
    return _mm256_cvtepi32_ps(_mm256_srli_epi32(_mm256_castps_si256(v), 23));
  }
  // The mantissa with the exponent of 0.5: a value in [0.5, 1).
  static V MantissaInHalfToOne(V v) {
    const __m256i bits = _mm256_castps_si256(v);
    return _mm256_castsi256_ps(_mm256_or_si256(
        _mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f000000)));
  }
  // y[0, count) = fn(x[0, count)) for count < kLanes, through a zero-filled
  // vector.
  template <typename Fn>
  static void MapTail(const float* x, float* y, int count, Fn fn) {
    alignas(32) float tail[kLanes] = {};
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    std::memcpy(tail, x, bytes);
    _mm256_store_ps(tail, fn(_mm256_load_ps(tail)));
    std::memcpy(y, tail, bytes);
  }
};

}  // namespace
}  // namespace loom::kernels
