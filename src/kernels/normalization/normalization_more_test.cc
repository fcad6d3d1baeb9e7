// LpNormalization, GroupNormalization, LRN and MeanVarianceNormalization:
// hand-computed cases, the plain references on edge shapes at 1, 2, 3 and 7
// threads (bit-identical across thread counts), error messages.
#include "kernels/normalization/normalization_more.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/normalization/normalization_more_reference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::TensorValues;

// Runs fn at every thread count: all results bit-identical, and close to
// `expected`.
void CheckAllThreadCounts(KernelFn fn, std::initializer_list<const Tensor*> inputs,
                          const Attributes& attrs, const Tensor& expected, double tol) {
  const Tensor first = CallSingleOutput(fn, inputs, attrs);
  EXPECT_TENSORS_NEAR(first, expected, tol, tol);
  for (int threads : kThreadCounts) {
    auto pool = PoolWithThreads(threads);
    EXPECT_TRUE(BitwiseEqual(CallSingleOutput(fn, inputs, attrs, pool.get()), first))
        << "threads " << threads;
  }
}

TEST(LpNormalization, HandComputedValues) {
  const Tensor x = Tensor::from_vector<float>({2, 2}, {3, 4, 0, 0});
  const std::vector<float> y2 = TensorValues<float>(CallSingleOutput(LpNormalizationKernel, {&x}));
  EXPECT_EQ(y2[0], 0.6f);
  EXPECT_EQ(y2[1], 0.8f);
  EXPECT_TRUE(std::isnan(y2[2]) && std::isnan(y2[3]));  // 0 / 0
  const Attributes l1_axis0 = Attributes().set("p", int64_t{1}).set("axis", int64_t{0});
  const Tensor y = Tensor::from_vector<float>({2, 2}, {1, -2, 3, 2});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(LpNormalizationKernel, {&y}, l1_axis0)),
            (std::vector<float>{0.25f, -0.5f, 0.75f, 0.5f}));
}

TEST(LpNormalization, MatchesReference) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{7}, {3, 5}, {2, 1, 13}, {0, 4}, {5, 3, 2}}) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed);
      for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
        for (int p : {1, 2}) {
          const Attributes attrs =
              Attributes().set("p", int64_t{p}).set("axis", int64_t{axis - (int)dims.size()});
          CheckAllThreadCounts(LpNormalizationKernel, {&x}, attrs, LpNormReference(x, axis, p),
                               dtype == DType::kFloat16 ? 1e-3 : 1e-6);
        }
      }
    }
  }
}

TEST(GroupNormalization, HandComputedValues) {
  // One sample, 2 channels, 2 groups of one channel of 2 elements each:
  // mean 2, var 1 -> xhat -1, 1; then scale 2, bias 1 on channel 1.
  const Tensor x = Tensor::from_vector<float>({1, 2, 2}, {1, 3, 1, 3});
  const Tensor scale = Tensor::from_vector<float>({2}, {1, 2});
  const Tensor bias = Tensor::from_vector<float>({2}, {0, 1});
  const Attributes attrs = Attributes().set("num_groups", int64_t{2}).set("epsilon", 0.0f);
  EXPECT_EQ(
      TensorValues<float>(CallSingleOutput(GroupNormalizationKernel, {&x, &scale, &bias}, attrs)),
      (std::vector<float>{-1, 1, -1, 3}));
}

TEST(GroupNormalization, MatchesReference) {
  uint32_t seed = 20;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& [dims, groups] : std::vector<std::pair<std::vector<int64_t>, int>>{
             {{2, 4, 3, 3}, 2}, {{1, 6, 7}, 3}, {{3, 5}, 5}, {{2, 4, 1}, 1}, {{0, 4, 2}, 2}}) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed);
      const Tensor scale = RandomTensor(dtype, Shape({dims[1]}), ++seed);
      const Tensor bias = RandomTensor(dtype, Shape({dims[1]}), ++seed);
      const Attributes attrs = Attributes().set("num_groups", int64_t{groups});
      CheckAllThreadCounts(GroupNormalizationKernel, {&x, &scale, &bias}, attrs,
                           GroupNormReference(x, scale, bias, groups, 1e-5f), 1e-5);
    }
  }
}

TEST(Lrn, HandComputedValues) {
  // size 2: channel c sums channels c and c + 1 (floor(1/2) = 0 before,
  // ceil(1/2) = 1 after); alpha 2 / size 2 = 1, bias 1, beta 1.
  const Tensor x = Tensor::from_vector<float>({1, 3, 1}, {1, 2, 3});
  const Attributes attrs =
      Attributes().set("size", int64_t{2}).set("alpha", 2.0f).set("beta", 1.0f).set("bias", 1.0f);
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(LrnKernel, {&x}, attrs)),
            (std::vector<float>{1.0f / 6, 2.0f / 14, 3.0f / 10}));
}

