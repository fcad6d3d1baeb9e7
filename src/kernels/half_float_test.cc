#include "kernels/half_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "loom/errors.h"

namespace loom::kernels {
namespace {

TEST(HalfFloat, WidensExactlyAndNarrowsToNearestEven) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor b = Tensor::from_vector<BFloat16>(
      {4}, {BFloat16::from_bits(0x3f80), BFloat16::from_bits(0xc2f7), BFloat16::from_bits(0x7f80),
            BFloat16::from_bits(0x0001)});
  const Tensor wide = WidenToFloat32(b);
  ASSERT_EQ(wide.dtype(), DType::kFloat32);
  EXPECT_EQ(wide.data<float>()[0], 1.0f);
  EXPECT_EQ(wide.data<float>()[1], -123.5f);
  EXPECT_EQ(wide.data<float>()[2], inf);
  EXPECT_EQ(wide.data<float>()[3], 0x1p-133f);
  // 1 + 2^-8 ties to 1 (even); 1 + 3 * 2^-8 ties up to 1 + 2^-6.
  const Tensor f = Tensor::from_vector<float>({2}, {1.00390625f, 1.01171875f});
  const Tensor narrow = NarrowFromFloat32(f, DType::kBFloat16);
  EXPECT_EQ(narrow.data<BFloat16>()[0].bits, 0x3f80);
  EXPECT_EQ(narrow.data<BFloat16>()[1].bits, 0x3f82);
  // float16: 2049 ties to 2048 (even).
  const Tensor h = NarrowFromFloat32(Tensor::from_vector<float>({1}, {2049.0f}), DType::kFloat16);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[0]), 2048.0f);
  EXPECT_EQ(static_cast<float>(WidenToFloat32(h).data<float>()[0]), 2048.0f);
}

TEST(HalfFloat, OtherDTypesPassThroughOrAreRefused) {
  const Tensor i = Tensor::from_vector<int32_t>({1}, {3});
  EXPECT_TRUE(WidenToFloat32(i).shares_storage_with(i));
  const Tensor f = Tensor::from_vector<float>({1}, {3});
  EXPECT_TRUE(NarrowFromFloat32(f, DType::kFloat32).shares_storage_with(f));
  EXPECT_THROW(NarrowFromFloat32(f, DType::kInt32), InvalidArgumentError);
  EXPECT_THROW(NarrowFromFloat32(i, DType::kBFloat16), InvalidArgumentError);
  EXPECT_TRUE(ComputesInFloat32(DType::kBFloat16));
  EXPECT_TRUE(ComputesInFloat32(DType::kFloat16));
  EXPECT_FALSE(ComputesInFloat32(DType::kFloat32));
  EXPECT_FALSE(ComputesInFloat32(DType::kUInt16));
}

}  // namespace
}  // namespace loom::kernels
