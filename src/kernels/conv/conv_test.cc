#include "kernels/conv/conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/fused_activation.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;
using Ints = std::vector<int64_t>;

struct ConvCase {
  std::string name;
  Ints x_shape;
  Ints w_shape;
  Attributes attrs;
  bool bias = true;
};

Attributes Attrs(Ints strides, Ints pads, Ints dilations, int64_t group = 1) {
  Attributes a;
  if (!strides.empty()) a.set("strides", strides);
  if (!pads.empty()) a.set("pads", pads);
  if (!dilations.empty()) a.set("dilations", dilations);
  a.set("group", group);
  return a;
}

Attributes WithActivation(Attributes a, ActivationKind kind, float alpha = 0, float beta = 0) {
  SetFusedActivationAttributes({kind, alpha, beta, false}, a);
  return a;
}

Attributes AutoPad(const std::string& mode, Ints strides) {
  Attributes a;
  a.set("auto_pad", mode).set("strides", strides);
  return a;
}

std::vector<ConvCase> Cases() {
  return {
      {"3x3 pad 1", {1, 3, 7, 9}, {5, 3, 3, 3}, Attrs({}, {1, 1, 1, 1}, {})},
      {"3x3 stride 2 odd", {2, 4, 11, 13}, {6, 4, 3, 3}, Attrs({2, 2}, {1, 1, 1, 1}, {})},
      {"7x7 stride 2 pad 3 (stem)", {1, 3, 23, 23}, {8, 3, 7, 7}, Attrs({2, 2}, {3, 3, 3, 3}, {})},
      {"1x1 pointwise", {2, 16, 5, 7}, {24, 16, 1, 1}, Attrs({}, {}, {})},
      {"1x1 stride 2", {1, 8, 9, 9}, {10, 8, 1, 1}, Attrs({2, 2}, {}, {})},
      {"asymmetric pads", {1, 2, 6, 5}, {3, 2, 2, 3}, Attrs({1, 2}, {0, 2, 1, 0}, {}), false},
      {"dilation 2", {1, 3, 12, 10}, {4, 3, 3, 3}, Attrs({}, {2, 2, 2, 2}, {2, 2})},
      {"grouped 2", {1, 6, 8, 8}, {4, 3, 3, 3}, Attrs({}, {1, 1, 1, 1}, {}, 2)},
      // Many small groups (ResNeXt): one group per thread at 2-7 threads.
      {"grouped 16 x 4 channels", {2, 64, 9, 10}, {32, 4, 3, 3}, Attrs({}, {1, 1, 1, 1}, {}, 16)},
      {"grouped 1x1 8 x 3 channels", {1, 24, 5, 6}, {16, 3, 1, 1}, Attrs({}, {}, {}, 8)},
      {"depthwise 3x3", {2, 7, 10, 11}, {7, 1, 3, 3}, Attrs({}, {1, 1, 1, 1}, {}, 7)},
      {"depthwise stride 2", {1, 5, 13, 12}, {5, 1, 3, 3}, Attrs({2, 2}, {1, 1, 1, 1}, {}, 5)},
      {"depthwise stride 2 no pad", {1, 4, 9, 10}, {4, 1, 3, 3}, Attrs({2, 2}, {}, {}, 4)},
      {"depthwise stride 2 pad 2 SAME",
       {1, 4, 8, 11},
       {4, 1, 5, 5},
       Attrs({2, 2}, {2, 2, 2, 2}, {}, 4)},
      {"depthwise stride 3x1", {1, 3, 11, 13}, {3, 1, 3, 3}, Attrs({3, 1}, {2, 1, 0, 2}, {}, 3)},
      {"depthwise 5x5 dilated", {1, 3, 14, 9}, {3, 1, 5, 5}, Attrs({}, {4, 1, 3, 2}, {2, 1}, 3)},
      {"depthwise multiplier 2", {1, 3, 6, 6}, {6, 1, 3, 3}, Attrs({}, {1, 1, 1, 1}, {}, 3)},
      {"SAME_UPPER stride 2", {1, 3, 8, 7}, {4, 3, 3, 3}, AutoPad("SAME_UPPER", {2, 2})},
      {"SAME_LOWER", {1, 3, 6, 6}, {4, 3, 2, 2}, AutoPad("SAME_LOWER", {1, 1})},
      {"VALID", {1, 3, 9, 8}, {4, 3, 3, 2}, AutoPad("VALID", {2, 3})},
      {"1-D", {2, 4, 17}, {6, 4, 5}, Attrs({2}, {2, 1}, {})},
      {"1-D dilated grouped", {1, 4, 20}, {4, 2, 3}, Attrs({}, {}, {3}, 2)},
      {"3-D", {1, 2, 5, 6, 7}, {3, 2, 3, 2, 3}, Attrs({1, 2, 1}, {1, 0, 1, 1, 0, 1}, {})},
      {"fused relu",
       {1, 4, 6, 6},
       {8, 4, 3, 3},
       WithActivation(Attrs({}, {1, 1, 1, 1}, {}), ActivationKind::kRelu)},
      {"fused clip depthwise",
       {1, 6, 9, 9},
       {6, 1, 3, 3},
       WithActivation(Attrs({}, {1, 1, 1, 1}, {}, 6), ActivationKind::kClip, 0.0f, 0.6f)},
      {"fused leaky 1x1",
       {1, 20, 4, 4},
       {30, 20, 1, 1},
       WithActivation(Attrs({}, {}, {}), ActivationKind::kLeakyRelu, 0.1f)},
      {"many channels (k blocks)", {1, 64, 6, 6}, {70, 64, 3, 3}, Attrs({}, {1, 1, 1, 1}, {})},
      // 1600 columns: prepacked weights with B packed inside the multiply at
      // low thread counts, the two-pass path at 7 threads.
      {"large plane", {1, 8, 40, 40}, {24, 8, 3, 3}, Attrs({}, {1, 1, 1, 1}, {})},
      {"1x1 input", {1, 3, 1, 1}, {2, 3, 1, 1}, Attrs({}, {}, {})},
      {"empty batch", {0, 3, 5, 5}, {2, 3, 3, 3}, Attrs({}, {}, {})},
      {"no input channels", {1, 0, 4, 4}, {2, 0, 3, 3}, Attrs({}, {1, 1, 1, 1}, {})},
  };
}

