#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise_vector_math.h"
#include "kernels/normalization/normalization.h"
#include "kernels/normalization/normalization_reference.h"
#include "kernels/normalization/softmax_primitives.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor CallSoftmax(bool log, const Tensor& x, int64_t axis, const KernelContext& ctx = {}) {
  Attributes attrs;
  attrs.set("axis", axis);
  return CallKernel(log ? LogSoftmaxKernel : SoftmaxKernel, ctx, attrs, {&x})[0];
}

std::vector<float> Values(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.num_elements());
}

TEST(Softmax, HandComputedValues) {
  const Tensor x = Tensor::from_vector<float>({3}, {1, 2, 3});
  // e^k / (e + e^2 + e^3) and k - 3 - log(1 + e^-1 + e^-2).
  const std::vector<double> soft = {0.0900305732, 0.2447284711, 0.6652409558};
  const std::vector<double> log_soft = {-2.4076059644, -1.4076059644, -0.4076059644};
  for (Isa isa : SupportedIsas()) {
    const std::vector<float> s = Values(CallSoftmax(false, x, -1, {nullptr, isa}));
    const std::vector<float> l = Values(CallSoftmax(true, x, 0, {nullptr, isa}));
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(s[i], soft[i], 1e-7) << IsaName(isa);
      EXPECT_NEAR(l[i], log_soft[i], 1e-6) << IsaName(isa);
    }
  }
}

TEST(Softmax, StableForLargeAndInfiniteInputs) {
  for (Isa isa : SupportedIsas()) {
    const KernelContext ctx{nullptr, isa};
    // Without the max shift e^1000 would overflow to inf and give NaN.
    EXPECT_EQ(Values(CallSoftmax(false, Tensor::from_vector<float>({2}, {1000, 1000}), 0, ctx)),
              (std::vector<float>{0.5f, 0.5f}));
    // -inf (a masked logit) gives exactly 0, and -inf under LogSoftmax.
    const Tensor masked = Tensor::from_vector<float>({1, 3}, {-kInf, 0, -kInf});
    EXPECT_EQ(Values(CallSoftmax(false, masked, 1, ctx)), (std::vector<float>{0, 1, 0}));
    EXPECT_EQ(Values(CallSoftmax(true, masked, 1, ctx)), (std::vector<float>{-kInf, 0, -kInf}));
    // Far below the max underflows to 0, not to a tiny garbage value.
    const std::vector<float> far =
        Values(CallSoftmax(false, Tensor::from_vector<float>({2}, {0, -200}), 0, ctx));
    EXPECT_EQ(far, (std::vector<float>{1, 0}));
    // Rows of length 1.
    const Tensor single = Tensor::from_vector<float>({3, 1}, {5, -7, -kInf});
    EXPECT_EQ(Values(CallSoftmax(false, single, 1, ctx))[0], 1.0f);
    EXPECT_EQ(Values(CallSoftmax(true, single, 1, ctx))[1], 0.0f);
    // NaN poisons its own row only (the row of 20 covers the vector path).
    std::vector<float> v(40, 1.0f);
    v[3] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> y =
        Values(CallSoftmax(false, Tensor::from_vector({2, 20}, v), 1, ctx));
    EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[19]));
    EXPECT_FLOAT_EQ(y[20], 0.05f);
  }
}

TEST(Softmax, MatchesReferenceForEveryIsaAndThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1}, {7}, {33}, {3, 1}, {5, 17}, {2, 3, 5}, {4, 0, 3}, {3, 1031}, {2, 300, 3}, {2, 5, 600}};
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& dims : shapes) {
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, -20, 20);
      for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
        for (bool log : {false, true}) {
          const Tensor expected = SoftmaxReference(x, axis, log);
          for (int threads : kThreadCounts) {
            auto pool = PoolWithThreads(threads);
            for (Isa isa : SupportedIsas()) {
              SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + x.shape().to_string() + " axis " +
                           std::to_string(axis) + (log ? " log " : " ") +
                           std::string(IsaName(isa)) + " threads " + std::to_string(threads));
              const Tensor y = CallSoftmax(log, x, axis, {pool.get(), isa});
              // LogSoftmax near 0 carries log(sum)'s absolute rounding (~1 ulp of 1).
              EXPECT_TENSORS_NEAR(y, expected, dtype == DType::kFloat32 ? 2e-6 : 1e-12,
                                  dtype == DType::kFloat32 ? 5e-7 : 1e-15);
            }
          }
        }
      }
    }
  }
}

