// The quantized ops: hand-worked cases (ONNX's examples), each kernel
// against the plain reference (quant_reference.h) on random shapes with edge
// sizes at 1, 2, 3 and 7 threads (bit-identical), and the error texts.
#include "kernels/quant/quant.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/quant/quant_common.h"
#include "kernels/quant/quant_reference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/float16.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::TensorValues;

template <typename T>
Tensor Of(Shape shape, const std::vector<T>& values) {
  return Tensor::from_vector<T>(std::move(shape), values);
}

// Runs a one-output kernel with each ISA forced and at every thread count; expects bit-identical
// results equal to `expected`.
void ExpectAtEveryThreadCount(KernelFn fn, std::initializer_list<const Tensor*> inputs,
                              const Attributes& attrs, const Tensor& expected) {
  for (Isa isa : testing::SupportedIsas()) {
    for (int threads : kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      const Tensor got = CallSingleOutput(fn, inputs, attrs, pool.get(), isa);
      EXPECT_TRUE(BitwiseEqual(got, expected))
          << IsaName(isa) << ", " << threads
          << " threads: " << testing::CompareTensors(got, expected, 0, 0);
    }
  }
}

std::vector<float> FloatsOf(const Tensor& t) { return TensorValues<float>(t); }
std::vector<int32_t> IntsOf(const Tensor& t) {
  std::vector<int32_t> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out.push_back(static_cast<int32_t>(testing::ElementAsDouble(t, i)));
  }
  return out;
}

// ---- QuantizeLinear / DequantizeLinear ----

TEST(QuantizeLinear, OnnxExampleByHand) {
  const Tensor x = Of<float>(Shape({6}), {0, 2, 3, 1000, -254, -1000});
  const Tensor scale = Of<float>(Shape(), {2});
  const Tensor zp = Of<uint8_t>(Shape(), {128});
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &scale, &zp}, {},
                           Of<uint8_t>(Shape({6}), {128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeLinear, RoundsHalfToEvenAndDefaultsToUint8) {
  const Tensor x = Of<float>(Shape({7}), {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 3.49f, 300});
  const Tensor one = Of<float>(Shape(), {1});
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &one}, {},
                           Of<uint8_t>(Shape({7}), {0, 2, 2, 0, 0, 3, 255}));
  const Tensor zp = Of<int8_t>(Shape(), {0});
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &one, &zp}, {},
                           Of<int8_t>(Shape({7}), {0, 2, 2, 0, -2, 3, 127}));
}

TEST(QuantizeLinear, Int16OutputDtypeAndFloat16Input) {
  const Tensor x = Of<float>(Shape({3}), {-70000, 1.0f, 40000});
  const Tensor one = Of<float>(Shape(), {1});
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &one},
                           Attributes().set("output_dtype", int64_t{5}),  // INT16
                           Of<int16_t>(Shape({3}), {-32768, 1, 32767}));
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &one},
                           Attributes().set("output_dtype", int64_t{4}),  // UINT16
                           Of<uint16_t>(Shape({3}), {0, 1, 40000}));
  const Tensor h = Of<Float16>(Shape({2}), {Float16(5.0f), Float16(-3.0f)});
  const Tensor hs = Of<Float16>(Shape(), {Float16(2.0f)});
  const Tensor zp = Of<int8_t>(Shape(), {1});
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&h, &hs, &zp}, {},
                           Of<int8_t>(Shape({2}), {3, -1}));  // 2.5 -> 2, -1.5 -> -2
}

