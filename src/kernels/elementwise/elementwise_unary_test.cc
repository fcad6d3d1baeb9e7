// Unary kernels and Clip: hand-computed values, every op against
// ElementwiseReference at edge sizes, thread counts and ISAs, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
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

void ExpectNear(const Tensor& actual, const std::vector<float>& expected) {
  const std::vector<float> values = testing::TensorValues<float>(actual);
  ASSERT_EQ(values.size(), expected.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], 1e-7) << i;
}

TEST(ElementwiseUnary, HandComputedFloat) {
  const Tensor x = Tensor::from_vector<float>({4}, {-2, -0.5f, 0, 3});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(NegKernel, {&x})),
            (std::vector<float>{2, 0.5f, -0.0f, -3}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(AbsKernel, {&x})),
            (std::vector<float>{2, 0.5f, 0, 3}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ReluKernel, {&x})),
            (std::vector<float>{0, 0, 0, 3}));
  ExpectNear(testing::CallSingleOutput(LeakyReluKernel, {&x}), {-0.02f, -0.005f, 0, 3});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(FloorKernel, {&x})),
            (std::vector<float>{-2, -1, 0, 3}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(CeilKernel, {&x})),
            (std::vector<float>{-2, -0.0f, 0, 3}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(SignKernel, {&x})),
            (std::vector<float>{-1, -1, 0, 1}));
  ExpectNear(testing::CallSingleOutput(HardSigmoidKernel, {&x}), {0.1f, 0.4f, 0.5f, 1});
  // x * clamp(x / 6 + 1/2): -2 / 6 = -1/3, -0.5 * 5/12 = -5/24.
  ExpectNear(testing::CallSingleOutput(HardSwishKernel, {&x}), {-1.0f / 3, -5.0f / 24, 0, 3});
  const Tensor p = Tensor::from_vector<float>({3}, {0.25f, 4, 1});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(SqrtKernel, {&p})),
            (std::vector<float>{0.5f, 2, 1}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ReciprocalKernel, {&p})),
            (std::vector<float>{4, 0.25f, 1}));
  for (Isa isa : SupportedIsas()) {
    const Tensor zero = Tensor::from_vector<float>({1}, {0});
    EXPECT_EQ(testing::TensorValues<float>(
                  testing::CallSingleOutput(ExpKernel, {&zero}, {}, nullptr, isa)),
              std::vector<float>{1});
    EXPECT_EQ(testing::TensorValues<float>(
                  testing::CallSingleOutput(LogKernel, {&zero}, {}, nullptr, isa))[0],
              -std::numeric_limits<float>::infinity());
    EXPECT_EQ(testing::TensorValues<float>(
                  testing::CallSingleOutput(SigmoidKernel, {&zero}, {}, nullptr, isa)),
              std::vector<float>{0.5f});
    EXPECT_EQ(testing::TensorValues<float>(
                  testing::CallSingleOutput(TanhKernel, {&zero}, {}, nullptr, isa)),
              std::vector<float>{0});
    EXPECT_EQ(testing::TensorValues<float>(
                  testing::CallSingleOutput(ErfKernel, {&zero}, {}, nullptr, isa)),
              std::vector<float>{0});
    const Tensor one = Tensor::from_vector<float>({1}, {1});
    // Gelu(1) = 0.5 (1 + erf(1 / sqrt 2)) = 0.841344746...
    EXPECT_NEAR(testing::TensorValues<float>(
                    testing::CallSingleOutput(GeluKernel, {&one}, {}, nullptr, isa))[0],
                0.8413447f, 1e-6);
    // Silu(1) = 1 / (1 + e^-1) = 0.731058578...
    EXPECT_NEAR(testing::TensorValues<float>(
                    testing::CallSingleOutput(SiluKernel, {&one}, {}, nullptr, isa))[0],
                0.7310586f, 1e-6);
    // Log(e) = 1, Exp(1) = e.
    const Tensor e = Tensor::from_vector<float>({1}, {2.7182817f});
    EXPECT_NEAR(testing::TensorValues<float>(
                    testing::CallSingleOutput(LogKernel, {&e}, {}, nullptr, isa))[0],
                1.0f, 2e-7);
    EXPECT_NEAR(testing::TensorValues<float>(
                    testing::CallSingleOutput(ExpKernel, {&one}, {}, nullptr, isa))[0],
                2.7182817f, 5e-7);
  }
}

