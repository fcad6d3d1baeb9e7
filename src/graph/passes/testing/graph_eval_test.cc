// The test interpreter against hand-computed outputs: the pass tests trust
// it to tell two graphs apart.
#include "graph/passes/testing/graph_eval.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::graph::testing {
namespace {

using kernels::testing::TensorValues;

Graph AddRelu() {
  GraphBuilder b("add_relu");
  const std::string x = b.input("x", DType::kFloat32, {3});
  const std::string c = b.constant(Tensor::from_vector<float>(Shape({3}), {1, -1, 0.5f}), "c");
  b.output(b.op("Relu", {b.op("Add", {x, c}, {}, "sum")}, {}, "y"));
  return b.build();
}

TEST(GraphEval, RunsNodesInOrder) {
  const Graph graph = AddRelu();
  const auto outputs =
      EvaluateGraph(graph, {{"x", Tensor::from_vector<float>(Shape({3}), {-2.0f, 3.0f, 0.25f})}});
  ASSERT_EQ(outputs.size(), 1u);
  // relu([-2 + 1, 3 - 1, 0.25 + 0.5])
  EXPECT_EQ(TensorValues<float>(outputs.at("y")), (std::vector<float>{0.0f, 2.0f, 0.75f}));
}

TEST(GraphEval, FeedOverridesAnInitializerBackingAnInput) {
  Graph graph = AddRelu();
  graph.inputs.push_back({"c", {DType::kFloat32, SymbolicShape{3}}});
  const Tensor x = Tensor::from_vector<float>(Shape({3}), {1.0f, 1.0f, 1.0f});
  EXPECT_EQ(TensorValues<float>(EvaluateGraph(graph, {{"x", x}}).at("y")),
            (std::vector<float>{2.0f, 0.0f, 1.5f}));
  const Tensor c = Tensor::from_vector<float>(Shape({3}), {-5.0f, 0.0f, 5.0f});
  EXPECT_EQ(TensorValues<float>(EvaluateGraph(graph, {{"x", x}, {"c", c}}).at("y")),
            (std::vector<float>{0.0f, 1.0f, 6.0f}));
}

TEST(GraphEval, MissingFeedThrows) {
  EXPECT_THROW(EvaluateGraph(AddRelu(), {}), InvalidArgumentError);
}

TEST(GraphEval, CompareFindsADifferentGraph) {
  const Graph graph = AddRelu();
  Graph other = graph;
  const auto feeds = RandomFeeds(graph, 7);
  EXPECT_EQ(CompareGraphOutputs(graph, other, feeds, 0, 0), "");
  // Element 2 becomes x + 5 instead of x + 0.5: positive either way for x in
  // [-0.5, 1), and in any case never equal.
  other.initializers["c"] = Tensor::from_vector<float>(Shape({3}), {1, -1, 5.0f});
  EXPECT_NE(CompareGraphOutputs(graph, other, feeds, 1e-4, 1e-5), "");
}

TEST(GraphEval, RandomFeedsMatchDeclaredInputs) {
  GraphBuilder b;
  const std::string x = b.input("x", DType::kFloat32, {2, 3});
  const std::string i = b.input("i", DType::kInt64, {4});
  b.output(b.op("Relu", {x}));
  b.output(b.op("Neg", {i}));
  const auto feeds = RandomFeeds(b.build(), 1);
  EXPECT_EQ(feeds.at("x").shape(), Shape({2, 3}));
  EXPECT_EQ(feeds.at("i").dtype(), DType::kInt64);
  for (int64_t v : TensorValues<int64_t>(feeds.at("i"))) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 3);
  }
}

}  // namespace
}  // namespace loom::graph::testing
