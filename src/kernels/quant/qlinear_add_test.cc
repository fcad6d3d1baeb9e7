// LoomQLinearAdd: against its plain reference and against the float path it
// replaces (DequantizeLinear x 2 → Add → [Relu →] QuantizeLinear, run with
// their own kernels): bit-identical, at 1, 2, 3 and 7 threads, on every
// int8/uint8 mix, with and without relu; then the error texts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_reference.h"
#include "kernels/testing/kernel_test_util.h"

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

// One per-tensor quantization: scale and zero point of an int8/uint8 dtype.
struct Quant {
  float scale;
  int32_t zero;
  DType dtype;
  Tensor ScaleTensor() const { return Of<float>(Shape(), {scale}); }
  Tensor ZeroTensor() const { return RandomTensor(dtype, Shape(), 1, zero, zero); }
  int32_t Lowest() const { return dtype == DType::kInt8 ? -128 : 0; }
};

Attributes ReluAttributes(bool relu) {
  Attributes attrs;
  if (relu) attrs.set("relu", int64_t{1});
  return attrs;
}

// The float path, each node its own kernel, on one thread.
Tensor Unfused(const Tensor& a, const Quant& qa, const Tensor& b, const Quant& qb, const Quant& qy,
               bool relu) {
  const Tensor sa = qa.ScaleTensor(), za = qa.ZeroTensor();
  const Tensor sb = qb.ScaleTensor(), zb = qb.ZeroTensor();
  const Tensor sy = qy.ScaleTensor(), zy = qy.ZeroTensor();
  const Tensor fa = CallSingleOutput(DequantizeLinearKernel, {&a, &sa, &za});
  const Tensor fb = CallSingleOutput(DequantizeLinearKernel, {&b, &sb, &zb});
  Tensor sum = CallSingleOutput(AddKernel, {&fa, &fb});
  if (relu) sum = CallSingleOutput(ReluKernel, {&sum});
  return CallSingleOutput(QuantizeLinearKernel, {&sum, &sy, &zy});
}

// Runs LoomQLinearAdd with each ISA forced at every thread count and expects the reference's
// bits and the float path's.
void ExpectExact(const Tensor& a, const Quant& qa, const Tensor& b, const Quant& qb,
                 const Quant& qy, bool relu) {
  const Tensor expected = reference::QLinearAddReference(a, qa.scale, qa.zero, b, qb.scale, qb.zero,
                                                         qy.scale, qy.zero, qy.dtype, relu);
  const Tensor unfused = Unfused(a, qa, b, qb, qy, relu);
  ASSERT_TRUE(BitwiseEqual(unfused, expected))
      << "reference vs float path: " << testing::CompareTensors(expected, unfused, 0, 0);
  const Tensor sa = qa.ScaleTensor(), za = qa.ZeroTensor();
  const Tensor sb = qb.ScaleTensor(), zb = qb.ZeroTensor();
  const Tensor sy = qy.ScaleTensor(), zy = qy.ZeroTensor();
  for (Isa isa : testing::SupportedIsas()) {
    for (int threads : kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      const Tensor got = CallSingleOutput(QLinearAddKernel, {&a, &sa, &za, &b, &sb, &zb, &sy, &zy},
                                          ReluAttributes(relu), pool.get(), isa);
      EXPECT_TRUE(BitwiseEqual(got, expected))
          << IsaName(isa) << ", " << threads
          << " threads: " << testing::CompareTensors(got, expected, 0, 0);
    }
  }
}

std::string Describe(const Quant& q) {
  return std::string(dtype_name(q.dtype)) + " scale " + std::to_string(q.scale) + " zero " +
         std::to_string(q.zero);
}