// Random x of `dims` quantized per tensor, per axis and blocked against the
// reference, and dequantized back the same way.
void CheckLayoutsAgainstReference(const std::vector<int64_t>& dims, int axis, int64_t block,
                                  uint32_t seed) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape(dims), seed, -300, 300);
  std::vector<int64_t> scale_dims;
  if (block > 0) {
    scale_dims = dims;
    scale_dims[static_cast<size_t>(axis)] = (dims[static_cast<size_t>(axis)] + block - 1) / block;
  } else {
    scale_dims = {dims[static_cast<size_t>(axis)]};
  }
  const Tensor scale = RandomTensor(DType::kFloat32, Shape(scale_dims), seed + 1, 0.5, 3);
  for (DType zdt : {DType::kInt8, DType::kUInt8, DType::kInt16}) {
    const Tensor zp = RandomTensor(zdt, Shape(scale_dims), seed + 2, -20, 20);
    Attributes attrs = Attributes().set("axis", int64_t{axis});
    if (block > 0) attrs.set("block_size", block);
    const Tensor expected = reference::QuantizeLinearReference(x, FloatsOf(scale), IntsOf(zp),
                                                               scale_dims, axis, block, zdt);
    ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &scale, &zp}, attrs, expected);
    const Tensor back = reference::DequantizeLinearReference(expected, FloatsOf(scale), IntsOf(zp),
                                                             scale_dims, axis, block);
    ExpectAtEveryThreadCount(DequantizeLinearKernel, {&expected, &scale, &zp}, attrs, back);
  }
}

// Long spans (the vectorized per-tensor and per-axis loops, 16 at a time,
// with tails): half-way quotients, saturation both ways, NaN, infinities,
// -0 and denormals, for every output type, against the reference.
TEST(QuantizeLinear, LongSpansWithSpecialValuesMatchReference) {
  const int64_t n = 2 * 4096 + 37;
  std::vector<float> values(static_cast<size_t>(n));
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           1e30f,
                           -1e30f,
                           -0.0f,
                           1e-45f,
                           70000.25f,
                           -70000.25f};
  for (int64_t i = 0; i < n; ++i) {
    // x / 0.5 = (i % 600 - 300) + 0.5 or + 0.25: exact half-way and
    // ordinary quotients across every 8-bit range and past it.
    const float k = static_cast<float>(i % 600 - 300);
    values[static_cast<size_t>(i)] = (k + (i % 2 == 0 ? 0.5f : 0.25f)) * 0.5f;
    if (i % 11 == 0) values[static_cast<size_t>(i)] = special[(i / 11) % 9];
  }
  const Tensor x = Of<float>(Shape({n}), values);
  const Tensor scale = Of<float>(Shape(), {0.5f});
  for (DType zdt : {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16}) {
    for (int32_t zero : {0, 3}) {
      SCOPED_TRACE(std::string(dtype_name(zdt)) + " zero point " + std::to_string(zero));
      const Tensor zp = RandomTensor(zdt, Shape(), 1, zero, zero);
      const Tensor expected = reference::QuantizeLinearReference(x, {0.5f}, {zero}, {}, 0, 0, zdt);
      ExpectAtEveryThreadCount(QuantizeLinearKernel, {&x, &scale, &zp}, {}, expected);
    }
  }
  // Per axis: rows of 100 elements, one scale each.
  const Tensor rows =
      Of<float>(Shape({2, 3, 100}), std::vector<float>(values.begin(), values.begin() + 600));
  const Tensor scales = Of<float>(Shape({3}), {0.5f, 0.25f, 3.0f});
  const Tensor zps = Of<uint8_t>(Shape({3}), {0, 7, 255});
  const Tensor expected = reference::QuantizeLinearReference(rows, {0.5f, 0.25f, 3.0f}, {0, 7, 255},
                                                             {3}, 1, 0, DType::kUInt8);
  ExpectAtEveryThreadCount(QuantizeLinearKernel, {&rows, &scales, &zps},
                           Attributes().set("axis", int64_t{1}), expected);
}

TEST(QuantizeLinear, FloatRoundingEqualsNearbyint) {
  const quant::IntRange ranges[] = {{-128, 127}, {0, 255}, {-32768, 32767}, {0, 65535}};
  const float values[] = {0.5f,       1.5f,        2.5f,         -0.5f,      -2.5f,  127.5f,
                          -128.5f,    255.5f,      65535.5f,     8388607.5f, -1e30f, 1e30f,
                          4194304.5f, 0.49999997f, -0.49999997f, 3.0e-8f,    -7.0f,  1e-45f};
  for (const quant::IntRange& range : ranges) {
    for (int32_t zero : {0, 3, -5, 128}) {
      for (float v : values) {
        EXPECT_EQ(quant::RoundSaturateFloat(v, zero, range),
                  quant::RoundSaturate(static_cast<double>(v), zero, range))
            << v << " zero " << zero;
      }
    }
  }
}

