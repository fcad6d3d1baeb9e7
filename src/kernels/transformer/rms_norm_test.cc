#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "kernels/transformer/transformer.h"
#include "kernels/transformer/transformer_reference.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;

Tensor CallRms(const Tensor& x, const Tensor& scale, int64_t axis, threading::ThreadPool* pool,
               float epsilon = 1e-5f) {
  Attributes attrs;
  attrs.set("axis", axis);
  attrs.set("epsilon", epsilon);
  return testing::CallSingleOutput(RMSNormalizationKernel, {&x, &scale}, attrs, pool);
}

TEST(RMSNormalization, HandComputedValues) {
  // Row [1, 2, 3, 4]: mean square 7.5.
  const Tensor x = Tensor::from_vector<float>({1, 4}, {1, 2, 3, 4});
  const Tensor scale = Tensor::from_vector<float>({4}, {1, 1, 2, -1});
  const Tensor y = CallRms(x, scale, -1, nullptr, 0.5f);
  const double inv = 1 / std::sqrt(7.5 + 0.5);
  const float* p = y.data<float>();
  EXPECT_NEAR(p[0], 1 * inv, 1e-6);
  EXPECT_NEAR(p[1], 2 * inv, 1e-6);
  EXPECT_NEAR(p[2], 6 * inv, 1e-6);
  EXPECT_NEAR(p[3], -4 * inv, 1e-6);
}

TEST(RMSNormalization, MatchesReferenceAtEveryThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1}, {7}, {3, 1}, {5, 17}, {2, 3, 33}, {4, 0, 3}, {3, 0}, {64, 768}, {2, 3, 5, 7}};
  uint32_t seed = 40;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    for (const auto& dims : shapes) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, -3, 3);
      for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
        const std::vector<int64_t> normalized(dims.begin() + axis, dims.end());
        const Tensor scale = RandomTensor(dtype, Shape(normalized), ++seed);
        const Tensor expected = RMSNormReference(x, scale, axis, 1e-5f);
        const double tol = dtype == DType::kFloat32   ? 1e-5
                           : dtype == DType::kFloat64 ? 1e-12
                                                      : 1e-2;
        Tensor first;
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor y =
              CallRms(x, scale, axis - static_cast<int>(dims.size()) * (axis % 2), pool.get());
          EXPECT_TENSORS_NEAR(y, expected, tol, tol);
          if (threads == 1) {
            first = y;
          } else {
            EXPECT_TRUE(BitwiseEqual(y, first)) << threads << " threads";
          }
        }
      }
    }
  }
}

TEST(RMSNormalization, BroadcastScaleAndMixedDtypes) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({3, 4, 5}), 7, -2, 2);
  for (const Shape& s : {Shape({5}), Shape({1, 5}), Shape({4, 1}), Shape({1}), Shape({1, 4, 5})}) {
    const Tensor scale = RandomTensor(DType::kFloat32, s, 8);
    EXPECT_TENSORS_NEAR(CallRms(x, scale, 1, nullptr), RMSNormReference(x, scale, 1, 1e-5f), 1e-5,
                        1e-5);
  }
  // Y takes scale's dtype.
  const Tensor half_scale = RandomTensor(DType::kFloat16, Shape({5}), 9);
  const Tensor y = CallRms(x, half_scale, -1, nullptr);
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_TENSORS_NEAR(y, RMSNormReference(x, half_scale, 2, 1e-5f), 1e-3, 1e-3);
  const Tensor f64_scale = RandomTensor(DType::kFloat64, Shape({5}), 10);
  EXPECT_TENSORS_NEAR(CallRms(x, f64_scale, -1, nullptr), RMSNormReference(x, f64_scale, 2, 1e-5f),
                      1e-6, 1e-6);
}

TEST(RMSNormalization, Errors) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({2, 3}), 1);
  const Tensor bad = RandomTensor(DType::kFloat32, Shape({4}), 2);
  const Tensor ints = Tensor::from_vector<int32_t>({3}, {1, 2, 3});
  const Tensor scalar(DType::kFloat32, Shape());
  EXPECT_NE(testing::KernelErrorOf(RMSNormalizationKernel, {&x, &bad})
                .find("RMSNormalization: input 'scale' must broadcast to [3]"),
            std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(RMSNormalizationKernel, {&x, &ints}).find("RMSNormalization"),
            std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(RMSNormalizationKernel, {&scalar, &scalar}).find("rank >= 1"),
            std::string::npos);
  Attributes axis;
  axis.set("axis", int64_t{2});
  EXPECT_NE(testing::KernelErrorOf(RMSNormalizationKernel, {&x, &bad}, axis).find("axis"),
            std::string::npos);
  Attributes stash;
  stash.set("stash_type", int64_t{0});
  EXPECT_NE(testing::KernelErrorOf(RMSNormalizationKernel, {&x, &bad}, stash).find("not supported"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
