// AVX-512 versions of two quantized spans (quant/quant_common.h): 16 lanes
// doing exactly the scalar operations, in the same order. Compiled with
// -ffp-contract=off: a product followed by a sum must round twice, as the
// float path it stands for does, never fuse into one FMA.
#include <immintrin.h>

#include "kernels/quant/quant_common.h"

// GCC 12 warns inside its own AVX-512 conversion intrinsics, whose "undefined"
// pass-through operand is an uninitialized variable by design.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace loom::kernels::quant {
namespace {

inline __m512i LoadWidened(const void* p, bool is_signed) {
  const __m128i bytes = _mm_loadu_si128(static_cast<const __m128i*>(p));
  return is_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

inline __m512i LoadWidenedTail(const void* p, bool is_signed, __mmask16 mask) {
  const __m128i bytes = _mm_maskz_loadu_epi8(mask, p);
  return is_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

// RoundSaturateFloat(q, zero, range) per lane (NaN -> 0, clamp to 2^22, the
// 1.5 * 2^23 rounding, the zero point, the range), as int32.
inline __m512i RoundSaturate16(__m512 q, __m512 zero, __m512 lo, __m512 hi) {
  const __m512 limit = _mm512_set1_ps(4194304.0f), magic = _mm512_set1_ps(12582912.0f);
  q = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(q, q, _CMP_ORD_Q), q);
  q = _mm512_min_ps(_mm512_max_ps(q, _mm512_sub_ps(_mm512_setzero_ps(), limit)), limit);
  q = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(q, magic), magic), zero);
  q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
  return _mm512_cvttps_epi32(q);
}

}  // namespace

void QuantizeSpanAvx512(const float* xs, void* ys, int64_t count, float scale, int32_t zero,
                        IntRange range) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512 z = _mm512_set1_ps(static_cast<float>(zero));
  const __m512 lo = _mm512_set1_ps(static_cast<float>(range.min));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(range.max));
  auto* out = static_cast<uint8_t*>(ys);
  for (int64_t j = 0; j < count; j += 16) {
    const __mmask16 mask =
        count - j >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (count - j)) - 1);
    const __m512 x = _mm512_maskz_loadu_ps(mask, xs + j);
    const __m512i v = RoundSaturate16(_mm512_div_ps(x, s), z, lo, hi);
    _mm_mask_storeu_epi8(out + j, mask, _mm512_cvtepi32_epi8(v));
  }
}

void DequantizeAddSpanAvx512(const void* a, bool a_signed, const void* b, bool b_signed,
                             int64_t count, float a_scale, int32_t a_zero, float b_scale,
                             int32_t b_zero, bool relu, float* sums) {
  const __m512i az = _mm512_set1_epi32(a_zero), bz = _mm512_set1_epi32(b_zero);
  const __m512 as = _mm512_set1_ps(a_scale), bs = _mm512_set1_ps(b_scale);
  const __m512 zero = _mm512_setzero_ps();
  const auto* ap = static_cast<const uint8_t*>(a);
  const auto* bp = static_cast<const uint8_t*>(b);
  for (int64_t j = 0; j < count; j += 16) {
    const bool full = count - j >= 16;
    const __mmask16 mask =
        full ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (count - j)) - 1);
    const __m512i ai =
        full ? LoadWidened(ap + j, a_signed) : LoadWidenedTail(ap + j, a_signed, mask);
    const __m512i bi =
        full ? LoadWidened(bp + j, b_signed) : LoadWidenedTail(bp + j, b_signed, mask);
    const __m512 fa = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(ai, az)), as);
    const __m512 fb = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(bi, bz)), bs);
    __m512 sum = _mm512_add_ps(fa, fb);
    if (relu) sum = _mm512_mask_mov_ps(sum, _mm512_cmp_ps_mask(sum, zero, _CMP_LT_OQ), zero);
    _mm512_mask_storeu_ps(sums + j, mask, sum);
  }
}

}  // namespace loom::kernels::quant
