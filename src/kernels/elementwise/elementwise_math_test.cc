// The scalar-math unary ops (elementwise_math.h): each against its defining
// formula evaluated here in long double (an independent computation, not
// the kernel's code path), on random inputs at edge sizes and thread
// counts, plus hand-checked values, edge values and errors.
#include "kernels/elementwise/elementwise_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "loom/float16.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::TensorValues;

using Formula = std::function<long double(long double)>;

long double SoftplusLd(long double x) { return std::log1p(std::exp(x)); }

struct Case {
  const char* op;
  KernelFn fn;
  Formula formula;
  double low, high;  // the input range (inside the function's domain)
  Attributes attrs = {};
};

std::vector<Case> Cases() {
  Attributes elu_alpha;
  elu_alpha.set("alpha", 0.5f);
  Attributes selu;
  selu.set("alpha", 2.0f).set("gamma", 3.0f);
  Attributes celu;
  celu.set("alpha", 2.0f);
  Attributes thresholded;
  thresholded.set("alpha", 0.25f);
  Attributes shrink;
  shrink.set("bias", 0.5f).set("lambd", 1.0f);
  return {
      {"Sin", SinKernel, [](long double x) { return std::sin(x); }, -6, 6},
      {"Cos", CosKernel, [](long double x) { return std::cos(x); }, -6, 6},
      {"Tan", TanKernel, [](long double x) { return std::tan(x); }, -1.4, 1.4},
      {"Asin", AsinKernel, [](long double x) { return std::asin(x); }, -1, 1},
      {"Acos", AcosKernel, [](long double x) { return std::acos(x); }, -1, 1},
      {"Atan", AtanKernel, [](long double x) { return std::atan(x); }, -20, 20},
      {"Sinh", SinhKernel, [](long double x) { return std::sinh(x); }, -5, 5},
      {"Cosh", CoshKernel, [](long double x) { return std::cosh(x); }, -5, 5},
      {"Asinh", AsinhKernel, [](long double x) { return std::asinh(x); }, -50, 50},
      {"Acosh", AcoshKernel, [](long double x) { return std::acosh(x); }, 1, 50},
      {"Atanh", AtanhKernel, [](long double x) { return std::atanh(x); }, -0.99, 0.99},
      {"Softplus", SoftplusKernel, SoftplusLd, -30, 30},
      {"Softsign", SoftsignKernel, [](long double x) { return x / (1 + std::fabs(x)); }, -9, 9},
      {"Mish", MishKernel, [](long double x) { return x * std::tanh(SoftplusLd(x)); }, -9, 9},
      {"Elu", EluKernel, [](long double x) { return x < 0 ? std::exp(x) - 1 : x; }, -5, 5},
      {"Elu alpha 0.5", EluKernel,
       [](long double x) { return x < 0 ? 0.5L * (std::exp(x) - 1) : x; }, -5, 5, elu_alpha},
      {"Selu", SeluKernel,
       [](long double x) {
         const long double alpha = 1.67326319217681884765625L, gamma = 1.05070102214813232421875L;
         return gamma * (x <= 0 ? alpha * std::exp(x) - alpha : x);
       },
       -5, 5},
      {"Selu 2 3", SeluKernel, [](long double x) { return 3 * (x <= 0 ? 2 * std::exp(x) - 2 : x); },
       -5, 5, selu},
      {"Celu 2", CeluKernel,
       [](long double x) { return std::max(0.0L, x) + std::min(0.0L, 2 * (std::exp(x / 2) - 1)); },
       -5, 5, celu},
      {"ThresholdedRelu 0.25", ThresholdedReluKernel,
       [](long double x) { return x > 0.25L ? x : 0; }, -2, 2, thresholded},
      {"Shrink 0.5 1", ShrinkKernel,
       [](long double x) { return x < -1 ? x + 0.5L : (x > 1 ? x - 0.5L : 0); }, -3, 3, shrink},
  };
}

Tensor Expected(const Tensor& x, const Formula& formula) {
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    if (x.dtype() == DType::kFloat64) {
      out.data<double>()[i] = static_cast<double>(formula(x.data<double>()[i]));
    } else {
      out.data<float>()[i] = static_cast<float>(formula(x.data<float>()[i]));
    }
  }
  return out;
}

TEST(ElementwiseMath, MatchesTheFormulaAtEveryThreadCount) {
  for (const Case& c : Cases()) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      if (std::string(c.op).starts_with("Celu") && dtype == DType::kFloat64) continue;
      for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{17}, int64_t{70001}}) {
        const Tensor x = RandomTensor(dtype, Shape({n}), 7, c.low, c.high);
        const Tensor expected = Expected(x, c.formula);
        // float32 std:: functions are within a few ulp; Mish and Selu
        // compose two of them.
        const double rtol = dtype == DType::kFloat64 ? 1e-13 : 2e-6;
        const double atol = dtype == DType::kFloat64 ? 1e-15 : 1e-6;
        Tensor first;
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor y = CallSingleOutput(c.fn, {&x}, c.attrs, pool.get());
          const std::string mismatch = testing::CompareTensors(y, expected, rtol, atol);
          EXPECT_TRUE(mismatch.empty()) << c.op << " " << dtype_name(dtype) << " n=" << n
                                        << " threads " << threads << ": " << mismatch;
          if (threads == 1) first = y;
          EXPECT_TRUE(BitwiseEqual(y, first)) << c.op << " differs across thread counts";
        }
      }
    }
  }
}