TEST(LoomQLinearAdd, ByHand) {
  // (3 - 1) * 0.5 + (10 - 2) * 0.25 = 3 → 3 / 2 = 1.5 → 2 (half to even) + 100.
  // (0 - 1) * 0.5 + (0 - 2) * 0.25 = -1 → -0.5 → -0 + 100 = 100; with relu too.
  // (255 - 1) * 0.5 + (255 - 2) * 0.25 = 190.25 → 95.125 → 95 + 100 = 195.
  // (1 - 1) * 0.5 + (4 - 2) * 0.25 = 0.5 → 0.25 → 0 + 100.
  // (8 - 1) * 0.5 + (2 - 2) * 0.25 = 3.5 → 1.75 → 2 + 100.
  const Tensor a = Of<uint8_t>(Shape({5}), {3, 0, 255, 1, 8});
  const Tensor b = Of<uint8_t>(Shape({5}), {10, 0, 255, 4, 2});
  const Tensor sa = Of<float>(Shape(), {0.5f}), za = Of<uint8_t>(Shape({1}), {1});
  const Tensor sb = Of<float>(Shape({1}), {0.25f}), zb = Of<uint8_t>(Shape(), {2});
  const Tensor sy = Of<float>(Shape(), {2.0f}), zy = Of<uint8_t>(Shape(), {100});
  EXPECT_EQ(TensorValues<uint8_t>(
                CallSingleOutput(QLinearAddKernel, {&a, &sa, &za, &b, &sb, &zb, &sy, &zy})),
            (std::vector<uint8_t>{102, 100, 195, 100, 102}));
  // int8 out with zero point -100 and relu: the -1 sum becomes 0.
  const Tensor zy8 = Of<int8_t>(Shape(), {-100});
  EXPECT_EQ(TensorValues<int8_t>(CallSingleOutput(
                QLinearAddKernel, {&a, &sa, &za, &b, &sb, &zb, &sy, &zy8}, ReluAttributes(true))),
            (std::vector<int8_t>{-98, -100, -5, -100, -98}));
}

TEST(LoomQLinearAdd, EveryPairOfValuesMatchesFloatPath) {
  // All 256 x 256 pairs, with scales whose sums land on exact halves of
  // y_scale (ties to even) and with scales that are not powers of two.
  for (DType adt : {DType::kUInt8, DType::kInt8}) {
    std::vector<int32_t> av, bv;
    for (int32_t i = 0; i < 256; ++i) {
      for (int32_t j = 0; j < 256; ++j) {
        av.push_back(adt == DType::kUInt8 ? i : i - 128);
        bv.push_back(j - 128);
      }
    }
    Tensor a(adt, Shape({256, 256}));
    Tensor b(DType::kInt8, Shape({256, 256}));
    for (size_t k = 0; k < av.size(); ++k) {
      if (adt == DType::kUInt8) {
        a.data<uint8_t>()[k] = static_cast<uint8_t>(av[k]);
      } else {
        a.data<int8_t>()[k] = static_cast<int8_t>(av[k]);
      }
      b.data<int8_t>()[k] = static_cast<int8_t>(bv[k]);
    }
    const int32_t za = adt == DType::kUInt8 ? 128 : 0;
    const std::vector<std::vector<Quant>> params = {
        {{0.5f, za, adt}, {0.5f, 0, DType::kInt8}, {1.0f, 128, DType::kUInt8}},
        {{0.25f, za, adt}, {0.75f, -3, DType::kInt8}, {0.5f, 0, DType::kInt8}},
        {{0.0123f, za, adt}, {0.0371f, 5, DType::kInt8}, {0.0419f, 7, DType::kUInt8}},
        {{0.1f, za, adt}, {0.3f, 0, DType::kInt8}, {0.2f, -10, DType::kInt8}},
    };
    for (const auto& p : params) {
      for (bool relu : {false, true}) {
        SCOPED_TRACE(Describe(p[0]) + ", " + Describe(p[1]) + ", " + Describe(p[2]) +
                     (relu ? ", relu" : ""));
        ExpectExact(a, p[0], b, p[1], p[2], relu);
      }
    }
  }
}

