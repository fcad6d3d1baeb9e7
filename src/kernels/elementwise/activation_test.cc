// ApplyActivation and the float32 vector math against the double-precision
// reference: dense sweeps that measure the approximation errors quoted in
// x86/vector_math_impl.h, special values, tails shorter than a vector, and
// the AVX-512 row against the AVX2 row bit for bit.
#include "kernels/elementwise/activation.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise_vector_math.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::SupportedIsas;

constexpr float kInf = std::numeric_limits<float>::infinity();

// x from -limit to limit in `count` steps, plus special values.
std::vector<float> Sweep(float limit, int count) {
  std::vector<float> xs;
  for (int i = 0; i <= count; ++i) xs.push_back(-limit + 2 * limit * static_cast<float>(i) / count);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-4f, -3e-4f, kInf, -kInf}) xs.push_back(v);
  return xs;
}

struct ActivationCase {
  Activation activation;
  float limit;
  double atol, rtol;
};

TEST(Activation, MatchesReferenceOnEveryIsa) {
  const ActivationCase cases[] = {
      {{ActivationKind::kIdentity}, 100, 0, 0},
      {{ActivationKind::kRelu}, 100, 0, 0},
      {{ActivationKind::kLeakyRelu, 0.1f}, 100, 0, 2e-7},
      {{ActivationKind::kClip, -1.5f, 2.5f}, 10, 0, 0},
      {{ActivationKind::kSigmoid}, 30, 1e-6, 0},
      {{ActivationKind::kTanh}, 12, 1e-6, 0},
      {{ActivationKind::kHardSigmoid, 0.2f, 0.5f}, 10, 1e-7, 2e-7},
      {{ActivationKind::kHardSwish}, 10, 1e-7, 4e-7},
      {{ActivationKind::kSilu}, 30, 1e-6, 1e-6},
      {{ActivationKind::kGelu}, 10, 1e-6, 1e-6},
      {{ActivationKind::kGelu, 0, 0, true}, 10, 1e-6, 1e-6},
  };
  for (const ActivationCase& c : cases) {
    const std::vector<float> xs = Sweep(c.limit, 200001);
    for (Isa isa : SupportedIsas()) {
      std::vector<float> ys = xs;
      ApplyActivation(c.activation, ys.data(), static_cast<int64_t>(ys.size()), isa);
      double worst = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const float expected = ActivationReference(c.activation, xs[i]);
        if (std::isnan(expected) || std::isnan(ys[i])) {  // HardSwish(-inf) = -inf * 0
          EXPECT_TRUE(std::isnan(expected) && std::isnan(ys[i])) << "x=" << xs[i];
          continue;
        }
        if (std::isinf(expected) || std::isinf(ys[i])) {
          EXPECT_EQ(ys[i], expected) << "x=" << xs[i];
          continue;
        }
        const double error = std::fabs(static_cast<double>(ys[i]) - expected);
        worst = std::max(worst, error);
        ASSERT_LE(error, c.atol + c.rtol * std::fabs(expected))
            << ActivationName(c.activation.kind) << " isa " << IsaName(isa) << " x=" << xs[i]
            << " got " << ys[i] << " want " << expected;
      }
      std::printf("%-12s %-9s max abs error %.3g\n",
                  std::string(ActivationName(c.activation.kind)).c_str(),
                  std::string(IsaName(isa)).c_str(), worst);
    }
  }
}

TEST(Activation, TailsAndEmptyInput) {
  for (Isa isa : SupportedIsas()) {
    for (int64_t n : {0, 1, 5, 7, 8, 9, 15, 16, 17}) {
      std::vector<float> data(static_cast<size_t>(n) + 1, -2.0f);
      data.back() = 123.0f;  // guard: must stay untouched
      ApplyActivation({ActivationKind::kRelu}, data.data(), n, isa);
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(data[i], 0.0f);
      EXPECT_EQ(data.back(), 123.0f) << "n=" << n << " wrote past the end";
    }
  }
}

// The AVX-512 row runs the AVX2 row's operations on 16 lanes: the same
// bits for every function, over every 4093rd float bit pattern (NaNs,
// infinities and subnormals among them), a dense sweep of [-20, 20), and
// every length up to 40 (whole vectors of both widths plus each tail).
TEST(VectorMath, Avx512GivesTheAvx2Bits) {
  if (!IsaSupported(Isa::kAvx512f)) GTEST_SKIP() << "no AVX-512 on this CPU";
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4093) {
    xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  for (int i = 0; i < 100000; ++i) xs.push_back(-20.0f + 4e-4f * static_cast<float>(i));
  const int64_t n = static_cast<int64_t>(xs.size());
  const F32MathKernels& avx2 = F32MathFor(Isa::kAvx2Fma);
  const F32MathKernels& avx512 = F32MathFor(Isa::kAvx512f);
  ASSERT_NE(avx2.activation, avx512.activation);
  auto expect_same = [&](auto run2, auto run512, const std::string& what) {
    for (int64_t len : {n, int64_t{1}, int64_t{7}, int64_t{8}, int64_t{15}, int64_t{16},
                        int64_t{17}, int64_t{31}, int64_t{33}, int64_t{40}}) {
      std::vector<float> y2(static_cast<size_t>(len)), y512(static_cast<size_t>(len));
      const float* x = xs.data() + (len == n ? 0 : 70000);
      run2(x, y2.data(), len);
      run512(x, y512.data(), len);
      for (int64_t i = 0; i < len; ++i) {
        ASSERT_EQ(std::bit_cast<uint32_t>(y2[static_cast<size_t>(i)]),
                  std::bit_cast<uint32_t>(y512[static_cast<size_t>(i)]))
            << what << " x " << x[i] << " length " << len;
      }
    }
  };
  const std::pair<F32UnaryFn F32MathKernels::*, const char*> unary[] = {
      {&F32MathKernels::exp, "exp"},
      {&F32MathKernels::log, "log"},
      {&F32MathKernels::erf, "erf"},
      {&F32MathKernels::floor, "floor"},
      {&F32MathKernels::ceil, "ceil"}};
  for (const auto& [fn, name] : unary) expect_same(avx2.*fn, avx512.*fn, name);
  for (int kind = 0; kind <= static_cast<int>(ActivationKind::kGelu); ++kind) {
    for (bool gelu_tanh : {false, true}) {
      Activation a{static_cast<ActivationKind>(kind), 0.2f, 0.6f, gelu_tanh};
      expect_same([&](const float* x, float* y, int64_t len) { avx2.activation(a, x, y, len); },
                  [&](const float* x, float* y, int64_t len) { avx512.activation(a, x, y, len); },
                  std::string(ActivationName(a.kind)) + (gelu_tanh ? " (tanh form)" : ""));
    }
  }
}