TEST(ElementwiseUnary, HandComputedInteger) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const Tensor x = Tensor::from_vector<int32_t>({4}, {-5, 0, 7, kMin});
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(NegKernel, {&x})),
            (std::vector<int32_t>{5, 0, -7, kMin}));
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(AbsKernel, {&x})),
            (std::vector<int32_t>{5, 0, 7, kMin}));
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(ReluKernel, {&x})),
            (std::vector<int32_t>{0, 0, 7, 0}));
  EXPECT_EQ(testing::TensorValues<int32_t>(testing::CallSingleOutput(SignKernel, {&x})),
            (std::vector<int32_t>{-1, 0, 1, -1}));
}

// Edge values of the 16-bit and unsigned 64-bit types, computed by hand.
TEST(ElementwiseUnary, HandComputedNewIntegerTypes) {
  const Tensor s = Tensor::from_vector<int16_t>({4}, {-32768, -5, 0, 32767});
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(NegKernel, {&s})),
            (std::vector<int16_t>{-32768, 5, 0, -32767}));  // -(-32768) wraps
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(AbsKernel, {&s})),
            (std::vector<int16_t>{-32768, 5, 0, 32767}));
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(ReluKernel, {&s})),
            (std::vector<int16_t>{0, 0, 0, 32767}));
  EXPECT_EQ(testing::TensorValues<int16_t>(testing::CallSingleOutput(SignKernel, {&s})),
            (std::vector<int16_t>{-1, -1, 0, 1}));
  const uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const Tensor u = Tensor::from_vector<uint64_t>({3}, {0, uint64_t{1} << 63, kMax});
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(AbsKernel, {&u})),
            (std::vector<uint64_t>{0, uint64_t{1} << 63, kMax}));
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(SignKernel, {&u})),
            (std::vector<uint64_t>{0, 1, 1}));
  const Tensor w = Tensor::from_vector<uint16_t>({2}, {0, 65535});
  EXPECT_EQ(testing::TensorValues<uint16_t>(testing::CallSingleOutput(SignKernel, {&w})),
            (std::vector<uint16_t>{0, 1}));
  // Clip on uint64 compares unsigned: bounds past int64's max stay bounds.
  const Tensor low = Tensor::from_vector<uint64_t>({}, {(uint64_t{1} << 63) + 5});
  EXPECT_EQ(testing::TensorValues<uint64_t>(testing::CallSingleOutput(ClipKernel, {&u, &low})),
            (std::vector<uint64_t>{(uint64_t{1} << 63) + 5, (uint64_t{1} << 63) + 5, kMax}));
  const Tensor high = Tensor::from_vector<uint32_t>({}, {7});
  const Tensor x32 = Tensor::from_vector<uint32_t>({2}, {4294967295u, 3});
  EXPECT_EQ(testing::TensorValues<uint32_t>(
                testing::CallSingleOutput(ClipKernel, {&x32, nullptr, &high})),
            (std::vector<uint32_t>{7, 3}));
}

// bfloat16 goes through float32 and rounds once: values computed by hand.
TEST(ElementwiseUnary, HandComputedBFloat16) {
  const Tensor x = Tensor::from_vector<BFloat16>(
      {4}, {BFloat16(-2.0f), BFloat16(0.25f), BFloat16(3.0f), BFloat16::from_bits(0x7fc0)});
  const Tensor neg = testing::CallSingleOutput(NegKernel, {&x});
  ASSERT_EQ(neg.dtype(), DType::kBFloat16);
  EXPECT_EQ(neg.data<BFloat16>()[0].bits, 0x4000);  // 2
  EXPECT_EQ(neg.data<BFloat16>()[2].bits, 0xc040);  // -3
  EXPECT_TRUE(std::isnan(static_cast<float>(neg.data<BFloat16>()[3])));
  const Tensor relu = testing::CallSingleOutput(ReluKernel, {&x});
  EXPECT_EQ(relu.data<BFloat16>()[0].bits, 0x0000);
  EXPECT_EQ(relu.data<BFloat16>()[1].bits, 0x3e80);  // 0.25
  const Tensor sqrt = testing::CallSingleOutput(SqrtKernel, {&x});
  EXPECT_EQ(sqrt.data<BFloat16>()[1].bits, 0x3f00);  // 0.5
  // sqrt(3) = 1.7320508: float32 0x3fddb3d7, rounded to bfloat16 0x3fde (1.734375).
  EXPECT_EQ(sqrt.data<BFloat16>()[2].bits, 0x3fde);
  const Tensor recip = testing::CallSingleOutput(ReciprocalKernel, {&x});
  // 1/3 = float32 0x3eaaaaab -> bfloat16 0x3eab.
  EXPECT_EQ(recip.data<BFloat16>()[2].bits, 0x3eab);
  const Tensor sign = testing::CallSingleOutput(SignKernel, {&x});
  EXPECT_EQ(sign.data<BFloat16>()[0].bits, 0xbf80);  // -1
  const Tensor lo = Tensor::from_vector<BFloat16>({}, {BFloat16(0.0f)});
  const Tensor hi = Tensor::from_vector<BFloat16>({}, {BFloat16(1.0f)});
  const Tensor clip = testing::CallSingleOutput(ClipKernel, {&x, &lo, &hi});
  ASSERT_EQ(clip.dtype(), DType::kBFloat16);
  EXPECT_EQ(clip.data<BFloat16>()[0].bits, 0x0000);
  EXPECT_EQ(clip.data<BFloat16>()[1].bits, 0x3e80);
  EXPECT_EQ(clip.data<BFloat16>()[2].bits, 0x3f80);
}

