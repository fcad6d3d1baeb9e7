// Exp8: exp of 8 floats with AVX2 + FMA, the one AVX2 exp of the kernels
// (unary Exp, Sigmoid, SiLU and GELU in x86/f32_activation__avx2_fma.cc,
// softmax in x86/f32_softmax__avx2_fma.cc, attention). The Cephes expf
// scheme: x = n ln2 + r with |r| <= ln2 / 2 (ln 2 in two parts, so n * ln2_hi
// is exact), a degree-6 polynomial for e^r, then 2^n as two factors so that
// subnormal results are right.
//
// Over the whole float range: within 2 ulp of exp (computed in double) where
// the result is normal, within one subnormal step below -87.3 (a subnormal
// result, as std::exp gives, not 0), exactly 0 below about -103.9 and for
// -inf (so a masked-out logit contributes nothing to a softmax), +inf from
// 89 on, NaN kept. softmax_test.cc and activation_test.cc measure it,
// including the cut-offs.
//
// Internal linkage (static): include only from files compiled with -mavx2
// -mfma, each then holds its own copy.
#pragma once

#include <immintrin.h>

namespace loom::kernels {

static inline __m256 Exp8(__m256 x) {
  const __m256 nan_mask = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  // exp(89) overflows to inf through the scaling below; below -104 the
  // result rounds to zero even as a subnormal.
  const __m256 t = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)), _mm256_set1_ps(89.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // r = t - n ln2, ln2 split so n * 0.693359375 is exact for |n| <= 2^9.
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), t);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n = 2^n1 * 2^n2 with n1 = n >> 1: both factors stay normal for n in
  // [-150, 129], so a subnormal product is rounded once.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i n1 = _mm256_srai_epi32(ni, 1);
  const __m256i n2 = _mm256_sub_epi32(ni, n1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
  const __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  return _mm256_blendv_ps(y, x, nan_mask);
}

}  // namespace loom::kernels
