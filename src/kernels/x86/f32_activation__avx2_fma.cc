// Float32 activations and exp / log / erf with AVX2 + FMA, eight lanes at a
// time; a tail shorter than eight goes through a zero-padded vector so every
// element takes the same code path (results do not depend on where a shard
// or an array starts).
//
// Approximations (max error over the test's dense sweep, against the value
// computed in double and rounded; see activation_test.cc):
//   exp:  Exp8 (x86/exp8__avx2_fma.h, shared with softmax and attention):
//         Cephes range reduction x = n ln2 + r, |r| <= ln2 / 2, degree-6
//         polynomial; 2^n applied as two factors so subnormal results are
//         right (within one subnormal step). Relative error 1.2e-7 (1 ulp).
//   log:  Cephes: x = m 2^e, m in [sqrt(1/2), sqrt(2)), degree-9 polynomial
//         in m - 1; subnormal inputs prescaled. Relative error 7.7e-8.
//   erf:  odd/even rational minimax on [-4, 4] (the form Eigen uses);
//         absolute error 3.8e-7, exactly +-1 from |x| >= 3.92.
//   tanh: odd/even rational minimax on [-7.905, 7.905]; absolute error
//         2.4e-7, x itself below |x| < 4e-4, exactly +-1 from 9.1.
//   sigmoid = 1 / (1 + exp(-x)), silu = x / (1 + exp(-x)): absolute
//         error 6e-8 for sigmoid (relative error of exp plus a division).
// NaN in gives NaN out; +-inf give the limits.
#include <immintrin.h>

#include <cstring>

#include "kernels/elementwise_vector_math.h"
#include "kernels/x86/exp8__avx2_fma.h"

namespace loom::kernels {
namespace {

constexpr int kLanes = 8;

inline __m256 Set(float v) { return _mm256_set1_ps(v); }

// exp(x) for all lanes: the kernels' one AVX2 exp (x86/exp8__avx2_fma.h).
inline __m256 Exp(__m256 x) { return Exp8(x); }

// log(x): NaN for x < 0 or NaN, -inf for 0, inf for inf.
inline __m256 Log(__m256 x) {
  const __m256 invalid = _mm256_cmp_ps(x, Set(0.0f), _CMP_NGE_UQ);  // x < 0 or NaN
  const __m256 zero = _mm256_cmp_ps(x, Set(0.0f), _CMP_EQ_OQ);
  const __m256 inf = _mm256_cmp_ps(x, Set(__builtin_inff()), _CMP_EQ_OQ);
  // Subnormals: scale by 2^23 first so the exponent field is meaningful.
  const __m256 tiny = _mm256_cmp_ps(x, Set(1.17549435e-38f), _CMP_LT_OQ);
  __m256 v = _mm256_blendv_ps(x, _mm256_mul_ps(x, Set(8388608.0f)), tiny);
  __m256 e_bias = _mm256_blendv_ps(Set(126.0f), Set(126.0f + 23.0f), tiny);
  const __m256i bits = _mm256_castps_si256(v);
  __m256 e = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(bits, 23)), e_bias);
  // m in [0.5, 1).
  __m256 m = _mm256_castsi256_ps(_mm256_or_si256(
      _mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f000000)));
  const __m256 small = _mm256_cmp_ps(m, Set(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm256_sub_ps(e, _mm256_and_ps(small, Set(1.0f)));
  // f = 2m - 1 when m < sqrt(1/2), else m - 1.
  const __m256 f = _mm256_sub_ps(_mm256_add_ps(m, _mm256_and_ps(small, m)), Set(1.0f));
  const __m256 z = _mm256_mul_ps(f, f);
  __m256 p = Set(7.0376836292e-2f);
  p = _mm256_fmadd_ps(p, f, Set(-1.1514610310e-1f));
  p = _mm256_fmadd_ps(p, f, Set(1.1676998740e-1f));
  p = _mm256_fmadd_ps(p, f, Set(-1.2420140846e-1f));
  p = _mm256_fmadd_ps(p, f, Set(1.4249322787e-1f));
  p = _mm256_fmadd_ps(p, f, Set(-1.6668057665e-1f));
  p = _mm256_fmadd_ps(p, f, Set(2.0000714765e-1f));
  p = _mm256_fmadd_ps(p, f, Set(-2.4999993993e-1f));
  p = _mm256_fmadd_ps(p, f, Set(3.3333331174e-1f));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, f), z);
  y = _mm256_fmadd_ps(e, Set(-2.12194440e-4f), y);
  y = _mm256_fnmadd_ps(z, Set(0.5f), y);
  y = _mm256_add_ps(f, y);
  y = _mm256_fmadd_ps(e, Set(0.693359375f), y);
  y = _mm256_blendv_ps(y, Set(__builtin_inff()), inf);
  y = _mm256_blendv_ps(y, Set(-__builtin_inff()), zero);
  return _mm256_blendv_ps(y, Set(__builtin_nanf("")), invalid);
}

