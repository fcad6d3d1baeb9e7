// The loss functions against values worked out by hand.
#include "kernels/loss/loss_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

Attributes Reduce(const char* reduction) {
  Attributes attrs;
  attrs.set("reduction", std::string(reduction));
  return attrs;
}

// input [N=2, C=3, d=2] of log-probabilities, by (n, c, d).
Tensor Input() {
  return Tensor::from_vector(Shape({2, 3, 2}), std::vector<float>{-1, -2,      // n0 c0
                                                                  -3, -4,      // n0 c1
                                                                  -5, -6,      // n0 c2
                                                                  -7, -8,      // n1 c0
                                                                  -9, -10,     // n1 c1
                                                                  -11, -12});  // n1 c2
}

TEST(NegativeLogLikelihoodLoss, ReductionsWeightsAndIgnoredTargets) {
  const Tensor input = Input();
  // target [2, 2]: n0 d0 -> c2 (5), n0 d1 -> c0 (2), n1 d0 -> c1 (9), n1 d1 -> c2 (12).
  const Tensor target = Tensor::from_vector(Shape({2, 2}), std::vector<int64_t>{2, 0, 1, 2});
  const Tensor none =
      testing::CallSingleOutput(NegativeLogLikelihoodLossKernel, {&input, &target}, Reduce("none"));
  EXPECT_EQ(none.shape(), Shape({2, 2}));
  EXPECT_EQ(testing::TensorValues<float>(none), (std::vector<float>{5, 2, 9, 12}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(
                NegativeLogLikelihoodLossKernel, {&input, &target}, Reduce("sum"))),
            (std::vector<float>{28}));
  EXPECT_EQ(testing::TensorValues<float>(
                testing::CallSingleOutput(NegativeLogLikelihoodLossKernel, {&input, &target})),
            (std::vector<float>{7}));  // mean, the default: 28 / 4
  // Weights 1, 2, 3 by class: 5*3 + 2*1 + 9*2 + 12*3 = 71 over 3+1+2+3 = 9.
  const Tensor weight = Tensor::from_vector(Shape({3}), std::vector<float>{1, 2, 3});
  EXPECT_FLOAT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(
                      NegativeLogLikelihoodLossKernel, {&input, &target, &weight}))[0],
                  71.0f / 9.0f);
  // ignore_index 2: only n0 d1 (2 * 1) and n1 d0 (9 * 2) count: 20 / 3.
  Attributes ignore;
  ignore.set("ignore_index", int64_t{2});
  EXPECT_FLOAT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(
                      NegativeLogLikelihoodLossKernel, {&input, &target, &weight}, ignore))[0],
                  20.0f / 3.0f);
  // Every target ignored: the mean is 0 / 0.
  Attributes all;
  all.set("ignore_index", int64_t{0});
  const Tensor zeros = Tensor::from_vector(Shape({2, 2}), std::vector<int64_t>{0, 0, 0, 0});
  EXPECT_TRUE(std::isnan(testing::TensorValues<float>(
      testing::CallSingleOutput(NegativeLogLikelihoodLossKernel, {&input, &zeros}, all))[0]));
}

TEST(NegativeLogLikelihoodLoss, BadTargetsAndShapesAreErrors) {
  const Tensor input = Input();
  const Tensor out_of_range = Tensor::from_vector(Shape({2, 2}), std::vector<int64_t>{3, 0, 0, 0});
  EXPECT_NE(testing::KernelErrorOf(NegativeLogLikelihoodLossKernel, {&input, &out_of_range})
                .find("not a class in [0, 3)"),
            std::string::npos);
  const Tensor wrong_shape = Tensor::from_vector(Shape({2}), std::vector<int64_t>{0, 0});
  EXPECT_NE(testing::KernelErrorOf(NegativeLogLikelihoodLossKernel, {&input, &wrong_shape})
                .find("must be [2, 2]"),
            std::string::npos);
  const Tensor target = Tensor::from_vector(Shape({2, 2}), std::vector<int64_t>{0, 0, 0, 0});
  const Tensor short_weight = Tensor::from_vector(Shape({2}), std::vector<float>{1, 1});
  EXPECT_NE(
      testing::KernelErrorOf(NegativeLogLikelihoodLossKernel, {&input, &target, &short_weight})
          .find("weight"),
      std::string::npos);
  EXPECT_NE(
      testing::KernelErrorOf(NegativeLogLikelihoodLossKernel, {&input, &target}, Reduce("avg"))
          .find("avg"),
      std::string::npos);
}

TEST(SoftmaxCrossEntropyLoss, LogSoftmaxThenNll) {
  // scores [2, 2]: row 0 (0, ln 3) -> probabilities 1/4, 3/4; row 1 (ln 2, ln 2) -> 1/2, 1/2.
  const Tensor scores = Tensor::from_vector(
      Shape({2, 2}), std::vector<double>{0.0, std::log(3.0), std::log(2.0), std::log(2.0)});
  const Tensor labels = Tensor::from_vector(Shape({2}), std::vector<int32_t>{0, 1});
  KernelContext ctx;
  const std::vector<Tensor> out = SoftmaxCrossEntropyLossKernel(
      ctx, Reduce("none"), std::vector<const Tensor*>{&scores, &labels});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<double> loss = testing::TensorValues<double>(out[0]);
  EXPECT_NEAR(loss[0], std::log(4.0), 1e-12);  // -ln(1/4)
  EXPECT_NEAR(loss[1], std::log(2.0), 1e-12);  // -ln(1/2)
  const std::vector<double> log_prob = testing::TensorValues<double>(out[1]);
  EXPECT_NEAR(log_prob[0], std::log(0.25), 1e-12);
  EXPECT_NEAR(log_prob[1], std::log(0.75), 1e-12);
  ctx.num_outputs = 1;
  const std::vector<Tensor> mean =
      SoftmaxCrossEntropyLossKernel(ctx, {}, std::vector<const Tensor*>{&scores, &labels});
  ASSERT_EQ(mean.size(), 1u);
  EXPECT_NEAR(testing::TensorValues<double>(mean[0])[0], (std::log(4.0) + std::log(2.0)) / 2,
              1e-12);
}

}  // namespace
}  // namespace loom::kernels
