#include "kernels/op_kernel.h"

#include <gtest/gtest.h>

#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

TEST(OpKernel, ErrorsNameOpInputAndExpectedVersusActual) {
  Tensor w(DType::kFloat32, {3, 3});
  Tensor i(DType::kInt64, {2});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CheckRank("Conv", "W", w, 4); }),
            "Conv: input 'W' must have rank 4 (got shape [3, 3])");
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              CheckDType("Relu", "X", i, {DType::kFloat32, DType::kFloat64});
            }),
            "Relu: input 'X' must have dtype one of float32, float64 (got int64)");
  std::vector<const Tensor*> inputs = {&w, nullptr};
  EXPECT_EQ(testing::ErrorMessageOf([&] { RequiredInput("Gemm", inputs, 1, "B"); }),
            "Gemm: required input 'B' (#1) is missing");
  EXPECT_EQ(testing::ErrorMessageOf([&] { CheckInputCount("Add", inputs, 3, 3); }),
            "Add: expected 3 inputs, got 2");
  EXPECT_EQ(OptionalInput(inputs, 1), nullptr);
  EXPECT_EQ(OptionalInput(inputs, 5), nullptr);
  EXPECT_EQ(&RequiredInput("Gemm", inputs, 0, "A"), &w);
}

TEST(OpKernel, NormalizeAxisAcceptsNegativeAndRejectsOutOfRange) {
  EXPECT_EQ(NormalizeAxis("Softmax", -1, 4), 3);
  EXPECT_EQ(NormalizeAxis("Softmax", 0, 4), 0);
  EXPECT_EQ(testing::ErrorMessageOf([] { NormalizeAxis("Softmax", 4, 4); }),
            "Softmax: axis 4 is out of range for rank 4");
  EXPECT_THROW(NormalizeAxis("Softmax", -5, 4), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::kernels