TEST(QuantizeLinear, PerAxisAndBlockedMatchReference) {
  CheckLayoutsAgainstReference({3, 5}, 1, 0, 1);
  CheckLayoutsAgainstReference({2, 7, 3}, 1, 0, 2);
  CheckLayoutsAgainstReference({2, 7, 3}, 0, 0, 3);
  CheckLayoutsAgainstReference({13}, 0, 0, 4);
  CheckLayoutsAgainstReference({3, 4}, 1, 2, 5);
  CheckLayoutsAgainstReference({1, 4, 3, 2}, 1, 2, 6);
  CheckLayoutsAgainstReference({2, 7, 5}, 1, 3, 7);  // a remainder block
  CheckLayoutsAgainstReference({5, 1, 3}, 2, 1, 8);
  CheckLayoutsAgainstReference({0, 4}, 1, 0, 9);
}

TEST(DequantizeLinear, OnnxExampleByHand) {
  const Tensor x = Of<uint8_t>(Shape({4}), {0, 3, 128, 255});
  const Tensor scale = Of<float>(Shape(), {2});
  const Tensor zp = Of<uint8_t>(Shape(), {128});
  ExpectAtEveryThreadCount(DequantizeLinearKernel, {&x, &scale, &zp}, {},
                           Of<float>(Shape({4}), {-256, -250, 0, 254}));
  const Tensor i32 = Of<int32_t>(Shape({2}), {-2000000000, 7});
  ExpectAtEveryThreadCount(DequantizeLinearKernel, {&i32, &scale}, {},
                           Of<float>(Shape({2}), {-4e9f, 14}));
  const Tensor hs = Of<Float16>(Shape(), {Float16(0.5f)});
  ExpectAtEveryThreadCount(
      DequantizeLinearKernel, {&x, &hs, &zp}, {},
      Of<Float16>(Shape({4}), {Float16(-64.0f), Float16(-62.5f), Float16(0.0f), Float16(63.5f)}));
  ExpectAtEveryThreadCount(DequantizeLinearKernel, {&x, &scale, &zp},
                           Attributes().set("output_dtype", int64_t{10}),  // FLOAT16
                           Of<Float16>(Shape({4}), {Float16(-256.0f), Float16(-250.0f),
                                                    Float16(0.0f), Float16(254.0f)}));
}

TEST(QuantizeLinear, Errors) {
  const Tensor x = Of<float>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor s2 = Of<float>(Shape({2}), {1, 2});
  EXPECT_NE(KernelErrorOf(QuantizeLinearKernel, {&x, &s2}).find("QuantizeLinear: input 'y_scale'"),
            std::string::npos);
  const Tensor s1 = Of<float>(Shape(), {1});
  const Tensor s3 = Of<float>(Shape({3}), {1, 2, 3});
  const Tensor zp = Of<uint8_t>(Shape({1}), {0});
  EXPECT_NE(KernelErrorOf(QuantizeLinearKernel, {&x, &s3, &zp}).find("zero point"),
            std::string::npos);
  // A scalar scale with a one-element zero point: per tensor.
  EXPECT_EQ(KernelErrorOf(QuantizeLinearKernel, {&x, &s1, &zp}), "no error");
  EXPECT_NE(KernelErrorOf(QuantizeLinearKernel, {&x, &s1},
                          Attributes().set("output_dtype", int64_t{17}))  // FLOAT8E4M3FN
                .find("is not supported"),
            std::string::npos);
  const Tensor z8 = Of<int8_t>(Shape(), {0});
  EXPECT_NE(KernelErrorOf(QuantizeLinearKernel, {&x, &s1, &z8},
                          Attributes().set("output_dtype", int64_t{2}))
                .find("differs"),
            std::string::npos);
  const Tensor sb = Of<float>(Shape({2, 1}), {1, 2});
  EXPECT_NE(
      KernelErrorOf(QuantizeLinearKernel, {&x, &sb}, Attributes().set("block_size", int64_t{2}))
          .find("blocked input 'y_scale' must have shape [2, 2]"),
      std::string::npos);
  const Tensor xi = Of<int8_t>(Shape({2}), {1, 2});
  const Tensor zu = Of<uint8_t>(Shape(), {1});
  EXPECT_NE(KernelErrorOf(DequantizeLinearKernel, {&xi, &s1, &zu}).find("DequantizeLinear:"),
            std::string::npos);
}

