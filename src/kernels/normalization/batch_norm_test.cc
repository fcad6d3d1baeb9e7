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

struct Params {
  Tensor scale, bias, mean, var;
};

Params RandomParams(DType dtype, int64_t channels, uint32_t seed) {
  return {RandomTensor(dtype, {channels}, seed, 0.5, 2), RandomTensor(dtype, {channels}, seed + 1),
          RandomTensor(dtype, {channels}, seed + 2),
          RandomTensor(dtype, {channels}, seed + 3, 0.1, 3)};
}

Tensor CallBatchNorm(const Tensor& x, const Params& p, const KernelContext& ctx = {},
                     const Attributes& attrs = {}) {
  return CallKernel(BatchNormalizationKernel, ctx, attrs,
                    {&x, &p.scale, &p.bias, &p.mean, &p.var})[0];
}

TEST(BatchNorm, HandComputedValues) {
  // Two channels: (x - 1) / sqrt(4) * 3 + 1 and (x - 0) / sqrt(1) * 1 - 2.
  const Tensor x = Tensor::from_vector<float>({1, 2, 2}, {1, 5, 2, -1});
  const Params p{Tensor::from_vector<float>({2}, {3, 1}), Tensor::from_vector<float>({2}, {1, -2}),
                 Tensor::from_vector<float>({2}, {1, 0}), Tensor::from_vector<float>({2}, {4, 1})};
  Attributes attrs;
  attrs.set("epsilon", 0.0f);
  const Tensor y = CallBatchNorm(x, p, {}, attrs);
  const float* v = y.data<float>();
  EXPECT_FLOAT_EQ(v[0], 1);
  EXPECT_FLOAT_EQ(v[1], 7);
  EXPECT_FLOAT_EQ(v[2], 0);
  EXPECT_FLOAT_EQ(v[3], -3);
}

TEST(BatchNorm, MatchesReferenceAtEveryThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1},    {3, 5},    {2, 3, 7}, {2, 3, 5, 7},     {1, 4, 33, 17},
      {0, 3, 4}, {2, 0, 4}, {2, 3, 0}, {1, 2, 200, 190}, {2, 1, 2, 3, 5}};
  uint32_t seed = 10;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& dims : shapes) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, -3, 3);
      const Params p = RandomParams(dtype, dims[1], seed * 7);
      const Tensor expected = BatchNormReference(x, p.scale, p.bias, p.mean, p.var, 1e-5f);
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        SCOPED_TRACE(x.shape().to_string() + " threads " + std::to_string(threads));
        const Tensor y = CallBatchNorm(x, p, {pool.get(), Isa::kPortable});
        EXPECT_TENSORS_NEAR(y, expected, dtype == DType::kFloat32 ? 1e-5 : 1e-12,
                            dtype == DType::kFloat32 ? 1e-5 : 1e-12);
        if (threads > 1) {
          EXPECT_TRUE(BitwiseEqual(y, CallBatchNorm(x, p, {nullptr, Isa::kPortable})));
        }
      }
    }
  }
}

TEST(BatchNorm, NoCancellationForLargeMeans) {
  // x and mean near 1000 with a tiny variance: y = (x - mean) * a + B is
  // accurate where x * a + (B - mean * a) would lose ~1e-2 to cancellation.
  const Tensor x = RandomTensor(DType::kFloat32, {2, 3, 50}, 3, 999, 1001);
  const Params p{Tensor::from_vector<float>({3}, {1, 2, 0.5f}),
                 Tensor::from_vector<float>({3}, {0.5f, 0, -1}),
                 Tensor::from_vector<float>({3}, {1000, 1000.5f, 999.5f}),
                 Tensor::from_vector<float>({3}, {1e-4f, 2e-4f, 1e-4f})};
  EXPECT_TENSORS_NEAR(CallBatchNorm(x, p),
                      BatchNormReference(x, p.scale, p.bias, p.mean, p.var, 1e-5f), 1e-5, 1e-3);
}

TEST(BatchNorm, Errors) {
  const Tensor x(DType::kFloat32, {2, 3, 4});
  const Params p = RandomParams(DType::kFloat32, 3, 1);
  Attributes training;
  training.set("training_mode", int64_t{1});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallBatchNorm(x, p, {}, training); }),
            "BatchNormalization: training_mode=1 is not supported (inference only)");
  const Params wrong = RandomParams(DType::kFloat32, 4, 1);
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallBatchNorm(x, wrong); }),
            "BatchNormalization: input 'scale' must have shape [3] (channels of X [2, 3, 4]) (got "
            "shape [4])");
  const Params f64 = RandomParams(DType::kFloat64, 3, 1);
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallBatchNorm(x, f64); }),
            "BatchNormalization: input 'scale' must have dtype float32 (got float64)");
  const Tensor flat(DType::kFloat32, {3});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallBatchNorm(flat, p); }),
            "BatchNormalization: input 'X' must have rank >= 2 (got shape [3])");
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              CallKernel(BatchNormalizationKernel, {}, {}, {&x, &p.scale});
            }),
            "BatchNormalization: expected 5 inputs, got 2");
}

}  // namespace
}  // namespace loom::kernels
