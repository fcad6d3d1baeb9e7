// The random generators: shapes and dtypes, seeded runs repeat, distinct
// seeds differ, and the samples have the distributions' moments. The
// statistical checks use fixed seeds, so they are deterministic; their
// bounds are several standard errors wide.
#include "kernels/random/random_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

Attributes Seeded(float seed) {
  Attributes attrs;
  attrs.set("seed", seed);
  return attrs;
}

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(testing::ElementAsDouble(t, i));
  return out;
}

void ExpectMoments(const std::vector<double>& x, double mean, double variance) {
  double sum = 0;
  for (double v : x) sum += v;
  const double m = sum / static_cast<double>(x.size());
  double squares = 0;
  for (double v : x) squares += (v - m) * (v - m);
  const double var = squares / static_cast<double>(x.size() - 1);
  const double standard_error = std::sqrt(variance / static_cast<double>(x.size()));
  EXPECT_NEAR(m, mean, 5 * standard_error);
  EXPECT_NEAR(var, variance, 0.05 * variance);
}

TEST(RandomUniform, ShapeDtypeRangeAndMoments) {
  Attributes attrs = Seeded(3.0f);
  attrs.set("shape", std::vector<int64_t>{200, 500});
  attrs.set("low", -2.0f);
  attrs.set("high", 6.0f);
  const Tensor x = testing::CallSingleOutput(RandomUniformKernel, {}, attrs);
  EXPECT_EQ(x.dtype(), DType::kFloat32);
  EXPECT_EQ(x.shape(), Shape({200, 500}));
  const std::vector<double> v = AsDoubles(x);
  for (double e : v) {
    ASSERT_GE(e, -2.0);
    ASSERT_LT(e, 6.0);
  }
  ExpectMoments(v, 2.0, 64.0 / 12.0);  // (high - low)^2 / 12
  attrs.set("dtype", int64_t{11});
  EXPECT_EQ(testing::CallSingleOutput(RandomUniformKernel, {}, attrs).dtype(), DType::kFloat64);
}

TEST(RandomNormal, MomentsAndFloat16) {
  Attributes attrs = Seeded(11.0f);
  attrs.set("shape", std::vector<int64_t>{100000});
  attrs.set("mean", 1.5f);
  attrs.set("scale", 0.5f);
  const Tensor x = testing::CallSingleOutput(RandomNormalKernel, {}, attrs);
  ExpectMoments(AsDoubles(x), 1.5, 0.25);
  // About 95.4 % within two standard deviations.
  int64_t inside = 0;
  for (double e : AsDoubles(x)) inside += std::fabs(e - 1.5) < 1.0 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(inside) / 100000.0, 0.9545, 0.005);
  attrs.set("dtype", int64_t{10});
  attrs.set("shape", std::vector<int64_t>{4});
  EXPECT_EQ(testing::CallSingleOutput(RandomNormalKernel, {}, attrs).dtype(), DType::kFloat16);
}

TEST(RandomGenerators, ASeedRepeatsAndOtherSeedsDiffer) {
  Attributes a = Seeded(1.0f);
  a.set("shape", std::vector<int64_t>{64});
  Attributes b = Seeded(2.0f);
  b.set("shape", std::vector<int64_t>{64});
  const Tensor first = testing::CallSingleOutput(RandomNormalKernel, {}, a);
  const Tensor again = testing::CallSingleOutput(RandomNormalKernel, {}, a);
  const Tensor other = testing::CallSingleOutput(RandomNormalKernel, {}, b);
  EXPECT_TRUE(testing::BitwiseEqual(first, again));
  EXPECT_FALSE(testing::BitwiseEqual(first, other));
  Attributes unseeded;
  unseeded.set("shape", std::vector<int64_t>{64});
  EXPECT_FALSE(testing::BitwiseEqual(testing::CallSingleOutput(RandomUniformKernel, {}, unseeded),
                                     testing::CallSingleOutput(RandomUniformKernel, {}, unseeded)));
}

TEST(RandomLike, TakesTheInputsShapeAndDtype) {
  const Tensor like(DType::kFloat64, {3, 4});
  const Tensor u = testing::CallSingleOutput(RandomUniformLikeKernel, {&like}, Seeded(5.0f));
  EXPECT_EQ(u.dtype(), DType::kFloat64);
  EXPECT_EQ(u.shape(), Shape({3, 4}));
  const Tensor ints(DType::kInt64, {2});
  EXPECT_NE(testing::KernelErrorOf(RandomNormalLikeKernel, {&ints}).find("dtype"),
            std::string::npos);
  Attributes to_float = Seeded(5.0f);
  to_float.set("dtype", int64_t{1});
  EXPECT_EQ(testing::CallSingleOutput(RandomNormalLikeKernel, {&ints}, to_float).dtype(),
            DType::kFloat32);
}

