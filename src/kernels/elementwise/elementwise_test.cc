// Broadcast binary, variadic, comparison, logic and Where kernels: small
// hand-computed cases, then every op against ElementwiseReference on edge
// shapes at every thread count and ISA, then the error messages.
#include "kernels/elementwise/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise_common.h"
#include "kernels/elementwise/elementwise_reference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CompareTensors;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;

using NamedKernel = std::pair<const char*, KernelFn>;

// ---- hand-computed values ----

TEST(Elementwise, AddBroadcastsRowAndColumn) {
  const Tensor a = Tensor::from_vector<float>({2, 1}, {10, 20});
  const Tensor b = Tensor::from_vector<float>({3}, {1, 2, 3});
  const Tensor y = testing::CallSingleOutput(AddKernel, {&a, &b});
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  EXPECT_EQ(testing::TensorValues<float>(y), (std::vector<float>{11, 12, 13, 21, 22, 23}));
}

TEST(Elementwise, SubMulDivScalar) {
  const Tensor a = Tensor::from_vector<float>({3}, {1, 4, -6});
  const Tensor two = Tensor::from_vector<float>({}, {2});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(SubKernel, {&a, &two})),
            (std::vector<float>{-1, 2, -8}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(SubKernel, {&two, &a})),
            (std::vector<float>{1, -2, 8}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(MulKernel, {&a, &two})),
            (std::vector<float>{2, 8, -12}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(DivKernel, {&a, &two})),
            (std::vector<float>{0.5f, 2, -3}));
}

TEST(Elementwise, IntegerDivTruncatesAndWraps) {
  const Tensor a =
      Tensor::from_vector<int32_t>({4}, {7, -7, std::numeric_limits<int32_t>::min(), 5});
  const Tensor b = Tensor::from_vector<int32_t>({4}, {2, 2, -1, -3});
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(DivKernel, {&a, &b})),
            (std::vector<int32_t>{3, -3, std::numeric_limits<int32_t>::min(), -1}));
}

TEST(Elementwise, IntegerAddWrapsAround) {
  const Tensor a = Tensor::from_vector<int8_t>({2}, {127, -128});
  const Tensor b = Tensor::from_vector<int8_t>({2}, {1, -1});
  EXPECT_EQ(testing::TensorValues<int8_t>(testing::CallSingleOutput(AddKernel, {&a, &b})),
            (std::vector<int8_t>{-128, 127}));
  const Tensor u = Tensor::from_vector<uint8_t>({2}, {200, 16});
  const Tensor v = Tensor::from_vector<uint8_t>({2}, {2, 16});
  EXPECT_EQ(testing::TensorValues<uint8_t>(testing::CallSingleOutput(MulKernel, {&u, &v})),
            (std::vector<uint8_t>{144, 0}));
}

TEST(Elementwise, ModFollowsDivisorSignUnlessFmod) {
  const Tensor a = Tensor::from_vector<int64_t>({4}, {-7, 7, -7, 7});
  const Tensor b = Tensor::from_vector<int64_t>({4}, {3, -3, -3, 3});
  EXPECT_EQ(testing::TensorValues<int64_t>(testing::CallSingleOutput(ModKernel, {&a, &b})),
            (std::vector<int64_t>{2, -2, -1, 1}));
  const Attributes fmod = Attributes().set("fmod", int64_t{1});
  EXPECT_EQ(testing::TensorValues<int64_t>(testing::CallSingleOutput(ModKernel, {&a, &b}, fmod)),
            (std::vector<int64_t>{-1, 1, -1, 1}));
  const Tensor f = Tensor::from_vector<float>({2}, {-7.5f, 7.5f});
  const Tensor g = Tensor::from_vector<float>({2}, {2, -2});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ModKernel, {&f, &g}, fmod)),
            (std::vector<float>{-1.5f, 1.5f}));
}

