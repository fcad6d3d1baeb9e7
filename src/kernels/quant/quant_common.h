// Helpers shared by the quantized ops' kernels (and their references):
// reading scales and zero points of any allowed dtype, integer ranges,
// rounding with saturation, and the per-tensor / per-axis / blocked layout
// of QuantizeLinear's and DequantizeLinear's parameters.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/isa_variant.h"
#include "kernels/op_kernel.h"

namespace loom::kernels::quant {

// The values of a float32, float16, bfloat16 (or, for QuantizeLinear-23's
// scale, int32) tensor as float32.
std::vector<float> ReadFloats(const Tensor& t);

// The values of an int8, uint8, int16, uint16 or int32 tensor as int32.
std::vector<int32_t> ReadInts(const Tensor& t);

// v rounded to `dtype` (float16, bfloat16: to nearest even) and back to
// float32; v itself for any other dtype.
float RoundTo(DType dtype, float v);

// The range of an int8, uint8, int16 or uint16 output.
struct IntRange {
  int32_t min = 0, max = 0;
};
IntRange RangeOf(DType dtype);

// round_half_even(v) + zero_point, saturated to `range` (NaN gives the
// zero point clamped into range).
inline int32_t RoundSaturate(double v, int32_t zero_point, IntRange range) {
  double r = std::nearbyint(v);  // the default rounding mode: half to even
  if (std::isnan(r)) r = 0;
  r += zero_point;
  if (r < range.min) return range.min;
  if (r > range.max) return range.max;
  return static_cast<int32_t>(r);
}

// The same for a float32 quotient, in float32 arithmetic (vectorizes):
// clamped to +-2^22 first (beyond every range once the zero point is
// added), adding and subtracting 1.5 * 2^23 rounds to an integer half to
// even in the default rounding mode, exactly as nearbyint does.
inline int32_t RoundSaturateFloat(float q, int32_t zero_point, IntRange range) {
  constexpr float kLimit = 4194304.0f;   // 2^22
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  q = q != q ? 0.0f : q;                 // NaN
  q = q < -kLimit ? -kLimit : q > kLimit ? kLimit : q;
  float r = (q + kMagic) - kMagic;
  r += static_cast<float>(zero_point);  // exact: |r| + 65535 < 2^24
  r = r < static_cast<float>(range.min) ? static_cast<float>(range.min) : r;
  r = r > static_cast<float>(range.max) ? static_cast<float>(range.max) : r;
  return static_cast<int32_t>(r);
}

// ys[j] = RoundSaturateFloat(xs[j] / scale, zero, range) for j < count,
// 16 elements at a time with SSE2 (baseline x86-64) for 8-bit and int16
// outputs: the same operations in the same order, so the same values. The
// scalar loop compiles to a branch per clamp (GCC does not vectorize it):
// 2.7 ns an element, 28 % of a statically quantized ResNet-18's time.
template <typename Y>
inline void QuantizeSpan(const float* xs, Y* ys, int64_t count, float scale, int32_t zero,
                         IntRange range) {
  int64_t j = 0;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<Y, uint8_t> || std::is_same_v<Y, int8_t> ||
                std::is_same_v<Y, int16_t>) {
    const __m128 s = _mm_set1_ps(scale);
    const __m128 limit = _mm_set1_ps(4194304.0f), magic = _mm_set1_ps(12582912.0f);
    const __m128 z = _mm_set1_ps(static_cast<float>(zero));
    const __m128 lo = _mm_set1_ps(static_cast<float>(range.min));
    const __m128 hi = _mm_set1_ps(static_cast<float>(range.max));
    auto four = [&](const float* x) {
      __m128 q = _mm_div_ps(_mm_loadu_ps(x), s);
      q = _mm_and_ps(q, _mm_cmpord_ps(q, q));  // NaN -> 0
      q = _mm_min_ps(_mm_max_ps(q, _mm_sub_ps(_mm_setzero_ps(), limit)), limit);
      q = _mm_add_ps(_mm_sub_ps(_mm_add_ps(q, magic), magic), z);
      q = _mm_min_ps(_mm_max_ps(q, lo), hi);
      return _mm_cvttps_epi32(q);
    };
    for (; j + 16 <= count; j += 16) {
      const __m128i a = _mm_packs_epi32(four(xs + j), four(xs + j + 4));
      const __m128i b = _mm_packs_epi32(four(xs + j + 8), four(xs + j + 12));
      if constexpr (std::is_same_v<Y, uint8_t>) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(ys + j), _mm_packus_epi16(a, b));
      } else if constexpr (std::is_same_v<Y, int8_t>) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(ys + j), _mm_packs_epi16(a, b));
      } else {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(ys + j), a);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(ys + j + 8), b);
      }
    }
  }
#endif
  for (; j < count; ++j) {
    ys[j] = static_cast<Y>(RoundSaturateFloat(xs[j] / scale, zero, range));
  }
}

// AVX-512 (quant/quant_spans__avx512.cc; call only where
// Avx512BwSupported(), whose byte masks they use): QuantizeSpan for int8/uint8 ys, and the
// dequantized sums of LoomQLinearAdd (sums[i] = float(a[i] - a_zero) * a_scale + float(b[i] -
// b_zero) * b_scale, each product and the sum rounded once, then `sum < 0 ? 0 : sum` with relu); a
// and b int8 (signed) or uint8.
bool Avx512BwSupported();
// Whether the AVX-512 spans serve `isa` (isa_variant.h's rule; they also need
// Avx512BwSupported()), and the levels with spans of their own.
bool UseAvx512Spans(Isa isa);
IsaMask QuantSpanIsaLevels();
void QuantizeSpanAvx512(const float* xs, void* ys, int64_t count, float scale, int32_t zero,
                        IntRange range);
void DequantizeAddSpanAvx512(const void* a, bool a_signed, const void* b, bool b_signed,
                             int64_t count, float a_scale, int32_t a_zero, float b_scale,
                             int32_t b_zero, bool relu, float* sums);

// Stores int32 values (already in range) into an int8/uint8/int16/uint16/
// int32 tensor's element i.
void StoreInt(Tensor& t, int64_t i, int32_t v);

// How a scale (and its zero point) maps to x's elements, x seen as
// [outer, n, inner] around `axis`: parameter index of element (o, a, i) is
//   per tensor: 0;  per axis: a;  blocked: (o * blocks + a / block) * inner + i.
struct QuantLayout {
  enum Mode { kPerTensor, kPerAxis, kBlocked } mode = kPerTensor;
  int64_t outer = 1, n = 1, inner = 1;
  int64_t block = 0, blocks = 0;

  int64_t Index(int64_t o, int64_t a, int64_t i) const {
    switch (mode) {
      case kPerTensor:
        return 0;
      case kPerAxis:
        return a;
      case kBlocked:
        return (o * blocks + a / block) * inner + i;
    }
    return 0;
  }
};

// Resolves the layout from x's and the scale's shapes; checks the zero
// point (if given) has the scale's shape. `block_size` 0: per tensor or
// per axis. Throws InvalidArgumentError("<op>: ...") naming `scale_name`.
QuantLayout ResolveQuantLayout(std::string_view op, const Shape& x, const Tensor& scale,
                               const Tensor* zero_point, std::string_view scale_name, int64_t axis,
                               int64_t block_size);

}  // namespace loom::kernels::quant