TEST(Activation, NamesAreOnnxOpNames) {
  EXPECT_EQ(ActivationName(ActivationKind::kIdentity), "Identity");
  EXPECT_EQ(ActivationName(ActivationKind::kLeakyRelu), "LeakyRelu");
  EXPECT_EQ(ActivationName(ActivationKind::kHardSwish), "HardSwish");
  EXPECT_EQ(ActivationName(ActivationKind::kGelu), "Gelu");
}

// Relative error of a float against a double, in units of 2^-24 (about
// half an ulp, so "2" here is about one ulp).
double RelativeError(float actual, double expected) {
  return std::fabs(actual - expected) / std::fabs(expected);
}

TEST(VectorMath, ExpRelativeErrorOnEveryIsa) {
  std::vector<float> xs;
  for (float x = -87.0f; x <= 88.7f; x += 1.3e-3f) xs.push_back(x);
  for (Isa isa : SupportedIsas()) {
    std::vector<float> ys(xs.size());
    F32MathFor(isa).exp(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      worst = std::max(worst, RelativeError(ys[i], std::exp(static_cast<double>(xs[i]))));
    }
    std::printf("exp %-9s max relative error %.3g\n", std::string(IsaName(isa)).c_str(), worst);
    EXPECT_LE(worst, 2e-7) << IsaName(isa);
    // Subnormal results: within one subnormal step.
    const float tiny[] = {-88.0f, -95.0f, -100.0f, -103.0f, -103.9f, -200.0f, -kInf};
    float out[7];
    F32MathFor(isa).exp(tiny, out, 7);
    for (int i = 0; i < 7; ++i) {
      EXPECT_LE(std::fabs(out[i] - std::exp(static_cast<double>(tiny[i]))), 1.5e-45) << tiny[i];
    }
    const float big[] = {88.8f, 100.0f, kInf, std::numeric_limits<float>::quiet_NaN()};
    float big_out[4];
    F32MathFor(isa).exp(big, big_out, 4);
    EXPECT_EQ(big_out[0], kInf);
    EXPECT_EQ(big_out[1], kInf);
    EXPECT_EQ(big_out[2], kInf);
    EXPECT_TRUE(std::isnan(big_out[3]));
  }
}

TEST(VectorMath, LogRelativeErrorOnEveryIsa) {
  // Every 977th positive float bit pattern: subnormals to the largest finite.
  std::vector<float> xs;
  for (uint32_t bits = 1; bits < 0x7f800000u; bits += 977) xs.push_back(std::bit_cast<float>(bits));
  for (Isa isa : SupportedIsas()) {
    std::vector<float> ys(xs.size());
    F32MathFor(isa).log(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double expected = std::log(static_cast<double>(xs[i]));
      if (expected == 0) continue;
      worst = std::max(worst, RelativeError(ys[i], expected));
    }
    std::printf("log %-9s max relative error %.3g\n", std::string(IsaName(isa)).c_str(), worst);
    EXPECT_LE(worst, 2.5e-7) << IsaName(isa);
    const float special[] = {
        0.0f, -0.0f, -1.0f, kInf, -kInf, 1.0f, std::numeric_limits<float>::quiet_NaN()};
    float out[7];
    F32MathFor(isa).log(special, out, 7);
    EXPECT_EQ(out[0], -kInf);
    EXPECT_EQ(out[1], -kInf);
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_EQ(out[3], kInf);
    EXPECT_TRUE(std::isnan(out[4]));
    EXPECT_EQ(out[5], 0.0f);
    EXPECT_TRUE(std::isnan(out[6]));
  }
}

TEST(VectorMath, ErfAbsoluteErrorOnEveryIsa) {
  const std::vector<float> xs = Sweep(6.0f, 400001);
  for (Isa isa : SupportedIsas()) {
    std::vector<float> ys(xs.size());
    F32MathFor(isa).erf(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      worst = std::max(worst, std::fabs(ys[i] - std::erf(static_cast<double>(xs[i]))));
    }
    std::printf("erf %-9s max abs error %.3g\n", std::string(IsaName(isa)).c_str(), worst);
    EXPECT_LE(worst, 1e-6) << IsaName(isa);
  }
}

}  // namespace
}  // namespace loom::kernels