TEST(ElementwiseMath, HandCheckedValuesAndEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::from_vector<float>({5}, {0.0f, -inf, inf, 100.0f, -100.0f});
  // Softplus: log 2, 0, inf, 100 (no overflow), ~e^-100 (no underflow to
  // a wrong value).
  const std::vector<float> sp = TensorValues<float>(CallSingleOutput(SoftplusKernel, {&x}));
  EXPECT_FLOAT_EQ(sp[0], std::log(2.0f));
  EXPECT_EQ(sp[1], 0.0f);
  EXPECT_EQ(sp[2], inf);
  EXPECT_EQ(sp[3], 100.0f);
  EXPECT_FLOAT_EQ(sp[4], static_cast<float>(std::exp(-100.0)));
  // Softsign at the infinities is +-1; Mish(-inf) = -0 or 0, Mish(inf) = inf.
  const std::vector<float> ss = TensorValues<float>(CallSingleOutput(SoftsignKernel, {&x}));
  EXPECT_TRUE(std::isnan(ss[1]) || ss[1] == -1.0f);  // -inf / inf: either is IEEE-consistent
  const std::vector<float> mish = TensorValues<float>(CallSingleOutput(MishKernel, {&x}));
  EXPECT_EQ(mish[2], inf);
  EXPECT_EQ(mish[0], 0.0f);

  // Round: halves to even, like numpy.round.
  const Tensor halves =
      Tensor::from_vector<float>({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, nan});
  const std::vector<float> r = TensorValues<float>(CallSingleOutput(RoundKernel, {&halves}));
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[1], 2.0f);
  EXPECT_EQ(r[2], 2.0f);
  EXPECT_EQ(r[3], -0.0f);
  EXPECT_TRUE(std::signbit(r[3]));
  EXPECT_EQ(r[4], -2.0f);
  EXPECT_EQ(r[5], 2.0f);
  EXPECT_TRUE(std::isnan(r[6]));

  // Asin outside [-1, 1] is NaN, not an error.
  const Tensor two = Tensor::from_vector<float>({1}, {2.0f});
  EXPECT_TRUE(std::isnan(TensorValues<float>(CallSingleOutput(AsinKernel, {&two}))[0]));
}

TEST(ElementwiseMath, IsNaNAndIsInfWithTheirFlags) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = Tensor::from_vector<float>(
      {5}, {1.0f, std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.0f});
  const Tensor nan = CallSingleOutput(IsNaNKernel, {&x});
  ASSERT_EQ(nan.dtype(), DType::kBool);
  EXPECT_EQ(TensorValues<bool>(nan), (std::vector<bool>{false, true, false, false, false}));
  EXPECT_EQ(TensorValues<bool>(CallSingleOutput(IsInfKernel, {&x})),
            (std::vector<bool>{false, false, true, true, false}));
  Attributes positive_only;
  positive_only.set("detect_negative", int64_t{0});
  EXPECT_EQ(TensorValues<bool>(CallSingleOutput(IsInfKernel, {&x}, positive_only)),
            (std::vector<bool>{false, false, true, false, false}));
  Attributes negative_only;
  negative_only.set("detect_positive", int64_t{0});
  EXPECT_EQ(TensorValues<bool>(CallSingleOutput(IsInfKernel, {&x}, negative_only)),
            (std::vector<bool>{false, false, false, true, false}));
  const Tensor d = Tensor::from_vector<double>({2}, {std::nan(""), 1.0});
  EXPECT_EQ(TensorValues<bool>(CallSingleOutput(IsNaNKernel, {&d})),
            (std::vector<bool>{true, false}));
}

TEST(ElementwiseMath, Float16GoesThroughFloat32) {
  const Tensor x =
      Tensor::from_vector<Float16>({3}, {Float16(0.0f), Float16(1.0f), Float16(-2.0f)});
  const Tensor y = CallSingleOutput(CosKernel, {&x});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[1]), static_cast<float>(Float16(std::cos(1.0f))));
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[2]), static_cast<float>(Float16(std::cos(-2.0f))));
}

TEST(ElementwiseMath, ShrinkOnIntegers) {
  // lambd 1.5, bias 1: -3 -> -2, -1 -> 0, 0 -> 0, 2 -> 1, 5 -> 4.
  Attributes attrs;
  attrs.set("bias", 1.0f).set("lambd", 1.5f);
  const Tensor x = Tensor::from_vector<int32_t>({5}, {-3, -1, 0, 2, 5});
  const Tensor y = CallSingleOutput(ShrinkKernel, {&x}, attrs);
  ASSERT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(TensorValues<int32_t>(y), (std::vector<int32_t>{-2, 0, 0, 1, 4}));
  const Tensor u = Tensor::from_vector<uint8_t>({3}, {0, 1, 200});
  EXPECT_EQ(TensorValues<uint8_t>(CallSingleOutput(ShrinkKernel, {&u}, attrs)),
            (std::vector<uint8_t>{0, 0, 199}));
}

TEST(ElementwiseMath, ErrorsNameTheOpAndInput) {
  const Tensor ints = Tensor::from_vector<int32_t>({1}, {1});
  EXPECT_NE(testing::KernelErrorOf(SinKernel, {&ints}).find("Sin"), std::string::npos)
      << testing::KernelErrorOf(SinKernel, {&ints});
  EXPECT_NE(testing::KernelErrorOf(IsNaNKernel, {&ints}).find("int32"), std::string::npos);
  const Tensor d = Tensor::from_vector<double>({1}, {1.0});
  EXPECT_NE(testing::KernelErrorOf(CeluKernel, {&d}).find("float64"), std::string::npos)
      << testing::KernelErrorOf(CeluKernel, {&d});
  Attributes zero;
  zero.set("alpha", 0.0f);
  const Tensor f = Tensor::from_vector<float>({1}, {1.0f});
  EXPECT_NE(testing::KernelErrorOf(CeluKernel, {&f}, zero).find("alpha"), std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(SinKernel, {&f, &f}).find("Sin"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