// Rational erf on [-4, 4]; erf(4) is 1 in float.
inline __m256 Erf(__m256 x) {
  const __m256 nan_mask = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  const __m256 c = _mm256_min_ps(_mm256_max_ps(x, Set(-4.0f)), Set(4.0f));
  const __m256 x2 = _mm256_mul_ps(c, c);
  __m256 p = _mm256_fmadd_ps(x2, Set(-2.72614225801306e-10f), Set(2.77068142495902e-08f));
  p = _mm256_fmadd_ps(x2, p, Set(-2.10102402082508e-06f));
  p = _mm256_fmadd_ps(x2, p, Set(-5.69250639462346e-05f));
  p = _mm256_fmadd_ps(x2, p, Set(-7.34990630326855e-04f));
  p = _mm256_fmadd_ps(x2, p, Set(-2.95459980854025e-03f));
  p = _mm256_fmadd_ps(x2, p, Set(-1.60960333262415e-02f));
  p = _mm256_mul_ps(c, p);
  __m256 q = _mm256_fmadd_ps(x2, Set(-1.45660718464996e-05f), Set(-2.13374055278905e-04f));
  q = _mm256_fmadd_ps(x2, q, Set(-1.68282697438203e-03f));
  q = _mm256_fmadd_ps(x2, q, Set(-7.37332916720468e-03f));
  q = _mm256_fmadd_ps(x2, q, Set(-1.42647390514189e-02f));
  // From |x| >= 3.92 float erf is exactly +-1; the rational is ~2e-7 short
  // there, which Gelu would multiply by x.
  const __m256 saturated = _mm256_cmp_ps(_mm256_andnot_ps(Set(-0.0f), x), Set(3.92f), _CMP_GE_OQ);
  const __m256 one = _mm256_or_ps(Set(1.0f), _mm256_and_ps(Set(-0.0f), x));  // copysign(1, x)
  const __m256 y = _mm256_blendv_ps(_mm256_div_ps(p, q), one, saturated);
  return _mm256_blendv_ps(y, x, nan_mask);
}

// Rational tanh on [-7.905, 7.905], where it reaches 1 in float.
inline __m256 Tanh(__m256 x) {
  const __m256 nan_mask = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  const __m256 abs_x = _mm256_andnot_ps(Set(-0.0f), x);
  const __m256 tiny = _mm256_cmp_ps(abs_x, Set(0.0004f), _CMP_LT_OQ);
  const __m256 c =
      _mm256_min_ps(_mm256_max_ps(x, Set(-7.90531110763549805f)), Set(7.90531110763549805f));
  const __m256 x2 = _mm256_mul_ps(c, c);
  __m256 p = _mm256_fmadd_ps(x2, Set(-2.76076847742355e-16f), Set(2.00018790482477e-13f));
  p = _mm256_fmadd_ps(x2, p, Set(-8.60467152213735e-11f));
  p = _mm256_fmadd_ps(x2, p, Set(5.12229709037114e-08f));
  p = _mm256_fmadd_ps(x2, p, Set(1.48572235717979e-05f));
  p = _mm256_fmadd_ps(x2, p, Set(6.37261928875436e-04f));
  p = _mm256_fmadd_ps(x2, p, Set(4.89352455891786e-03f));
  p = _mm256_mul_ps(c, p);
  __m256 q = _mm256_fmadd_ps(x2, Set(1.19825839466702e-06f), Set(1.18534705686654e-04f));
  q = _mm256_fmadd_ps(x2, q, Set(2.26843463243900e-03f));
  q = _mm256_fmadd_ps(x2, q, Set(4.89352518554385e-03f));
  __m256 y = _mm256_blendv_ps(_mm256_div_ps(p, q), x, tiny);
  // From |x| >= 9.1 float tanh is exactly +-1 (the rational is 1 ulp short).
  const __m256 saturated = _mm256_cmp_ps(abs_x, Set(9.1f), _CMP_GE_OQ);
  y = _mm256_blendv_ps(y, _mm256_or_ps(Set(1.0f), _mm256_and_ps(Set(-0.0f), x)), saturated);
  return _mm256_blendv_ps(y, x, nan_mask);
}

inline __m256 Clamp01(__m256 y) {
  // max/min return the second operand for NaN, so NaN in y stays NaN.
  return _mm256_min_ps(Set(1.0f), _mm256_max_ps(Set(0.0f), y));
}

struct Params {
  __m256 alpha, beta;
};