TEST(Elementwise, PowFloatIntegerAndMixedExponent) {
  const Tensor x = Tensor::from_vector<float>({3}, {2, 9, -2});
  const Tensor y = Tensor::from_vector<float>({3}, {10, 0.5f, 3});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(PowKernel, {&x, &y})),
            (std::vector<float>{1024, 3, -8}));
  const Tensor xi = Tensor::from_vector<int32_t>({4}, {3, -2, 2, 4});
  const Tensor yi = Tensor::from_vector<int64_t>({4}, {4, 3, -1, 0});
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(PowKernel, {&xi, &yi})),
            (std::vector<int32_t>{81, -8, 0, 1}));
  const Tensor half = Tensor::from_vector<float>({}, {0.5f});
  const Tensor sq = Tensor::from_vector<int32_t>({2}, {16, 81});
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(PowKernel, {&sq, &half})),
            (std::vector<int32_t>{4, 9}));
}

TEST(Elementwise, VariadicMaxMinSumMean) {
  const Tensor a = Tensor::from_vector<float>({3}, {1, 5, 3});
  const Tensor b = Tensor::from_vector<float>({2, 1}, {2, 4});
  const Tensor c = Tensor::from_vector<float>({}, {3});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(MaxKernel, {&a, &b, &c})),
            (std::vector<float>{3, 5, 3, 4, 5, 4}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(MinKernel, {&a, &b, &c})),
            (std::vector<float>{1, 2, 2, 1, 3, 3}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(SumKernel, {&a, &b, &c})),
            (std::vector<float>{6, 10, 8, 8, 12, 10}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(MeanKernel, {&a, &b, &c})),
            (std::vector<float>{2, 10.0f / 3, 8.0f / 3, 8.0f / 3, 4, 10.0f / 3}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(SumKernel, {&a})),
            (std::vector<float>{1, 5, 3}));
}

TEST(Elementwise, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = Tensor::from_vector<float>({2}, {nan, 1});
  const Tensor b = Tensor::from_vector<float>({2}, {1, nan});
  for (KernelFn fn : {MaxKernel, MinKernel}) {
    const std::vector<float> y =
        testing::TensorValues<float>(testing::CallSingleOutput(fn, {&a, &b}));
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_TRUE(std::isnan(y[1]));
  }
}

TEST(Elementwise, ComparisonsAndLogic) {
  const Tensor a = Tensor::from_vector<int32_t>({3}, {1, 2, 3});
  const Tensor b = Tensor::from_vector<int32_t>({}, {2});
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(EqualKernel, {&a, &b})),
            (std::vector<bool>{false, true, false}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(LessKernel, {&a, &b})),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(GreaterKernel, {&a, &b})),
            (std::vector<bool>{false, false, true}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(LessOrEqualKernel, {&a, &b})),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(GreaterOrEqualKernel, {&a, &b})),
            (std::vector<bool>{false, true, true}));
  const Tensor p = Tensor::from_vector<bool>({4}, {false, false, true, true});
  const Tensor q = Tensor::from_vector<bool>({4}, {false, true, false, true});
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(AndKernel, {&p, &q})),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(OrKernel, {&p, &q})),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(XorKernel, {&p, &q})),
            (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(NotKernel, {&p})),
            (std::vector<bool>{true, true, false, false}));
}

TEST(Elementwise, NaNComparesFalse) {
  const Tensor a = Tensor::from_vector<float>({1}, {std::numeric_limits<float>::quiet_NaN()});
  for (KernelFn fn :
       {EqualKernel, LessKernel, GreaterKernel, LessOrEqualKernel, GreaterOrEqualKernel}) {
    EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(fn, {&a, &a})),
              std::vector<bool>{false});
  }
}

