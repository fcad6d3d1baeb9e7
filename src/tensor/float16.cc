// float32 <-> IEEE binary16 by bit manipulation (no F16C instructions, so it
// runs everywhere; converting whole tensors fast is a kernel's job).
#include "loom/float16.h"

#include <bit>

namespace loom {
namespace {

constexpr uint32_t kF32Infinity = 0x7f800000;
constexpr uint32_t kF32AbsMask = 0x7fffffff;
// 65520 = the midpoint between float16's largest finite (65504) and the next
// step; it and everything above rounds to infinity.
constexpr uint32_t kF32HalfOverflow = 0x477ff000;
// 2^-14, float16's smallest normal.
constexpr uint32_t kF32HalfMinNormal = 0x38800000;

}  // namespace

Float16::Float16(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000);
  uint32_t abs = f & kF32AbsMask;
  if (abs > kF32Infinity) {
    // NaN: keep the top payload bits and make sure it stays a (quiet) NaN.
    bits = static_cast<uint16_t>(sign | 0x7e00 | ((abs >> 13) & 0x3ff));
  } else if (abs >= kF32HalfOverflow) {
    bits = sign | 0x7c00;
  } else if (abs < kF32HalfMinNormal) {
    // Subnormal or zero: adding 0.5f makes the FPU round |value| to a
    // multiple of 2^-24 (float16's subnormal step) with ties to even; the
    // low mantissa bits of the sum are then the float16 mantissa.
    const float rounded = std::bit_cast<float>(abs) + 0.5f;
    bits = static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(rounded) - 0x3f000000));
  } else {
    // Normal: rebias the exponent (127 -> 15) and round the 13 dropped
    // mantissa bits to nearest, ties to even (0xfff + the kept lowest bit).
    const uint32_t odd = (abs >> 13) & 1;
    abs += (static_cast<uint32_t>(15 - 127) << 23) + 0xfff + odd;
    bits = static_cast<uint16_t>(sign | (abs >> 13));
  }
}

Float16::operator float() const {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    // Zero or subnormal: mantissa x 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  if (exponent == 0x1f) return std::bit_cast<float>(sign | kF32Infinity | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

}  // namespace loom
