#include <gtest/gtest.h>

#include <limits>
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

// The fused kernels apply the same bias add and activation code to the same
// sums, so outputs agree to rounding.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

std::string ExpectSame(const Graph& before, const Graph& after) {
  return CompareGraphOutputs(before, after, RandomFeeds(before, 3), kRtol, kAtol);
}

// x [1, 3, 5, 5] → Conv (4 output channels, 3x3, padded): the start of the
// Conv tests.
struct ConvGraph {
  GraphBuilder b{"conv"};
  std::string x = b.input("x", DType::kFloat32, {1, 3, 5, 5});
  std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 3, 3, 3}), 1), "w");
  std::string conv = b.op("Conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
};

// a [3, 4] → Gemm(transB) with 5 output columns.
struct GemmGraph {
  GraphBuilder b{"gemm"};
  std::string a = b.input("a", DType::kFloat32, {3, 4});
  std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({5, 4}), 1), "w");
  std::string gemm =
      b.op("Gemm", {a, w}, {{"transB", int64_t{1}}, {"alpha", 1.5f}, {"beta", 0.5f}}, "gemm");
};

TEST(FuseBiasAndActivation, ConvBiasRelu) {
  ConvGraph g;
  const Tensor bias = RandomTensor(DType::kFloat32, Shape({1, 4, 1, 1}), 2);
  const std::string added = g.b.op("Add", {g.conv, g.b.constant(bias, "b")}, {}, "add");
  g.b.output(g.b.op("Relu", {added}, {}, "relu"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  EXPECT_EQ(graph.to_string(),
            "graph conv\n"
            "  input x: float32[1, 3, 5, 5]\n"
            "  const conv_bias: float32[4]\n"
            "  const w: float32[4, 3, 3, 3]\n"
            "  relu = Conv(x, w, conv_bias) {activation=\"Relu\", activation_params=[], "
            "pads=[1, 1, 1, 1]}  # conv\n"
            "  output relu: float32[?]\n");
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("conv_bias")), TensorValues<float>(bias));
  EXPECT_EQ(ExpectSame(before, graph), "");
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, ConvRankThreeBiasFirstOperandLeakyRelu) {
  ConvGraph g;
  const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({4, 1, 1}), 2), "b");
  const std::string added = g.b.op("Add", {b, g.conv}, {}, "add");
  g.b.output(g.b.op("LeakyRelu", {added}, {{"alpha", 0.2f}}, "leaky"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  const Node& conv = graph.nodes[0];
  EXPECT_EQ(conv.inputs, (std::vector<std::string>{"x", "w", "conv_bias"}));
  EXPECT_EQ(conv.outputs, std::vector<std::string>{"leaky"});
  EXPECT_EQ(std::get<std::string>(conv.attributes.at("activation")), "LeakyRelu");
  EXPECT_EQ(std::get<std::vector<float>>(conv.attributes.at("activation_params")),
            std::vector<float>{0.2f});
  EXPECT_EQ(graph.initializers.count("b"), 0u);
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, ConvVectorBiasIsNotPerChannel) {
  // [4] broadcasts along the last axis (width 4 here), not the channels.
  GraphBuilder b("vector_bias");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 2, 1, 1}), 1), "w");
  const std::string conv = b.op("Conv", {x, w}, {}, "conv");
  const std::string bias = b.constant(Floats({4}, {1, 2, 3, 4}), "b");
  b.output(b.op("Relu", {b.op("Add", {conv, bias}, {}, "add")}, {}, "relu"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(FuseBiasAndActivation, ConvBiasVaryingSpatiallyIsKept) {
  ConvGraph g;
  const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({1, 4, 5, 1}), 2), "b");
  g.b.output(g.b.op("Add", {g.conv, b}, {}, "add"));
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, ScalarBiasBroadcastsToEveryChannel) {
  ConvGraph g;
  g.b.output(g.b.op("Add", {g.conv, g.b.constant(Floats({1, 1, 1}, {0.5f}), "b")}, {}, "add"));
  Graph graph = g.b.build();
  const Graph before = graph;
  EXPECT_TRUE(FuseBiasAndActivation(graph));
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("conv_bias")),
            (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, GemmVectorBiasSigmoid) {
  GemmGraph g;
  const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({5}), 2), "b");
  const std::string added = g.b.op("Add", {g.gemm, b}, {}, "add");
  g.b.output(g.b.op("Sigmoid", {added}, {}, "sigmoid"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  // The [N] bias is used as it is; beta (unused without C) becomes 1.
  EXPECT_EQ(graph.to_string(),
            "graph gemm\n"
            "  input a: float32[3, 4]\n"
            "  const b: float32[5]\n"
            "  const w: float32[5, 4]\n"
            "  sigmoid = Gemm(a, w, b) {activation=\"Sigmoid\", activation_params=[], "
            "alpha=1.5, beta=1, transB=1}  # gemm\n"
            "  output sigmoid: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, GemmRowBiasTanh) {
  GemmGraph g;
  const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({1, 5}), 2), "b");
  g.b.output(g.b.op("Tanh", {g.b.op("Add", {g.gemm, b}, {}, "add")}, {}, "tanh"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].inputs[2], "gemm_bias");
  EXPECT_EQ(graph.initializers.at("gemm_bias").shape(), Shape({5}));
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, GemmColumnBiasIsKept) {
  GemmGraph g;
  const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({3, 1}), 2), "b");
  g.b.output(g.b.op("Add", {g.gemm, b}, {}, "add"));
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, GemmWithCKeepsItsAdd) {
  GraphBuilder b("gemm_c");
  const std::string a = b.input("a", DType::kFloat32, {3, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 5}), 1), "w");
  const std::string c = b.constant(RandomTensor(DType::kFloat32, Shape({5}), 2), "c");
  const std::string gemm = b.op("Gemm", {a, w, c}, {}, "gemm");
  const std::string d = b.constant(RandomTensor(DType::kFloat32, Shape({5}), 3), "d");
  b.output(b.op("Add", {gemm, d}, {}, "add"));
  Graph graph = b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, ConvWithBiasTakesTheActivationOnly) {
  GraphBuilder b("biased");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({3, 2, 3, 3}), 1), "w");
  const std::string bias = b.constant(RandomTensor(DType::kFloat32, Shape({3}), 2), "b");
  const std::string conv = b.op("Conv", {x, w, bias}, {}, "conv");
  b.output(b.op("HardSwish", {conv}, {}, "act"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  EXPECT_EQ(graph.to_string(),
            "graph biased\n"
            "  input x: float32[1, 2, 4, 4]\n"
            "  const b: float32[3]\n"
            "  const w: float32[3, 2, 3, 3]\n"
            "  act = Conv(x, w, b) {activation=\"HardSwish\", activation_params=[]}  # conv\n"
            "  output act: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, ConvWithBiasKeepsAFollowingAdd) {
  GraphBuilder b("biased_add");
  const std::string x = b.input("x", DType::kFloat32, {1, 2, 4, 4});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({3, 2, 1, 1}), 1), "w");
  const std::string bias = b.constant(RandomTensor(DType::kFloat32, Shape({3}), 2), "b");
  const std::string conv = b.op("Conv", {x, w, bias}, {}, "conv");
  const std::string more = b.constant(RandomTensor(DType::kFloat32, Shape({3, 1, 1}), 3), "more");
  b.output(b.op("Relu", {b.op("Add", {conv, more}, {}, "add")}, {}, "relu"));
  Graph graph = b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

// Each activation after a Gemm: the attributes written and the outputs.
TEST(FuseBiasAndActivation, EveryActivation) {
  struct Case {
    std::string op;
    Attributes attributes;
    std::string activation;
    std::vector<float> params;
  };
  const std::vector<Case> cases = {
      {"Relu", {}, "Relu", {}},
      {"LeakyRelu", {}, "LeakyRelu", {0.01f}},  // ONNX default alpha
      {"Sigmoid", {}, "Sigmoid", {}},
      {"Tanh", {}, "Tanh", {}},
      {"HardSigmoid", {{"alpha", 0.3f}, {"beta", 0.4f}}, "HardSigmoid", {0.3f, 0.4f}},
      {"HardSigmoid", {}, "HardSigmoid", {0.2f, 0.5f}},  // ONNX defaults
      {"HardSwish", {}, "HardSwish", {}},
      {"Silu", {}, "Silu", {}},
      {"Gelu", {}, "Gelu", {0.0f}},
      {"Gelu", {{"approximate", std::string("tanh")}}, "Gelu", {1.0f}},
      {"Clip", {{"min", -0.5f}, {"max", 0.25f}}, "Clip", {-0.5f, 0.25f}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    GemmGraph g;
    g.b.output(g.b.op(c.op, {g.gemm}, c.attributes, "act"));
    Graph graph = g.b.build();
    const Graph before = graph;

    EXPECT_TRUE(FuseBiasAndActivation(graph));
    ASSERT_EQ(graph.nodes.size(), 1u);
    const Node& gemm = graph.nodes[0];
    EXPECT_EQ(gemm.inputs.size(), 2u);  // no bias was added
    EXPECT_EQ(std::get<std::string>(gemm.attributes.at("activation")), c.activation);
    EXPECT_EQ(std::get<std::vector<float>>(gemm.attributes.at("activation_params")), c.params);
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
}

TEST(FuseBiasAndActivation, ClipBoundsFromConstantInputs) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (bool with_min : {true, false}) {
    ConvGraph g;
    const std::string low = with_min ? g.b.constant(Floats({}, {0}), "low") : "";
    const std::string high = g.b.constant(Floats({}, {0.5f}), "high");
    g.b.output(g.b.op("Clip", {g.conv, low, high}, {}, "clip"));
    Graph graph = g.b.build();
    const Graph before = graph;

    EXPECT_TRUE(FuseBiasAndActivation(graph));
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(std::get<std::vector<float>>(graph.nodes[0].attributes.at("activation_params")),
              (std::vector<float>{with_min ? 0.0f : -kInf, 0.5f}));
    EXPECT_EQ(graph.initializers.count("high"), 0u);
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
}

TEST(FuseBiasAndActivation, ClipWithAnInputBoundIsKept) {
  ConvGraph g;
  const std::string high = g.b.input("high", DType::kFloat32, {});
  g.b.output(g.b.op("Clip", {g.conv, "", high}, {}, "clip"));
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, SiluWrittenAsMulOfSigmoid) {
  for (bool sigmoid_first : {false, true}) {
    ConvGraph g;
    const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({1, 4, 1, 1}), 2), "b");
    const std::string added = g.b.op("Add", {g.conv, b}, {}, "add");
    const std::string gate = g.b.op("Sigmoid", {added}, {}, "gate");
    g.b.output(g.b.op("Mul",
                      sigmoid_first ? std::vector<std::string>{gate, added}
                                    : std::vector<std::string>{added, gate},
                      {}, "silu"));
    Graph graph = g.b.build();
    const Graph before = graph;

    EXPECT_TRUE(FuseBiasAndActivation(graph));
    EXPECT_EQ(graph.to_string(),
              "graph conv\n"
              "  input x: float32[1, 3, 5, 5]\n"
              "  const conv_bias: float32[4]\n"
              "  const w: float32[4, 3, 3, 3]\n"
              "  silu = Conv(x, w, conv_bias) {activation=\"Silu\", activation_params=[], "
              "pads=[1, 1, 1, 1]}  # conv\n"
              "  output silu: float32[?]\n");
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
}

TEST(FuseBiasAndActivation, FetchedSigmoidKeepsTheSiluProduct) {
  ConvGraph g;
  const std::string gate = g.b.op("Sigmoid", {g.conv}, {}, "gate");
  g.b.output(g.b.op("Mul", {g.conv, gate}, {}, "silu"));
  g.b.output(gate);
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, FetchedIntermediatesAreNotFusedAway) {
  {
    // The Conv output is fetched: nothing fuses.
    ConvGraph g;
    g.b.output(g.conv);
    const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({4, 1, 1}), 2), "b");
    g.b.output(g.b.op("Relu", {g.b.op("Add", {g.conv, b}, {}, "add")}, {}, "relu"));
    Graph graph = g.b.build();
    EXPECT_FALSE(FuseBiasAndActivation(graph));
  }
  {
    // The biased sum is fetched: the bias fuses, the Relu stays.
    ConvGraph g;
    const std::string b = g.b.constant(RandomTensor(DType::kFloat32, Shape({4, 1, 1}), 2), "b");
    const std::string added = g.b.op("Add", {g.conv, b}, {}, "add");
    g.b.output(added);
    g.b.output(g.b.op("Relu", {added}, {}, "relu"));
    Graph graph = g.b.build();
    const Graph before = graph;
    EXPECT_TRUE(FuseBiasAndActivation(graph));
    EXPECT_EQ(graph.to_string(),
              "graph conv\n"
              "  input x: float32[1, 3, 5, 5]\n"
              "  const conv_bias: float32[4]\n"
              "  const w: float32[4, 3, 3, 3]\n"
              "  add = Conv(x, w, conv_bias) {pads=[1, 1, 1, 1]}  # conv\n"
              "  relu = Relu(add)  # relu\n"
              "  output add: float32[?]\n"
              "  output relu: float32[?]\n");
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
}

TEST(FuseBiasAndActivation, SecondConsumerBlocksFusion) {
  ConvGraph g;
  const std::string relu = g.b.op("Relu", {g.conv}, {}, "relu");
  g.b.output(g.b.op("Add", {relu, g.conv}, {}, "sum"));
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

// a [2, 3, 4] (tokens of a sequence) → MatMul with constant weights [4, 5].
struct MatMulGraph {
  GraphBuilder b{"matmul"};
  std::string a = b.input("a", DType::kFloat32, {2, 3, 4});
  std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 5}), 1), "w");
  std::string matmul = b.op("MatMul", {a, w}, {}, "matmul");
};

