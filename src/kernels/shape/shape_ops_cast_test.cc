#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/onnx_dtype.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_reference.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::RandomTensor;
using testing::RunOne;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Attributes To(int64_t code) { return Attributes().set("to", code); }

template <typename T>
Tensor Vec(const std::vector<T>& v) {
  return Tensor::from_vector(Shape({static_cast<int64_t>(v.size())}), v);
}

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  const Tensor x = Floats(Shape({7}), {-1.7f, 1.7f, kNaN, kInf, -kInf, 3e9f, -2147483648.0f});
  ExpectEverywhere(
      CastKernel, To(6), {&x},
      {Vec<int32_t>({-1, 1, 0, 2147483647, -2147483647 - 1, 2147483647, -2147483647 - 1})});
  const Tensor y = Floats(Shape({5}), {-5, 300, 255.9f, 0.5f, kNaN});
  ExpectEverywhere(CastKernel, To(2), {&y}, {Vec<uint8_t>({0, 255, 255, 0, 0})});
  ExpectEverywhere(CastKernel, To(3), {&y}, {Vec<int8_t>({-5, 127, 127, 0, 0})});
  const Tensor big = Vec<double>({9.3e18, -9.3e18, 9.2e18});
  ExpectEverywhere(CastKernel, To(7), {&big},
                   {Vec<int64_t>({std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), 9200000000000000000})});
}

TEST(Cast, IntegerWrapsAndBoolRules) {
  const Tensor x = Vec<int32_t>({200, -129, 7, 0});
  ExpectEverywhere(CastKernel, To(3), {&x}, {Vec<int8_t>({-56, 127, 7, 0})});
  ExpectEverywhere(CastKernel, To(9), {&x}, {Vec<bool>({true, true, true, false})});
  const Tensor f = Floats(Shape({3}), {kNaN, 0.0f, -0.0f});
  ExpectEverywhere(CastKernel, To(9), {&f}, {Vec<bool>({true, false, false})});
  const Tensor b = Vec<bool>({true, false});
  ExpectEverywhere(CastKernel, To(1), {&b}, {Floats(Shape({2}), {1, 0})});
  const Tensor h = Vec<Float16>({Float16(1.5f), Float16(-2.0f)});
  ExpectEverywhere(CastKernel, To(7), {&h}, {Vec<int64_t>({1, -2})});
  const Tensor i = Vec<int64_t>({16777217});  // 2^24 + 1 rounds to even in float
  ExpectEverywhere(CastKernel, To(1), {&i}, {Floats(Shape({1}), {16777216.0f})});
}