TEST(ElementwiseUnary, ClipBoundsFromInputsOrAttributes) {
  const Tensor x = Tensor::from_vector<float>({4}, {-3, 0.5f, 2, 9});
  const Tensor low = Tensor::from_vector<float>({}, {0});
  const Tensor high = Tensor::from_vector<float>({}, {4});
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x, &low, &high})),
            (std::vector<float>{0, 0.5f, 2, 4}));
  EXPECT_EQ(
      testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x, nullptr, &high})),
      (std::vector<float>{-3, 0.5f, 2, 4}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x, &low})),
            (std::vector<float>{0, 0.5f, 2, 9}));
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x})),
            (std::vector<float>{-3, 0.5f, 2, 9}));
  const Attributes opset6 = Attributes().set("min", -1.0f).set("max", 1.0f);
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x}, opset6)),
            (std::vector<float>{-1, 0.5f, 1, 1}));
  // The input wins over the attribute.
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x, &low}, opset6)),
            (std::vector<float>{0, 0.5f, 1, 1}));
  // min > max: everything becomes max.
  EXPECT_EQ(testing::TensorValues<float>(testing::CallSingleOutput(ClipKernel, {&x, &high, &low})),
            (std::vector<float>{0, 0, 0, 0}));
  const Tensor xi = Tensor::from_vector<uint8_t>({3}, {0, 100, 255});
  const Tensor li = Tensor::from_vector<uint8_t>({1}, {10});
  EXPECT_EQ(testing::TensorValues<uint8_t>(testing::CallSingleOutput(ClipKernel, {&xi, &li})),
            (std::vector<uint8_t>{10, 100, 255}));
  EXPECT_EQ(testing::TensorValues<uint8_t>(testing::CallSingleOutput(ClipKernel, {&xi}, opset6)),
            (std::vector<uint8_t>{0, 1, 1}));
}

TEST(ElementwiseUnary, NaNPassesThrough) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::from_vector<float>({9}, {nan, nan, nan, nan, nan, nan, nan, nan, nan});
  for (Isa isa : SupportedIsas()) {
    for (KernelFn fn : {ReluKernel, LeakyReluKernel, ClipKernel, SigmoidKernel, TanhKernel,
                        HardSigmoidKernel, HardSwishKernel, GeluKernel, SiluKernel, ExpKernel,
                        LogKernel, ErfKernel, SignKernel, AbsKernel}) {
      for (float v :
           testing::TensorValues<float>(testing::CallSingleOutput(fn, {&x}, {}, nullptr, isa)))
        EXPECT_TRUE(std::isnan(v));
    }
  }
}

struct UnaryCase {
  const char* op;
  KernelFn fn;
  Attributes attrs;
  double low, high;   // input range
  double rtol, atol;  // float32 tolerance against the double reference
};

