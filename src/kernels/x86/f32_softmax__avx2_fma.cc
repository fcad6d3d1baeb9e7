// Softmax exp loops, AVX2 + FMA: exp 8 floats at a time with the Cephes
// expf scheme (range reduction by ln 2 in two parts, degree-5 polynomial,
// 2^n via the exponent bits). Within 1.23 ulp of exp (computed in double)
// over 118,877 points of [-87, 0], the range softmax feeds it (x - max <=
// 0); softmax_test.cc measures it.
//
// Special values: -inf and anything below -87.3 give exactly 0 (so a
// masked-out logit contributes nothing); NaN stays NaN. Arguments above
// 88.3 saturate (softmax never passes any above 0).
#include <immintrin.h>

#include <cmath>

#include "kernels/softmax_primitives.h"

namespace loom::kernels {
namespace {

inline __m256 Exp8(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.33654f);  // below this expf underflows
  const __m256 hi = _mm256_set1_ps(88.3762626647949f);
  const __m256 underflow = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);  // false for NaN
  // max/min return their second operand when either is NaN: x goes second
  // so a NaN survives the clamp.
  x = _mm256_min_ps(hi, _mm256_max_ps(lo, x));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // r = x - n ln2, ln2 split so n * 0.693359375 is exact.
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n: n + 127 in the exponent field; n is in [-126, 127] after the clamp.
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  const __m256 result = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
  return _mm256_andnot_ps(underflow, result);
}

float ExpShiftSum(const float* x, float shift, float* y, int64_t n) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 e0 = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
    const __m256 e1 = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), s));
    _mm256_storeu_ps(y + i, e0);
    _mm256_storeu_ps(y + i + 8, e1);
    acc0 = _mm256_add_ps(acc0, e0);
    acc1 = _mm256_add_ps(acc1, e1);
  }
  if (i + 8 <= n) {
    const __m256 e0 = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
    _mm256_storeu_ps(y + i, e0);
    acc0 = _mm256_add_ps(acc0, e0);
    i += 8;
  }
  if (i < n) {
    // The last 1-7 elements through a zero-padded buffer (padding
    // contributes exp(0 - shift) to lanes we then mask out).
    alignas(32) float in[8] = {}, out[8];
    const int64_t rest = n - i;
    for (int64_t j = 0; j < rest; ++j) in[j] = x[i + j];
    _mm256_store_ps(out, Exp8(_mm256_sub_ps(_mm256_load_ps(in), s)));
    for (int64_t j = rest; j < 8; ++j) out[j] = 0.0f;
    for (int64_t j = 0; j < rest; ++j) y[i + j] = out[j];
    acc1 = _mm256_add_ps(acc1, _mm256_load_ps(out));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(acc0, acc1));
  return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
         ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
}

void ExpShift(const float* x, const float* shift, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i,
                     Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(shift + i))));
  }
  if (i < n) {
    alignas(32) float in[8] = {}, out[8];
    const int64_t rest = n - i;
    for (int64_t j = 0; j < rest; ++j) in[j] = x[i + j] - shift[i + j];
    _mm256_store_ps(out, Exp8(_mm256_load_ps(in)));
    for (int64_t j = 0; j < rest; ++j) y[i + j] = out[j];
  }
}

constexpr SoftmaxPrimitives<float> kAvx2 = {ExpShiftSum, ExpShift};

}  // namespace

const SoftmaxPrimitives<float>& F32SoftmaxPrimitives__avx2_fma() { return kAvx2; }

}  // namespace loom::kernels
