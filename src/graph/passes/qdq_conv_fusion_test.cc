#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::graph {
namespace {

using kernels::testing::RandomTensor;
using kernels::testing::TensorValues;
using testing::CompareGraphOutputs;
using testing::EvaluateGraph;
using testing::EvaluateNode;
using testing::Floats;

constexpr int64_t kChannels = 4;     // C
constexpr int64_t kOutChannels = 6;  // M
constexpr float kXScale = 0.05f;
constexpr float kYScale = 0.25f;

template <typename T>
Tensor Values(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}

struct ConvSpec {
  int64_t group = 1;
  bool strided = false;            // stride 2, pad 1 (else stride 1, no padding)
  bool per_channel = false;        // w_scale [M], DQ axis 0
  bool bias = true;                // DQ of an int32 [M]
  bool float_bias = false;         // a float32 [M] constant instead
  float bias_scale_factor = 1.0f;  // b_scale = x_scale * w_scale * this
  bool weights_as_input = false;   // wq a graph input, not a constant
  bool per_channel_x = false;      // x_scale and x_zp [C], DQ axis 1
  bool blocked_weights = false;    // the weights' DQ with block_size 2 on axis 0
  bool conv_read_twice = false;    // a Relu reads the Conv's output too
  bool conv_is_output = false;     // the Conv's output is fetched too
  bool x_read_twice = false;       // an Add reads x's DQ output too
};

// x (uint8 [2, C, 7, 7]) → DequantizeLinear ─┐
// w (int8 [M, C/group, 3, 3]) → DequantizeLinear → Conv → QuantizeLinear → y (uint8)
// b (int32 [M]) → DequantizeLinear ─────────────┘
Graph QdqConvGraph(const ConvSpec& spec) {
  GraphBuilder b("qdq");
  const std::string x = b.input("x", DType::kUInt8, {2, kChannels, 7, 7});
  Attributes x_attrs;
  std::string x_scale, x_zp;
  if (spec.per_channel_x) {
    x_scale = b.constant(Floats({kChannels}, {0.05f, 0.04f, 0.06f, 0.05f}), "x_scale");
    x_zp = b.constant(Values<uint8_t>({kChannels}, {128, 120, 130, 128}), "x_zp");
    x_attrs.set("axis", int64_t{1});
  } else {
    x_scale = b.constant(Floats({}, {kXScale}), "x_scale");
    x_zp = b.constant(Values<uint8_t>({}, {128}), "x_zp");
  }
  const std::string x_f = b.op("DequantizeLinear", {x, x_scale, x_zp}, x_attrs, "x_dq");

  const Shape w_shape({kOutChannels, kChannels / spec.group, 3, 3});
  std::string w;
  if (spec.weights_as_input) {
    w = b.input("w", DType::kInt8, {kOutChannels, kChannels / spec.group, 3, 3});
  } else {
    w = b.constant(RandomTensor(DType::kInt8, w_shape, 11, -127, 127), "w");
  }
  std::vector<float> w_scales = {0.01f};
  Attributes w_attrs;
  std::string w_scale, w_zp;
  if (spec.blocked_weights) {
    // Blocks of 2 output channels: [M / 2, C / group, 3, 3] scales.
    const Shape block_shape({kOutChannels / 2, kChannels / spec.group, 3, 3});
    w_scale = b.constant(
        Tensor::from_vector(block_shape, std::vector<float>(block_shape.num_elements(), 0.01f)),
        "w_scale");
    w_zp = b.constant(Tensor(DType::kInt8, block_shape), "w_zp");
    w_attrs.set("axis", int64_t{0}).set("block_size", int64_t{2});
  } else if (spec.per_channel) {
    w_scales = {0.004f, 0.006f, 0.008f, 0.01f, 0.012f, 0.014f};
    w_scale = b.constant(Floats({kOutChannels}, w_scales), "w_scale");
    w_zp = b.constant(Tensor(DType::kInt8, Shape({kOutChannels})), "w_zp");
    w_attrs.set("axis", int64_t{0});
  } else {
    w_scale = b.constant(Floats({}, w_scales), "w_scale");
    w_zp = b.constant(Values<int8_t>({}, {0}), "w_zp");
  }
  std::vector<std::string> conv_inputs = {
      x_f, b.op("DequantizeLinear", {w, w_scale, w_zp}, w_attrs, "w_dq")};

  if (spec.float_bias) {
    conv_inputs.push_back(
        b.constant(RandomTensor(DType::kFloat32, Shape({kOutChannels}), 12), "bias"));
  } else if (spec.bias) {
    // ORT's bias: scale x_scale * w_scale in float32, [1] when per tensor.
    std::vector<float> b_scales;
    for (float ws : w_scales) b_scales.push_back(kXScale * ws * spec.bias_scale_factor);
    const auto n = static_cast<int64_t>(b_scales.size());
    Attributes b_attrs;
    if (spec.per_channel) b_attrs.set("axis", int64_t{0});
    conv_inputs.push_back(
        b.op("DequantizeLinear",
             {b.constant(RandomTensor(DType::kInt32, Shape({kOutChannels}), 13, -2000, 2000), "b"),
              b.constant(Floats({n}, b_scales), "b_scale"),
              b.constant(Tensor(DType::kInt32, Shape(spec.per_channel ? std::vector<int64_t>{n}
                                                                      : std::vector<int64_t>{})),
                         "b_zp")},
             b_attrs, "b_dq"));
  }

  Attributes conv_attrs;
  conv_attrs.set("group", spec.group).set("kernel_shape", std::vector<int64_t>{3, 3});
  if (spec.strided) {
    conv_attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1})
        .set("strides", std::vector<int64_t>{2, 2});
  }
  const std::string conv = b.op("Conv", conv_inputs, conv_attrs, "conv");
  const std::string y_scale = b.constant(Floats({}, {kYScale}), "y_scale");
  const std::string y_zp = b.constant(Values<uint8_t>({}, {128}), "y_zp");
  b.output(b.op("QuantizeLinear", {conv, y_scale, y_zp}, {}, "y_q"), "y");
  if (spec.conv_read_twice) b.output(b.op("Relu", {conv}, {}, "relu"), "r");
  if (spec.conv_is_output) b.output(conv);
  if (spec.x_read_twice) b.output(b.op("Add", {x_f, x_f}, {}, "residual"), "sum");
  Graph graph = b.build();
  InferTypes(graph);
  return graph;
}