TEST(Elementwise, WhereBroadcastsThreeWays) {
  const Tensor c = Tensor::from_vector<bool>({2, 1}, {true, false});
  const Tensor x = Tensor::from_vector<int64_t>({3}, {1, 2, 3});
  const Tensor y = Tensor::from_vector<int64_t>({}, {-1});
  const Tensor out = testing::CallSingleOutput(WhereKernel, {&c, &x, &y});
  EXPECT_EQ(out.shape(), Shape({2, 3}));
  EXPECT_EQ(testing::TensorValues<int64_t>(out), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(Elementwise, Float16ArithmeticRoundsOnce) {
  const Tensor a = Tensor::from_vector<Float16>({2}, {Float16(1.0f), Float16(2048.0f)});
  const Tensor b = Tensor::from_vector<Float16>({2}, {Float16(0.5f), Float16(1.0f)});
  const Tensor y = testing::CallSingleOutput(AddKernel, {&a, &b});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  // 2048 + 1 is halfway between float16 2048 and 2050: ties to even.
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[1]), 2048.0f);
}

TEST(Elementwise, BFloat16ArithmeticRoundsOnceToNearestEven) {
  // bfloat16 keeps 8 significant bits: 256 + 1 is halfway between 256 and
  // 258 (ties to even: 256); 256 + 3 = 259 is halfway between 258 and 260
  // (to 260). 1 / 3 rounds to 0x3eab. Values worked out by hand.
  const Tensor a =
      Tensor::from_vector<BFloat16>({3}, {BFloat16(256.0f), BFloat16(256.0f), BFloat16(1.0f)});
  const Tensor b =
      Tensor::from_vector<BFloat16>({3}, {BFloat16(1.0f), BFloat16(3.0f), BFloat16(3.0f)});
  const Tensor sum = testing::CallSingleOutput(AddKernel, {&a, &b});
  ASSERT_EQ(sum.dtype(), DType::kBFloat16);
  EXPECT_EQ(static_cast<float>(sum.data<BFloat16>()[0]), 256.0f);
  EXPECT_EQ(static_cast<float>(sum.data<BFloat16>()[1]), 260.0f);
  const Tensor quotient = testing::CallSingleOutput(DivKernel, {&a, &b});
  EXPECT_EQ(quotient.data<BFloat16>()[2].bits, 0x3eab);
  const Tensor product = testing::CallSingleOutput(MulKernel, {&a, &b});
  EXPECT_EQ(static_cast<float>(product.data<BFloat16>()[1]), 768.0f);
  // Overflow to infinity: the largest finite bfloat16 doubled.
  const Tensor big = Tensor::from_vector<BFloat16>({1}, {BFloat16::from_bits(0x7f7f)});
  EXPECT_EQ(testing::CallSingleOutput(AddKernel, {&big, &big}).data<BFloat16>()[0].bits, 0x7f80);
  const Tensor less = testing::CallSingleOutput(LessKernel, {&a, &b});
  EXPECT_EQ(testing::TensorValues<bool>(less), (std::vector<bool>{false, false, true}));
  const Tensor fmod =
      testing::CallSingleOutput(ModKernel, {&a, &b}, Attributes().set("fmod", int64_t{1}));
  EXPECT_EQ(static_cast<float>(fmod.data<BFloat16>()[1]), 1.0f);  // 256 mod 3
}