TEST(Lrn, MatchesReference) {
  uint32_t seed = 40;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{2, 5, 3, 3}, {1, 7, 11}, {3, 1}, {1, 2, 0}}) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed);
      for (int size : {1, 2, 3, 5, 9}) {
        const Attributes attrs =
            Attributes().set("size", int64_t{size}).set("alpha", 0.3f).set("bias", 1.5f);
        CheckAllThreadCounts(LrnKernel, {&x}, attrs, LrnReference(x, 0.3f, 0.75f, 1.5f, size),
                             1e-5);
      }
    }
  }
}

TEST(MeanVarianceNormalization, HandComputedValues) {
  // axes [0]: column means 2 and 0, population standard deviations 1 and 0.
  const Tensor x = Tensor::from_vector<double>({2, 2}, {1, 0, 3, 0});
  const Attributes attrs = Attributes().set("axes", std::vector<int64_t>{0});
  const std::vector<double> y =
      TensorValues<double>(CallSingleOutput(MeanVarianceNormalizationKernel, {&x}, attrs));
  EXPECT_NEAR(y[0], -1, 1e-8);
  EXPECT_EQ(y[1], 0);
  EXPECT_NEAR(y[2], 1, 1e-8);
  EXPECT_EQ(y[3], 0);
}

TEST(MeanVarianceNormalization, MatchesReference) {
  uint32_t seed = 60;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> cases = {
      {{2, 3, 4, 5}, {0, 2, 3}}, {{3, 3, 3, 1}, {0, 2, 3}}, {{2, 7}, {1}},
      {{4, 3, 2}, {0, 1, 2}},    {{5, 1, 3}, {0}},          {{2, 3, 2}, {1}}};
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& [dims, axes] : cases) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed);
      const Attributes attrs =
          Attributes().set("axes", std::vector<int64_t>(axes.begin(), axes.end()));
      CheckAllThreadCounts(MeanVarianceNormalizationKernel, {&x}, attrs, MvnReference(x, axes),
                           1e-5);
    }
  }
}

TEST(NormalizationMore, Errors) {
  const Tensor x = Tensor::from_vector<float>({1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor i = Tensor::from_vector<int32_t>({2}, {1, 2});
  const Tensor c4 = Tensor::from_vector<float>({4}, {1, 1, 1, 1});
  const Tensor c2 = Tensor::from_vector<float>({2}, {1, 1});
  EXPECT_EQ(KernelErrorOf(LpNormalizationKernel, {&x}, Attributes().set("p", int64_t{3})),
            "LpNormalization: attribute 'p' must be 1 or 2 (got 3)");
  EXPECT_NE(KernelErrorOf(LpNormalizationKernel, {&i}).find("LpNormalization: input 'input'"),
            std::string::npos);
  EXPECT_EQ(KernelErrorOf(GroupNormalizationKernel, {&x, &c4, &c4},
                          Attributes().set("num_groups", int64_t{3})),
            "GroupNormalization: attribute 'num_groups' (3) must be positive and divide the "
            "channels of input 'X' (4)");
  EXPECT_EQ(KernelErrorOf(GroupNormalizationKernel, {&x, &c2, &c2},
                          Attributes().set("num_groups", int64_t{2})),
            "GroupNormalization: input 'scale' must have shape [4] (X's channels) (got shape "
            "[2])");
  EXPECT_EQ(KernelErrorOf(GroupNormalizationKernel, {&x, &c4, &c4}),
            "GroupNormalization: required attribute 'num_groups' is missing");
  EXPECT_EQ(KernelErrorOf(LrnKernel, {&x}), "LRN: required attribute 'size' is missing");
  EXPECT_EQ(KernelErrorOf(LrnKernel, {&x}, Attributes().set("size", int64_t{0})),
            "LRN: attribute 'size' must be >= 1 (got 0)");
  EXPECT_EQ(KernelErrorOf(MeanVarianceNormalizationKernel, {&x},
                          Attributes().set("axes", std::vector<int64_t>{1, -2})),
            "MeanVarianceNormalization: attribute 'axes' names axis 1 twice");
  EXPECT_NE(KernelErrorOf(MeanVarianceNormalizationKernel, {&x},
                          Attributes().set("axes", std::vector<int64_t>{3}))
                .find("MeanVarianceNormalization:"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