// uint8 activations over their whole range.
std::map<std::string, Tensor> Feeds(const Graph& graph, uint32_t seed) {
  std::map<std::string, Tensor> feeds;
  feeds.emplace("x", RandomTensor(DType::kUInt8, Shape({2, kChannels, 7, 7}), seed, 0, 255));
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == "w") {
      feeds.emplace(
          "w", RandomTensor(DType::kInt8, Shape({kOutChannels, kChannels, 3, 3}), seed, -127, 127));
    }
  }
  return feeds;
}

// The listing without its output lines, whose types type inference fills.
std::string NodesAndConstants(const Graph& graph) {
  std::istringstream in(graph.to_string());
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("  output ", 0) != 0) out += line + "\n";
  }
  return out;
}

// Fuses, then checks the fused graph's uint8 outputs against the float
// path's: at most one step apart, and nearly all equal.
void ExpectSameQuantizedOutputs(const Graph& before, const Graph& after) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const std::map<std::string, Tensor> feeds = Feeds(before, seed);
    EXPECT_EQ(CompareGraphOutputs(before, after, feeds, 0, 1), "");
    const std::vector<uint8_t> expected =
        TensorValues<uint8_t>(EvaluateGraph(before, feeds).at("y"));
    const std::vector<uint8_t> actual = TensorValues<uint8_t>(EvaluateGraph(after, feeds).at("y"));
    ASSERT_EQ(actual.size(), expected.size());
    size_t equal = 0;
    for (size_t i = 0; i < actual.size(); ++i) equal += actual[i] == expected[i] ? 1 : 0;
    // A tie the float path rounds the other way is rare: a few per cent.
    EXPECT_GE(equal * 100, actual.size() * 95) << equal << " of " << actual.size();
  }
}

TEST(FuseQdqConv, PerTensorWithBiasBecomesQLinearConv) {
  Graph graph = QdqConvGraph({});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqConv(graph));
  InferTypes(graph);
  EXPECT_EQ(graph.to_string(),
            "graph qdq\n"
            "  input x: uint8[2, 4, 7, 7]\n"
            "  const b: int32[6]\n"
            "  const w: int8[6, 4, 3, 3]\n"
            "  const w_scale: float32[]\n"
            "  const w_zp: int8[]\n"
            "  const x_scale: float32[]\n"
            "  const x_zp: uint8[]\n"
            "  const y_scale: float32[]\n"
            "  const y_zp: uint8[]\n"
            "  y = QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, b) "
            "{group=1, kernel_shape=[3, 3]}  # conv\n"
            "  output y: uint8[2, 6, 5, 5]\n");
  ExpectSameQuantizedOutputs(before, graph);
  EXPECT_FALSE(FuseQdqConv(graph));
}