TEST(Softmax, BitExactAcrossThreadCounts) {
  const Tensor rows = RandomTensor(DType::kFloat32, {97, 1000}, 3, -5, 5);
  const Tensor cols = RandomTensor(DType::kFloat32, {7, 100, 700}, 4, -5, 5);
  for (Isa isa : SupportedIsas()) {
    for (bool log : {false, true}) {
      for (const auto& [x, axis] : {std::pair{&rows, 1}, std::pair{&cols, 1}}) {
        const Tensor first = CallSoftmax(log, *x, axis, {nullptr, isa});
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          EXPECT_TRUE(BitwiseEqual(CallSoftmax(log, *x, axis, {pool.get(), isa}), first))
              << IsaName(isa) << " threads " << threads;
        }
      }
    }
  }
}

TEST(Softmax, Avx2ExpWithinTwoUlp) {
  if (!IsaSupported(Isa::kAvx2Fma)) GTEST_SKIP() << "no AVX2 on this CPU";
  std::vector<float> x, shift, y;
  for (float v = -87.0f; v <= 0.0f; v += 0.000731f) x.push_back(v);
  shift.assign(x.size(), 0.0f);
  y.resize(x.size());
  F32SoftmaxPrimitives__avx2_fma().exp_shift(x.data(), shift.data(), y.data(),
                                             static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    // One ulp of the exact value (float spacing at its magnitude).
    const double ulp = std::nextafter(static_cast<float>(exact), kInf) - static_cast<float>(exact);
    worst = std::max(worst, std::fabs(y[i] - exact) / ulp);
  }
  EXPECT_LE(worst, 2.0);
  RecordProperty("worst_ulp", std::to_string(worst));
  std::printf("AVX2 exp: worst error %.2f ulp over %zu points in [-87, 0]\n", worst, x.size());
}

// The unary Exp kernel and softmax's exp are one function (Exp8): the same
// bits for every input, subnormal results where std::exp has them (once
// softmax flushed everything below -87.3 to 0 and Exp did not), 0 from -inf,
// +inf on overflow, NaN kept.
TEST(Softmax, Avx2ExpMatchesUnaryExpOverTheWholeRange) {
  if (!IsaSupported(Isa::kAvx2Fma)) GTEST_SKIP() << "no AVX2 on this CPU";
  std::vector<float> x = {-kInf,   kInf,   std::nanf(""), -1e30f, 1e30f, -103.9f, -103.97f, -87.34f,
                          -87.33f, -87.3f, 88.72f,        88.73f, 89.0f, 0.0f,    -0.0f};
  for (float v = -110.0f; v <= 95.0f; v += 0.00917f) x.push_back(v);
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> zero(x.size(), 0.0f), softmax_exp(x.size()), unary_exp(x.size());
  F32SoftmaxPrimitives__avx2_fma().exp_shift(x.data(), zero.data(), softmax_exp.data(), n);
  F32MathFor(Isa::kAvx2Fma).exp(x.data(), unary_exp.data(), n);
  int subnormal_results = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::memcmp(&softmax_exp[i], &unary_exp[i], sizeof(float)), 0)
        << "x = " << x[i] << ": softmax " << softmax_exp[i] << ", unary " << unary_exp[i];
    const double exact = std::exp(static_cast<double>(x[i]));
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(softmax_exp[i]));
    } else if (exact > std::numeric_limits<float>::max()) {
      EXPECT_EQ(softmax_exp[i], kInf) << x[i];
    } else if (exact < std::numeric_limits<float>::min()) {
      // Subnormal or zero: within one subnormal step (2^-149).
      EXPECT_LE(std::fabs(softmax_exp[i] - exact), 1.5e-45) << x[i];
      subnormal_results += softmax_exp[i] > 0.0f;
    } else {
      const double ulp =
          std::nextafter(static_cast<float>(exact), kInf) - static_cast<float>(exact);
      EXPECT_LE(std::fabs(softmax_exp[i] - exact) / ulp, 2.0) << x[i];
    }
  }
  EXPECT_GT(subnormal_results, 1000);  // the sweep crosses [-103.9, -87.3]
  EXPECT_EQ(softmax_exp[0], 0.0f);     // exp(-inf)
}

TEST(Softmax, Errors) {
  const Tensor i = Tensor::from_vector<int32_t>({2}, {1, 2});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallSoftmax(false, i, 0); }),
            "Softmax: input 'input' must have dtype one of float32, float64 (got int32)");
  const Tensor x(DType::kFloat32, {2, 3});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallSoftmax(true, x, 2); }),
            "LogSoftmax: axis 2 is out of range for rank 2");
  const Tensor scalar(DType::kFloat32, Shape{});
  EXPECT_EQ(testing::ErrorMessageOf([&] { CallSoftmax(false, scalar, 0); }),
            "Softmax: input 'input' must have rank >= 1 (got shape [])");
  EXPECT_EQ(testing::ErrorMessageOf([&] {
              CallKernel(SoftmaxKernel, {}, {}, {&x, &x});
            }),
            "Softmax: expected 1 inputs, got 2");
}

}  // namespace
}  // namespace loom::kernels
