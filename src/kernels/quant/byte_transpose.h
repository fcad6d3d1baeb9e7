// A 16 x 16 byte transpose in SSE2 registers, for the quantized convolution's
// layout changes (channel rows <-> pixel rows). Internal linkage on purpose:
// translation units compiled for different ISAs each get their own copy, so
// the linker can never hand a baseline caller an AVX-512 encoding.
#pragma once

#include <emmintrin.h>

namespace loom::kernels::bytes {

// rows[i] holds bytes (i, 0..15); afterwards rows[j] holds bytes (0..15, j).
static inline void Transpose16x16(__m128i rows[16]) {
  __m128i a[16], b[16];
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm_unpacklo_epi8(rows[2 * i], rows[2 * i + 1]);
    a[i + 8] = _mm_unpackhi_epi8(rows[2 * i], rows[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 4; ++i) {
      b[8 * h + i] = _mm_unpacklo_epi16(a[8 * h + 2 * i], a[8 * h + 2 * i + 1]);
      b[8 * h + i + 4] = _mm_unpackhi_epi16(a[8 * h + 2 * i], a[8 * h + 2 * i + 1]);
    }
  }
  for (int q = 0; q < 4; ++q) {
    for (int i = 0; i < 2; ++i) {
      a[4 * q + i] = _mm_unpacklo_epi32(b[4 * q + 2 * i], b[4 * q + 2 * i + 1]);
      a[4 * q + i + 2] = _mm_unpackhi_epi32(b[4 * q + 2 * i], b[4 * q + 2 * i + 1]);
    }
  }
  for (int o = 0; o < 8; ++o) {
    rows[2 * o] = _mm_unpacklo_epi64(a[2 * o], a[2 * o + 1]);
    rows[2 * o + 1] = _mm_unpackhi_epi64(a[2 * o], a[2 * o + 1]);
  }
}

}  // namespace loom::kernels::bytes
