#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kernels/normalization/normalization.h"
#include "kernels/normalization/normalization_reference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;

std::vector<Tensor> CallLayerNorm(const Tensor& x, const Tensor& scale, const Tensor* bias,
                                  int64_t axis, const KernelContext& ctx = {}) {
  Attributes attrs;
  attrs.set("axis", axis);
  return CallKernel(LayerNormalizationKernel, ctx, attrs, {&x, &scale, bias});
}

TEST(LayerNorm, HandComputedValues) {
  // Row [1, 2, 3, 4]: mean 2.5, variance 1.25.
  const Tensor x = Tensor::from_vector<float>({1, 4}, {1, 2, 3, 4});
  const Tensor scale = Tensor::from_vector<float>({4}, {1, 1, 2, 2});
  const Tensor bias = Tensor::from_vector<float>({4}, {0, 1, 0, 1});
  const std::vector<Tensor> out = CallLayerNorm(x, scale, &bias, -1);
  ASSERT_EQ(out.size(), 3u);
  const double inv = 1 / std::sqrt(1.25 + 1e-5);
  const float* y = out[0].data<float>();
  EXPECT_NEAR(y[0], -1.5 * inv, 1e-6);
  EXPECT_NEAR(y[1], -0.5 * inv + 1, 1e-6);
  EXPECT_NEAR(y[2], 0.5 * inv * 2, 1e-6);
  EXPECT_NEAR(y[3], 1.5 * inv * 2 + 1, 1e-6);
  EXPECT_EQ(out[1].shape(), Shape({1, 1}));
  EXPECT_EQ(out[1].dtype(), DType::kFloat32);
  EXPECT_FLOAT_EQ(out[1].data<float>()[0], 2.5f);
  EXPECT_NEAR(out[2].data<float>()[0], inv, 1e-6);
  // Without B; a constant row normalizes to 0 (variance 0, epsilon keeps it finite).
  const Tensor flat = Tensor::from_vector<float>({2, 2}, {3, 3, -1, 5});
  const Tensor ones = Tensor::from_vector<float>({2}, {1, 1});
  const std::vector<Tensor> no_bias = CallLayerNorm(flat, ones, nullptr, 1);
  EXPECT_EQ(no_bias[0].data<float>()[0], 0.0f);
  EXPECT_NEAR(no_bias[0].data<float>()[3], 3 / std::sqrt(9 + 1e-5), 1e-6);
}

TEST(LayerNorm, MatchesReferenceAtEveryThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1}, {7}, {3, 1}, {5, 17}, {2, 3, 33}, {4, 0, 3}, {3, 0}, {64, 768}, {2, 3, 5, 7}};
  uint32_t seed = 20;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& dims : shapes) {
      // A large offset checks the two-pass variance has no cancellation.
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, 90, 110);
      const int rank = static_cast<int>(dims.size());
      for (int axis = 0; axis < rank; ++axis) {
        const std::vector<int64_t> normalized(dims.begin() + axis, dims.end());
        const Tensor scale = RandomTensor(dtype, Shape(normalized), seed + 100);
        const Tensor bias = RandomTensor(dtype, Shape(normalized), seed + 200);
        for (const Tensor* b : {&bias, static_cast<const Tensor*>(nullptr)}) {
          const std::vector<Tensor> expected = LayerNormReference(x, scale, b, axis, 1e-5f);
          std::vector<Tensor> first;
          for (int threads : kThreadCounts) {
            auto pool = PoolWithThreads(threads);
            SCOPED_TRACE(x.shape().to_string() + " axis " + std::to_string(axis) + " threads " +
                         std::to_string(threads));
            const std::vector<Tensor> y = CallLayerNorm(x, scale, b, axis - rank, {pool.get()});
            const double tol = dtype == DType::kFloat32 ? 2e-4 : 1e-10;
            EXPECT_TENSORS_NEAR(y[0], expected[0], tol, tol);
            EXPECT_TENSORS_NEAR(y[1], expected[1], 1e-6, 1e-6);
            EXPECT_TENSORS_NEAR(y[2], expected[2], tol, tol);
            if (first.empty()) {
              first = y;
            } else {
              for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(BitwiseEqual(y[k], first[k]));
            }
          }
        }
      }
    }
  }
}

