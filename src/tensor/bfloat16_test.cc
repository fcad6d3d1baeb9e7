#include "loom/bfloat16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace loom {
namespace {

float FloatFromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

// Independent oracle: the bfloat16 nearest to `x`, ties to the even
// mantissa, found by scanning every finite bfloat16 (each is exactly a
// float, so the distances are exact in double).
uint16_t NearestBFloat16BySearch(float x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(x));
  // Half a step (2^(127-8)) above the largest finite value: infinity.
  const double largest = static_cast<double>(FloatFromBits(0x7f7f0000));
  if (a >= largest + std::ldexp(1.0, 127 - 8)) return sign | 0x7f80;
  uint32_t best = 0;
  double d_best = a;
  for (uint32_t bits = 1; bits < 0x7f80; ++bits) {
    const double d_new = std::fabs(static_cast<double>(FloatFromBits(bits << 16)) - a);
    if (d_new < d_best || (d_new == d_best && (bits & 1) == 0 && (best & 1) == 1)) {
      best = bits;
      d_best = d_new;
    }
  }
  return static_cast<uint16_t>(sign | best);
}

TEST(BFloat16, KnownValues) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(-2.0f).bits, 0xc000);
  EXPECT_EQ(BFloat16(0.0f).bits, 0x0000);
  EXPECT_EQ(BFloat16(-0.0f).bits, 0x8000);
  EXPECT_EQ(BFloat16(0.1f).bits, 0x3dcd);         // 0x3dcccccd: dropped 0xcccd > half
  EXPECT_EQ(BFloat16(1.0f / 3.0f).bits, 0x3eab);  // 0x3eaaaaab
  EXPECT_EQ(BFloat16(3.14159265f).bits, 0x4049);  // 0x40490fdb: dropped 0x0fdb < half
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0x4049)), 3.140625f);
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0x3f80)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0xc2f7)), -123.5f);
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0x7f7f)), 0x1.fep127f);  // largest finite
}

TEST(BFloat16, TiesRoundToEven) {
  // 1 + 2^-8 is halfway between 1 (0x3f80, even) and 1 + 2^-7 (0x3f81).
  EXPECT_EQ(BFloat16(FloatFromBits(0x3f808000)).bits, 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 0x3f81 (odd) and 0x3f82: up.
  EXPECT_EQ(BFloat16(FloatFromBits(0x3f818000)).bits, 0x3f82);
  // Just above and below a tie.
  EXPECT_EQ(BFloat16(FloatFromBits(0x3f808001)).bits, 0x3f81);
  EXPECT_EQ(BFloat16(FloatFromBits(0x3f817fff)).bits, 0x3f81);
  // Negative ties behave the same on the magnitude.
  EXPECT_EQ(BFloat16(FloatFromBits(0xbf808000)).bits, 0xbf80);
  EXPECT_EQ(BFloat16(FloatFromBits(0xbf818000)).bits, 0xbf82);
  // A carry out of the mantissa moves to the next binade: 2 - 2^-9 -> 2.
  EXPECT_EQ(BFloat16(FloatFromBits(0x3fffc000)).bits, 0x4000);
}

TEST(BFloat16, OverflowInfinityAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(BFloat16(inf).bits, 0x7f80);
  EXPECT_EQ(BFloat16(-inf).bits, 0xff80);
  // Below the midpoint to the next step: the largest finite value.
  EXPECT_EQ(BFloat16(FloatFromBits(0x7f7f7fff)).bits, 0x7f7f);
  // The midpoint itself ties to even, which is infinity (0x7f80).
  EXPECT_EQ(BFloat16(FloatFromBits(0x7f7f8000)).bits, 0x7f80);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).bits, 0x7f80);
  EXPECT_EQ(BFloat16(-std::numeric_limits<float>::max()).bits, 0xff80);
  // NaNs stay NaN, including one whose payload sits only in the dropped bits
  // (plain truncation would turn 0x7f800001 into infinity).
  EXPECT_EQ(BFloat16(FloatFromBits(0x7fc00000)).bits, 0x7fc0);
  EXPECT_EQ(BFloat16(FloatFromBits(0xffc00000)).bits, 0xffc0);
  EXPECT_EQ(BFloat16(FloatFromBits(0x7f800001)).bits, 0x7fc0);
  EXPECT_EQ(BFloat16(FloatFromBits(0x7fa00000)).bits, 0x7fe0);  // payload kept, made quiet
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16::from_bits(0x7f81))));
}

TEST(BFloat16, Subnormals) {
  // bfloat16's smallest subnormal is 2^-133 (float bits 0x00010000).
  EXPECT_EQ(BFloat16(FloatFromBits(0x00010000)).bits, 0x0001);
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0x0001)), 0x1p-133f);
  EXPECT_EQ(BFloat16(0x1p-149f).bits, 0x0000);  // float's smallest: far below half a step
  EXPECT_EQ(BFloat16(FloatFromBits(0x00008000)).bits, 0x0000);  // tie: to even (0)
  EXPECT_EQ(BFloat16(FloatFromBits(0x00008001)).bits, 0x0001);
  EXPECT_EQ(BFloat16(FloatFromBits(0x00018000)).bits, 0x0002);  // tie: to even (2)
  EXPECT_EQ(BFloat16(FloatFromBits(0x807fffff)).bits, 0x8080);  // up to -2^-126, a normal
}

TEST(BFloat16, EveryValueRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const BFloat16 b = BFloat16::from_bits(static_cast<uint16_t>(bits));
    const float f = static_cast<float>(b);
    EXPECT_EQ(std::bit_cast<uint32_t>(f), bits << 16);
    const bool is_nan = (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
    if (is_nan) {
      EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(f)))) << bits;
    } else {
      ASSERT_EQ(BFloat16(f).bits, bits) << "bits 0x" << std::hex << bits;
    }
  }
}

TEST(BFloat16, RoundsToNearestEvenLikeAnExhaustiveSearch) {
  std::mt19937 rng(11);
  std::vector<float> samples = {FloatFromBits(0x3f808000),
                                FloatFromBits(0x00008000),
                                FloatFromBits(0x7f7f8000),
                                FloatFromBits(0x7f7f7fff),
                                FloatFromBits(0x00ffffff),
                                1e-40f,
                                65504.0f,
                                70000.0f};
  std::uniform_real_distribution<float> wide(-1e6f, 1e6f);
  std::uniform_int_distribution<uint32_t> any_bits(0, 0x7f7fffff);
  for (int i = 0; i < 100; ++i) samples.push_back(wide(rng));
  for (int i = 0; i < 200; ++i) {
    const float x = FloatFromBits(any_bits(rng));
    samples.push_back(i % 2 ? x : -x);
  }
  for (float x : samples) {
    EXPECT_EQ(BFloat16(x).bits, NearestBFloat16BySearch(x)) << "x = " << x;
  }
}

}  // namespace
}  // namespace loom
