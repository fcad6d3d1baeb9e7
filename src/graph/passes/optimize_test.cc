#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

using kernels::testing::ErrorMessageOf;
using kernels::testing::RandomTensor;
using testing::CompareGraphOutputs;
using testing::EvaluateNode;
using testing::RandomFeeds;

// Batch-norm folding rounds the weights once more (see its test).
constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;

// A small classifier with something for every pass: weights computed by a
// constant Reshape, Conv → BatchNormalization → Relu, an internal Identity,
// a dead branch of constants, and Gemm → Add → Sigmoid.
Graph SmallClassifier() {
  GraphBuilder b("cnn");
  const std::string x = b.input("x", DType::kFloat32, {2, 3, 8, 8});
  const std::string w_flat = b.constant(RandomTensor(DType::kFloat32, Shape({108}), 1), "w_flat");
  const std::string w_shape =
      b.constant(Tensor::from_vector<int64_t>(Shape({4}), {4, 3, 3, 3}), "w_shape");
  const std::string w = b.op("Reshape", {w_flat, w_shape}, {}, "w");
  const std::string conv =
      b.op("Conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
  const std::string bn =
      b.op("BatchNormalization",
           {conv, b.constant(RandomTensor(DType::kFloat32, Shape({4}), 2), "scale"),
            b.constant(RandomTensor(DType::kFloat32, Shape({4}), 3), "shift"),
            b.constant(RandomTensor(DType::kFloat32, Shape({4}), 4), "mean"),
            b.constant(RandomTensor(DType::kFloat32, Shape({4}), 5, 0.5, 2.0), "var")},
           {}, "bn");
  const std::string relu = b.op("Relu", {bn}, {}, "relu");
  const std::string id = b.op("Identity", {relu}, {}, "id");
  const std::string small = b.op(
      "ConstantOfShape",
      {b.constant(Tensor::from_vector<int64_t>(Shape({2}), {2, 2}), "small_shape")}, {}, "small");
  b.op("Neg", {small}, {}, "dead");
  const std::string pool = b.op("GlobalAveragePool", {id}, {}, "pool");
  const std::string flat = b.op("Flatten", {pool}, {}, "flat");
  const std::string fc_w = b.constant(RandomTensor(DType::kFloat32, Shape({10, 4}), 6), "fc_w");
  const std::string fc = b.op("Gemm", {flat, fc_w}, {{"transB", int64_t{1}}}, "fc");
  const std::string fc_b = b.constant(RandomTensor(DType::kFloat32, Shape({10}), 7), "fc_b");
  b.output(b.op("Sigmoid", {b.op("Add", {fc, fc_b}, {}, "biased")}, {}, "probs"));
  return b.build();
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

TEST(OptimizeGraph, LevelTwoFoldsAndFuses) {
  Graph graph = SmallClassifier();
  const Graph before = graph;
  std::vector<std::string> evaluated;
  OptimizationOptions options;
  options.evaluate = [&evaluated](const Node& node, const std::vector<const Tensor*>& inputs) {
    evaluated.push_back(node.name);
    return EvaluateNode(node, inputs);
  };
  OptimizeGraph(graph, options);

  EXPECT_EQ(NodesAndConstants(graph),
            "graph cnn\n"
            "  input x: float32[2, 3, 8, 8]\n"
            "  const conv_bias_bn: float32[4]\n"
            "  const fc_b: float32[10]\n"
            "  const fc_w: float32[10, 4]\n"
            "  const w_bn: float32[4, 3, 3, 3]\n"
            "  relu = Conv(x, w_bn, conv_bias_bn) {activation=\"Relu\", activation_params=[], "
            "pads=[1, 1, 1, 1]}  # conv\n"
            "  pool = GlobalAveragePool(relu)  # pool\n"
            "  flat = Flatten(pool)  # flat\n"
            "  probs = Gemm(flat, fc_w, fc_b) {activation=\"Sigmoid\", activation_params=[], "
            "transB=1}  # fc\n");
  // Dead code went first: the foldable dead branch was never evaluated.
  EXPECT_EQ(evaluated, std::vector<std::string>{"w"});
  ASSERT_EQ(graph.outputs.size(), 1u);
  EXPECT_EQ(graph.outputs[0].name, "probs");
  verify_graph(graph);
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
}

TEST(OptimizeGraph, LevelOneFoldsButDoesNotFuse) {
  Graph graph = SmallClassifier();
  const Graph before = graph;
  OptimizeGraph(graph, {1, EvaluateNode});

  EXPECT_EQ(NodesAndConstants(graph),
            "graph cnn\n"
            "  input x: float32[2, 3, 8, 8]\n"
            "  const fc_b: float32[10]\n"
            "  const fc_w: float32[10, 4]\n"
            "  const mean: float32[4]\n"
            "  const scale: float32[4]\n"
            "  const shift: float32[4]\n"
            "  const var: float32[4]\n"
            "  const w: float32[4, 3, 3, 3]\n"
            "  conv = Conv(x, w) {pads=[1, 1, 1, 1]}  # conv\n"
            "  bn = BatchNormalization(conv, scale, shift, mean, var)  # bn\n"
            "  relu = Relu(bn)  # relu\n"
            "  pool = GlobalAveragePool(relu)  # pool\n"
            "  flat = Flatten(pool)  # flat\n"
            "  fc = Gemm(flat, fc_w) {transB=1}  # fc\n"
            "  biased = Add(fc, fc_b)  # biased\n"
            "  probs = Sigmoid(biased)  # probs\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
}

TEST(OptimizeGraph, LevelZeroOnlyInfersTypes) {
  Graph graph = SmallClassifier();
  const std::string listing = NodesAndConstants(graph);
  OptimizeGraph(graph, {0, nullptr});
  EXPECT_EQ(NodesAndConstants(graph), listing);
  EXPECT_EQ(graph.outputs[0].type.dtype, DType::kFloat32);
  EXPECT_FALSE(graph.value_types.empty());
}

TEST(OptimizeGraph, RejectsBadOptions) {
  Graph graph = SmallClassifier();
  EXPECT_EQ(ErrorMessageOf([&] {
              OptimizeGraph(graph, {3, EvaluateNode});
            }),
            "OptimizeGraph: level must be 0, 1 or 2 (got 3)");
  EXPECT_EQ(ErrorMessageOf([&] {
              OptimizeGraph(graph, {2, nullptr});
            }),
            "OptimizeGraph: level 2 folds constants and needs an evaluator (options.evaluate)");
}

TEST(OptimizeGraph, RejectsAnInvalidGraph) {
  Graph graph = SmallClassifier();
  graph.nodes[0].inputs[0] = "nowhere";
  EXPECT_THROW(OptimizeGraph(graph, {2, EvaluateNode}), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::graph
