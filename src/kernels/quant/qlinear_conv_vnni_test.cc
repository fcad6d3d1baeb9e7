// The prepared QLinearConv tiles (qlinear_conv_vnni.h: AVX-512 VNNI, and
// AMX where the CPU has it) against the plain
// references (ConvIntegerReference, then RequantizeReference) on shapes that
// reach every branch of its layout: channels not a multiple of 4, output
// channels not a multiple of 8, strides 1-3 (also unequal), dilations,
// asymmetric and SAME pads, 1x1 outputs, rows wider than the 16-pixel copy,
// batch > 1; uint8 and int8 activations and outputs, per-tensor and
// per-channel weight scales and zero points, with and without bias; at 1,
// 2, 3 and 7 threads, bit-identical. Skipped on CPUs without AVX-512 VNNI
// (there the general kernel, tested in quant_test.cc, runs); the AMX tile
// is forced on every case, including those with few channels.
#include "kernels/quant/qlinear_conv_vnni.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/quant/quant.h"
#include "kernels/quant/quant_common.h"
#include "kernels/quant/quant_reference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;

std::vector<int32_t> IntsOf(const Tensor& t) { return quant::ReadInts(t); }

struct Case {
  std::vector<int64_t> x, w;
  Attributes attrs;
};

std::vector<Case> Cases() {
  using V = std::vector<int64_t>;
  return {
      // The ResNet stem's shape, small: 3 channels, 7x7 stride 2 pad 3.
      {{1, 3, 23, 21},
       {8, 3, 7, 7},
       Attributes().set("strides", V{2, 2}).set("pads", V{3, 3, 3, 3})},
      {{2, 16, 9, 9}, {13, 16, 3, 3}, Attributes().set("pads", V{1, 1, 1, 1})},
      {{1, 8, 7, 7}, {24, 8, 1, 1}, {}},
      {{1, 5, 12, 10},
       {7, 5, 3, 3},
       Attributes().set("strides", V{2, 2}).set("pads", V{1, 1, 1, 1})},
      {{1, 20, 11, 13},
       {9, 20, 3, 2},
       Attributes().set("dilations", V{2, 3}).set("pads", V{2, 1, 0, 3})},
      {{1, 4, 5, 40},
       {16, 4, 3, 3},
       Attributes().set("strides", V{1, 2}).set("pads", V{1, 1, 1, 1})},
      {{1, 12, 10, 9},
       {10, 12, 3, 3},
       Attributes().set("strides", V{3, 2}).set("auto_pad", std::string("SAME_UPPER"))},
      {{1, 6, 1, 1}, {3, 6, 1, 1}, {}},
      // Wide rows (the 16-pixel copy), several 48-pixel tiles and 8-channel blocks.
      {{1, 36, 30, 37}, {40, 36, 3, 3}, Attributes().set("pads", V{1, 1, 1, 1})},
      // Stride 2 on rows wide enough for the 16-word copy, in both phases.
      {{1, 8, 6, 75},
       {8, 8, 3, 3},
       Attributes().set("strides", V{2, 2}).set("pads", V{1, 1, 1, 1})},
      // One input column, read by phase 1 only through the right pad.
      {{1, 4, 3, 1}, {8, 4, 1, 2}, Attributes().set("strides", V{1, 2}).set("pads", V{0, 0, 0, 1})},
      // 64 channels and more (the AMX tile's rows): channels past a multiple
      // of 16 and 64, output channels past a multiple of 32, stride 2,
      // dilation, rows wider than the 16-pixel copy.
      {{1, 70, 9, 37},
       {40, 70, 3, 3},
       Attributes().set("strides", V{2, 2}).set("pads", V{1, 1, 1, 1})},
      {{2, 64, 20, 20}, {33, 64, 3, 3}, Attributes().set("pads", V{1, 1, 1, 1})},
      {{1, 128, 7, 7},
       {64, 128, 3, 3},
       Attributes().set("dilations", V{2, 2}).set("pads", V{2, 2, 2, 2})},
      // Downsampling 1x1 with stride 2.
      {{1, 32, 14, 14}, {17, 32, 1, 1}, Attributes().set("strides", V{2, 2})},
  };
}

struct Params {
  Tensor xs, xzp, ws, wzp, ys, yzp, bias;
  std::vector<float> multiplier;
};