// Wrap-around and edge values of the 16-bit and unsigned wide types,
// computed by hand.
TEST(Elementwise, NewIntegerTypesWrapAround) {
  const uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
  const Tensor u = Tensor::from_vector<uint64_t>({3}, {kU64Max, 0, uint64_t{1} << 63});
  const Tensor one = Tensor::from_vector<uint64_t>({}, {1});
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(AddKernel, {&u, &one})),
            (std::vector<uint64_t>{0, 1, (uint64_t{1} << 63) + 1}));
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(SubKernel, {&u, &one})),
            (std::vector<uint64_t>{kU64Max - 1, kU64Max, (uint64_t{1} << 63) - 1}));
  const Tensor two = Tensor::from_vector<uint64_t>({}, {2});
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(MulKernel, {&u, &two})),
            (std::vector<uint64_t>{kU64Max - 1, 0, 0}));
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(DivKernel, {&u, &two})),
            (std::vector<uint64_t>{kU64Max / 2, 0, uint64_t{1} << 62}));
  // Unsigned comparison: 2^63 is larger than 1, not negative.
  EXPECT_EQ(testing::TensorValues<bool>(testing::CallSingleOutput(GreaterKernel, {&u, &one})),
            (std::vector<bool>{true, false, true}));
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(MaxKernel, {&u, &one})),
            (std::vector<uint64_t>{kU64Max, 1, uint64_t{1} << 63}));
  const Tensor seven = Tensor::from_vector<uint64_t>({}, {7});
  // 2^64 - 1 = 7 * 2635249153387078802 + 1; 2^63 = 7 * 1317624576693539401 + 1.
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(ModKernel, {&u, &seven})),
            (std::vector<uint64_t>{1, 0, 1}));

  const Tensor s = Tensor::from_vector<int16_t>({4}, {-32768, 32767, -7, 7});
  const Tensor m1 = Tensor::from_vector<int16_t>({}, {-1});
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(DivKernel, {&s, &m1})),
            (std::vector<int16_t>{-32768, -32767, 7, -7}));  // -32768 / -1 wraps
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(SubKernel, {&s, &m1})),
            (std::vector<int16_t>{-32767, -32768, -6, 8}));  // 32767 + 1 wraps
  const Tensor three = Tensor::from_vector<int16_t>({}, {3});
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(MulKernel, {&s, &three})),
            (std::vector<int16_t>{-32768, 32765, -21, 21}));  // (-98304, 98301) mod 2^16
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(ModKernel, {&s, &three})),
            (std::vector<int16_t>{1, 1, 2, 1}));  // sign of the divisor

  const Tensor w = Tensor::from_vector<uint16_t>({2}, {65535, 300});
  EXPECT_EQ(testing::TensorValues<uint16_t>(testing::CallSingleOutput(MulKernel, {&w, &w})),
            (std::vector<uint16_t>{1, 24464}));  // 65535^2 = 1 mod 2^16; 90000 - 65536
  const Tensor v = Tensor::from_vector<uint32_t>({2}, {0, 4294967295u});
  const Tensor v1 = Tensor::from_vector<uint32_t>({}, {1});
  EXPECT_EQ(testing::TensorValues<uint32_t>(testing::CallSingleOutput(SubKernel, {&v, &v1})),
            (std::vector<uint32_t>{4294967295u, 4294967294u}));
}

TEST(Elementwise, ZeroSizedOutputs) {
  const Tensor a = RandomTensor(DType::kFloat32, {0, 3}, 1);
  const Tensor b = RandomTensor(DType::kFloat32, {3}, 2);
  EXPECT_EQ(testing::CallSingleOutput(AddKernel, {&a, &b}).shape(), Shape({0, 3}));
  const Tensor zero_int = Tensor(DType::kInt32, {0});
  const Tensor zero_divisor = Tensor(DType::kInt32, {1});
  EXPECT_EQ(testing::CallSingleOutput(DivKernel, {&zero_int, &zero_divisor}).shape(), Shape({0}));
}

// ---- against the reference ----

struct ShapePair {
  Shape a, b;
};

// Edge shapes: scalars, 1, primes, not multiples of 8 or 16, zero-sized,
// size-1 axes in either input, and one large enough to shard over threads.
std::vector<ShapePair> EdgeShapes() {
  return {{{}, {}},
          {{1}, {7}},
          {{13}, {13}},
          {{17}, {}},
          {{}, {31}},
          {{5, 1}, {1, 3}},
          {{2, 3, 4}, {4}},
          {{2, 3, 4}, {3, 1}},
          {{3, 1, 5}, {1, 4, 1}},
          {{1, 1, 1}, {13, 1}},
          {{0, 3}, {3}},
          {{2, 0}, {1, 1}},
          {{7, 1, 9}, {7, 11, 9}},
          {{263, 301}, {301}},
          {{263, 1}, {263, 301}},
          {{100003}, {100003}},
          {{2, 50021}, {}}};
}

struct BinaryCase {
  const char* op;
  KernelFn fn;
};

