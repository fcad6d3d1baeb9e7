// The NCHWc kernels against the plain references (ConvReference and the
// pool references, double accumulation, NCHW): every case runs the blocked
// kernel on the reordered input, converts its output back and compares, for
// each ISA the CPU has and at 1, 2, 3 and 7 threads (bit-identical across
// thread counts).
#include "kernels/nchwc/nchwc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/conv/conv.h"
#include "kernels/elementwise/activation.h"
#include "kernels/fused_activation.h"
#include "kernels/pool/pool_reference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;
using Ints = std::vector<int64_t>;

struct ConvCase {
  std::string name;
  Ints x_shape;  // NCHW
  Ints w_shape;
  Ints strides, pads, dilations;
  int64_t group = 1;
  bool plain_input = false;
  bool bias = true;
  bool sum = false;
  ActivationKind activation = ActivationKind::kIdentity;
  float alpha = 0.0f, beta = 0.0f;  // the activation's parameters (Clip: min, max)
};

ConvCase WithActivation(ConvCase c, ActivationKind kind, float alpha = 0.0f, float beta = 0.0f) {
  c.activation = kind;
  c.alpha = alpha;
  c.beta = beta;
  return c;
}

ConvCase WithClip(ConvCase c, float low, float high, bool sum = false) {
  c.sum = sum;
  return WithActivation(c, ActivationKind::kClip, low, high);
}