TEST(FuseBiasAndActivation, MatMulBiasGeluBecomesFusedMatMul) {
  MatMulGraph g;
  const std::string bias = g.b.constant(RandomTensor(DType::kFloat32, Shape({5}), 2), "bias");
  const std::string added = g.b.op("Add", {bias, g.matmul}, {}, "add");
  g.b.output(g.b.op("Gelu", {added}, {}, "gelu"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  EXPECT_EQ(graph.to_string(),
            "graph matmul\n"
            "  input a: float32[2, 3, 4]\n"
            "  const bias: float32[5]\n"
            "  const w: float32[4, 5]\n"
            "  gelu = FusedMatMul(a, w, bias) {activation=\"Gelu\", activation_params=[0]}"
            "  # matmul\n"
            "  output gelu: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, MatMulRowBiasAloneIsReshapedToN) {
  MatMulGraph g;
  const std::string bias = g.b.constant(RandomTensor(DType::kFloat32, Shape({1, 1, 5}), 2), "bias");
  g.b.output(g.b.op("Add", {g.matmul, bias}, {}, "add"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op_type, "FusedMatMul");
  EXPECT_EQ(graph.nodes[0].inputs[2], "matmul_bias");
  EXPECT_EQ(graph.initializers.at("matmul_bias").shape(), Shape({5}));
  EXPECT_EQ(graph.nodes[0].attributes.count("activation"), 0u);
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, MatMulReluWithoutBias) {
  MatMulGraph g;
  g.b.output(g.b.op("Relu", {g.matmul}, {}, "relu"));
  Graph graph = g.b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseBiasAndActivation(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op_type, "FusedMatMul");
  EXPECT_EQ(graph.nodes[0].inputs.size(), 2u);
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseBiasAndActivation, MatMulBiasAlongAnotherAxisIsKept) {
  MatMulGraph g;
  // One value per token, not per column.
  const std::string bias = g.b.constant(RandomTensor(DType::kFloat32, Shape({3, 1}), 2), "bias");
  g.b.output(g.b.op("Add", {g.matmul, bias}, {}, "add"));
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, MatMulWithVariableOrBatchedWeightsIsKept) {
  // B a graph input: no FusedMatMul (its B must be a constant matrix).
  GraphBuilder b("matmul_variable");
  const std::string a = b.input("a", DType::kFloat32, {3, 4});
  const std::string w = b.input("w", DType::kFloat32, {4, 5});
  b.output(b.op("Relu", {b.op("MatMul", {a, w}, {}, "matmul")}, {}, "relu"));
  Graph graph = b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));

  GraphBuilder batched("matmul_batched");
  const std::string x = batched.input("x", DType::kFloat32, {2, 3, 4});
  const std::string v = batched.constant(RandomTensor(DType::kFloat32, Shape({2, 4, 5}), 1), "v");
  batched.output(batched.op("Relu", {batched.op("MatMul", {x, v}, {}, "matmul")}, {}, "relu"));
  Graph batched_graph = batched.build();
  EXPECT_FALSE(FuseBiasAndActivation(batched_graph));
}

TEST(FuseBiasAndActivation, MatMulBiasNeedsTheInputRank) {
  // A's rank unknown (no type inference ran for the Identity's output): a
  // [1, 1, 5] bias could grow the output, so no fusion.
  GraphBuilder b("matmul_unknown");
  const std::string a = b.op("Identity", {b.input("x", DType::kFloat32, {3, 4})}, {}, "id");
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({4, 5}), 1), "w");
  const std::string bias = b.constant(RandomTensor(DType::kFloat32, Shape({1, 1, 5}), 2), "bias");
  b.output(b.op("Add", {b.op("MatMul", {a, w}, {}, "matmul"), bias}, {}, "add"));
  Graph graph = b.build();
  EXPECT_FALSE(FuseBiasAndActivation(graph));
}

TEST(FuseBiasAndActivation, DepthwiseConv) {
  GraphBuilder b("depthwise");
  const std::string x = b.input("x", DType::kFloat32, {2, 3, 7, 6});
  const std::string w = b.constant(RandomTensor(DType::kFloat32, Shape({3, 1, 3, 3}), 1), "w");
  const std::string conv = b.op("Conv", {x, w},
                                {{"group", int64_t{3}},
                                 {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                 {"strides", std::vector<int64_t>{2, 2}}},
                                "conv");
  const std::string bias = b.constant(RandomTensor(DType::kFloat32, Shape({1, 3, 1, 1}), 2), "b");
  const std::string clip_max = b.constant(Floats({}, {0.3f}), "six");
  const std::string added = b.op("Add", {conv, bias}, {}, "add");
  b.output(b.op("Clip", {added, "", clip_max}, {}, "clip"));
  Graph graph = b.build();
  const Graph before = graph;
  EXPECT_TRUE(FuseBiasAndActivation(graph));
  EXPECT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(ExpectSame(before, graph), "");
}

}  // namespace
}  // namespace loom::graph