const BinaryCase kBinaryCases[] = {
    {"Add", AddKernel},
    {"Sub", SubKernel},
    {"Mul", MulKernel},
    {"Div", DivKernel},
    {"Pow", PowKernel},
    {"Max", MaxKernel},
    {"Min", MinKernel},
    {"Sum", SumKernel},
    {"Mean", MeanKernel},
    {"Equal", EqualKernel},
    {"Less", LessKernel},
    {"Greater", GreaterKernel},
    {"LessOrEqual", LessOrEqualKernel},
    {"GreaterOrEqual", GreaterOrEqualKernel},
};

// Inputs for op: positive bases for Pow, divisors away from zero.
std::pair<Tensor, Tensor> InputsFor(std::string_view op, DType dtype, const ShapePair& s,
                                    uint32_t seed) {
  const bool integer = !dtype_is_float(dtype);
  if (op == "Pow") {
    return {RandomTensor(dtype, s.a, seed, integer ? -3 : 0.1, 3),
            RandomTensor(dtype, s.b, seed + 1, integer ? 0 : -3, integer ? 5 : 3)};
  }
  Tensor a = RandomTensor(dtype, s.a, seed, -100, 100);
  Tensor b = RandomTensor(dtype, s.b, seed + 1, 1, 100);
  if (op == "Div" || op == "Mod") return {a, b};
  // Mixed signs, and some equal elements for the comparisons.
  return {a, integer ? RandomTensor(dtype, s.b, seed + 1, -100, 100) : b};
}

TEST(ElementwiseVsReference, Float32AllThreadCountsAndIsas) {
  uint32_t seed = 1;
  for (const BinaryCase& c : kBinaryCases) {
    for (const ShapePair& s : EdgeShapes()) {
      auto [a, b] = InputsFor(c.op, DType::kFloat32, s, seed += 2);
      const Tensor expected = ElementwiseReference(c.op, {}, {&a, &b});
      // + - * / Max Min and comparisons are exact; Pow calls powf (a few
      // ulp) and Mean divides a float sum.
      const std::string_view op = c.op;
      const double rtol = (op == "Pow" || op == "Mean") ? 4e-7 : 0;
      Tensor first;
      for (Isa isa : SupportedIsas()) {
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor y = testing::CallSingleOutput(c.fn, {&a, &b}, {}, pool.get(), isa);
          EXPECT_TRUE(CompareTensors(y, expected, rtol, 0).empty())
              << c.op << " " << s.a.to_string() << " " << s.b.to_string() << " threads " << threads
              << ": " << CompareTensors(y, expected, rtol, 0);
          if (first.num_elements() == 0) first = y;
          EXPECT_TRUE(BitwiseEqual(y, first)) << c.op << " differs across threads/ISAs";
        }
      }
    }
  }
}

// Whether ONNX (and so Loom) has `op` for `dtype` (Sum also keeps the
// integer types Loom had before the 16-bit and unsigned wide ones).
bool TakesDType(std::string_view op, DType dtype) {
  if (dtype_is_float(dtype)) return true;
  if (op == "Mean") return false;
  if (op == "Pow") return dtype == DType::kInt32 || dtype == DType::kInt64;
  if (op == "Sum") {
    return dtype == DType::kInt8 || dtype == DType::kUInt8 || dtype == DType::kInt32 ||
           dtype == DType::kInt64;
  }
  return true;
}

