// Helpers shared by the quantized ops' kernels (and their references):
// reading scales and zero points of any allowed dtype, integer ranges,
// rounding with saturation, and the per-tensor / per-axis / blocked layout
// of QuantizeLinear's and DequantizeLinear's parameters.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

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
