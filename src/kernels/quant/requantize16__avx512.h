// The quantized convolution tiles' epilogue (u8s8_conv_*): 16 int32 sums
// (bias already added) to 16 int8/uint8 bytes as RoundSaturate does
// (quant/quant_common.h): the float64 product with the multiplier, round
// half to even, the zero point, saturation to [lo, hi]. Include only from
// translation units compiled with AVX-512F; `static` so that each keeps its
// own copy (see kernels/quant/byte_transpose.h).
#pragma once

#include <immintrin.h>

namespace loom::kernels::x86 {

// mult[0] multiplies lanes 0-7, mult[1] lanes 8-15.
static inline __m128i Requantize16(__m512i sums, const __m512d mult[2], __m512d zero_point,
                                   __m512d lo, __m512d hi) {
  const __m512d half[2] = {_mm512_cvtepi32_pd(_mm512_castsi512_si256(sums)),
                           _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(sums, 1))};
  __m256i ints[2];
  for (int h = 0; h < 2; ++h) {
    __m512d q = _mm512_roundscale_pd(_mm512_mul_pd(half[h], mult[h]),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(q, zero_point), lo), hi);
    ints[h] = _mm512_cvtpd_epi32(q);
  }
  return _mm512_cvtepi32_epi8(_mm512_inserti64x4(_mm512_castsi256_si512(ints[0]), ints[1], 1));
}

}  // namespace loom::kernels::x86