TEST(LayerNorm, ScaleWithLeadingOnesIsAccepted) {
  const Tensor x = RandomTensor(DType::kFloat32, {3, 4}, 1);
  const Tensor scale = RandomTensor(DType::kFloat32, {4}, 2);
  const Tensor scale_1x4 = scale.reshape({1, 4});
  EXPECT_TRUE(BitwiseEqual(CallLayerNorm(x, scale_1x4, nullptr, -1)[0],
                           CallLayerNorm(x, scale, nullptr, -1)[0]));
}

TEST(LayerNorm, Errors) {
  const Tensor x(DType::kFloat32, {2, 3, 4});
  const Tensor scale(DType::kFloat32, {3});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallLayerNorm(x, scale, nullptr, -1); }),
            "LayerNormalization: input 'Scale' must have shape [4] (X.shape[axis:] of X [2, 3, "
            "4]) (got shape [3])");
  const Tensor scale64(DType::kFloat64, {4});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallLayerNorm(x, scale64, nullptr, -1); }),
            "LayerNormalization: input 'Scale' must have dtype float32 (got float64)");
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallLayerNorm(x, scale, nullptr, 3); }),
            "LayerNormalization: axis 3 is out of range for rank 3");
  const Tensor ok_scale(DType::kFloat32, {4});
  Attributes stash;
  stash.set("stash_type", int64_t{10});
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              CallKernel(LayerNormalizationKernel, {}, stash, {&x, &ok_scale});
            }),
            "LayerNormalization: stash_type 10 is not supported (only 1 = float32)");
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallKernel(LayerNormalizationKernel, {}, {}, {&x}); }),
            "LayerNormalization: expected 2 to 3 inputs, got 1");
}

Tensor CallInstanceNorm(const Tensor& x, const Tensor& scale, const Tensor& bias,
                        const KernelContext& ctx = {}) {
  return CallKernel(InstanceNormalizationKernel, ctx, {}, {&x, &scale, &bias})[0];
}

TEST(InstanceNorm, HandComputedValues) {
  // One image, two channels of 2 pixels: [1, 3] (mean 2, var 1), [5, 5] (var 0).
  const Tensor x = Tensor::from_vector<float>({1, 2, 2}, {1, 3, 5, 5});
  const Tensor scale = Tensor::from_vector<float>({2}, {2, 1});
  const Tensor bias = Tensor::from_vector<float>({2}, {1, -1});
  const Tensor y = CallInstanceNorm(x, scale, bias);
  const double inv = 1 / std::sqrt(1 + 1e-5);
  EXPECT_NEAR(y.data<float>()[0], -2 * inv + 1, 1e-6);
  EXPECT_NEAR(y.data<float>()[1], 2 * inv + 1, 1e-6);
  EXPECT_FLOAT_EQ(y.data<float>()[2], -1);
  EXPECT_FLOAT_EQ(y.data<float>()[3], -1);
}

TEST(InstanceNorm, MatchesReferenceAtEveryThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1, 1}, {2, 3, 7}, {2, 3, 5, 7}, {1, 4, 33, 17}, {0, 3, 4}, {3, 2, 0}, {2, 5, 2, 3, 5}};
  uint32_t seed = 40;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& dims : shapes) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, 40, 60);
      const Tensor scale = RandomTensor(dtype, {dims[1]}, seed + 1);
      const Tensor bias = RandomTensor(dtype, {dims[1]}, seed + 2);
      const Tensor expected = InstanceNormReference(x, scale, bias, 1e-5f);
      const Tensor first = CallInstanceNorm(x, scale, bias);
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        SCOPED_TRACE(x.shape().to_string() + " threads " + std::to_string(threads));
        const Tensor y = CallInstanceNorm(x, scale, bias, {pool.get()});
        const double tol = dtype == DType::kFloat32 ? 2e-4 : 1e-10;
        EXPECT_TENSORS_NEAR(y, expected, tol, tol);
        EXPECT_TRUE(BitwiseEqual(y, first));
      }
    }
  }
}

TEST(InstanceNorm, Errors) {
  const Tensor x(DType::kFloat32, {2, 3, 4});
  const Tensor c3(DType::kFloat32, {3});
  const Tensor c4(DType::kFloat32, {4});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallInstanceNorm(x, c3, c4); }),
            "InstanceNormalization: input 'B' must have shape [3] (channels of input [2, 3, 4]) "
            "(got shape [4])");
  const Tensor flat(DType::kFloat32, {2, 3});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallInstanceNorm(flat, c3, c3); }),
            "InstanceNormalization: input 'input' must have rank >= 3 (got shape [2, 3])");
}

}  // namespace
}  // namespace loom::kernels
