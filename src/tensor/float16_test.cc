#include "loom/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace loom {
namespace {

// Independent oracle: the float16 nearest to `x`, ties to the even
// mantissa, found by searching every finite float16 value (each is exactly
// representable as a float, so the comparisons are exact in double).
uint16_t NearestHalfBySearch(float x) {
  static const std::vector<double> values = [] {
    std::vector<double> v(0x7c00);
    for (uint32_t bits = 0; bits < 0x7c00; ++bits) {
      v[bits] = static_cast<float>(Float16::from_bits(static_cast<uint16_t>(bits)));
    }
    return v;
  }();
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(x));
  // Beyond 65520 (halfway to the next binade step above 65504): infinity.
  if (a >= 65520.0) return sign | 0x7c00;
  uint32_t best = 0;
  for (uint32_t bits = 1; bits < 0x7c00; ++bits) {
    const double d_new = std::fabs(values[bits] - a);
    const double d_best = std::fabs(values[best] - a);
    if (d_new < d_best || (d_new == d_best && (bits & 1) == 0 && (best & 1) == 1)) best = bits;
  }
  return static_cast<uint16_t>(sign | best);
}

TEST(Float16, EveryValueRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const Float16 h = Float16::from_bits(static_cast<uint16_t>(bits));
    const float f = static_cast<float>(h);
    const bool is_nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    if (is_nan) {
      EXPECT_TRUE(std::isnan(f)) << bits;
      EXPECT_TRUE(std::isnan(static_cast<float>(Float16(f)))) << bits;
    } else {
      ASSERT_EQ(Float16(f).bits, bits) << "bits 0x" << std::hex << bits;
    }
  }
}

TEST(Float16, KnownValues) {
  EXPECT_EQ(Float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(Float16(-2.0f).bits, 0xc000);
  EXPECT_EQ(Float16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(Float16(0x1p-24f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(Float16(0x1p-14f).bits, 0x0400);  // smallest normal
  EXPECT_EQ(Float16(-0.0f).bits, 0x8000);
  EXPECT_EQ(static_cast<float>(Float16::from_bits(0x3555)), 0.333251953125f);
}

TEST(Float16, OverflowBecomesInfinityAndNanStaysNan) {
  EXPECT_EQ(Float16(65519.0f).bits, 0x7bff);  // still rounds down to the max
  EXPECT_EQ(Float16(65520.0f).bits, 0x7c00);
  EXPECT_EQ(Float16(1e10f).bits, 0x7c00);
  EXPECT_EQ(Float16(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_TRUE(std::isnan(static_cast<float>(Float16(std::nanf("")))));
}

TEST(Float16, RoundsToNearestEvenLikeAnExhaustiveSearch) {
  std::mt19937 rng(7);
  std::vector<float> samples = {0x1p-25f, 0x1.8p-24f, 0x1p-26f, 1.0009765625f * 0.5f + 0.5f,
                                2049.0f,  2051.0f,    4097.0f,  0x1.ffcp-15f};
  std::uniform_real_distribution<float> wide(-70000.0f, 70000.0f);
  std::uniform_real_distribution<float> tiny(-1e-4f, 1e-4f);
  for (int i = 0; i < 300; ++i) samples.push_back(wide(rng));
  for (int i = 0; i < 300; ++i) samples.push_back(tiny(rng));
  for (float x : samples) {
    EXPECT_EQ(Float16(x).bits, NearestHalfBySearch(x)) << "x = " << x;
  }
}

}  // namespace
}  // namespace loom