Tensor RunConv(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor* b, Isa isa,
               threading::ThreadPool* pool) {
  KernelContext ctx{pool, isa};
  return CallKernel(ConvKernel, ctx, c.attrs, {&x, &w, b})[0];
}

TEST(Conv, MatchesReferenceForEveryCaseIsaAndThreadCount) {
  for (const ConvCase& c : Cases()) {
    const Tensor x = RandomTensor(DType::kFloat32, Shape(c.x_shape), 1);
    const Tensor w = RandomTensor(DType::kFloat32, Shape(c.w_shape), 2);
    const Tensor b = RandomTensor(DType::kFloat32, Shape({c.w_shape[0]}), 3);
    const Tensor* bias = c.bias ? &b : nullptr;
    const Tensor expected = ConvReference(c.attrs, x, w, bias);
    int64_t depth = 1;
    for (size_t i = 1; i < c.w_shape.size(); ++i) depth *= c.w_shape[i];
    const double atol = 2e-5 * std::sqrt(static_cast<double>(depth) + 1);
    for (int threads : testing::kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      for (Isa isa : SupportedIsas()) {
        const Tensor y = RunConv(c, x, w, bias, isa, pool.get());
        const std::string mismatch = testing::CompareTensors(y, expected, 1e-5, atol);
        EXPECT_TRUE(mismatch.empty())
            << c.name << ", " << IsaName(isa) << ", " << threads << " threads: " << mismatch;
      }
    }
  }
}

TEST(Conv, HandComputedSmallCase) {
  // 3x3 input 1..9, 2x2 filter of ones, bias 0.5: each output sums a window.
  Tensor x = Tensor::from_vector<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor b = Tensor::from_vector<float>({1}, {0.5f});
  for (Isa isa : SupportedIsas()) {
    Tensor y = CallKernel(ConvKernel, {nullptr, isa}, Attributes(), {&x, &w, &b})[0];
    EXPECT_TENSORS_NEAR(y, Tensor::from_vector<float>({1, 1, 2, 2}, {12.5f, 16.5f, 24.5f, 28.5f}),
                        0, 0);
  }
}