std::vector<UnaryCase> UnaryCases() {
  return {
      {"Neg", NegKernel, {}, -10, 10, 0, 0},
      {"Abs", AbsKernel, {}, -10, 10, 0, 0},
      {"Sqrt", SqrtKernel, {}, 0, 100, 0, 0},
      {"Reciprocal", ReciprocalKernel, {}, 0.1, 10, 0, 0},
      {"Floor", FloorKernel, {}, -10, 10, 0, 0},
      {"Ceil", CeilKernel, {}, -10, 10, 0, 0},
      {"Sign", SignKernel, {}, -2, 2, 0, 0},
      {"Relu", ReluKernel, {}, -10, 10, 0, 0},
      {"LeakyRelu", LeakyReluKernel, Attributes().set("alpha", 0.3f), -10, 10, 2e-7, 0},
      {"HardSigmoid", HardSigmoidKernel, {}, -6, 6, 2e-7, 1e-7},
      {"HardSwish", HardSwishKernel, {}, -6, 6, 4e-7, 1e-7},
      {"Exp", ExpKernel, {}, -87, 88, 2.5e-7, 0},
      {"Log", LogKernel, {}, 1e-6, 1e6, 2.5e-7, 0},
      {"Erf", ErfKernel, {}, -5, 5, 0, 1e-6},
      {"Sigmoid", SigmoidKernel, {}, -20, 20, 0, 1e-6},
      {"Tanh", TanhKernel, {}, -10, 10, 0, 1e-6},
      {"Silu", SiluKernel, {}, -20, 20, 1e-6, 1e-6},
      {"Gelu", GeluKernel, {}, -6, 6, 1e-6, 1e-6},
      {"Gelu", GeluKernel, Attributes().set("approximate", std::string("tanh")), -6, 6, 1e-6, 1e-6},
  };
}

// 0, 1, primes, around the vector width, and large enough to shard.
const int64_t kSizes[] = {0, 1, 7, 8, 9, 17, 31, 1000, 100003};

TEST(ElementwiseUnaryVsReference, Float32AllThreadCountsAndIsas) {
  uint32_t seed = 10;
  for (const UnaryCase& c : UnaryCases()) {
    for (int64_t n : kSizes) {
      const Tensor x = RandomTensor(DType::kFloat32, {n}, seed++, c.low, c.high);
      const Tensor expected = ElementwiseReference(c.op, c.attrs, {&x});
      for (Isa isa : SupportedIsas()) {
        Tensor first;
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor y = testing::CallSingleOutput(c.fn, {&x}, c.attrs, pool.get(), isa);
          const std::string mismatch = CompareTensors(y, expected, c.rtol, c.atol);
          EXPECT_TRUE(mismatch.empty()) << c.op << " n=" << n << " isa " << IsaName(isa)
                                        << " threads " << threads << ": " << mismatch;
          if (threads == 1) first = y;
          EXPECT_TRUE(BitwiseEqual(y, first)) << c.op << " not bit-exact across threads";
        }
      }
    }
  }
}

TEST(ElementwiseUnaryVsReference, Float64Float16AndBFloat16) {
  uint32_t seed = 500;
  for (const UnaryCase& c : UnaryCases()) {
    for (DType dtype : {DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
      const Tensor x = RandomTensor(dtype, {1031}, seed++, c.low, std::min(c.high, 1e4));
      const Tensor expected = ElementwiseReference(c.op, c.attrs, {&x});
      // float16 and bfloat16: the float32 result (a polynomial on the
      // vector path) may round to the neighbour of the double's rounding,
      // one step of 2^-10 or 2^-7 relative.
      const double rtol = dtype == DType::kFloat64 ? 1e-15 : dtype == DType::kFloat16 ? 1e-3 : 8e-3;
      const double atol = dtype == DType::kFloat64 ? 1e-15 : dtype == DType::kFloat16 ? 1e-3 : 8e-3;
      for (int threads : {1, 3}) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TENSORS_NEAR(testing::CallSingleOutput(c.fn, {&x}, c.attrs, pool.get()), expected,
                            rtol, atol);
      }
    }
  }
}

TEST(ElementwiseUnaryVsReference, IntegerDTypes) {
  uint32_t seed = 900;
  for (DType dtype : {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32,
                      DType::kUInt32, DType::kInt64, DType::kUInt64}) {
    const Tensor x = RandomTensor(dtype, {100003}, seed++, -120, 120);
    const bool is_unsigned = dtype == DType::kUInt8 || dtype == DType::kUInt16 ||
                             dtype == DType::kUInt32 || dtype == DType::kUInt64;
    for (auto [op, fn] : {NamedKernel{"Abs", AbsKernel}, NamedKernel{"Relu", ReluKernel},
                          NamedKernel{"Sign", SignKernel}, NamedKernel{"Neg", NegKernel}}) {
      // ONNX: Neg takes no unsigned type; Relu no unsigned one but uint8
      // (a Loom extension).
      if (is_unsigned && std::string_view(op) == "Neg") continue;
      if (is_unsigned && dtype != DType::kUInt8 && std::string_view(op) == "Relu") continue;
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(BitwiseEqual(testing::CallSingleOutput(fn, {&x}, {}, pool.get()),
                                 ElementwiseReference(op, {}, {&x})))
            << op << " " << dtype_name(dtype);
      }
    }
  }
}

