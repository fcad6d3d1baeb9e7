// IEEE 754 binary16 storage type. Loom stores float16 tensors and converts
// to and from float32; it does not compute in float16.
#pragma once

#include <cstdint>

namespace loom {

struct Float16 {
  uint16_t bits = 0;

  Float16() = default;
  // Round to nearest, ties to even; overflow becomes ±infinity, NaN stays NaN.
  explicit Float16(float value);
  // Exact: every float16 value is a float32 value.
  explicit operator float() const;

  static Float16 from_bits(uint16_t bits) {
    Float16 h;
    h.bits = bits;
    return h;
  }
  friend bool operator==(Float16 a, Float16 b) { return a.bits == b.bits; }
};

}  // namespace loom