std::vector<ConvCase> Cases() {
  using A = ActivationKind;
  return {
      {"3x3 pad 1", {1, 16, 7, 9}, {16, 16, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"3x3 channels off the block", {2, 5, 11, 13}, {7, 5, 3, 3}, {1, 1}, {1, 1, 1, 1}, {}},
      // Winograd tiles reaching past the input on one side only, or none.
      {"3x3 no padding", {1, 16, 10, 9}, {16, 16, 3, 3}, {}, {}, {}},
      {"3x3 asymmetric and wide pads", {2, 24, 6, 11}, {20, 24, 3, 3}, {}, {2, 0, 1, 3}, {}},
      {"3x3 stride 2 odd", {1, 20, 11, 13}, {37, 20, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}},
      {"stem 7x7/2 plain input", {1, 3, 23, 29}, {24, 3, 7, 7}, {2, 2}, {3, 3, 3, 3}, {}, 1, true},
      {"3x3 plain input", {2, 5, 9, 8}, {17, 5, 3, 3}, {}, {1, 1, 1, 1}, {}, 1, true},
      {"1x1 pointwise", {2, 24, 5, 7}, {40, 24, 1, 1}, {}, {}, {}},
      {"1x1 on 1x1 spatial", {3, 33, 1, 1}, {70, 33, 1, 1}, {}, {}, {}},
      {"1x1 stride 2", {1, 8, 9, 9}, {10, 8, 1, 1}, {2, 2}, {}, {}},
      // Several input-channel slices with the larger slices of AMD CPUs too
      // (4 on AVX2, 16 on AVX-512).
      {"1x1, input channels in several 128 KiB slices",
       {1, 8000, 2, 3},
       {24, 8000, 1, 1},
       {},
       {},
       {}},
      // Strided 1x1 convs from 64 input channels gather their pixels first,
      // then run as pointwise (kGatherMinChannels); fewer run in place.
      {"1x1 stride 2, batch 2, odd sizes", {2, 40, 11, 13}, {70, 40, 1, 1}, {2, 2}, {}, {}},
      {"1x1 stride 2, gathered, odd sizes", {2, 80, 11, 13}, {70, 80, 1, 1}, {2, 2}, {}, {}},
      {"1x1 stride 2, gathered + sum + relu",
       {1, 72, 9, 11},
       {40, 72, 1, 1},
       {2, 2},
       {},
       {},
       1,
       false,
       true,
       true,
       A::kRelu},
      {"1x1 strides 3 and 2, grouped", {1, 64, 10, 9}, {32, 32, 1, 1}, {3, 2}, {}, {}, 2},
      {"1x1 stride 2 + sum + relu",
       {2, 24, 9, 11},
       {40, 24, 1, 1},
       {2, 2},
       {},
       {},
       1,
       false,
       true,
       true,
       A::kRelu},
      // Output blocks in evenly split tile groups (AVX-512: 10 blocks as
      // 3 + 3 + 4, 6 as 3 + 3, 7 as 3 + 4) and in groups of 4 or 2 and a
      // short last one (AVX2: 19 blocks), for the direct kernel and Winograd.
      {"1x1 uneven tile groups", {1, 40, 6, 7}, {150, 40, 1, 1}, {}, {}, {}},
      {"3x3 uneven tile groups", {1, 20, 9, 10}, {96, 20, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"grouped, uneven tile groups", {1, 32, 6, 7}, {224, 16, 3, 3}, {}, {1, 1, 1, 1}, {}, 2},
      {"asymmetric pads", {1, 9, 6, 5}, {3, 9, 2, 3}, {1, 2}, {0, 2, 1, 0}, {}, 1, false, false},
      {"dilation 2", {1, 3, 12, 10}, {4, 3, 3, 3}, {}, {2, 2, 2, 2}, {2, 2}},
      {"dilation 3 stride 3", {1, 17, 19, 17}, {9, 17, 3, 2}, {3, 3}, {1, 0, 2, 2}, {3, 1}},
      {"grouped, 16 per group", {1, 64, 6, 7}, {64, 16, 3, 3}, {}, {1, 1, 1, 1}, {}, 4},
      {"grouped stride 2", {1, 32, 9, 9}, {64, 16, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 2},
      // Many pixel chunks per group: each unit pads the rows under its chunk.
      {"grouped 3x3/2 many chunks", {2, 32, 80, 76}, {32, 16, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 2},
      {"grouped dilated many chunks", {2, 48, 30, 27}, {48, 16, 3, 3}, {}, {2, 1, 2, 3}, {2, 2}, 3},
      {"depthwise 3x3", {2, 21, 10, 11}, {21, 1, 3, 3}, {}, {1, 1, 1, 1}, {}, 21},
      {"depthwise 5x5 stride 2", {1, 40, 13, 12}, {40, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {}, 40},
      {"depthwise dilated", {1, 8, 9, 9}, {8, 1, 3, 3}, {}, {2, 2, 2, 2}, {2, 2}, 8},
      // Rows wide enough for the sliding tiles (3x3 and 5x5 at strides 1
      // and 2) and their narrower tails.
      {"depthwise 3x3 wide rows", {1, 24, 5, 40}, {24, 1, 3, 3}, {}, {1, 1, 1, 1}, {}, 24},
      // Rows as wide as a sliding tile, or one or two wider, so a row's
      // first tile also reaches into the right padding (the depthwise
      // tiles are 8 columns wide on AVX-512 and AVX2, 4 portable).
      {"depthwise 3x3 rows of 8", {1, 16, 4, 8}, {16, 1, 3, 3}, {}, {1, 1, 1, 1}, {}, 16},
      {"depthwise 5x5 rows of 9", {1, 16, 5, 9}, {16, 1, 5, 5}, {}, {2, 2, 2, 2}, {}, 16},
      {"depthwise 5x5 rows of 5", {1, 16, 5, 5}, {16, 1, 5, 5}, {}, {2, 2, 2, 2}, {}, 16},
      {"depthwise 5x5/2 rows of 17", {1, 16, 6, 17}, {16, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {}, 16},
      {"depthwise 3x3/2 rows of 16", {1, 16, 6, 16}, {16, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 16},
      {"depthwise 5x5/2 rows of 14", {1, 16, 6, 14}, {16, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {}, 16},
      {"depthwise 3x3/2 wide rows", {1, 24, 6, 43}, {24, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 24},
      {"depthwise 5x5 wide rows", {1, 20, 6, 37}, {20, 1, 5, 5}, {}, {2, 2, 2, 2}, {}, 20},
      {"depthwise 5x5/2 wide rows", {1, 20, 7, 50}, {20, 1, 5, 5}, {2, 2}, {1, 2, 2, 1}, {}, 20},
      {"depthwise 5x5 dilated wide rows",
       {1, 20, 9, 40},
       {20, 1, 5, 5},
       {},
       {4, 4, 4, 4},
       {2, 2},
       20},
      {"depthwise window wider than the input",
       {1, 16, 2, 1},
       {16, 1, 3, 3},
       {},
       {1, 1, 1, 1},
       {},
       16},
      {"depthwise 1x1 spatial, stride 2", {2, 9, 1, 1}, {9, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 9},
      {"relu",
       {1, 19, 8, 8},
       {33, 19, 3, 3},
       {},
       {1, 1, 1, 1},
       {},
       1,
       false,
       true,
       false,
       A::kRelu},
      {"hardswish",
       {1, 12, 6, 6},
       {20, 12, 1, 1},
       {},
       {},
       {},
       1,
       false,
       true,
       false,
       A::kHardSwish},
      {"sum + relu (residual)",
       {2, 16, 7, 7},
       {21, 16, 3, 3},
       {},
       {1, 1, 1, 1},
       {},
       1,
       false,
       true,
       true,
       A::kRelu},
      {"sum, no activation", {1, 8, 5, 5}, {16, 8, 1, 1}, {}, {}, {}, 1, false, false, true},
      // Enough input channels that the kernel sums them in slices.
      {"sliced input channels + sum + relu",
       {1, 1024, 5, 5},
       {20, 1024, 3, 3},
       {},
       {1, 1, 1, 1},
       {},
       1,
       false,
       true,
       true,
       A::kRelu},
      {"sliced 1x1 + hardswish",
       {1, 2000, 3, 3},
       {24, 2000, 1, 1},
       {},
       {},
       {},
       1,
       false,
       true,
       false,
       A::kHardSwish},
      // Clip is clamped in registers; a row of 30 output pixels makes tiles
      // that cross row ends.
      WithClip({"1x1 + clip", {1, 16, 9, 30}, {40, 16, 1, 1}, {}, {}, {}}, -0.5f, 0.5f),
      WithClip({"3x3/2 + sum + clip", {1, 16, 13, 15}, {48, 16, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}},
               0.0f, 1.0f, /*sum=*/true),
      WithActivation(
          {"depthwise hardswish", {1, 40, 9, 9}, {40, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {}, 40},
          A::kHardSwish),
      WithActivation({"3x3 + hardsigmoid", {1, 16, 6, 7}, {24, 16, 3, 3}, {}, {1, 1, 1, 1}, {}},
                     A::kHardSigmoid, 0.3f, 0.4f),
      WithClip({"depthwise clip", {1, 24, 7, 7}, {24, 1, 3, 3}, {}, {1, 1, 1, 1}, {}, 24}, -0.25f,
               0.25f),
      {"depthwise sigmoid",
       {1, 24, 7, 7},
       {24, 1, 3, 3},
       {},
       {1, 1, 1, 1},
       {},
       24,
       false,
       true,
       false,
       A::kSigmoid},
      // Sigmoid and SiLU run in registers too (an EfficientNet's stem,
      // expansions, depthwise and squeeze-excitation gate).
      WithActivation({"3x3/2 plain RGB + silu",
                      {1, 3, 11, 12},
                      {20, 3, 3, 3},
                      {2, 2},
                      {1, 1, 1, 1},
                      {},
                      1,
                      /*plain_input=*/true},
                     A::kSilu),
      WithActivation({"1x1 + silu", {1, 16, 9, 30}, {40, 16, 1, 1}, {}, {}, {}}, A::kSilu),
      // Pointwise rests cut as tiles of OW and OW - 1 (PointwisePixels): 49
      // pixels are 4 x 6 + 5 x 5 with AVX2's 2-block tiles, 4 x 10 + 9 with
      // 12-wide ones; 50 and 51 as well, 7 pixels too few to cut.
      WithActivation({"1x1 at 7^2 + relu", {1, 40, 7, 7}, {48, 40, 1, 1}, {}, {}, {}}, A::kRelu),
      {"1x1 at 5x10", {1, 24, 5, 10}, {40, 24, 1, 1}, {}, {}, {}},
      {"1x1 at 3x17 + sum", {1, 24, 3, 17}, {32, 24, 1, 1}, {}, {}, {}, 1, false, true, true},
      {"1x1 at 1x7", {1, 16, 1, 7}, {24, 16, 1, 1}, {}, {}, {}},
      WithActivation(
          {"depthwise 5x5/2 + silu", {2, 40, 9, 9}, {40, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {}, 40},
          A::kSilu),
      WithActivation({"sliced 1x1 + sigmoid", {1, 2000, 1, 1}, {24, 2000, 1, 1}, {}, {}, {}},
                     A::kSigmoid),
      // Strided convs over inputs above 1 MiB with several tile groups run
      // their units in chunk-major order (nchwc_conv.cc).
      WithClip({"chunk-major 1x1/2 + sum + clip", {1, 64, 76, 76}, {160, 64, 1, 1}, {2, 2}, {}, {}},
               0.0f, 6.0f, /*sum=*/true),
      {"chunk-major 3x3/2", {1, 48, 80, 80}, {80, 48, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}},
      // Shapes for Winograd F(4x4, 3x3): partial 4x4 tiles at the right and
      // bottom edges, no padding, asymmetric padding, a single output pixel,
      // several tile groups and images.
      {"3x3 odd sizes, 3 tile groups", {2, 20, 9, 13}, {70, 20, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"3x3 pad 0", {1, 16, 10, 7}, {16, 16, 3, 3}, {}, {}, {}},
      {"3x3 asymmetric pads", {1, 16, 6, 5}, {17, 16, 3, 3}, {}, {0, 2, 1, 0}, {}},
      {"3x3 to one pixel", {3, 16, 3, 3}, {16, 16, 3, 3}, {}, {}, {}},
      WithActivation({"3x3 + sum + silu", {1, 32, 17, 18}, {32, 32, 3, 3}, {}, {1, 1, 1, 1}, {}},
                     A::kSilu),
  };
}

Attributes ConvAttributes(const ConvCase& c) {
  Attributes a;
  if (!c.strides.empty()) a.set("strides", c.strides);
  if (!c.pads.empty()) a.set("pads", c.pads);
  if (!c.dilations.empty()) a.set("dilations", c.dilations);
  a.set("group", c.group);
  return a;
}

// act(conv(x) + b + sum), all in NCHW, from the references.
Tensor Expected(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor* b,
                const Tensor* sum) {
  Tensor y = ConvReference(ConvAttributes(c), x, w, b);
  float* v = y.data<float>();
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    if (sum != nullptr) v[i] += sum->data<float>()[i];
    v[i] = ActivationReference({c.activation, c.alpha, c.beta, false}, v[i]);
  }
  return y;
}

std::vector<std::pair<Isa, int64_t>> IsasAndWinograd() {
  std::vector<std::pair<Isa, int64_t>> out;
  for (Isa isa : SupportedIsas()) {
    out.emplace_back(isa, 0);
    out.emplace_back(isa, 1);
  }
  return out;
}

TEST(NchwcConv, MatchesReferenceOnEveryIsaAndThreadCount) {
  for (const ConvCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = RandomTensor(DType::kFloat32, Shape(c.x_shape), 1);
    const Tensor w = RandomTensor(DType::kFloat32, Shape(c.w_shape), 2);
    const Tensor b = RandomTensor(DType::kFloat32, Shape({c.w_shape[0]}), 3);
    const Tensor* bias = c.bias ? &b : nullptr;
    Ints out_shape = ConvReference(ConvAttributes(c), x, w, bias).shape().dims();
    const Tensor sum_plain = RandomTensor(DType::kFloat32, Shape(out_shape), 4);
    const Tensor* sum = c.sum ? &sum_plain : nullptr;
    const Tensor expected = Expected(c, x, w, bias, sum);
    // winograd 1: F(4x4, 3x3) wherever it applies (3x3, stride 1, one group).
    for (const auto& [isa, winograd] : IsasAndWinograd()) {
      SCOPED_TRACE(std::string(IsaName(isa)) + (winograd == 1 ? " winograd" : " direct"));
      const int block = NchwcBlockSize(isa);
      Attributes attrs = ConvAttributes(c);
      attrs.set("block", int64_t{block});
      attrs.set("winograd", winograd);
      if (c.plain_input) attrs.set("input_layout", std::string("nchw"));
      SetFusedActivationAttributes({c.activation, c.alpha, c.beta, false}, attrs);
      const PreparedNchwcConv conv(attrs, w, bias, isa);
      const Tensor xb = c.plain_input ? x : NchwToNchwc(x, block);
      const Tensor sum_blocked = NchwToNchwc(sum_plain, block);
      Tensor first;
      for (int threads : testing::kThreadCounts) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        auto pool = PoolWithThreads(threads);
        const Tensor y = conv.Run({pool.get(), isa}, xb, c.sum ? &sum_blocked : nullptr);
        // Winograd F(4x4, 3x3) rounds to ~1e-5 of the sum of the |w x| terms
        // (the 1024-channel case: 2e-4 off where the terms add up to ~24).
        EXPECT_TENSORS_NEAR(NchwcToNchw(y, c.w_shape[0]), expected, 1e-4,
                            winograd == 1 ? 5e-4 : 1e-4);
        // Padding lanes stay finite (a later conv multiplies them by zero).
        for (int64_t i = 0; i < y.num_elements(); ++i) {
          ASSERT_TRUE(std::isfinite(y.data<float>()[i])) << "element " << i;
        }
        if (threads == 1) {
          first = y;
        } else {
          EXPECT_TRUE(BitwiseEqual(y, first)) << "differs from the 1-thread result";
        }
      }
    }
  }
}

// Relu, Clip and HardSwish keep a NaN, as the plain activations do.
TEST(NchwcConv, ClampKeepsNaN) {
  for (const ActivationKind kind :
       {ActivationKind::kRelu, ActivationKind::kClip, ActivationKind::kHardSwish}) {
    for (const int64_t group : {int64_t{1}, int64_t{16}}) {
      SCOPED_TRACE(std::string(ActivationName(kind)) + " group " + std::to_string(group));
      Tensor x(DType::kFloat32, Shape({1, 16, 3, 4}));
      x.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();  // channel 0, pixel (1, 1)
      Tensor w(DType::kFloat32, Shape({16, 16 / group, 1, 1}));
      for (int64_t i = 0; i < w.num_elements(); ++i) w.data<float>()[i] = 1.0f;
      for (Isa isa : SupportedIsas()) {
        SCOPED_TRACE(IsaName(isa));
        const int block = NchwcBlockSize(isa);
        Attributes attrs;
        attrs.set("group", group);
        attrs.set("block", int64_t{block});
        SetFusedActivationAttributes({kind, 0.0f, 6.0f, false}, attrs);
        const PreparedNchwcConv conv(attrs, w, nullptr, isa);
        const Tensor y = NchwcToNchw(conv.Run({nullptr, isa}, NchwToNchwc(x, block), nullptr), 16);
        for (int64_t c = 0; c < 16; ++c) {
          for (int64_t i = 0; i < 12; ++i) {
            const float v = y.data<float>()[c * 12 + i];
            // Dense: every channel reads the NaN; depthwise: channel 0 only.
            if (i == 5 && (group == 1 || c == 0)) {
              EXPECT_TRUE(std::isnan(v)) << "channel " << c << " pixel " << i;
            } else {
              EXPECT_EQ(v, 0.0f) << "channel " << c << " pixel " << i;
            }
          }
        }
      }
    }
  }
}

// Sigmoid and SiLU in registers over the whole float range: a 1x1 conv
// (dense or depthwise) with identity weights passes each input through, so
// the output is act(x) for x from -120 to 120 (across exp's overflow and its
// underflow to subnormals and zero), compared with the value computed in
// double; depthwise also passes +-inf and NaN (a dense conv would spread
// them to every channel as 0 * inf).
TEST(NchwcConv, SigmoidAndSiluOverTheWholeRange) {
  std::vector<float> finite = {0.0f, -0.0f, 1e-30f, -1e-30f};
  for (float v = -120.0f; v <= 120.0f; v += 0.0371f) finite.push_back(v);
  std::vector<float> special = finite;
  for (const float v :
       {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::quiet_NaN()}) {
    special.push_back(v);
  }
  constexpr int64_t kChannels = 16;
  // Each channel its own rotation of the values, so every lane sees them all.
  auto input = [&](const std::vector<float>& values) {
    const int64_t pixels = static_cast<int64_t>(values.size());
    Tensor x(DType::kFloat32, Shape({1, kChannels, 1, pixels}));
    for (int64_t c = 0; c < kChannels; ++c) {
      for (int64_t i = 0; i < pixels; ++i)
        x.data<float>()[c * pixels + i] = values[(i + c) % pixels];
    }
    return x;
  };
  for (const ActivationKind kind : {ActivationKind::kSigmoid, ActivationKind::kSilu}) {
    for (const int64_t group : {int64_t{1}, kChannels}) {
      SCOPED_TRACE(std::string(ActivationName(kind)) + " group " + std::to_string(group));
      const Tensor x = input(group == 1 ? finite : special);
      Tensor w(DType::kFloat32, Shape({kChannels, kChannels / group, 1, 1}));
      for (int64_t oc = 0; oc < kChannels; ++oc) {
        w.data<float>()[group == 1 ? oc * kChannels + oc : oc] = 1.0f;
      }
      for (Isa isa : SupportedIsas()) {
        SCOPED_TRACE(IsaName(isa));
        const int block = NchwcBlockSize(isa);
        Attributes attrs;
        attrs.set("group", group).set("block", int64_t{block});
        SetFusedActivationAttributes({kind, 0.0f, 0.0f, false}, attrs);
        const PreparedNchwcConv conv(attrs, w, nullptr, isa);
        const Tensor y =
            NchwcToNchw(conv.Run({nullptr, isa}, NchwToNchwc(x, block), nullptr), kChannels);
        int64_t failures = 0;
        for (int64_t i = 0; i < x.num_elements() && failures < 10; ++i) {
          const double in = x.data<float>()[i];
          const double sigmoid = 1.0 / (1.0 + std::exp(-in));
          const double want = kind == ActivationKind::kSigmoid ? sigmoid : in * sigmoid;
          const float got = y.data<float>()[i];
          if (std::isnan(in)) {
            if (!std::isnan(got)) ++failures, ADD_FAILURE() << "NaN in, " << got << " out";
            continue;
          }
          if (std::isinf(in) && kind == ActivationKind::kSilu) {
            // -inf * sigmoid(-inf) = -inf * 0: NaN, as in PyTorch and the
            // reference; +inf stays +inf.
            if (in > 0 ? got != in : !std::isnan(got)) {
              ++failures, ADD_FAILURE() << "silu(" << in << ") = " << got;
            }
            continue;
          }
          // Once e^-x overflows (x < -88.72) the result is 0: sigmoid is
          // below 3e-39 there, silu below 3e-37.
          if (in < -88.72 && got == 0.0f) continue;
          // Else 4 ulp of the result, or the smallest normal float where the
          // result is subnormal.
          const double tolerance =
              std::max(std::abs(want) * 4.8e-7, double{std::numeric_limits<float>::min()});
          if (!(std::abs(got - want) <= tolerance)) {
            ++failures;
            ADD_FAILURE() << "x " << in << ": got " << got << ", want " << want;
          }
        }
      }
    }
  }
}

TEST(NchwcConv, OneShotKernelMatchesPrepared) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 10, 6, 6}), 5);
  const Tensor w = RandomTensor(DType::kFloat32, Shape({12, 10, 3, 3}), 6);
  for (Isa isa : SupportedIsas()) {
    const int block = NchwcBlockSize(isa);
    Attributes attrs;
    attrs.set("pads", Ints{1, 1, 1, 1}).set("block", int64_t{block});
    const Tensor xb = NchwToNchwc(x, block);
    const Tensor y = testing::CallSingleOutput(NchwcConvKernel, {&xb, &w}, attrs, nullptr, isa);
    const Tensor expected =
        PreparedNchwcConv(attrs, w, nullptr, isa).Run({nullptr, isa}, xb, nullptr);
    EXPECT_TRUE(BitwiseEqual(y, expected));
  }
}

TEST(NchwcConv, RejectsMismatchedInputsWithClearErrors) {
  const Tensor w = RandomTensor(DType::kFloat32, Shape({8, 4, 3, 3}), 7);
  Attributes attrs;
  attrs.set("block", int64_t{8});
  const PreparedNchwcConv conv(attrs, w, nullptr, Isa::kPortable);
  const Tensor wrong = RandomTensor(DType::kFloat32, Shape({1, 2, 5, 5, 8}), 8);
  EXPECT_NE(testing::ErrorMessageOf([&] {
              conv.Run({}, wrong, nullptr);
            }).find("NchwcConv: input 'X' (NCHWc) has shape [1, 2, 5, 5, 8]"),
            std::string::npos);
  const Tensor plain = RandomTensor(DType::kFloat32, Shape({1, 4, 5, 5}), 8);
  EXPECT_NE(testing::ErrorMessageOf([&] { conv.Run({}, plain, nullptr); }).find("rank 5"),
            std::string::npos);
  Attributes bad_winograd;
  bad_winograd.set("block", int64_t{8}).set("winograd", int64_t{2});
  EXPECT_NE(testing::ErrorMessageOf([&] {
              PreparedNchwcConv(bad_winograd, w, nullptr, Isa::kPortable);
            }).find("attribute 'winograd' must be -1 (automatic), 0 or 1 (got 2)"),
            std::string::npos);
  Attributes bad_block;
  bad_block.set("block", int64_t{16});
  EXPECT_NE(testing::ErrorMessageOf([&] {
              PreparedNchwcConv(bad_block, w, nullptr, Isa::kPortable);
            }).find("uses blocks of 8"),
            std::string::npos);
  Attributes grouped;
  grouped.set("block", int64_t{8}).set("group", int64_t{2});
  const Tensor w_grouped = RandomTensor(DType::kFloat32, Shape({8, 3, 3, 3}), 9);
  EXPECT_NE(testing::ErrorMessageOf([&] {
              PreparedNchwcConv(grouped, w_grouped, nullptr, Isa::kPortable);
            }).find("multiples of the block"),
            std::string::npos);
}

TEST(NchwcReorder, RoundTripsAndZeroesPaddingLanes) {
  // 2,250 pixels: more than one chunk of work per plane, and not a multiple
  // of 8 or 16 (the transposing loops' tails). 11 channels fill no block of
  // 16 and one of 8; 35 fill two of 16 and four of 8 with lanes left over.
  for (int64_t channels : {11, 35})
    for (Isa isa : SupportedIsas())
      for (int block : {8, 16})
        for (int threads : {1, 3}) {
          SCOPED_TRACE(std::string(IsaName(isa)) + " block " + std::to_string(block) + " threads " +
                       std::to_string(threads) + " channels " + std::to_string(channels));
          const Tensor x = RandomTensor(DType::kFloat32, Shape({2, channels, 50, 45}), 10);
          const int64_t plane = 50 * 45;
          auto pool = PoolWithThreads(threads);
          const KernelContext ctx{pool.get(), isa};
          Attributes to_blocked;
          to_blocked.set("block", int64_t{block});
          const Tensor* in[] = {&x};
          const Tensor blocked = NchwcReorderInputKernel(ctx, to_blocked, in)[0];
          const int64_t blocks = (channels + block - 1) / block;
          ASSERT_EQ(blocked.shape(), Shape({2, blocks, 50, 45, block}));
          // Element (n, c, h, w) sits at block c / B, lane c % B.
          const float* b = blocked.data<float>();
          for (int64_t n = 0; n < 2; ++n) {
            for (int64_t c = 0; c < blocks * block; ++c) {
              for (int64_t i = 0; i < plane; ++i) {
                const float got = b[((n * blocks + c / block) * plane + i) * block + c % block];
                const float want =
                    c < channels ? x.data<float>()[(n * channels + c) * plane + i] : 0.0f;
                ASSERT_EQ(got, want) << "n " << n << " c " << c << " pixel " << i;
              }
            }
          }
          Attributes to_plain;
          to_plain.set("channels", channels);
          const Tensor* back_in[] = {&blocked};
          EXPECT_TRUE(BitwiseEqual(NchwcReorderOutputKernel(ctx, to_plain, back_in)[0], x));
        }
}

TEST(NchwcReorder, RejectsChannelsThatDoNotFit) {
  const Tensor blocked = RandomTensor(DType::kFloat32, Shape({1, 2, 3, 3, 8}), 11);
  Attributes attrs;
  attrs.set("channels", int64_t{17});
  EXPECT_NE(testing::KernelErrorOf(NchwcReorderOutputKernel, {&blocked}, attrs)
                .find("attribute 'channels' 17 does not fit"),
            std::string::npos);
}

TEST(NchwcChannelAffine, MatchesPlainLoops) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({2, 11, 5, 4}), 40);
  const Tensor scale = RandomTensor(DType::kFloat32, Shape({2, 11, 1, 1}), 41);  // per image
  const Tensor shift = RandomTensor(DType::kFloat32, Shape({1, 11, 1, 1}), 42);
  for (Isa isa : SupportedIsas())
    for (int block : {8, 16}) {
      SCOPED_TRACE(std::string(IsaName(isa)) + " block " + std::to_string(block));
      const Tensor xb = NchwToNchwc(x, block);
      const Tensor sb = NchwToNchwc(scale, block);
      const Tensor tb = NchwToNchwc(shift, block);
      for (ActivationKind kind :
           {ActivationKind::kIdentity, ActivationKind::kRelu, ActivationKind::kHardSwish}) {
        Attributes attrs;
        SetFusedActivationAttributes({kind, 0, 0, false}, attrs);
        for (int threads : testing::kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor* in[] = {&xb, &sb, &tb};
          const Tensor y = NchwcChannelAffineKernel({pool.get(), isa}, attrs, in)[0];
          const Tensor plain = NchwcToNchw(y, 11);
          for (int64_t n = 0; n < 2; ++n) {
            for (int64_t c = 0; c < 11; ++c) {
              for (int64_t i = 0; i < 20; ++i) {
                const int64_t at = (n * 11 + c) * 20 + i;
                const float want = ActivationReference(
                    {kind, 0, 0, false},
                    x.data<float>()[at] * scale.data<float>()[n * 11 + c] + shift.data<float>()[c]);
                ASSERT_NEAR(plain.data<float>()[at], want, 1e-5) << "n " << n << " c " << c;
              }
            }
          }
        }
      }
      // Only a shift: x + shift exactly.
      const Tensor* shift_only[] = {&xb, nullptr, &tb};
      const Tensor shifted =
          NchwcToNchw(NchwcChannelAffineKernel({nullptr, isa}, {}, shift_only)[0], 11);
      for (int64_t at = 0; at < x.num_elements(); ++at) {
        ASSERT_EQ(shifted.data<float>()[at],
                  x.data<float>()[at] + shift.data<float>()[at / 20 % 11]);
      }
      // A scale of the wrong shape is refused by name.
      const Tensor* wrong[] = {&xb, &xb};
      EXPECT_NE(testing::ErrorMessageOf([&] {
                  NchwcChannelAffineKernel({}, {}, wrong);
                }).find("NchwcChannelAffine: input 'Scale' must have shape"),
                std::string::npos);
    }
}

struct PoolCase {
  std::string name;
  Ints x_shape;
  Attributes attrs;
};

std::vector<PoolCase> PoolCases() {
  Attributes max3x3s2;
  max3x3s2.set("kernel_shape", Ints{3, 3}).set("strides", Ints{2, 2}).set("pads", Ints{1, 1, 1, 1});
  Attributes ceil;
  ceil.set("kernel_shape", Ints{3, 3}).set("strides", Ints{2, 2}).set("ceil_mode", int64_t{1});
  Attributes dilated;
  dilated.set("kernel_shape", Ints{2, 3})
      .set("dilations", Ints{2, 1})
      .set("pads", Ints{1, 0, 0, 2});
  Attributes include_pad = max3x3s2;
  include_pad.set("count_include_pad", int64_t{1});
  Attributes wide;  // interior columns in tiles of 8
  wide.set("kernel_shape", Ints{3, 3}).set("pads", Ints{1, 1, 1, 1});
  Attributes wide_include = wide;
  wide_include.set("count_include_pad", int64_t{1});
  return {{"3x3/2 pad 1", {1, 19, 13, 12}, max3x3s2},
          {"3x3/1 pad 1, wide rows", {2, 17, 5, 43}, wide},
          {"3x3/1 pad 1, wide rows, count_include_pad", {1, 9, 4, 41}, wide_include},
          {"ceil mode", {2, 8, 10, 9}, ceil},
          {"dilated asymmetric", {1, 5, 9, 7}, dilated},
          {"count_include_pad", {1, 17, 7, 8}, include_pad},
          {"1x1 planes", {2, 20, 1, 1}, max3x3s2},
          // Over 64 KiB: the global pools split over the threads.
          {"large planes", {2, 40, 24, 20}, max3x3s2}};
}

TEST(NchwcPool, MatchesReferences) {
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = RandomTensor(DType::kFloat32, Shape(c.x_shape), 12);
    const int64_t channels = c.x_shape[1];
    // Every ISA with both block sizes: its own table, the portable table
    // (blocks of 8) or the plain loops (16 without AVX-512).
    for (Isa isa : SupportedIsas())
      for (int block : {8, 16}) {
        SCOPED_TRACE(std::string(IsaName(isa)) + " block " + std::to_string(block));
        const Tensor xb = NchwToNchwc(x, block);
        for (int threads : testing::kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const KernelContext ctx{pool.get(), isa};
          const Tensor* in[] = {&xb};
          if (!c.attrs.has("count_include_pad")) {
            const Tensor y = NchwcMaxPoolKernel(ctx, c.attrs, in)[0];
            EXPECT_TENSORS_NEAR(NchwcToNchw(y, channels), MaxPoolReference(c.attrs, x)[0], 0, 0);
          }
          const Tensor avg = NchwcAveragePoolKernel(ctx, c.attrs, in)[0];
          EXPECT_TENSORS_NEAR(NchwcToNchw(avg, channels), AveragePoolReference(c.attrs, x), 1e-5,
                              1e-6);
          const Tensor gavg = NchwcGlobalAveragePoolKernel(ctx, {}, in)[0];
          EXPECT_TENSORS_NEAR(NchwcToNchw(gavg, channels), GlobalAveragePoolReference(x), 1e-5,
                              1e-6);
          const Tensor gmax = NchwcGlobalMaxPoolKernel(ctx, {}, in)[0];
          EXPECT_TENSORS_NEAR(NchwcToNchw(gmax, channels), GlobalMaxPoolReference(x), 0, 0);
        }
      }
  }
}

}  // namespace
}  // namespace loom::kernels