TEST(ElementwiseVsReference, OtherDTypes) {
  const DType dtypes[] = {DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
                          DType::kUInt8,   DType::kInt16,   DType::kUInt16,   DType::kInt32,
                          DType::kUInt32,  DType::kInt64,   DType::kUInt64};
  const std::vector<ShapePair> shapes = {{{7, 1, 9}, {7, 11, 9}}, {{263, 301}, {301}}, {{13}, {}}};
  uint32_t seed = 1000;
  for (const BinaryCase& c : kBinaryCases) {
    const std::string_view op = c.op;
    for (DType dtype : dtypes) {
      const bool is_float = dtype_is_float(dtype);
      if (!TakesDType(op, dtype)) {
        const Tensor x(dtype, {2});
        EXPECT_NE(testing::KernelErrorOf(c.fn, {&x, &x}).find("must have dtype one of"),
                  std::string::npos)
            << c.op << " " << dtype_name(dtype);
        continue;
      }
      for (const ShapePair& s : shapes) {
        auto [a, b] = InputsFor(c.op, dtype, s, seed += 2);
        const Tensor expected = ElementwiseReference(c.op, {}, {&a, &b});
        // Through float32 both ways, + - * / round the same; Pow and Mean
        // may land one step of the narrow type away.
        const double rtol = dtype == DType::kFloat16    ? 1e-3
                            : dtype == DType::kBFloat16 ? 8e-3
                                                        : (is_float ? 1e-15 : 0);
        for (int threads : {1, 3}) {
          auto pool = PoolWithThreads(threads);
          const Tensor y = testing::CallSingleOutput(c.fn, {&a, &b}, {}, pool.get());
          EXPECT_TRUE(CompareTensors(y, expected, rtol, 0).empty())
              << c.op << " " << dtype_name(dtype) << " " << s.a.to_string() << ": "
              << CompareTensors(y, expected, rtol, 0);
        }
      }
    }
  }
}

TEST(ElementwiseVsReference, ModBothModes) {
  for (int64_t fmod : {0, 1}) {
    const Attributes attrs = Attributes().set("fmod", fmod);
    for (DType dtype : {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32,
                        DType::kUInt32, DType::kInt64, DType::kUInt64}) {
      const Tensor a = RandomTensor(dtype, {263, 31}, 5, -100, 100);
      const bool is_signed = dtype == DType::kInt8 || dtype == DType::kInt16 ||
                             dtype == DType::kInt32 || dtype == DType::kInt64;
      // Divisors 1..9, negated at odd positions for signed dtypes; no zeros.
      std::vector<int64_t> divisors;
      for (int64_t k = 0; k < 31; ++k) {
        const int64_t magnitude = 1 + k % 9;
        divisors.push_back(is_signed && k % 2 ? -magnitude : magnitude);
      }
      const Tensor b_safe =
          elementwise::ConvertTensor(Tensor::from_vector<int64_t>({31}, divisors), dtype);
      const Tensor expected_or_error = ElementwiseReference("Mod", attrs, {&a, &b_safe});
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(
            BitwiseEqual(testing::CallSingleOutput(ModKernel, {&a, &b_safe}, attrs, pool.get()),
                         expected_or_error))
            << dtype_name(dtype) << " fmod=" << fmod;
      }
    }
  }
}

TEST(ElementwiseVsReference, LogicAndWhere) {
  const std::vector<ShapePair> shapes = {{{5, 1}, {1, 3}}, {{263, 301}, {301}}, {{0}, {1}}};
  uint32_t seed = 77;
  for (const ShapePair& s : shapes) {
    const Tensor a = RandomTensor(DType::kBool, s.a, seed++);
    const Tensor b = RandomTensor(DType::kBool, s.b, seed++);
    for (auto [op, fn] : {NamedKernel{"And", AndKernel}, NamedKernel{"Or", OrKernel},
                          NamedKernel{"Xor", XorKernel}, NamedKernel{"Equal", EqualKernel}}) {
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(BitwiseEqual(testing::CallSingleOutput(fn, {&a, &b}, {}, pool.get()),
                                 ElementwiseReference(op, {}, {&a, &b})))
            << op;
      }
    }
    EXPECT_TRUE(BitwiseEqual(testing::CallSingleOutput(NotKernel, {&a}),
                             ElementwiseReference("Not", {}, {&a})));
    for (DType dtype :
         {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt8, DType::kInt16,
          DType::kUInt16, DType::kUInt32, DType::kInt64, DType::kUInt64, DType::kBool}) {
      const Tensor x = RandomTensor(dtype, s.b, seed++, -50, 50);
      const Tensor y = RandomTensor(dtype, {1}, seed++, -50, 50);
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(
            BitwiseEqual(testing::CallSingleOutput(WhereKernel, {&a, &x, &y}, {}, pool.get()),
                         ElementwiseReference("Where", {}, {&a, &x, &y})))
            << dtype_name(dtype) << " " << s.a.to_string();
      }
    }
  }
}

