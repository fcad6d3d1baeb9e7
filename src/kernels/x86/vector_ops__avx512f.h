// Vector ops for x86/vector_math_impl.h with AVX-512F: 16 floats, masks in
// mask registers. The same operations as x86/vector_ops__avx2_fma.h lane by
// lane, so the same bits. Masked forms where GCC 12 warns that the plain
// intrinsic reads an undefined vector. Compile with -mavx512f.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace loom::kernels {
namespace {

struct Avx512Ops {
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16;
  static constexpr __mmask16 kAll = 0xFFFF;
  static V Set(float v) { return _mm512_set1_ps(v); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Div(V a, V b) { return _mm512_div_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }    // a * b + c
  static V Fnma(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a * b
  // Both return b when either operand is NaN (as vminps / vmaxps).
  static V Min(V a, V b) { return _mm512_maskz_min_ps(kAll, a, b); }
  static V Max(V a, V b) { return _mm512_maskz_max_ps(kAll, a, b); }
  static V And(V a, V b) {
    return _mm512_castsi512_ps(
        _mm512_maskz_and_epi32(kAll, _mm512_castps_si512(a), _mm512_castps_si512(b)));
  }
  static V Or(V a, V b) {
    return _mm512_castsi512_ps(
        _mm512_maskz_or_epi32(kAll, _mm512_castps_si512(a), _mm512_castps_si512(b)));
  }
  static V Abs(V x) {
    return _mm512_castsi512_ps(
        _mm512_maskz_and_epi32(kAll, _mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
  }
  static M Less(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static M Greater(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static M GreaterEqual(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
  static M NotGreaterEqual(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_NGE_UQ); }
  static M Equal(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static M Unordered(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
  // m ? if_true : if_false, lane by lane.
  static V Select(M m, V if_true, V if_false) { return _mm512_mask_blend_ps(m, if_false, if_true); }
  static V SelectOrZero(M m, V v) { return _mm512_maskz_mov_ps(m, v); }
  static V RoundNearest(V v) {
    return _mm512_maskz_roundscale_ps(kAll, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static V RoundDown(V v) {
    return _mm512_maskz_roundscale_ps(kAll, v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  }
  static V RoundUp(V v) {
    return _mm512_maskz_roundscale_ps(kAll, v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  }
  // p * 2^n for integral n in [-150, 129], as p * 2^(n >> 1) * 2^(n - (n >> 1)).
  static V ScaleByPow2(V p, V n) {
    const __m512i ni = _mm512_maskz_cvtps_epi32(kAll, n);
    const __m512i n1 = _mm512_maskz_srai_epi32(kAll, ni, 1);
    const __m512i n2 = _mm512_sub_epi32(ni, n1);
    const __m512i bias = _mm512_set1_epi32(127);
    const V s1 = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_add_epi32(n1, bias), 23));
    const V s2 = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_add_epi32(n2, bias), 23));
    return _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
  }
  // 2^n for integral n in [-126, 127] (a normal power of two).
  static V Pow2(V n) {
    const __m512i biased =
        _mm512_add_epi32(_mm512_maskz_cvtps_epi32(kAll, n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, biased, 23));
  }
  // The biased exponent field of each lane, as a float.
  static V ExponentField(V v) {
    return _mm512_maskz_cvtepi32_ps(kAll,
                                    _mm512_maskz_srli_epi32(kAll, _mm512_castps_si512(v), 23));
  }
  // The mantissa with the exponent of 0.5: a value in [0.5, 1).
  static V MantissaInHalfToOne(V v) {
    const __m512i bits = _mm512_castps_si512(v);
    return _mm512_castsi512_ps(_mm512_maskz_or_epi32(
        kAll, _mm512_maskz_and_epi32(kAll, bits, _mm512_set1_epi32(0x007fffff)),
        _mm512_set1_epi32(0x3f000000)));
  }
  // y[0, count) = fn(x[0, count)) for count < kLanes: masked load (the other
  // lanes 0) and store.
  template <typename Fn>
  static void MapTail(const float* x, float* y, int count, Fn fn) {
    const __mmask16 m = static_cast<__mmask16>((1u << count) - 1);
    _mm512_mask_storeu_ps(y, m, fn(_mm512_maskz_loadu_ps(m, x)));
  }
};

}  // namespace
}  // namespace loom::kernels
