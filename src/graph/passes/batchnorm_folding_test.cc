#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::graph {
namespace {

using kernels::testing::RandomTensor;
using kernels::testing::TensorValues;
using testing::CompareGraphOutputs;
using testing::Floats;
using testing::RandomFeeds;

// Folding rounds the weights once to float32: relative error ~1e-7 per
// product, accumulated over a short dot product.
constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;

// Adds a BatchNormalization of `x` over `channels` with random parameters
// (variance in [0.5, 2), so a / sqrt(var + eps) stays moderate).
std::string AddBatchNorm(GraphBuilder& b, const std::string& x, int64_t channels, uint32_t seed,
                         const std::string& name = "bn") {
  const std::string scale =
      b.constant(RandomTensor(DType::kFloat32, Shape({channels}), seed), name + "_scale");
  const std::string bias =
      b.constant(RandomTensor(DType::kFloat32, Shape({channels}), seed + 1), name + "_bias");
  const std::string mean =
      b.constant(RandomTensor(DType::kFloat32, Shape({channels}), seed + 2), name + "_mean");
  const std::string var = b.constant(
      RandomTensor(DType::kFloat32, Shape({channels}), seed + 3, 0.5, 2.0), name + "_var");
  return b.op("BatchNormalization", {x, scale, bias, mean, var}, {{"epsilon", 1e-3f}}, name);
}

TEST(FoldBatchNormalization, HandComputedConv) {
  GraphBuilder b("hand");
  const std::string x = b.input("x", DType::kFloat32, {1, 1, 2, 2});
  const std::string w = b.constant(Floats({1, 1, 1, 1}, {3}), "w");
  const std::string c = b.op("Conv", {x, w, b.constant(Floats({1}, {1}), "b")}, {}, "conv");
  // a = 4 / sqrt(3 + 1) = 2: W' = 3 * 2 = 6, B' = (1 - 0.5) * 2 + 1 = 2.
  const std::string y =
      b.op("BatchNormalization",
           {c, b.constant(Floats({1}, {4}), "scale"), b.constant(Floats({1}, {1}), "shift"),
            b.constant(Floats({1}, {0.5f}), "mean"), b.constant(Floats({1}, {3}), "var")},
           {{"epsilon", 1.0f}}, "bn");
  b.output(b.op("Relu", {y}, {}, "out"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldBatchNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph hand\n"
            "  input x: float32[1, 1, 2, 2]\n"
            "  const b_bn: float32[1]\n"
            "  const w_bn: float32[1, 1, 1, 1]\n"
            "  bn = Conv(x, w_bn, b_bn)  # conv\n"
            "  out = Relu(bn)  # out\n"
            "  output out: float32[?]\n");
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("w_bn")), std::vector<float>{6});
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("b_bn")), std::vector<float>{2});
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
  EXPECT_FALSE(FoldBatchNormalization(graph));
}

TEST(FoldBatchNormalization, ConvWithoutBiasGetsOne) {
  GraphBuilder b("nobias");
  const std::string x = b.input("x", DType::kFloat32, {2, 3, 6, 5});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 3, 3, 3}), 10), "w");
  const std::string c = b.op("Conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
  b.output(AddBatchNorm(b, c, 4, 20));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldBatchNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph nobias\n"
            "  input x: float32[2, 3, 6, 5]\n"
            "  const conv_bias_bn: float32[4]\n"
            "  const w_bn: float32[4, 3, 3, 3]\n"
            "  bn = Conv(x, w_bn, conv_bias_bn) {pads=[1, 1, 1, 1]}  # conv\n"
            "  output bn: float32[?]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
}

TEST(FoldBatchNormalization, GroupedConvWithBias) {
  GraphBuilder b("grouped");
  const std::string x = b.input("x", DType::kFloat32, {1, 4, 5, 5});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({6, 2, 3, 3}), 1), "w");
  const std::string bias = b.constant(RandomTensor(DType::kFloat32, Shape({6}), 2), "b");
  const std::string c = b.op("Conv", {x, w, bias}, {{"group", int64_t{2}}}, "conv");
  b.output(AddBatchNorm(b, c, 6, 3));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldBatchNormalization(graph));
  EXPECT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.initializers.size(), 2u);  // w_bn, b_bn: the originals are unused
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
}

TEST(FoldBatchNormalization, DepthwiseConv1d) {
  GraphBuilder b("depthwise");
  const std::string x = b.input("x", DType::kFloat32, {2, 3, 9});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({3, 1, 3}), 4), "w");
  const std::string c = b.op("Conv", {x, w}, {{"group", int64_t{3}}}, "conv");
  b.output(AddBatchNorm(b, c, 3, 5));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldBatchNormalization(graph));
  EXPECT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
}