Params MakeParams(const Case& c, DType x_dtype, DType y_dtype, bool per_channel, uint32_t* seed) {
  const int64_t m = c.w[0];
  Params p;
  p.xs = Tensor::from_vector<float>(Shape(), {0.02f});
  p.xzp = RandomTensor(x_dtype, Shape(), ++*seed, x_dtype == DType::kUInt8 ? 0 : -128,
                       x_dtype == DType::kUInt8 ? 255 : 127);
  std::vector<float> ws;
  for (int64_t i = 0; i < (per_channel ? m : 1); ++i)
    ws.push_back(0.0007f * static_cast<float>(i + 3));
  p.ws = Tensor::from_vector<float>(per_channel ? Shape({m}) : Shape(), ws);
  p.wzp = RandomTensor(DType::kInt8, per_channel ? Shape({m}) : Shape(), ++*seed, -20, 20);
  p.ys = Tensor::from_vector<float>(Shape(), {0.05f});
  p.yzp = RandomTensor(y_dtype, Shape(), ++*seed, y_dtype == DType::kUInt8 ? 0 : -100,
                       y_dtype == DType::kUInt8 ? 200 : 100);
  p.bias = RandomTensor(DType::kInt32, Shape({m}), ++*seed, -50000, 50000);
  for (int64_t i = 0; i < m; ++i) p.multiplier.push_back(0.02f * ws[per_channel ? i : 0] / 0.05f);
  return p;
}

// The tiles this CPU runs: VNNI, and AMX where it has it.
std::vector<QuantConvTiles> SupportedTiles() {
  std::vector<QuantConvTiles> tiles = {QuantConvTiles::kVnni};
  if (AmxConvSupported()) tiles.push_back(QuantConvTiles::kAmx);
  return tiles;
}

TEST(QLinearConvVnni, PreparedMatchesReference) {
  if (!VnniConvSupported() || !IsaSupported(Isa::kAvx512f)) {
    GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  }
  uint32_t seed = 4100;
  int variant = 0;
  for (const Case& c : Cases()) {
    for (DType x_dtype : {DType::kUInt8, DType::kInt8}) {
      ++variant;
      const DType y_dtype = variant % 2 == 0 ? DType::kUInt8 : DType::kInt8;
      const bool per_channel = variant % 3 != 0;
      const bool with_bias = variant % 4 != 1;
      SCOPED_TRACE(Shape(c.x).to_string() + " * " + Shape(c.w).to_string() + " x " +
                   std::string(dtype_name(x_dtype)) + " y " + std::string(dtype_name(y_dtype)));
      const Tensor x = RandomTensor(x_dtype, Shape(c.x), ++seed, -128, 255);
      // |w - w_zero| stays in int8 with w in [-100, 100] and zero points in [-20, 20].
      const Tensor w = RandomTensor(DType::kInt8, Shape(c.w), ++seed, -100, 100);
      const Params p = MakeParams(c, x_dtype, y_dtype, per_channel, &seed);
      const Tensor sums =
          reference::ConvIntegerReference(x, w, IntsOf(p.xzp)[0], IntsOf(p.wzp), c.attrs);
      const int64_t plane = sums.num_elements() / (sums.shape().dim(0) * c.w[0]);
      const Tensor expected = reference::RequantizeReference(
          sums, p.multiplier, with_bias ? IntsOf(p.bias) : std::vector<int32_t>{}, c.w[0], plane,
          IntsOf(p.yzp)[0], y_dtype);

      std::vector<const Tensor*> inputs = {&x, &p.xs, &p.xzp, &w, &p.ws, &p.wzp, &p.ys, &p.yzp};
      if (with_bias) inputs.push_back(&p.bias);
      std::vector<const Tensor*> constants = inputs;
      constants[0] = nullptr;
      const bool present[9] = {true, true, true, true, true, true, true, true, true};
      for (QuantConvTiles tiles : SupportedTiles()) {
        const std::string name = tiles == QuantConvTiles::kAmx ? "amx" : "vnni";
        std::unique_ptr<PreparedKernel> prepared = PrepareQLinearConvWithTiles(
            {c.attrs, constants, std::span<const bool>(present, inputs.size()), Isa::kAvx512f},
            tiles);
        ASSERT_NE(prepared, nullptr) << name;
        EXPECT_EQ(std::string(prepared->kind()), "prepared " + name + " qlinearconv");
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor got = prepared->Run({pool.get(), Isa::kAvx512f}, inputs)[0];
          EXPECT_TRUE(BitwiseEqual(got, expected))
              << name << ", " << threads
              << " threads: " << testing::CompareTensors(got, expected, 0, 0);
        }
        // A lower ISA at run time takes the general kernel: the same bits.
        EXPECT_TRUE(BitwiseEqual(prepared->Run({nullptr, Isa::kAvx2Fma}, inputs)[0], expected));
      }
    }
  }
}