TEST(ElementwiseUnaryVsReference, ClipAllDTypes) {
  uint32_t seed = 1200;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                      DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32,
                      DType::kUInt32, DType::kInt64, DType::kUInt64}) {
    const Tensor x = RandomTensor(dtype, {100003}, seed++, -100, 100);
    const Tensor low = RandomTensor(dtype, {}, seed++, 0, 20);
    const Tensor high = RandomTensor(dtype, {1}, seed++, 30, 60);
    // Once per dtype, not per ISA and thread count: the reference was half
    // of this test's two minutes under ASan.
    const Tensor expected = ElementwiseReference("Clip", {}, {&x, &low, &high});
    const Tensor expected_no_low = ElementwiseReference("Clip", {}, {&x, nullptr, &high});
    for (Isa isa : SupportedIsas()) {
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(BitwiseEqual(
            testing::CallSingleOutput(ClipKernel, {&x, &low, &high}, {}, pool.get(), isa),
            expected))
            << dtype_name(dtype);
        EXPECT_TRUE(BitwiseEqual(
            testing::CallSingleOutput(ClipKernel, {&x, nullptr, &high}, {}, pool.get(), isa),
            expected_no_low))
            << dtype_name(dtype);
      }
    }
  }
}

TEST(ElementwiseUnaryErrors, DTypesCountsAndAttributes) {
  const Tensor i(DType::kInt32, {2});
  const Tensor u(DType::kUInt8, {2});
  const Tensor f(DType::kFloat32, {2});
  const Tensor b(DType::kBool, {2});
  EXPECT_EQ(testing::KernelErrorOf(ExpKernel, {&i}),
            "Exp: input 'input' must have dtype one of float32, float64, float16, bfloat16 (got "
            "int32)");
  EXPECT_EQ(testing::KernelErrorOf(SigmoidKernel, {&i}),
            "Sigmoid: input 'X' must have dtype one of float32, float64, float16, bfloat16 (got "
            "int32)");
  EXPECT_EQ(
      testing::KernelErrorOf(NegKernel, {&u}).rfind("Neg: input 'X' must have dtype one of", 0),
      0u);
  EXPECT_EQ(
      testing::KernelErrorOf(ReluKernel, {&b}).rfind("Relu: input 'X' must have dtype one of", 0),
      0u);
  const Tensor u16(DType::kUInt16, {2});
  const Tensor u64(DType::kUInt64, {2});
  EXPECT_NE(testing::KernelErrorOf(NegKernel, {&u16}).find("(got uint16)"), std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(ReluKernel, {&u64}).find("(got uint64)"), std::string::npos);
  EXPECT_EQ(testing::KernelErrorOf(TanhKernel, {&f, &f}), "Tanh: expected 1 inputs, got 2");
  EXPECT_EQ(testing::KernelErrorOf(GeluKernel, {&f},
                                   Attributes().set("approximate", std::string("fast"))),
            "Gelu: attribute 'approximate' must be \"none\" or \"tanh\" (got \"fast\")");
  const Tensor wide(DType::kFloat32, {2});
  EXPECT_EQ(testing::KernelErrorOf(ClipKernel, {&f, &wide}),
            "Clip: input 'min' must be a scalar (got shape [2])");
  const Tensor di(DType::kInt32, {});
  EXPECT_EQ(testing::KernelErrorOf(ClipKernel, {&f, &di}),
            "Clip: input 'min' must have dtype float32 (got int32)");
  EXPECT_EQ(testing::KernelErrorOf(ClipKernel, {&f, nullptr, nullptr, &f}),
            "Clip: expected 1 to 3 inputs, got 4");
  EXPECT_THROW(
      testing::CallSingleOutput(LeakyReluKernel, {&f}, Attributes().set("alpha", int64_t{1})),
      InvalidArgumentError);
}

}  // namespace
}  // namespace loom::kernels
