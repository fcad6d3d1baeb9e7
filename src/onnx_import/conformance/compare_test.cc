#include "onnx_import/conformance/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace loom::conformance {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(CloseEnough, AllowsAtolPlusRtolTimesExpected) {
  const Tolerance tol{.rtol = 1e-3, .atol = 1e-7};
  // Allowed difference at 100: 1e-7 + 0.1.
  EXPECT_TRUE(CloseEnough(100.0, 100.09, tol));
  EXPECT_FALSE(CloseEnough(100.0, 100.11, tol));
  // Relative to the expected value, not the actual one (numpy's rule):
  // expected 1 allows 0.0010001, so 1.0011 fails even though 1e-3 * 1.0011
  // would allow it.
  EXPECT_TRUE(CloseEnough(1.0, 1.001, tol));
  EXPECT_FALSE(CloseEnough(1.0, 1.0011, tol));
  // Near zero only atol counts.
  EXPECT_TRUE(CloseEnough(0.0, 9e-8, tol));
  EXPECT_FALSE(CloseEnough(0.0, 2e-7, tol));
}

TEST(CloseEnough, NaNEqualsNaNOnly) {
  const Tolerance tol;
  EXPECT_TRUE(CloseEnough(std::nan(""), std::nan(""), tol));
  EXPECT_FALSE(CloseEnough(std::nan(""), 0.0, tol));
  EXPECT_FALSE(CloseEnough(1.0, std::nan(""), tol));
}

TEST(CloseEnough, InfinityEqualsTheSameInfinityOnly) {
  const Tolerance tol{.rtol = 1.0, .atol = 1e30};
  EXPECT_TRUE(CloseEnough(kInf, kInf, tol));
  EXPECT_FALSE(CloseEnough(kInf, -kInf, tol));
  EXPECT_FALSE(CloseEnough(kInf, 1e30, tol));
  EXPECT_FALSE(CloseEnough(1e30, kInf, tol));
}

TEST(CompareTensors, EqualFloatsMatch) {
  Tensor a = Tensor::from_vector<float>({2, 2}, {1, 2, 3, kNaN});
  Tensor b = Tensor::from_vector<float>({2, 2}, {1, 2.001f, 3, kNaN});
  EXPECT_EQ(CompareTensors(a, b), std::nullopt);
}

TEST(CompareTensors, ReportsFirstMismatchWithCoordinatesAndCount) {
  Tensor expected = Tensor::from_vector<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor actual = Tensor::from_vector<float>({2, 3}, {0, 1, 2, 3.5f, 4, 6});
  auto message = CompareTensors(expected, actual);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(*message,
            "2 of 6 elements differ; first at index 3 (1, 0): expected 3, got 3.5 "
            "(|diff| 0.5 > allowed 0.0030001)");
}

TEST(CompareTensors, NaNAgainstNumberIsAMismatch) {
  Tensor expected = Tensor::from_vector<float>({2}, {kNaN, 1});
  Tensor actual = Tensor::from_vector<float>({2}, {0, 1});
  auto message = CompareTensors(expected, actual);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(*message, "1 of 2 elements differ; first at index 0 (0): expected nan, got 0");
}

TEST(CompareTensors, ShapeMismatchIsReportedEvenWithEqualCounts) {
  Tensor expected(DType::kFloat32, {2, 3});
  Tensor actual(DType::kFloat32, {3, 2});
  EXPECT_EQ(CompareTensors(expected, actual), "shape differs: expected [2, 3], got [3, 2]");
  // A scalar is not a one-element vector.
  EXPECT_EQ(CompareTensors(Tensor(DType::kFloat32, {}), Tensor(DType::kFloat32, {1})),
            "shape differs: expected [], got [1]");
}

TEST(CompareTensors, DTypeMismatchIsReported) {
  Tensor expected(DType::kInt64, {2});
  Tensor actual(DType::kInt32, {2});
  EXPECT_EQ(CompareTensors(expected, actual), "dtype differs: expected int64, got int32");
}

TEST(CompareTensors, IntegersAreExactEvenBeyondDoublePrecision) {
  // 2^53 and 2^53 + 1 are the same double; as int64 they differ.
  const int64_t big = int64_t{1} << 53;
  Tensor expected = Tensor::from_vector<int64_t>({1}, {big + 1});
  Tensor actual = Tensor::from_vector<int64_t>({1}, {big});
  auto message = CompareTensors(expected, actual);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(*message,
            "1 of 1 elements differ; first at index 0 (0): expected 9007199254740993, "
            "got 9007199254740992");
  // No tolerance for integers: 1000 vs 1001 is within rtol 1e-3 but differs.
  EXPECT_NE(CompareTensors(Tensor::from_vector<int32_t>({1}, {1000}),
                           Tensor::from_vector<int32_t>({1}, {1001})),
            std::nullopt);
}

TEST(CompareTensors, BoolsAreExact) {
  Tensor expected = Tensor::from_vector<bool>({3}, {true, false, true});
  EXPECT_EQ(CompareTensors(expected, Tensor::from_vector<bool>({3}, {true, false, true})),
            std::nullopt);
  EXPECT_EQ(CompareTensors(expected, Tensor::from_vector<bool>({3}, {true, true, true})),
            "1 of 3 elements differ; first at index 1 (1): expected false, got true");
}

TEST(CompareTensors, Float16ComparedAsItsValue) {
  // 1.0 and the next float16 up (1 + 2^-10 = 1.0009765625) are within rtol
  // 1e-3; 1 + 2 * 2^-10 is not.
  Tensor expected = Tensor::from_vector<Float16>({1}, {Float16(1.0f)});
  EXPECT_EQ(CompareTensors(expected, Tensor::from_vector<Float16>({1}, {Float16(1.0009765625f)})),
            std::nullopt);
  EXPECT_NE(CompareTensors(expected, Tensor::from_vector<Float16>({1}, {Float16(1.001953125f)})),
            std::nullopt);
}

TEST(CompareTensors, EmptyTensorsOfEqualShapeMatch) {
  EXPECT_EQ(CompareTensors(Tensor(DType::kFloat32, {0, 3}), Tensor(DType::kFloat32, {0, 3})),
            std::nullopt);
}

TEST(CompareTensors, CustomToleranceIsUsed) {
  Tensor expected = Tensor::from_vector<double>({1}, {1.0});
  Tensor actual = Tensor::from_vector<double>({1}, {1.05});
  EXPECT_NE(CompareTensors(expected, actual), std::nullopt);
  EXPECT_EQ(CompareTensors(expected, actual, {.rtol = 0.1, .atol = 0}), std::nullopt);
}

}  // namespace
}  // namespace loom::conformance
