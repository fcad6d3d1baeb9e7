#include <gtest/gtest.h>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::Int64s;
using testing::RandomTensor;
using testing::RunOne;

std::vector<int64_t> DimsOf(const Tensor& t) { return t.shape().dims(); }

TEST(Reshape, InfersMinusOneAndSharesStorage) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({2, 3, 4}), 1);
  const Tensor shape = Int64s({4, -1});
  const Tensor y = RunOne(ReshapeKernel, {}, {&x, &shape});
  EXPECT_EQ(DimsOf(y), (std::vector<int64_t>{4, 6}));
  EXPECT_TRUE(y.shares_storage_with(x));
  EXPECT_EQ(y.data<float>()[23], x.data<float>()[23]);
}

TEST(Reshape, ZeroCopiesInputDimUnlessAllowZero) {
  const Tensor x(DType::kInt8, Shape({2, 3, 4}));
  const Tensor shape = Int64s({0, -1});
  EXPECT_EQ(DimsOf(RunOne(ReshapeKernel, {}, {&x, &shape})), (std::vector<int64_t>{2, 12}));
  const Tensor empty(DType::kInt8, Shape({0, 4}));
  const Tensor zero_shape = Int64s({4, 0});
  EXPECT_EQ(DimsOf(RunOne(ReshapeKernel, Attributes().set("allowzero", int64_t{1}),
                          {&empty, &zero_shape})),
            (std::vector<int64_t>{4, 0}));
}

TEST(Reshape, RejectsBadShapes) {
  const Tensor x(DType::kFloat32, Shape({2, 3}));
  const Tensor two_minus = Int64s({-1, -1});
  ExpectError(ReshapeKernel, {}, {&x, &two_minus}, "Reshape", {"more than one -1"});
  const Tensor indivisible = Int64s({4, -1});
  ExpectError(ReshapeKernel, {}, {&x, &indivisible}, "Reshape", {"not divisible by 4"});
  const Tensor wrong_count = Int64s({7});
  ExpectError(ReshapeKernel, {}, {&x, &wrong_count}, "Reshape", {"7 elements", "[2, 3]"});
  const Tensor zero_and_minus = Int64s({0, -1});
  ExpectError(ReshapeKernel, Attributes().set("allowzero", int64_t{1}), {&x, &zero_and_minus},
              "Reshape", {"both 0 and -1"});
  const Tensor below = Int64s({-2, 3});
  ExpectError(ReshapeKernel, {}, {&x, &below}, "Reshape", {"invalid dimension -2"});
  const Tensor int32_shape = Tensor::from_vector(Shape({1}), std::vector<int32_t>{6});
  ExpectError(ReshapeKernel, {}, {&x, &int32_shape}, "Reshape", {"'shape'", "int64", "got int32"});
  const Tensor huge = Int64s({int64_t{1} << 40, int64_t{1} << 40});
  ExpectError(ReshapeKernel, {}, {&x, &huge}, "Reshape", {"overflows"});
}

TEST(Flatten, SplitsDimsAtAxis) {
  const Tensor x(DType::kFloat16, Shape({2, 3, 4, 5}));
  EXPECT_EQ(DimsOf(RunOne(FlattenKernel, {}, {&x})), (std::vector<int64_t>{2, 60}));
  EXPECT_EQ(DimsOf(RunOne(FlattenKernel, Attributes().set("axis", int64_t{0}), {&x})),
            (std::vector<int64_t>{1, 120}));
  EXPECT_EQ(DimsOf(RunOne(FlattenKernel, Attributes().set("axis", int64_t{4}), {&x})),
            (std::vector<int64_t>{120, 1}));
  EXPECT_EQ(DimsOf(RunOne(FlattenKernel, Attributes().set("axis", int64_t{-1}), {&x})),
            (std::vector<int64_t>{24, 5}));
  EXPECT_TRUE(RunOne(FlattenKernel, {}, {&x}).shares_storage_with(x));
  ExpectError(FlattenKernel, Attributes().set("axis", int64_t{5}), {&x}, "Flatten",
              {"'axis' 5", "[2, 3, 4, 5]"});
}

TEST(Squeeze, AxesFromInputAttributeOrAllOnes) {
  const Tensor x(DType::kBool, Shape({1, 3, 1, 2, 1}));
  const Tensor axes = Int64s({0, -1});
  EXPECT_EQ(DimsOf(RunOne(SqueezeKernel, {}, {&x, &axes})), (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(DimsOf(RunOne(SqueezeKernel, Attributes().set("axes", std::vector<int64_t>{2}), {&x})),
            (std::vector<int64_t>{1, 3, 2, 1}));
  EXPECT_EQ(DimsOf(RunOne(SqueezeKernel, {}, {&x})), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(RunOne(SqueezeKernel, {}, {&x}).shares_storage_with(x));
}

TEST(Squeeze, RejectsNonUnitAndRepeatedAxes) {
  const Tensor x(DType::kFloat32, Shape({1, 3}));
  const Tensor non_unit = Int64s({1});
  ExpectError(SqueezeKernel, {}, {&x, &non_unit}, "Squeeze", {"axis 1", "size is 3"});
  const Tensor repeated = Int64s({0, -2});
  ExpectError(SqueezeKernel, {}, {&x, &repeated}, "Squeeze", {"repeated"});
  const Tensor outside = Int64s({2});
  ExpectError(SqueezeKernel, {}, {&x, &outside}, "Squeeze", {"axis 2 is out of range"});
}

TEST(Unsqueeze, InsertsAxesOfTheOutputRank) {
  const Tensor x(DType::kInt64, Shape({2, 3}));
  const Tensor axes = Int64s({0, 3});
  EXPECT_EQ(DimsOf(RunOne(UnsqueezeKernel, {}, {&x, &axes})), (std::vector<int64_t>{1, 2, 3, 1}));
  EXPECT_EQ(
      DimsOf(RunOne(UnsqueezeKernel, Attributes().set("axes", std::vector<int64_t>{-1}), {&x})),
      (std::vector<int64_t>{2, 3, 1}));
  const Tensor scalar(DType::kFloat32, Shape());
  const Tensor zero = Int64s({0});
  EXPECT_EQ(DimsOf(RunOne(UnsqueezeKernel, {}, {&scalar, &zero})), (std::vector<int64_t>{1}));
  EXPECT_TRUE(RunOne(UnsqueezeKernel, {}, {&x, &axes}).shares_storage_with(x));
  ExpectError(UnsqueezeKernel, {}, {&x}, "Unsqueeze", {"'axes' is required"});
  const Tensor outside = Int64s({3});
  ExpectError(UnsqueezeKernel, {}, {&x, &outside}, "Unsqueeze", {"axis 3", "rank 3"});
}

TEST(Identity, ReturnsTheSameStorage) {
  const Tensor x = RandomTensor(DType::kUInt8, Shape({5}), 2, 0, 255);
  const Tensor y = RunOne(IdentityKernel, {}, {&x});
  EXPECT_TRUE(y.shares_storage_with(x));
  EXPECT_EQ(y.shape(), x.shape());
  ExpectError(IdentityKernel, {}, {}, "Identity", {"expected 1 inputs, got 0"});
}

}  // namespace
}  // namespace loom::kernels
