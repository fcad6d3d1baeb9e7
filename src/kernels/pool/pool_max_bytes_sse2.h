// The values-only interior of an int8/uint8 MaxPool row (see
// MaxRowInteriorValues in pool_row_kernels.h) with SSE2 intrinsics, for
// stride 1 or 2 and dilation 1 on the last axis. GCC leaves the generic
// loop's stride-2 byte gather nearly scalar and stores y after every tap;
// here 16 output columns keep their maximum in one register across the
// whole window. Values-only MaxPool on uint8 [1, 64, 112, 112], 3x3, one
// thread, this 2-core Xeon VM (with RowWindows' memo and the border loop
// of the same change): stride 2 0.26 -> 0.10 ms, stride 1 0.71 -> 0.36 ms.
//
// Stride 2 reads 32 input bytes per block and splits them into even and
// odd bytes: the even bytes of a load at column offset o are the tap at o
// for the 16 outputs, the odd bytes the tap at o + 1, so one load serves a
// pair of taps. The tap rows are maxed first (vertically, before the
// split), which max's associativity allows: integers have no NaN and no
// signed zero, so any order gives the reference's value.
//
// Internal linkage, like pool_row_kernels.h: each ISA's translation unit
// keeps its own copy. Without SSE2 (not an x86-64 build) it does nothing
// and the caller runs the generic loop.
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/pool/pool_common.h"

namespace loom::kernels {
namespace {

#if defined(__SSE2__)

// SSE2 has only an unsigned byte max: int8 is flipped to "biased" order
// (x ^ 0x80 maps -128 .. 127 monotonically onto 0 .. 255) on load and back
// on store. In biased order 0 is the lowest value, the identity of max.
template <typename T>
inline __m128i LoadBiased(const T* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (std::is_same_v<T, int8_t>) return _mm_xor_si128(v, _mm_set1_epi8(-128));
  return v;
}

template <typename T>
inline void StoreUnbiased(T* p, __m128i v) {
  if constexpr (std::is_same_v<T, int8_t>) v = _mm_xor_si128(v, _mm_set1_epi8(-128));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// The last input column read by a block, relative to its first window's
// first column. Stride 1: 16 bytes at each tap 0 .. k - 1. Stride 2: 32
// bytes at offsets 0, 2, .., k - 2 (pairs of taps) and, for odd k >= 3, at
// k - 2 once more for the last tap as an odd byte, so that the last byte
// read is the last one used; k == 1 reads one byte past its last use.
inline int64_t LastColumnRead(int64_t k, int kStride) {
  if (kStride == 1) return 15 + (k - 1);
  return k == 1 ? 31 : 29 + k;
}

// Outputs j .. j + 15 of the interior (column w.lo + j), stride 1.
template <typename T>
inline void MaxBlockStride1(const RowWindows& w, const T* plane, int64_t j, T* y) {
  const int64_t start = (w.lo + j) - w.pb;
  __m128i acc = _mm_setzero_si128();
  for (int64_t r = 0; r < w.num_taps; ++r) {
    const T* row = plane + w.taps[r].offset + start;
    for (int64_t t = 0; t < w.k; ++t) acc = _mm_max_epu8(acc, LoadBiased(row + t));
  }
  StoreUnbiased(y + j, acc);
}

// Outputs j .. j + 15 of the interior, stride 2.
template <typename T>
inline void MaxBlockStride2(const RowWindows& w, const T* plane, int64_t j, T* y) {
  const int64_t start = (w.lo + j) * 2 - w.pb;
  const __m128i low_bytes = _mm_set1_epi16(0x00ff);
  // packus saturates int16 to uint8, which leaves 0 .. 255 unchanged.
  auto evens = [&](__m128i a, __m128i b) {
    return _mm_packus_epi16(_mm_and_si128(a, low_bytes), _mm_and_si128(b, low_bytes));
  };
  auto odds = [](__m128i a, __m128i b) {
    return _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
  };
  // Max over the tap rows of the 32 bytes at column offset o.
  auto column_max = [&](int64_t o, __m128i* a, __m128i* b) {
    const T* row = plane + w.taps[0].offset + start + o;
    *a = LoadBiased(row);
    *b = LoadBiased(row + 16);
    for (int64_t r = 1; r < w.num_taps; ++r) {
      row = plane + w.taps[r].offset + start + o;
      *a = _mm_max_epu8(*a, LoadBiased(row));
      *b = _mm_max_epu8(*b, LoadBiased(row + 16));
    }
  };
  __m128i acc = _mm_setzero_si128();
  __m128i a, b;
  int64_t t = 0;
  for (; t + 1 < w.k; t += 2) {  // taps t and t + 1
    column_max(t, &a, &b);
    acc = _mm_max_epu8(acc, _mm_max_epu8(evens(a, b), odds(a, b)));
  }
  if (t < w.k) {  // the last tap of an odd k
    if (t == 0) {
      column_max(0, &a, &b);
      acc = _mm_max_epu8(acc, evens(a, b));
    } else {
      column_max(t - 1, &a, &b);
      acc = _mm_max_epu8(acc, odds(a, b));
    }
  }
  StoreUnbiased(y + j, acc);
}

// y[j] for j in [0, w.hi - w.lo): the maximum of output column w.lo + j's
// window, taps in w.taps (at least one) and w.k columns at stride kStride,
// dilation 1. Returns false, having written nothing, where it does not
// apply (other types, strides or dilations; fewer than 16 outputs).
// Vector loads stay within the input row: a block runs only where its
// last column read is inside the row, and the columns no block covers are
// done one at a time.
template <typename T, int kStride>
bool MaxRowInteriorBytes(const RowWindows& w, const T* plane, T* __restrict y) {
  if constexpr (sizeof(T) != 1 || !std::is_integral_v<T> || (kStride != 1 && kStride != 2)) {
    return false;
  } else {
    const int64_t n = w.hi - w.lo;
    if (w.d != 1 || n < 16) return false;
    const int64_t last_read = LastColumnRead(w.k, kStride);
    auto fits = [&](int64_t j) { return (w.lo + j) * kStride - w.pb + last_read < w.in_w; };
    auto block = [&](int64_t j) {
      if constexpr (kStride == 1) {
        MaxBlockStride1(w, plane, j, y);
      } else {
        MaxBlockStride2(w, plane, j, y);
      }
    };
    int64_t j = 0;
    for (; j + 16 <= n && fits(j); j += 16) block(j);
    if (j == n) return true;
    // The rest: one more block ending at n, overlapping outputs already
    // written (with the same values), if its loads fit; else column by column.
    if (fits(n - 16)) {
      block(n - 16);
      return true;
    }
    for (; j < n; ++j) {
      const int64_t start = (w.lo + j) * kStride - w.pb;
      T best = plane[w.taps[0].offset + start];
      for (int64_t r = 0; r < w.num_taps; ++r) {
        const T* row = plane + w.taps[r].offset + start;
        for (int64_t t = 0; t < w.k; ++t) best = row[t] > best ? row[t] : best;
      }
      y[j] = best;
    }
    return true;
  }
}

#else  // no SSE2: the generic loop does it all.

template <typename T, int kStride>
bool MaxRowInteriorBytes(const RowWindows&, const T*, T*) {
  return false;
}

#endif

}  // namespace
}  // namespace loom::kernels