TEST(Bernoulli, ZeroOneAndFrequency) {
  std::vector<float> p(30000, 0.3f);
  p[0] = 0.0f;
  p[1] = 1.0f;
  const Tensor probabilities = Tensor::from_vector(Shape({30000}), p);
  const Tensor x = testing::CallSingleOutput(BernoulliKernel, {&probabilities}, Seeded(7.0f));
  EXPECT_EQ(x.dtype(), DType::kFloat32);
  const std::vector<double> v = AsDoubles(x);
  EXPECT_EQ(v[0], 0.0);
  EXPECT_EQ(v[1], 1.0);
  double ones = 0;
  for (size_t i = 2; i < v.size(); ++i) {
    ASSERT_TRUE(v[i] == 0.0 || v[i] == 1.0);
    ones += v[i];
  }
  const double n = static_cast<double>(v.size() - 2);
  EXPECT_NEAR(ones / n, 0.3, 5 * std::sqrt(0.3 * 0.7 / n));
  Attributes as_bool = Seeded(7.0f);
  as_bool.set("dtype", int64_t{9});
  const Tensor b = testing::CallSingleOutput(BernoulliKernel, {&probabilities}, as_bool);
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_FALSE(b.data<bool>()[0]);
  EXPECT_TRUE(b.data<bool>()[1]);
  const Tensor bad = Tensor::from_vector(Shape({2}), std::vector<float>{0.5f, 1.5f});
  EXPECT_NE(testing::KernelErrorOf(BernoulliKernel, {&bad}).find("not a probability"),
            std::string::npos);
}

TEST(Multinomial, FrequenciesFollowTheSoftmax) {
  // Row 0: log-probabilities of 1/6, 2/6, 3/6; row 1: only class 2 possible.
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor logits = Tensor::from_vector(
      Shape({2, 3}),
      std::vector<float>{std::log(1.0f), std::log(2.0f), std::log(3.0f), -inf, -inf, 4.0f});
  Attributes attrs = Seeded(13.0f);
  attrs.set("sample_size", int64_t{60000});
  attrs.set("dtype", int64_t{7});
  const Tensor x = testing::CallSingleOutput(MultinomialKernel, {&logits}, attrs);
  EXPECT_EQ(x.dtype(), DType::kInt64);
  EXPECT_EQ(x.shape(), Shape({2, 60000}));
  std::vector<double> counts(3, 0);
  for (int64_t s = 0; s < 60000; ++s) counts[static_cast<size_t>(x.data<int64_t>()[s])] += 1;
  for (int c = 0; c < 3; ++c) {
    const double p = (c + 1) / 6.0;
    EXPECT_NEAR(counts[c] / 60000.0, p, 5 * std::sqrt(p * (1 - p) / 60000.0)) << c;
  }
  for (int64_t s = 0; s < 60000; ++s) ASSERT_EQ(x.data<int64_t>()[60000 + s], 2);
  Attributes int32 = Seeded(13.0f);
  EXPECT_EQ(testing::CallSingleOutput(MultinomialKernel, {&logits}, int32).dtype(), DType::kInt32);
  const Tensor nothing = Tensor::from_vector(Shape({1, 2}), std::vector<float>{-inf, -inf});
  EXPECT_NE(testing::KernelErrorOf(MultinomialKernel, {&nothing}).find("no finite"),
            std::string::npos);
}

TEST(RandomGenerators, BadAttributesAreErrors) {
  EXPECT_NE(testing::KernelErrorOf(RandomUniformKernel, {}).find("'shape' is required"),
            std::string::npos);
  Attributes negative;
  negative.set("shape", std::vector<int64_t>{2, -1});
  EXPECT_NE(testing::KernelErrorOf(RandomNormalKernel, {}, negative).find("negative"),
            std::string::npos);
  Attributes ints;
  ints.set("shape", std::vector<int64_t>{2});
  ints.set("dtype", int64_t{7});
  EXPECT_NE(testing::KernelErrorOf(RandomUniformKernel, {}, ints).find("floating-point"),
            std::string::npos);
  EXPECT_TRUE(IsRandomOp("Bernoulli"));
  EXPECT_FALSE(IsRandomOp("Dropout"));
}

}  // namespace
}  // namespace loom::kernels