TEST(QLinearConvVnni, PreparesOnlyWhatItRuns) {
  if (!VnniConvSupported() || !IsaSupported(Isa::kAvx512f)) {
    GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  }
  const Tensor x = RandomTensor(DType::kUInt8, Shape({1, 4, 6, 6}), 1, 0, 255);
  const Tensor xs = Tensor::from_vector<float>(Shape(), {0.1f});
  const Tensor xzp = Tensor::from_vector<uint8_t>(Shape(), {3});
  const Tensor w = RandomTensor(DType::kInt8, Shape({4, 4, 3, 3}), 2, -128, 127);
  const Tensor w2 = RandomTensor(DType::kInt8, Shape({4, 2, 3, 3}), 3, -128, 127);
  const Tensor ws = Tensor::from_vector<float>(Shape(), {0.01f});
  const Tensor wzp0 = Tensor::from_vector<int8_t>(Shape(), {0});
  const Tensor wzp_far = Tensor::from_vector<int8_t>(Shape(), {-100});  // w - zp leaves int8
  const Tensor ys = Tensor::from_vector<float>(Shape(), {0.2f});
  const Tensor ys_zero = Tensor::from_vector<float>(Shape(), {0.0f});
  const Tensor yzp = Tensor::from_vector<uint8_t>(Shape(), {0});
  const bool present[8] = {true, true, true, true, true, true, true, true};
  auto prepare = [&](const Tensor& weights, const Tensor& wzp, const Tensor& y_scale,
                     const Attributes& attrs) {
    const Tensor* constants[8] = {nullptr, &xs, &xzp, &weights, &ws, &wzp, &y_scale, &yzp};
    return PrepareQLinearConv({attrs, constants, present, Isa::kAvx512f});
  };
  EXPECT_NE(prepare(w, wzp0, ys, {}), nullptr);
  EXPECT_EQ(prepare(w, wzp_far, ys, {}), nullptr);
  EXPECT_EQ(prepare(w2, wzp0, ys, Attributes().set("group", int64_t{2})), nullptr);
  EXPECT_EQ(prepare(w, wzp0, ys_zero, {}), nullptr);  // infinite multiplier
  const Tensor* constants[8] = {nullptr, &xs, &xzp, &w, &ws, &wzp0, &ys, &yzp};
  EXPECT_EQ(PrepareQLinearConv({{}, constants, present, Isa::kAvx2Fma}), nullptr);
  const Tensor* computed_w[8] = {nullptr, &xs, &xzp, nullptr, &ws, &wzp0, &ys, &yzp};
  EXPECT_EQ(PrepareQLinearConv({{}, computed_w, present, Isa::kAvx512f}), nullptr);

  // Run-time inputs it does not expect reach the general kernel's checks.
  std::unique_ptr<PreparedKernel> prepared = prepare(w, wzp0, ys, {});
  ASSERT_NE(prepared, nullptr);
  const Tensor x3 = RandomTensor(DType::kUInt8, Shape({1, 3, 6, 6}), 4, 0, 255);
  const Tensor* inputs[8] = {&x3, &xs, &xzp, &w, &ws, &wzp0, &ys, &yzp};
  try {
    prepared->Run({nullptr, Isa::kAvx512f}, inputs);
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("QLinearConv: input 'x' has 3 channels"),
              std::string::npos)
        << e.what();
  }
  const Tensor* good[8] = {&x, &xs, &xzp, &w, &ws, &wzp0, &ys, &yzp};
  EXPECT_TRUE(BitwiseEqual(prepared->Run({nullptr, Isa::kAvx512f}, good)[0],
                           QLinearConvKernel({nullptr, Isa::kAvx2Fma}, {}, good)[0]));
}

}  // namespace
}  // namespace loom::kernels