TEST(ElementwiseVsReference, VariadicFourInputs) {
  const Tensor a = RandomTensor(DType::kFloat32, {3, 1, 5}, 1);
  const Tensor b = RandomTensor(DType::kFloat32, {4, 1}, 2);
  const Tensor c = RandomTensor(DType::kFloat32, {1}, 3);
  const Tensor d = RandomTensor(DType::kFloat32, {3, 4, 5}, 4);
  for (auto [op, fn] : {NamedKernel{"Max", MaxKernel}, NamedKernel{"Min", MinKernel},
                        NamedKernel{"Sum", SumKernel}, NamedKernel{"Mean", MeanKernel}}) {
    EXPECT_TENSORS_NEAR(testing::CallSingleOutput(fn, {&a, &b, &c, &d}),
                        ElementwiseReference(op, {}, {&a, &b, &c, &d}), 1e-6, 1e-7);
  }
}

// uint64 over its whole range (past int64's max), where a signed
// computation would get comparisons, Max/Min, Div and Mod wrong.
TEST(ElementwiseVsReference, UInt64FullRange) {
  std::mt19937_64 rng(42);
  std::vector<uint64_t> av(1031), bv(1031);
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = rng();
    bv[i] = i % 5 == 0 ? av[i] : (rng() | 1);  // some equal pairs; no zero divisors
  }
  const Tensor a = Tensor::from_vector<uint64_t>({1031}, av);
  const Tensor b = Tensor::from_vector<uint64_t>({1031}, bv);
  for (const BinaryCase& c : kBinaryCases) {
    if (!TakesDType(c.op, DType::kUInt64)) continue;
    EXPECT_TRUE(BitwiseEqual(testing::CallSingleOutput(c.fn, {&a, &b}),
                             ElementwiseReference(c.op, {}, {&a, &b})))
        << c.op;
  }
  EXPECT_TRUE(BitwiseEqual(testing::CallSingleOutput(ModKernel, {&a, &b}),
                           ElementwiseReference("Mod", {}, {&a, &b})));
  // The reference itself on one hand-checked pair: 2^64 - 1 vs 2^63.
  const Tensor big = Tensor::from_vector<uint64_t>({}, {~uint64_t{0}});
  const Tensor half = Tensor::from_vector<uint64_t>({}, {uint64_t{1} << 63});
  EXPECT_EQ(testing::TensorValues<bool>(ElementwiseReference("Less", {}, {&half, &big})),
            std::vector<bool>{true});
  EXPECT_EQ(testing::TensorValues<uint64_t>(ElementwiseReference("Div", {}, {&big, &half})),
            std::vector<uint64_t>{1});
}

// ---- errors ----

TEST(ElementwiseErrors, MismatchedDTypesNameBoth) {
  const Tensor a(DType::kFloat32, {2});
  const Tensor b(DType::kInt64, {2});
  EXPECT_EQ(testing::KernelErrorOf(AddKernel, {&a, &b}),
            "Add: inputs 'A' (float32) and 'B' (int64) must have the same dtype");
  EXPECT_EQ(testing::KernelErrorOf(SumKernel, {&a, &a, &b}),
            "Sum: inputs 'data_0' (float32) and 'data_2' (int64) must have the same dtype");
  EXPECT_EQ(testing::KernelErrorOf(WhereKernel, {&a, &a, &a})
                .rfind("Where: input 'condition' must have dtype "
                       "bool (got float32)",
                       0),
            0u);
}

TEST(ElementwiseErrors, ShapesThatDoNotBroadcast) {
  const Tensor a(DType::kFloat32, {2, 3});
  const Tensor b(DType::kFloat32, {4});
  EXPECT_EQ(testing::KernelErrorOf(MulKernel, {&a, &b})
                .rfind("Mul: inputs 'A' [2, 3] and 'B' [4] cannot be "
                       "broadcast",
                       0),
            0u);
  EXPECT_EQ(testing::KernelErrorOf(MaxKernel, {&a, &a, &b})
                .rfind("Max: inputs 'data_0..data_1' [2, 3] and "
                       "'data_2' [4] cannot be broadcast",
                       0),
            0u);
}

