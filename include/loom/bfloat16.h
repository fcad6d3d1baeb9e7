// bfloat16 ("brain float"): the top 16 bits of an IEEE float32 (sign, the
// same 8-bit exponent, 7 mantissa bits). Loom stores bfloat16 tensors and
// converts to and from float32; it does not compute in bfloat16.
//
// The conversions are inline: kernels convert whole tensors element by
// element, and a call per element would cost more than the conversion.
#pragma once

#include <bit>
#include <cstdint>

namespace loom {

struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  // Round to nearest, ties to even. Values past the largest finite bfloat16
  // (by half a step or more) become ±infinity, as in float32; subnormals
  // round like normals (the exponent field is float32's); NaN stays NaN
  // (quiet, sign and top payload bits kept).
  explicit BFloat16(float value) {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) {
      // Truncating could clear every payload bit and leave infinity;
      // setting the quiet bit keeps it a NaN.
      bits = static_cast<uint16_t>((f >> 16) | 0x0040u);
      return;
    }
    // Adding 0x7fff (plus 1 when the kept lowest bit is odd) carries into
    // the kept bits exactly when the dropped half is above one half, or
    // equal to it with an odd kept part. A carry out of the mantissa bumps
    // the exponent, which is the right rounding too (up to infinity).
    const uint32_t odd = (f >> 16) & 1u;
    bits = static_cast<uint16_t>((f + 0x7fffu + odd) >> 16);
  }
  // Exact: every bfloat16 value is a float32 value.
  explicit operator float() const {
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
  }

  static BFloat16 from_bits(uint16_t bits) {
    BFloat16 b;
    b.bits = bits;
    return b;
  }
  friend bool operator==(BFloat16 a, BFloat16 b) { return a.bits == b.bits; }
};

}  // namespace loom