TEST(FuseQdqConv, PerChannelStridedWithBias) {
  Graph graph = QdqConvGraph({.strided = true, .per_channel = true});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqConv(graph));
  InferTypes(graph);
  EXPECT_EQ(NodesAndConstants(graph),
            "graph qdq\n"
            "  input x: uint8[2, 4, 7, 7]\n"
            "  const b: int32[6]\n"
            "  const w: int8[6, 4, 3, 3]\n"
            "  const w_scale: float32[6]\n"
            "  const w_zp: int8[6]\n"
            "  const x_scale: float32[]\n"
            "  const x_zp: uint8[]\n"
            "  const y_scale: float32[]\n"
            "  const y_zp: uint8[]\n"
            "  y = QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, b) "
            "{group=1, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]}  # conv\n");
  EXPECT_EQ(graph.outputs[0].type.to_string(), "uint8[2, 6, 4, 4]");
  ExpectSameQuantizedOutputs(before, graph);
}

TEST(FuseQdqConv, GroupedWithoutBias) {
  Graph graph = QdqConvGraph({.group = 2, .bias = false});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqConv(graph));
  EXPECT_EQ(NodesAndConstants(graph),
            "graph qdq\n"
            "  input x: uint8[2, 4, 7, 7]\n"
            "  const w: int8[6, 2, 3, 3]\n"
            "  const w_scale: float32[]\n"
            "  const w_zp: int8[]\n"
            "  const x_scale: float32[]\n"
            "  const x_zp: uint8[]\n"
            "  const y_scale: float32[]\n"
            "  const y_zp: uint8[]\n"
            "  y = QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp) "
            "{group=2, kernel_shape=[3, 3]}  # conv\n");
  ExpectSameQuantizedOutputs(before, graph);
}

TEST(FuseQdqConv, GroupedPerChannelStridedWithBias) {
  Graph graph = QdqConvGraph({.group = 2, .strided = true, .per_channel = true});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqConv(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op_type, "QLinearConv");
  EXPECT_EQ(graph.nodes[0].inputs.size(), 9u);
  ExpectSameQuantizedOutputs(before, graph);
}

TEST(FuseQdqConv, DequantizedInputWithAnotherReaderStays) {
  Graph graph = QdqConvGraph({.x_read_twice = true});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqConv(graph));
  EXPECT_EQ(NodesAndConstants(graph),
            "graph qdq\n"
            "  input x: uint8[2, 4, 7, 7]\n"
            "  const b: int32[6]\n"
            "  const w: int8[6, 4, 3, 3]\n"
            "  const w_scale: float32[]\n"
            "  const w_zp: int8[]\n"
            "  const x_scale: float32[]\n"
            "  const x_zp: uint8[]\n"
            "  const y_scale: float32[]\n"
            "  const y_zp: uint8[]\n"
            "  x_dq = DequantizeLinear(x, x_scale, x_zp)  # x_dq\n"
            "  y = QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, b) "
            "{group=1, kernel_shape=[3, 3]}  # conv\n"
            "  sum = Add(x_dq, x_dq)  # residual\n");
  verify_graph(graph);
  ExpectSameQuantizedOutputs(before, graph);
}

TEST(FuseQdqConv, PatternsThatDoNotFitStay) {
  const std::vector<ConvSpec> kept = {
      {.conv_read_twice = true},      {.conv_is_output = true},
      {.bias_scale_factor = 1.0001f}, {.per_channel = true, .bias_scale_factor = 1.0001f},
      {.float_bias = true},           {.weights_as_input = true},
      {.per_channel_x = true},        {.blocked_weights = true},
  };
  for (const ConvSpec& spec : kept) {
    Graph graph = QdqConvGraph(spec);
    const std::string listing = graph.to_string();
    EXPECT_FALSE(FuseQdqConv(graph)) << listing;
    EXPECT_EQ(graph.to_string(), listing);
  }
}

TEST(FuseQdqConv, RunsInOptimizeGraphAtLevelTwoOnly) {
  Graph fused = QdqConvGraph({.per_channel = true});
  const Graph before = fused;
  OptimizeGraph(fused, {2, EvaluateNode});
  ASSERT_EQ(fused.nodes.size(), 1u);
  EXPECT_EQ(fused.nodes[0].op_type, "QLinearConv");
  EXPECT_EQ(fused.nodes[0].name, "conv");
  ExpectSameQuantizedOutputs(before, fused);

  // Level 1 folds the weights' and bias's DequantizeLinear into float
  // constants instead.
  Graph folded = QdqConvGraph({.per_channel = true});
  OptimizeGraph(folded, {1, EvaluateNode});
  std::vector<std::string> ops;
  for (const Node& node : folded.nodes) ops.push_back(node.op_type);
  EXPECT_EQ(ops, (std::vector<std::string>{"DequantizeLinear", "Conv", "QuantizeLinear"}));
}

}  // namespace
}  // namespace loom::graph