TEST(Conv, BitExactAcrossThreadCounts) {
  const std::vector<ConvCase> cases = {
      {"3x3", {1, 32, 20, 20}, {48, 32, 3, 3}, Attrs({}, {1, 1, 1, 1}, {})},
      {"depthwise", {1, 32, 20, 20}, {32, 1, 3, 3}, Attrs({2, 2}, {1, 1, 1, 1}, {}, 32)},
      {"grouped 32 x 4", {1, 128, 20, 20}, {128, 4, 3, 3}, Attrs({}, {1, 1, 1, 1}, {}, 32)},
      {"grouped 2 x 16", {1, 32, 20, 20}, {32, 16, 3, 3}, Attrs({}, {1, 1, 1, 1}, {}, 2)},
  };
  for (const ConvCase& c : cases) {
    const Tensor x = RandomTensor(DType::kFloat32, Shape(c.x_shape), 4);
    const Tensor w = RandomTensor(DType::kFloat32, Shape(c.w_shape), 5);
    for (Isa isa : SupportedIsas()) {
      auto one = PoolWithThreads(1);
      const Tensor first = RunConv(c, x, w, nullptr, isa, one.get());
      for (int threads : {2, 3, 7}) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(testing::BitwiseEqual(RunConv(c, x, w, nullptr, isa, pool.get()), first))
            << c.name << " " << IsaName(isa) << " threads=" << threads;
      }
    }
  }
}

TEST(Conv, PreparedConvRunsRepeatedlyWithDifferentInputSizes) {
  const Tensor w = RandomTensor(DType::kFloat32, {8, 3, 3, 3}, 6);
  Attributes attrs = Attrs({2, 2}, {1, 1, 1, 1}, {});
  const Isa isa = SupportedIsas().back();
  PreparedConv conv(attrs, w, nullptr, isa);
  auto pool = PoolWithThreads(2);
  for (Ints shape : {Ints{1, 3, 9, 9}, Ints{2, 3, 16, 5}, Ints{1, 3, 9, 9}}) {
    const Tensor x = RandomTensor(DType::kFloat32, Shape(shape), 7);
    EXPECT_TENSORS_NEAR(conv.Run({pool.get(), isa}, x), ConvReference(attrs, x, w, nullptr), 1e-5,
                        1e-4);
  }
  EXPECT_THROW(conv.Run({pool.get(), Isa::kPortable == isa ? Isa::kAvx2Fma : Isa::kPortable},
                        RandomTensor(DType::kFloat32, {1, 3, 9, 9}, 7)),
               InvalidArgumentError);
}

std::string ErrorOf(const Tensor& x, const Tensor& w, const Tensor* b, const Attributes& attrs) {
  try {
    CallKernel(ConvKernel, {nullptr, Isa::kPortable}, attrs, {&x, &w, b});
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Conv, BadInputsAreClearErrors) {
  const Tensor x(DType::kFloat32, {1, 3, 8, 8});
  const Tensor w(DType::kFloat32, {4, 3, 3, 3});
  EXPECT_EQ(ErrorOf(Tensor(DType::kFloat32, {1, 5, 8, 8}), w, nullptr, {}),
            "Conv: input 'X' has 5 channels (shape [1, 5, 8, 8]) but 'W' (shape [4, 3, 3, 3]) "
            "with group 1 expects 3");
  EXPECT_EQ(ErrorOf(Tensor(DType::kInt32, {1, 3, 8, 8}), w, nullptr, {}),
            "Conv: input 'X' must have dtype float32 (got int32)");
  EXPECT_EQ(ErrorOf(x, Tensor(DType::kFloat32, {4, 3}), nullptr, {}),
            "Conv: input 'W' must have rank 3 to 5 ([M, C/group, kernel...]) (got shape [4, 3])");
  EXPECT_EQ(ErrorOf(x, w, nullptr, Attrs({}, {}, {}, 3)),
            "Conv: group 3 must be positive and divide the output channels of 'W' (shape "
            "[4, 3, 3, 3])");
  const Tensor short_bias(DType::kFloat32, {3});
  EXPECT_EQ(ErrorOf(x, w, &short_bias, {}), "Conv: input 'B' must have shape [4] (got shape [3])");
  EXPECT_EQ(ErrorOf(Tensor(DType::kFloat32, {1, 3, 2, 2}), w, nullptr, {}),
            "Conv: window extent 3 on spatial axis 0 exceeds the padded input size 2 (input "
            "[2, 2])");
  Attributes unknown;
  unknown.set("activation", std::string("Softplus"));
  EXPECT_EQ(ErrorOf(x, w, nullptr, unknown), "Conv: unknown fused activation 'Softplus'");
  EXPECT_EQ(ErrorOf(Tensor(DType::kFloat32, {1, 3, 8}), w, nullptr, {}),
            "Conv: input 'X' must have rank 4 (got shape [1, 3, 8])");
}

}  // namespace
}  // namespace loom::kernels