TEST(LoomQLinearAdd, RandomShapesAndTypesMatchReferenceAndFloatPath) {
  // Odd lengths leave vector tails; the last shapes pass 1 MiB touched, so
  // they run in parallel; 4096 +- 1 straddle a chunk.
  const std::vector<std::vector<int64_t>> shapes = {
      {1}, {7}, {3, 5}, {4095}, {4097}, {2, 3, 17, 19}, {1, 64, 56, 56}, {3, 131073}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> log_scale(-7.0f, -1.0f);
  uint32_t seed = 1;
  for (const auto& dims : shapes) {
    for (DType adt : {DType::kInt8, DType::kUInt8}) {
      for (DType bdt : {DType::kInt8, DType::kUInt8}) {
        for (DType ydt : {DType::kInt8, DType::kUInt8}) {
          auto quant = [&](DType dtype) {
            const int32_t lo = dtype == DType::kInt8 ? -128 : 0;
            return Quant{std::exp2(log_scale(rng)), lo + static_cast<int32_t>(rng() % 256), dtype};
          };
          const Quant qa = quant(adt), qb = quant(bdt);
          // y's scale near the sum's range, so some values saturate.
          const Quant qy{
              (qa.scale + qb.scale) * (0.6f + 0.5f * static_cast<float>(rng() % 100) / 100),
              (ydt == DType::kInt8 ? -128 : 0) + static_cast<int32_t>(rng() % 256), ydt};
          const Tensor a = RandomTensor(adt, Shape(dims), seed++, qa.Lowest(), qa.Lowest() + 255);
          const Tensor b = RandomTensor(bdt, Shape(dims), seed++, qb.Lowest(), qb.Lowest() + 255);
          for (bool relu : {false, true}) {
            SCOPED_TRACE(Shape(dims).to_string() + ": " + Describe(qa) + ", " + Describe(qb) +
                         ", " + Describe(qy) + (relu ? ", relu" : ""));
            ExpectExact(a, qa, b, qb, qy, relu);
          }
        }
      }
    }
  }
}

TEST(LoomQLinearAdd, Errors) {
  const Tensor a = Of<uint8_t>(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor b = Of<int8_t>(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor s = Of<float>(Shape(), {0.5f});
  const Tensor zu = Of<uint8_t>(Shape(), {0});
  const Tensor zi = Of<int8_t>(Shape(), {0});
  EXPECT_EQ(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b, &s, &zi, &s, &zu}), "no error");

  const Tensor f = Of<float>(Shape({2, 2}), {1, 2, 3, 4});
  EXPECT_NE(KernelErrorOf(QLinearAddKernel, {&f, &s, &zu, &b, &s, &zi, &s, &zu})
                .find("LoomQLinearAdd: input 'a'"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(QLinearAddKernel, {&a, &s, &zi, &b, &s, &zi, &s, &zu})
                .find("LoomQLinearAdd: input 'a_zero_point'"),
            std::string::npos);
  const Tensor zf = Of<float>(Shape(), {0});
  EXPECT_NE(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b, &s, &zi, &s, &zf})
                .find("LoomQLinearAdd: input 'y_zero_point'"),
            std::string::npos);
  const Tensor sd = Of<double>(Shape(), {0.5});
  EXPECT_NE(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b, &sd, &zi, &s, &zu})
                .find("LoomQLinearAdd: input 'b_scale'"),
            std::string::npos);
  const Tensor s2 = Of<float>(Shape({2}), {0.5f, 0.25f});
  EXPECT_EQ(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b, &s, &zi, &s2, &zu}),
            "LoomQLinearAdd: input 'y_scale' must be a scalar or a one-element tensor (per "
            "tensor only), got shape [2]");
  const Tensor zu2 = Of<uint8_t>(Shape({2}), {0, 0});
  EXPECT_NE(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu2, &b, &s, &zi, &s, &zu})
                .find("'a_zero_point' must be a scalar"),
            std::string::npos);
  const Tensor b3 = Of<int8_t>(Shape({2, 1}), {1, 2});
  EXPECT_EQ(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b3, &s, &zi, &s, &zu}),
            "LoomQLinearAdd: inputs 'a' [2, 2] and 'b' [2, 1] must have the same shape (no "
            "broadcasting)");
  EXPECT_NE(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b, &s, &zi, &s}).find("LoomQLinearAdd:"),
            std::string::npos);
  EXPECT_EQ(KernelErrorOf(QLinearAddKernel, {&a, &s, &zu, &b, &s, &zi, &s, &zu},
                          Attributes().set("relu", int64_t{2})),
            "LoomQLinearAdd: attribute 'relu' must be 0 or 1 (got 2)");
}

}  // namespace
}  // namespace loom::kernels