template <ActivationKind kKind, bool kGeluTanh = false>
inline __m256 Apply(__m256 x, const Params& k) {
  if constexpr (kKind == ActivationKind::kRelu) {
    return _mm256_blendv_ps(x, Set(0.0f), _mm256_cmp_ps(x, Set(0.0f), _CMP_LT_OQ));
  } else if constexpr (kKind == ActivationKind::kLeakyRelu) {
    return _mm256_blendv_ps(x, _mm256_mul_ps(x, k.alpha), _mm256_cmp_ps(x, Set(0.0f), _CMP_LT_OQ));
  } else if constexpr (kKind == ActivationKind::kClip) {
    const __m256 low = _mm256_blendv_ps(x, k.alpha, _mm256_cmp_ps(x, k.alpha, _CMP_LT_OQ));
    return _mm256_blendv_ps(low, k.beta, _mm256_cmp_ps(low, k.beta, _CMP_GT_OQ));
  } else if constexpr (kKind == ActivationKind::kSigmoid) {
    return _mm256_div_ps(Set(1.0f), _mm256_add_ps(Set(1.0f), Exp(_mm256_sub_ps(Set(0.0f), x))));
  } else if constexpr (kKind == ActivationKind::kTanh) {
    return Tanh(x);
  } else if constexpr (kKind == ActivationKind::kHardSigmoid) {
    return Clamp01(_mm256_fmadd_ps(k.alpha, x, k.beta));
  } else if constexpr (kKind == ActivationKind::kHardSwish) {
    return _mm256_mul_ps(x, Clamp01(_mm256_fmadd_ps(Set(1.0f / 6.0f), x, Set(0.5f))));
  } else if constexpr (kKind == ActivationKind::kSilu) {
    return _mm256_div_ps(x, _mm256_add_ps(Set(1.0f), Exp(_mm256_sub_ps(Set(0.0f), x))));
  } else if constexpr (kKind == ActivationKind::kGelu && kGeluTanh) {
    const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    const __m256 inner =
        _mm256_mul_ps(Set(0.797884560802865f), _mm256_fmadd_ps(Set(0.044715f), x3, x));
    return _mm256_mul_ps(_mm256_mul_ps(Set(0.5f), x), _mm256_add_ps(Set(1.0f), Tanh(inner)));
  } else if constexpr (kKind == ActivationKind::kGelu) {
    const __m256 e = Erf(_mm256_mul_ps(x, Set(0.707106781186547524f)));
    return _mm256_mul_ps(_mm256_mul_ps(Set(0.5f), x), _mm256_add_ps(Set(1.0f), e));
  } else {
    return x;
  }
}

// y[i] = f(x[i]); the tail is copied into a padded vector and back.
template <typename Fn>
inline void Map(const float* x, float* y, int64_t n, Fn fn) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) _mm256_storeu_ps(y + i, fn(_mm256_loadu_ps(x + i)));
  if (i < n) {
    alignas(32) float tail[kLanes] = {};
    const size_t bytes = static_cast<size_t>(n - i) * sizeof(float);
    std::memcpy(tail, x + i, bytes);
    _mm256_store_ps(tail, fn(_mm256_load_ps(tail)));
    std::memcpy(y + i, tail, bytes);
  }
}

template <ActivationKind kKind, bool kGeluTanh = false>
void Run(const Params& k, const float* x, float* y, int64_t n) {
  Map(x, y, n, [&k](__m256 v) { return Apply<kKind, kGeluTanh>(v, k); });
}

}  // namespace

void f32_activation__avx2_fma(const Activation& activation, const float* x, float* y, int64_t n) {
  const Params k{Set(activation.alpha), Set(activation.beta)};
  switch (activation.kind) {
    case ActivationKind::kIdentity:
      if (x != y) std::memcpy(y, x, static_cast<size_t>(n) * sizeof(float));
      return;
    case ActivationKind::kRelu:
      return Run<ActivationKind::kRelu>(k, x, y, n);
    case ActivationKind::kLeakyRelu:
      return Run<ActivationKind::kLeakyRelu>(k, x, y, n);
    case ActivationKind::kClip:
      return Run<ActivationKind::kClip>(k, x, y, n);
    case ActivationKind::kSigmoid:
      return Run<ActivationKind::kSigmoid>(k, x, y, n);
    case ActivationKind::kTanh:
      return Run<ActivationKind::kTanh>(k, x, y, n);
    case ActivationKind::kHardSigmoid:
      return Run<ActivationKind::kHardSigmoid>(k, x, y, n);
    case ActivationKind::kHardSwish:
      return Run<ActivationKind::kHardSwish>(k, x, y, n);
    case ActivationKind::kSilu:
      return Run<ActivationKind::kSilu>(k, x, y, n);
    case ActivationKind::kGelu:
      return activation.gelu_tanh ? Run<ActivationKind::kGelu, true>(k, x, y, n)
                                  : Run<ActivationKind::kGelu, false>(k, x, y, n);
  }
}

void f32_exp__avx2_fma(const float* x, float* y, int64_t n) {
  Map(x, y, n, [](__m256 v) { return Exp(v); });
}
void f32_log__avx2_fma(const float* x, float* y, int64_t n) {
  Map(x, y, n, [](__m256 v) { return Log(v); });
}
void f32_erf__avx2_fma(const float* x, float* y, int64_t n) {
  Map(x, y, n, [](__m256 v) { return Erf(v); });
}

void f32_floor__avx2_fma(const float* x, float* y, int64_t n) {
  Map(x, y, n,
      [](__m256 v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); });
}
void f32_ceil__avx2_fma(const float* x, float* y, int64_t n) {
  Map(x, y, n,
      [](__m256 v) { return _mm256_round_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); });
}

}  // namespace loom::kernels
