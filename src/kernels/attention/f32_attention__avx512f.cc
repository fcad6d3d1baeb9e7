// Attention micro-kernels (attention_micro_kernel_impl.h) with AVX-512F:
// 16 floats a vector, up to 24 accumulators (4 x 6 tiles), leaving room in
// the 32 zmm registers for 4 loaded vectors and a broadcast.
#include <immintrin.h>

#include "kernels/attention/attention_micro_kernel_impl.h"

namespace loom::kernels {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kAccumulators = 24;
  static constexpr int kMaxColumnVectors = 4;
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Broadcast(float x) { return _mm512_set1_ps(x); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Zero() { return _mm512_setzero_ps(); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  // The masked forms: GCC 12 warns that the plain ones read an undefined vector.
  static V Max(V a, V b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  static V Min(V a, V b) { return _mm512_maskz_min_ps(0xFFFF, a, b); }
  // Lane reductions by halving (256-bit halves, 128-bit quarters, then
  // within 128 bits): a fixed order. Masked forms, as for Max.
  template <class Op>
  static float Reduce(V v, Op op) {
    v = op(v, _mm512_maskz_shuffle_f32x4(0xFFFF, v, v, 0x4E));
    v = op(v, _mm512_maskz_shuffle_f32x4(0xFFFF, v, v, 0xB1));
    v = op(v, _mm512_maskz_shuffle_ps(0xFFFF, v, v, 0x4E));
    v = op(v, _mm512_maskz_shuffle_ps(0xFFFF, v, v, 0xB1));
    return _mm512_cvtss_f32(v);
  }
  static float ReduceAdd(V v) { return Reduce(v, Add); }
  static float ReduceMax(V v) { return Reduce(v, Max); }
  // exp by Cephes' expf scheme: x = n ln2 + r with |r| <= ln2 / 2 (ln2 in
  // two parts so n * the first is exact), a degree-5 polynomial for e^r,
  // 2^n through the exponent bits. Below -87.3 (expf's underflow) gives 0.
  static V Exp(V x) {
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.33654f), _CMP_LT_OQ);
    // max/min return the second operand when either is NaN: x goes second
    // so a NaN survives the clamp.
    x = Min(_mm512_set1_ps(88.3762626647949f), Max(_mm512_set1_ps(-87.33654f), x));
    // Masked forms throughout, as for Max.
    const V n =
        _mm512_maskz_roundscale_ps(0xFFFF, _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    V r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    V p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    const __m512i e = _mm512_maskz_slli_epi32(
        0xFFFF, _mm512_add_epi32(_mm512_maskz_cvtps_epi32(0xFFFF, n), _mm512_set1_epi32(127)), 23);
    return _mm512_maskz_mul_ps(static_cast<__mmask16>(~underflow), p, _mm512_castsi512_ps(e));
  }
};

}  // namespace

const AttentionMicroKernels& AttentionMicroKernelsAvx512() {
  static constexpr AttentionMicroKernels kKernels =
      attention_detail::MakeTable<Avx512>(Isa::kAvx512f);
  return kKernels;
}

}  // namespace loom::kernels