// Gemm: every combination of transB and of C (absent, [N], [1, N], [1]),
// with alpha and beta not 1.
TEST(FoldBatchNormalization, GemmColumns) {
  for (int64_t trans_b : {0, 1}) {
    for (const std::vector<int64_t>& c_dims :
         {std::vector<int64_t>{}, std::vector<int64_t>{5}, std::vector<int64_t>{1, 5},
          std::vector<int64_t>{1}}) {
      SCOPED_TRACE("transB " + std::to_string(trans_b) + ", C rank " +
                   std::to_string(c_dims.size()));
      GraphBuilder b("gemm");
      const std::string a = b.input("a", DType::kFloat32, {3, 4});
      const std::string w = b.constant(
          RandomTensor(DType::kFloat32, trans_b ? Shape({5, 4}) : Shape({4, 5}), 6), "w");
      std::vector<std::string> inputs = {a, w};
      if (!c_dims.empty()) {
        inputs.push_back(b.constant(RandomTensor(DType::kFloat32, Shape(c_dims), 7), "c"));
      }
      const std::string g =
          b.op("Gemm", inputs, {{"transB", trans_b}, {"alpha", 2.0f}, {"beta", 0.5f}}, "gemm");
      b.output(AddBatchNorm(b, g, 5, 8));
      Graph graph = b.build();
      const Graph before = graph;

      EXPECT_TRUE(FoldBatchNormalization(graph));
      ASSERT_EQ(graph.nodes.size(), 1u);
      const Node& gemm = graph.nodes[0];
      EXPECT_EQ(gemm.name, "gemm");
      EXPECT_EQ(gemm.outputs, std::vector<std::string>{"bn"});
      EXPECT_EQ(std::get<float>(gemm.attributes.at("beta")), 1.0f);
      EXPECT_EQ(graph.initializers.at(gemm.inputs[2]).shape(), Shape({5}));
      EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
    }
  }
}

TEST(FoldBatchNormalization, GemmWithRowVaryingCIsKept) {
  GraphBuilder b("gemm_rows");
  const std::string a = b.input("a", DType::kFloat32, {3, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 5}), 1), "w");
  const std::string c = b.constant(RandomTensor(DType::kFloat32, Shape({3, 5}), 2), "c");
  b.output(AddBatchNorm(b, b.op("Gemm", {a, w, c}, {}, "gemm"), 5, 3));
  Graph graph = b.build();
  EXPECT_FALSE(FoldBatchNormalization(graph));
}

TEST(FoldBatchNormalization, SharedWeightsStay) {
  GraphBuilder b("shared");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({2, 2, 1, 1}), 1), "w");
  b.output(AddBatchNorm(b, b.op("Conv", {x, w}, {}, "conv1"), 2, 2, "bn1"));
  b.output(b.op("Conv", {x, w}, {}, "conv2"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldBatchNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph shared\n"
            "  input x: float32[1, 2, 4, 4]\n"
            "  const conv1_bias_bn: float32[2]\n"
            "  const w: float32[2, 2, 1, 1]\n"
            "  const w_bn: float32[2, 2, 1, 1]\n"
            "  bn1 = Conv(x, w_bn, conv1_bias_bn)  # conv1\n"
            "  conv2 = Conv(x, w)  # conv2\n"
            "  output bn1: float32[?]\n"
            "  output conv2: float32[?]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
}

TEST(FoldBatchNormalization, ConvOutputWithAnotherConsumerIsKept) {
  GraphBuilder b("two_consumers");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({2, 2, 1, 1}), 1), "w");
  const std::string c = b.op("Conv", {x, w}, {}, "conv");
  b.output(b.op("Add", {AddBatchNorm(b, c, 2, 2), c}, {}, "y"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();
  EXPECT_FALSE(FoldBatchNormalization(graph));
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(FoldBatchNormalization, ConvOutputFetchedIsKept) {
  GraphBuilder b("fetched");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({2, 2, 1, 1}), 1), "w");
  const std::string c = b.op("Conv", {x, w}, {}, "conv");
  b.output(c);
  b.output(AddBatchNorm(b, c, 2, 2));
  Graph graph = b.build();
  EXPECT_FALSE(FoldBatchNormalization(graph));
}

TEST(FoldBatchNormalization, NonConstantParametersAreKept) {
  // A parameter that is a graph input (even with a default), or computed.
  for (int variant = 0; variant < 2; ++variant) {
    GraphBuilder b("inputs");
    const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
    const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({2, 2, 1, 1}), 1), "w");
    const std::string c = b.op("Conv", {x, w}, {}, "conv");
    std::string scale = b.constant(Floats({2}, {1, 2}), "scale");
    if (variant == 0) {
      b.input("scale", DType::kFloat32, {2});
    } else {
      scale = b.op("Abs", {scale}, {}, "abs");
    }
    const std::string zero = b.constant(Floats({2}, {0, 0}), "zero");
    const std::string one = b.constant(Floats({2}, {1, 1}), "one");
    b.output(b.op("BatchNormalization", {c, scale, zero, zero, one}, {}, "bn"));
    Graph graph = b.build();
    EXPECT_FALSE(FoldBatchNormalization(graph)) << variant;
  }
}

TEST(FoldBatchNormalization, NonConstantWeightsAreKept) {
  GraphBuilder b("weights_input");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.input("w", DType::kFloat32, {2, 2, 1, 1});
  b.output(AddBatchNorm(b, b.op("Conv", {x, w}, {}, "conv"), 2, 2));
  Graph graph = b.build();
  EXPECT_FALSE(FoldBatchNormalization(graph));
}

TEST(FoldBatchNormalization, ConvWithFusedActivationIsKept) {
  GraphBuilder b("activated");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({2, 2, 1, 1}), 1), "w");
  const std::string c = b.op(
      "Conv", {x, w},
      {{"activation", std::string("Relu")}, {"activation_params", std::vector<float>{}}}, "conv");
  b.output(AddBatchNorm(b, c, 2, 2));
  Graph graph = b.build();
  EXPECT_FALSE(FoldBatchNormalization(graph));
}

TEST(FoldBatchNormalization, BatchNormOfAnotherOpIsKept) {
  GraphBuilder b("matmul");
  const std::string x = b.input("x", DType::kFloat32, {3, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 2}), 1), "w");
  b.output(AddBatchNorm(b, b.op("MatMul", {x, w}, {}, "matmul"), 2, 2));
  Graph graph = b.build();
  EXPECT_FALSE(FoldBatchNormalization(graph));
}

}  // namespace
}  // namespace loom::graph