TEST(DynamicQuantizeLinear, OnnxExampleByHand) {
  const Tensor x = Of<float>(Shape({6}), {0, 2, -3, -2.5f, 1.34f, 0.5f});
  const std::vector<Tensor> out = CallKernel(DynamicQuantizeLinearKernel, {}, {}, {&x});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(TensorValues<uint8_t>(out[0]), (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  EXPECT_FLOAT_EQ(out[1].data<float>()[0], 5.0f / 255.0f);
  EXPECT_EQ(out[2].data<uint8_t>()[0], 153);
  // All positive: the range still includes 0, so the zero point is 0.
  const Tensor pos = Of<float>(Shape({3}), {1, 2, 25.5f});
  const std::vector<Tensor> p = CallKernel(DynamicQuantizeLinearKernel, {}, {}, {&pos});
  EXPECT_EQ(TensorValues<uint8_t>(p[0]), (std::vector<uint8_t>{10, 20, 255}));
  EXPECT_EQ(p[2].data<uint8_t>()[0], 0);
  // All zero: scale 1/255.
  const Tensor zeros = Of<float>(Shape({2}), {0, 0});
  const std::vector<Tensor> z = CallKernel(DynamicQuantizeLinearKernel, {}, {}, {&zeros});
  EXPECT_EQ(TensorValues<uint8_t>(z[0]), (std::vector<uint8_t>{0, 0}));
}

// ---- MatMulInteger / QLinearMatMul ----

TEST(MatMulInteger, OnnxExampleByHand) {
  const Tensor a = Of<uint8_t>(Shape({4, 3}), {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0});
  const Tensor b = Of<uint8_t>(Shape({3, 2}), {1, 4, 2, 5, 3, 6});
  const Tensor azp = Of<uint8_t>(Shape(), {12});
  const Tensor bzp = Of<uint8_t>(Shape(), {0});
  ExpectAtEveryThreadCount(MatMulIntegerKernel, {&a, &b, &azp, &bzp}, {},
                           Of<int32_t>(Shape({4, 2}), {-38, -83, -44, -98, -50, -113, -56, -128}));
}

struct MatMulCase {
  std::vector<int64_t> a, b;
};

TEST(MatMulInteger, MatchesReferenceOnRandomShapes) {
  const std::vector<MatMulCase> cases = {
      {{1, 1}, {1, 1}},       {{4, 3}, {3, 2}},       {{7, 13}, {13, 5}},
      {{5, 130}, {130, 257}}, {{2, 3, 7}, {7, 11}},   {{3, 1, 5, 4}, {2, 4, 6}},
      {{6}, {6, 3}},          {{4, 6}, {6}},          {{3, 0}, {0, 4}},
      {{0, 5}, {5, 3}},       {{9, 300}, {300, 129}},
  };
  uint32_t seed = 100;
  for (const MatMulCase& c : cases) {
    for (DType adt : {DType::kUInt8, DType::kInt8}) {
      for (DType bdt : {DType::kInt8, DType::kUInt8}) {
        SCOPED_TRACE(Shape(c.a).to_string() + " x " + Shape(c.b).to_string());
        const Tensor a = RandomTensor(adt, Shape(c.a), ++seed, -128, 255);
        const Tensor b = RandomTensor(bdt, Shape(c.b), ++seed, -128, 255);
        const int64_t m = c.a.size() == 1 ? 1 : c.a[c.a.size() - 2];
        const int64_t n = c.b.size() == 1 ? 1 : c.b.back();
        // Per tensor, then per row of A / per column of B.
        const Tensor azp = RandomTensor(adt, Shape(), ++seed, -128, 255);
        const Tensor bzp = RandomTensor(bdt, Shape(), ++seed, -128, 255);
        ExpectAtEveryThreadCount(MatMulIntegerKernel, {&a, &b, &azp, &bzp}, {},
                                 reference::MatMulIntegerReference(a, b, IntsOf(azp), IntsOf(bzp)));
        if (c.a.size() >= 2 && c.b.size() >= 2) {
          const Tensor azp_rows = RandomTensor(adt, Shape({m}), ++seed, -128, 255);
          const Tensor bzp_cols = RandomTensor(bdt, Shape({n}), ++seed, -128, 255);
          ExpectAtEveryThreadCount(
              MatMulIntegerKernel, {&a, &b, &azp_rows, &bzp_cols}, {},
              reference::MatMulIntegerReference(a, b, IntsOf(azp_rows), IntsOf(bzp_cols)));
        }
        ExpectAtEveryThreadCount(MatMulIntegerKernel, {&a, &b}, {},
                                 reference::MatMulIntegerReference(a, b, {0}, {0}));
      }
    }
  }
}

TEST(MatMulInteger, SumsWrapLikeInt32) {
  // 40000 products of 255 * 255 = 2,601,000,000, past int32's max: wraps
  // to 2,601,000,000 - 2^32 = -1,693,967,296 in every column.
  const int64_t k = 40000;
  const Tensor a = Of<uint8_t>(Shape({1, k}), std::vector<uint8_t>(k, 255));
  const Tensor b = Of<uint8_t>(Shape({k, 19}), std::vector<uint8_t>(k * 19, 255));
  ExpectAtEveryThreadCount(MatMulIntegerKernel, {&a, &b}, {},
                           Of<int32_t>(Shape({1, 19}), std::vector<int32_t>(19, -1693967296)));
}

TEST(QLinearMatMul, MatchesReference) {
  uint32_t seed = 500;
  for (const MatMulCase& c : std::vector<MatMulCase>{
           {{2, 4}, {4, 3}}, {{2, 2, 4}, {2, 4, 3}}, {{17, 33}, {33, 131}}, {{1, 7}, {7, 1}}}) {
    for (DType dt : {DType::kUInt8, DType::kInt8}) {
      const Tensor a = RandomTensor(dt, Shape(c.a), ++seed, -128, 255);
      const Tensor b = RandomTensor(dt, Shape(c.b), ++seed, -128, 255);
      const Tensor as = Of<float>(Shape(), {0.0078f});
      const Tensor bs = Of<float>(Shape(), {0.0251f});
      const Tensor ys = Of<float>(Shape(), {0.1f});
      const Tensor azp = RandomTensor(dt, Shape(), ++seed, -10, 140);
      const Tensor bzp = RandomTensor(dt, Shape(), ++seed, -10, 140);
      const Tensor yzp = RandomTensor(dt, Shape(), ++seed, -10, 140);
      const Tensor sums = reference::MatMulIntegerReference(a, b, IntsOf(azp), IntsOf(bzp));
      const float mult = 0.0078f * 0.0251f / 0.1f;
      const Tensor expected =
          reference::RequantizeReference(sums, {mult}, {}, 1, 1, IntsOf(yzp)[0], dt);
      ExpectAtEveryThreadCount(QLinearMatMulKernel, {&a, &as, &azp, &b, &bs, &bzp, &ys, &yzp}, {},
                               expected);
    }
  }
}

TEST(QLinearMatMul, PerColumnScaleByHand) {
  // a = [[2, 4]] (zp 0), b = [[1, 2], [3, 4]] (zp 1 per tensor): sums
  // [2*0 + 4*2, 2*1 + 4*3] = [8, 14]; b_scale per column [1, 0.5], y_scale 2:
  // 8 * 0.5 = 4, 14 * 0.25 = 3.5 -> 4 (half to even); y_zp 10.
  const Tensor a = Of<uint8_t>(Shape({1, 2}), {2, 4});
  const Tensor b = Of<uint8_t>(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor one = Of<float>(Shape(), {1});
  const Tensor bs = Of<float>(Shape({2}), {1, 0.5f});
  const Tensor ys = Of<float>(Shape(), {2});
  const Tensor zero = Of<uint8_t>(Shape(), {0});
  const Tensor bzp = Of<uint8_t>(Shape(), {1});
  const Tensor yzp = Of<uint8_t>(Shape(), {10});
  ExpectAtEveryThreadCount(QLinearMatMulKernel, {&a, &one, &zero, &b, &bs, &bzp, &ys, &yzp}, {},
                           Of<uint8_t>(Shape({1, 2}), {14, 14}));
}

TEST(MatMulInteger, Errors) {
  const Tensor a = Of<uint8_t>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor b = Of<uint8_t>(Shape({2, 2}), {1, 2, 3, 4});
  EXPECT_NE(KernelErrorOf(MatMulIntegerKernel, {&a, &b}).find("MatMulInteger:"), std::string::npos);
  const Tensor f = Of<float>(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  EXPECT_NE(KernelErrorOf(MatMulIntegerKernel, {&a, &f}).find("MatMulInteger: input 'B'"),
            std::string::npos);
  const Tensor b32 = Of<uint8_t>(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  const Tensor zp3 = Of<uint8_t>(Shape({3}), {1, 2, 3});
  EXPECT_NE(KernelErrorOf(MatMulIntegerKernel, {&a, &b32, &zp3}).find("a_zero_point"),
            std::string::npos);
}

// ---- ConvInteger / QLinearConv ----

TEST(ConvInteger, OnnxExamplesByHand) {
  const Tensor x = Of<uint8_t>(Shape({1, 1, 3, 3}), {2, 3, 4, 5, 6, 7, 8, 9, 10});
  const Tensor w = Of<uint8_t>(Shape({1, 1, 2, 2}), {1, 1, 1, 1});
  const Tensor xzp = Of<uint8_t>(Shape(), {1});
  ExpectAtEveryThreadCount(ConvIntegerKernel, {&x, &w, &xzp}, {},
                           Of<int32_t>(Shape({1, 1, 2, 2}), {12, 16, 24, 28}));
  // Padding reads the zero point: x - 1 padded by 1.
  ExpectAtEveryThreadCount(
      ConvIntegerKernel, {&x, &w, &xzp}, Attributes().set("pads", std::vector<int64_t>{1, 1, 1, 1}),
      Of<int32_t>(Shape({1, 1, 4, 4}), {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));
}

struct ConvCase {
  std::vector<int64_t> x, w;
  Attributes attrs;
};

std::vector<ConvCase> ConvCases() {
  return {
      {{1, 1, 5}, {2, 1, 3}, {}},
      {{2, 3, 7, 6}, {4, 3, 3, 3}, Attributes().set("pads", std::vector<int64_t>{1, 1, 1, 1})},
      {{1, 4, 9, 11},
       {6, 2, 3, 2},
       Attributes()
           .set("group", int64_t{2})
           .set("strides", std::vector<int64_t>{2, 1})
           .set("dilations", std::vector<int64_t>{1, 2})
           .set("pads", std::vector<int64_t>{0, 1, 2, 1})},
      {{1, 3, 5, 5},
       {3, 1, 3, 3},
       Attributes().set("group", int64_t{3}).set("auto_pad", std::string("SAME_UPPER"))},
      {{1, 2, 4, 5, 3},
       {3, 2, 2, 3, 2},
       Attributes().set("pads", std::vector<int64_t>{1, 0, 1, 0, 1, 0})},
      {{1, 5, 17, 19}, {7, 5, 1, 1}, {}},
      {{0, 2, 3, 3}, {2, 2, 1, 1}, {}},
  };
}

TEST(ConvInteger, MatchesReference) {
  uint32_t seed = 900;
  for (const ConvCase& c : ConvCases()) {
    for (DType dt : {DType::kUInt8, DType::kInt8}) {
      SCOPED_TRACE(Shape(c.x).to_string() + " * " + Shape(c.w).to_string());
      const Tensor x = RandomTensor(dt, Shape(c.x), ++seed, -128, 255);
      const Tensor w = RandomTensor(DType::kInt8, Shape(c.w), ++seed, -128, 127);
      const Tensor xzp = RandomTensor(dt, Shape(), ++seed, -128, 255);
      const Tensor wzp = RandomTensor(DType::kInt8, Shape({c.w[0]}), ++seed, -128, 127);
      ExpectAtEveryThreadCount(
          ConvIntegerKernel, {&x, &w, &xzp, &wzp}, c.attrs,
          reference::ConvIntegerReference(x, w, IntsOf(xzp)[0], IntsOf(wzp), c.attrs));
      ExpectAtEveryThreadCount(ConvIntegerKernel, {&x, &w}, c.attrs,
                               reference::ConvIntegerReference(x, w, 0, {0}, c.attrs));
    }
  }
}

TEST(QLinearConv, MatchesReference) {
  uint32_t seed = 1300;
  for (const ConvCase& c : ConvCases()) {
    for (DType dt : {DType::kUInt8, DType::kInt8}) {
      SCOPED_TRACE(Shape(c.x).to_string() + " * " + Shape(c.w).to_string());
      const Tensor x = RandomTensor(dt, Shape(c.x), ++seed, -128, 255);
      const Tensor w = RandomTensor(DType::kInt8, Shape(c.w), ++seed, -128, 127);
      const Tensor xzp = RandomTensor(dt, Shape(), ++seed, -128, 255);
      const Tensor wzp = Of<int8_t>(Shape(), {0});
      const Tensor xs = Of<float>(Shape(), {0.02f});
      std::vector<float> wsv;
      for (int64_t m = 0; m < c.w[0]; ++m) wsv.push_back(0.001f * static_cast<float>(m + 1));
      const Tensor ws = Of<float>(Shape({c.w[0]}), wsv);
      const Tensor ys = Of<float>(Shape(), {0.05f});
      const Tensor yzp = RandomTensor(dt, Shape(), ++seed, -20, 140);
      const Tensor bias = RandomTensor(DType::kInt32, Shape({c.w[0]}), ++seed, -5000, 5000);
      const Tensor sums =
          reference::ConvIntegerReference(x, w, IntsOf(xzp)[0], IntsOf(wzp), c.attrs);
      std::vector<float> mult;
      for (float s : wsv) mult.push_back(0.02f * s / 0.05f);
      const int64_t plane =
          sums.num_elements() == 0 ? 1 : sums.num_elements() / (sums.shape().dim(0) * c.w[0]);
      ExpectAtEveryThreadCount(QLinearConvKernel, {&x, &xs, &xzp, &w, &ws, &wzp, &ys, &yzp, &bias},
                               c.attrs,
                               reference::RequantizeReference(sums, mult, IntsOf(bias), c.w[0],
                                                              plane, IntsOf(yzp)[0], dt));
    }
  }
}

TEST(ConvInteger, Errors) {
  const Tensor x = Of<uint8_t>(Shape({1, 2, 3, 3}), std::vector<uint8_t>(18, 1));
  const Tensor w = Of<uint8_t>(Shape({1, 3, 2, 2}), std::vector<uint8_t>(12, 1));
  EXPECT_NE(
      KernelErrorOf(ConvIntegerKernel, {&x, &w}).find("ConvInteger: input 'x' has 2 channels"),
      std::string::npos);
  const Tensor w4 = Of<uint8_t>(Shape({1, 2, 4, 4}), std::vector<uint8_t>(32, 1));
  EXPECT_NE(KernelErrorOf(ConvIntegerKernel, {&x, &w4}).find("ConvInteger:"), std::string::npos);
  const Tensor xzp = Of<uint8_t>(Shape({2}), {1, 2});
  const Tensor w2 = Of<uint8_t>(Shape({1, 2, 2, 2}), std::vector<uint8_t>(8, 1));
  EXPECT_NE(KernelErrorOf(ConvIntegerKernel, {&x, &w2, &xzp}).find("x_zero_point"),
            std::string::npos);
  const Tensor x2 = Of<uint8_t>(Shape({2, 2}), {1, 2, 3, 4});
  EXPECT_NE(KernelErrorOf(ConvIntegerKernel, {&x2, &w2}).find("rank"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
