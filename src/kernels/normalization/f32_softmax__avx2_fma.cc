// Softmax exp loops, AVX2 + FMA, on Exp8 (x86/exp8__avx2_fma.h).
#include <immintrin.h>

#include <cmath>

#include "kernels/normalization/softmax_primitives.h"
#include "kernels/x86/exp8__avx2_fma.h"

namespace loom::kernels {
namespace {

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
