// CastLike: Cast to the second input's dtype, whatever its values; the
// conversions themselves are Cast's (shape_ops_cast_test.cc).
#include <gtest/gtest.h>

#include "kernels/shape/shape_ops.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::CallSingleOutput;
using testing::TensorValues;

TEST(CastLike, TakesTheDTypeOfTheSecondInput) {
  const Tensor x = Tensor::from_vector<float>({4}, {-1.7f, 0.0f, 2.9f, 300.0f});
  const Tensor like_int = Tensor::from_vector<int32_t>({1}, {123});
  const Tensor y = CallSingleOutput(CastLikeKernel, {&x, &like_int});
  ASSERT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(y.shape(), Shape({4}));
  EXPECT_EQ(TensorValues<int32_t>(y), (std::vector<int32_t>{-1, 0, 2, 300}));  // toward zero

  const Tensor like_bool = Tensor::from_vector<bool>({2, 2}, {true, true, false, false});
  EXPECT_EQ(TensorValues<bool>(CallSingleOutput(CastLikeKernel, {&x, &like_bool})),
            (std::vector<bool>{true, false, true, true}));

  const Tensor ints = Tensor::from_vector<int64_t>({2}, {3, -4});
  const Tensor like_double = Tensor::from_vector<double>({}, {0.0});
  const Tensor d = CallSingleOutput(CastLikeKernel, {&ints, &like_double});
  ASSERT_EQ(d.dtype(), DType::kFloat64);
  EXPECT_EQ(TensorValues<double>(d), (std::vector<double>{3.0, -4.0}));
}

TEST(CastLike, NeedsBothInputs) {
  const Tensor x = Tensor::from_vector<float>({1}, {1.0f});
  EXPECT_NE(testing::KernelErrorOf(CastLikeKernel, {&x}).find("CastLike"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
