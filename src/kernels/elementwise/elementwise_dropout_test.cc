// LoomDropout: the identity with an all-true mask unless training with a
// non-zero ratio, which is refused with the "not supported" phrase.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::KernelErrorOf;
using testing::TensorValues;

TEST(LoomDropout, IdentityWithAllTrueMask) {
  const Tensor x = Tensor::from_vector<float>({2, 2}, {1, -2, 3, 4});
  const Tensor zero = Tensor::from_vector<float>({}, {0});
  const Tensor half = Tensor::from_vector<float>({}, {0.5f});
  const Tensor on = Tensor::from_vector<bool>({}, {true});
  const Tensor off = Tensor::from_vector<bool>({}, {false});
  for (const auto& inputs : std::vector<std::vector<const Tensor*>>{
           {&x}, {&x, &half}, {&x, &half, &off}, {&x, &zero, &on}}) {
    const std::vector<Tensor> out = LoomDropoutKernel({}, {}, inputs);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(TensorValues<float>(out[0]), (std::vector<float>{1, -2, 3, 4}));
    EXPECT_EQ(out[1].dtype(), DType::kBool);
    EXPECT_EQ(out[1].shape(), Shape({2, 2}));
    for (bool v : TensorValues<bool>(out[1])) EXPECT_TRUE(v);
  }
}

TEST(LoomDropout, TrainingWithARatioIsRefused) {
  const Tensor x = Tensor::from_vector<float>({2}, {1, 2});
  const Tensor ratio = Tensor::from_vector<float>({}, {0.75f});
  const Tensor on = Tensor::from_vector<bool>({}, {true});
  const Tensor pair = Tensor::from_vector<bool>({2}, {true, false});
  const Tensor ints = Tensor::from_vector<int32_t>({2}, {1, 2});
  EXPECT_EQ(
      KernelErrorOf(LoomDropoutKernel, {&x, &ratio, &on}),
      "LoomDropout: training_mode = true with ratio 0.750000 is not supported (training drops "
      "random elements; Loom runs inference)");
  EXPECT_NE(KernelErrorOf(LoomDropoutKernel, {&x, &ratio, &pair}).find("must hold one value"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(LoomDropoutKernel, {&ints}).find("LoomDropout: input 'data'"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