// The new types, one hand-checked expected value per case (bit patterns of
// bfloat16 and float16 worked out by hand from the float32 bits).
TEST(Cast, NewTypesHandCheckedTable) {
  // float -> integer: truncate toward zero, saturate, NaN -> 0.
  const Tensor f = Floats(Shape({6}), {-1.5f, 1.9f, 65535.9f, 70000.0f, kNaN, -40000.0f});
  ExpectEverywhere(CastKernel, To(4), {&f}, {Vec<uint16_t>({0, 1, 65535, 65535, 0, 0})});
  ExpectEverywhere(CastKernel, To(5), {&f}, {Vec<int16_t>({-1, 1, 32767, 32767, 0, -32768})});
  const Tensor g = Floats(Shape({4}), {4294967296.0f, 3e9f, -5.0f, kInf});
  ExpectEverywhere(CastKernel, To(12), {&g},
                   {Vec<uint32_t>({4294967295u, 3000000000u, 0, 4294967295u})});
  const uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
  const Tensor d = Vec<double>({18446744073709551616.0, 9.3e18, -1.0, -kInf, 0.99});
  ExpectEverywhere(CastKernel, To(13), {&d},
                   {Vec<uint64_t>({kU64Max, 9300000000000000000u, 0, 0, 0})});

  // float32 -> bfloat16: 0.1 (0x3dcccccd) rounds up; 1 + 2^-8 ties to even;
  // 3.4e38 (0x7f7fc99e) is past the largest bfloat16 by more than half a step.
  const Tensor h = Floats(Shape({4}), {0.1f, 1.00390625f, 3.4e38f, -0.0f});
  ExpectEverywhere(CastKernel, To(16), {&h},
                   {Vec<BFloat16>({BFloat16::from_bits(0x3dcd), BFloat16::from_bits(0x3f80),
                                   BFloat16::from_bits(0x7f80), BFloat16::from_bits(0x8000)})});
  const Tensor nan = Floats(Shape({1}), {kNaN});
  const Tensor nan_bf = CallKernel(CastKernel, {}, To(16), {&nan})[0];
  EXPECT_TRUE(std::isnan(static_cast<float>(nan_bf.data<BFloat16>()[0])));

  // bfloat16 -> others: 0x4049 = 3.140625, 0xc2f7 = -123.5, 0x4f80 = 2^32,
  // 0x4396 = 300, 0x47c3 = 99840.
  const Tensor b = Vec<BFloat16>({BFloat16::from_bits(0x4049), BFloat16::from_bits(0xc2f7),
                                  BFloat16::from_bits(0x4f80), BFloat16::from_bits(0x4396),
                                  BFloat16::from_bits(0x47c3)});
  ExpectEverywhere(CastKernel, To(1), {&b},
                   {Floats(Shape({5}), {3.140625f, -123.5f, 4294967296.0f, 300.0f, 99840.0f})});
  ExpectEverywhere(CastKernel, To(6), {&b}, {Vec<int32_t>({3, -123, 2147483647, 300, 99840})});
  ExpectEverywhere(CastKernel, To(2), {&b}, {Vec<uint8_t>({3, 0, 255, 255, 255})});
  ExpectEverywhere(CastKernel, To(12), {&b}, {Vec<uint32_t>({3, 0, 4294967295u, 300, 99840})});
  // To float16: 3.140625 is exact (0x4248); 99840 overflows to +inf (0x7c00).
  ExpectEverywhere(CastKernel, To(10), {&b},
                   {Vec<Float16>({Float16::from_bits(0x4248), Float16::from_bits(0xd7b8),
                                  Float16::from_bits(0x7c00), Float16::from_bits(0x5cb0),
                                  Float16::from_bits(0x7c00)})});
  // float16 0x3555 (0.333251953125 = float32 0x3eaaa000) -> bfloat16 0x3eab.
  const Tensor half = Vec<Float16>({Float16::from_bits(0x3555)});
  ExpectEverywhere(CastKernel, To(16), {&half}, {Vec<BFloat16>({BFloat16::from_bits(0x3eab)})});

  // integer -> integer keeps the low bits.
  const Tensor s16 = Vec<int16_t>({-1, -32768, 32767});
  ExpectEverywhere(CastKernel, To(4), {&s16}, {Vec<uint16_t>({65535, 32768, 32767})});
  ExpectEverywhere(CastKernel, To(13), {&s16}, {Vec<uint64_t>({kU64Max, kU64Max - 32767, 32767})});
  const Tensor u16 = Vec<uint16_t>({65535, 32768});
  ExpectEverywhere(CastKernel, To(5), {&u16}, {Vec<int16_t>({-1, -32768})});
  const Tensor u64 = Vec<uint64_t>({kU64Max, uint64_t{1} << 63, (uint64_t{1} << 32) + 5});
  ExpectEverywhere(CastKernel, To(7), {&u64},
                   {Vec<int64_t>({-1, std::numeric_limits<int64_t>::min(), 4294967301})});
  ExpectEverywhere(CastKernel, To(12), {&u64}, {Vec<uint32_t>({4294967295u, 0, 5})});
  // uint64 -> bool looks at every bit: 2^63 is true.
  ExpectEverywhere(CastKernel, To(9), {&u64}, {Vec<bool>({true, true, true})});
  // uint64 -> float rounds to nearest: 2^64 - 1 -> 2^64 (bfloat16 0x5f80).
  ExpectEverywhere(
      CastKernel, To(1), {&u64},
      {Floats(Shape({3}), {18446744073709551616.0f, 9223372036854775808.0f, 4294967296.0f})});
  ExpectEverywhere(CastKernel, To(16), {&u64},
                   {Vec<BFloat16>({BFloat16::from_bits(0x5f80), BFloat16::from_bits(0x5f00),
                                   BFloat16::from_bits(0x4f80)})});
  const Tensor u32 = Vec<uint32_t>({70000, 4294967295u});
  ExpectEverywhere(CastKernel, To(5), {&u32}, {Vec<int16_t>({4464, -1})});
  // 65535 = float32 0x477fff00 rounds up to bfloat16 0x4780 (65536).
  const Tensor u16max = Vec<uint16_t>({65535});
  ExpectEverywhere(CastKernel, To(16), {&u16max}, {Vec<BFloat16>({BFloat16::from_bits(0x4780)})});
  const Tensor t = Vec<bool>({true, false});
  ExpectEverywhere(CastKernel, To(13), {&t}, {Vec<uint64_t>({1, 0})});
  ExpectEverywhere(CastKernel, To(16), {&t},
                   {Vec<BFloat16>({BFloat16::from_bits(0x3f80), BFloat16::from_bits(0x0000)})});
}