TEST(ElementwiseErrors, AbsurdBroadcastIsAClearError) {
  // 2^21 x 2^21 bytes = 4 TiB, over kMaxTensorBytes: refused before allocating.
  const Tensor a(DType::kUInt8, {int64_t{1} << 21, 1});
  const Tensor b(DType::kUInt8, {1, int64_t{1} << 21});
  EXPECT_THROW(testing::CallSingleOutput(AddKernel, {&a, &b}), InvalidArgumentError);
  EXPECT_THROW(testing::CallSingleOutput(EqualKernel, {&a, &b}), InvalidArgumentError);
}

TEST(ElementwiseErrors, IntegerDivisionByZero) {
  const Tensor a = Tensor::from_vector<int32_t>({3}, {1, 2, 3});
  const Tensor b = Tensor::from_vector<int32_t>({3}, {1, 0, 3});
  EXPECT_EQ(testing::KernelErrorOf(DivKernel, {&a, &b}),
            "Div: integer division by zero: input 'B' has a zero at flat index 1");
  EXPECT_EQ(testing::KernelErrorOf(ModKernel, {&a, &b}),
            "Mod: integer division by zero: input 'B' has a zero at flat index 1");
  for (DType dtype : {DType::kInt16, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    const Tensor x = elementwise::ConvertTensor(a, dtype);
    const Tensor y = elementwise::ConvertTensor(b, dtype);
    EXPECT_EQ(testing::KernelErrorOf(DivKernel, {&x, &y}),
              "Div: integer division by zero: input 'B' has a zero at flat index 1")
        << dtype_name(dtype);
    EXPECT_EQ(testing::KernelErrorOf(ModKernel, {&x, &y}),
              "Mod: integer division by zero: input 'B' has a zero at flat index 1")
        << dtype_name(dtype);
  }
  // Floats divide by zero to infinity, no error.
  const Tensor one = Tensor::from_vector<float>({}, {1});
  const Tensor zero = Tensor::from_vector<float>({}, {0});
  EXPECT_TRUE(std::isinf(testing::CallSingleOutput(DivKernel, {&one, &zero}).data<float>()[0]));
}

TEST(ElementwiseErrors, WrongDTypesCountsAndAttributes) {
  const Tensor f(DType::kFloat32, {2});
  const Tensor i(DType::kInt32, {2});
  EXPECT_EQ(testing::KernelErrorOf(AndKernel, {&f, &f}),
            "And: input 'A' must have dtype bool (got float32)");
  EXPECT_EQ(testing::KernelErrorOf(NotKernel, {&i}),
            "Not: input 'X' must have dtype bool (got int32)");
  EXPECT_EQ(testing::KernelErrorOf(MeanKernel, {&i})
                .rfind("Mean: input 'data_0' must have dtype one of", 0),
            0u);
  EXPECT_EQ(testing::KernelErrorOf(AddKernel, {&f}), "Add: expected 2 inputs, got 1");
  EXPECT_EQ(testing::KernelErrorOf(AddKernel, {&f, nullptr}),
            "Add: required input 'B' (#1) is missing");
  EXPECT_EQ(testing::KernelErrorOf(SumKernel, {}), "Sum: expected at least 1 input, got 0");
  EXPECT_EQ(testing::KernelErrorOf(ModKernel, {&f, &f}),
            "Mod: input 'A' has dtype float32, which requires attribute fmod=1 (got fmod=0)");
  EXPECT_EQ(testing::KernelErrorOf(ModKernel, {&i, &i}, Attributes().set("fmod", int64_t{2})),
            "Mod: attribute 'fmod' must be 0 or 1 (got 2)");
  const Tensor b(DType::kBool, {2});
  EXPECT_EQ(testing::KernelErrorOf(LessKernel, {&b, &b})
                .rfind("Less: input 'A' must have dtype one of", 0),
            0u);
}

}  // namespace
}  // namespace loom::kernels