// Widening and back is the identity: every bfloat16 through float32 and
// float64, every int16 / uint16 through float32, int32 and the 64-bit types.
TEST(Cast, NewTypesRoundTrip) {
  std::vector<BFloat16> all_bf(65536);
  std::vector<int16_t> all_i16(65536);
  std::vector<uint16_t> all_u16(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    all_bf[i] = BFloat16::from_bits(static_cast<uint16_t>(i));
    all_i16[i] = static_cast<int16_t>(static_cast<uint16_t>(i));
    all_u16[i] = static_cast<uint16_t>(i);
  }
  const Tensor bf = Vec<BFloat16>(all_bf);
  for (int64_t via : {1, 11}) {
    const Tensor wide = RunOne(CastKernel, To(via), {&bf});
    const Tensor back = RunOne(CastKernel, To(16), {&wide});
    for (uint32_t i = 0; i < 65536; ++i) {
      const uint16_t bits = back.data<BFloat16>()[i].bits;
      const bool is_nan = (i & 0x7f80) == 0x7f80 && (i & 0x7f) != 0;
      if (is_nan) {
        ASSERT_TRUE(std::isnan(static_cast<float>(BFloat16::from_bits(bits)))) << i;
      } else {
        ASSERT_EQ(bits, i) << "via " << via;
      }
    }
  }
  const Tensor i16 = Vec<int16_t>(all_i16);
  const Tensor u16 = Vec<uint16_t>(all_u16);
  for (int64_t via : {1, 6, 7, 11, 13}) {
    const Tensor a = RunOne(CastKernel, To(via), {&i16});
    EXPECT_TRUE(testing::BitwiseEqual(RunOne(CastKernel, To(5), {&a}), i16)) << via;
    const Tensor b = RunOne(CastKernel, To(via), {&u16});
    EXPECT_TRUE(testing::BitwiseEqual(RunOne(CastKernel, To(4), {&b}), u16)) << via;
  }
  const Tensor u64 = Vec<uint64_t>({0, 1, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()});
  const Tensor s64 = RunOne(CastKernel, To(7), {&u64});
  EXPECT_TRUE(testing::BitwiseEqual(RunOne(CastKernel, To(13), {&s64}), u64));
}

TEST(Cast, SameDTypeReturnsTheInput) {
  const Tensor x = Floats(Shape({2}), {1, 2});
  const std::vector<Tensor> out = CallKernel(CastKernel, {}, To(1), {&x});
  EXPECT_TRUE(out.at(0).shares_storage_with(x));
}

// Every pair of dtypes against the reference, with values beyond the int8
// and uint8 ranges and special floats mixed in.
TEST(Cast, MatchesReferenceForAllPairs) {
  uint32_t seed = 1;
  for (DType from : testing::kAllDTypes) {
    Tensor x = RandomTensor(from, Shape({1031}), ++seed, -300, 300);
    if (from == DType::kFloat32) {
      float* p = x.data<float>();
      p[0] = kNaN, p[1] = kInf, p[2] = -kInf, p[3] = 1e20f, p[4] = -1e20f, p[5] = -0.99f;
    } else if (from == DType::kFloat64) {
      double* p = x.data<double>();
      p[0] = std::nan(""), p[1] = 1e300, p[2] = -1e300, p[3] = 70000.0;
    } else if (from == DType::kBFloat16) {
      BFloat16* p = x.data<BFloat16>();
      p[0] = BFloat16::from_bits(0x7fc0), p[1] = BFloat16::from_bits(0xff80);
      p[2] = BFloat16(1e30f), p[3] = BFloat16(-1e30f), p[4] = BFloat16(-0.99f);
      p[5] = BFloat16(70000.0f);
    } else if (from == DType::kUInt64) {
      uint64_t* p = x.data<uint64_t>();
      p[0] = std::numeric_limits<uint64_t>::max(), p[1] = uint64_t{1} << 63, p[2] = 65536;
    } else if (from == DType::kInt16) {
      int16_t* p = x.data<int16_t>();
      p[0] = -32768, p[1] = 32767;
    } else if (from == DType::kUInt32) {
      x.data<uint32_t>()[0] = 4294967295u;
    }
    for (DType to : testing::kAllDTypes) {
      if (to == from) continue;
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
      ExpectEverywhere(CastKernel, To(OnnxDataType(to)), {&x}, {CastReference(x, to)});
    }
  }
}

TEST(Cast, RejectsUnknownOrMissingTo) {
  const Tensor x(DType::kFloat32, Shape({2}));
  ExpectError(CastKernel, To(14), {&x}, "Cast",
              {"'to' = 14", "not a supported", "8 STRING", "16 BFLOAT16"});  // COMPLEX64
  ExpectError(CastKernel, To(17), {&x}, "Cast", {"'to' = 17"});              // FLOAT8E4M3FN
  ExpectError(CastKernel, {}, {&x}, "Cast", {"'to' is required"});
}

}  // namespace
}  // namespace loom::kernels
