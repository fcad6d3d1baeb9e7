#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"

namespace loom::graph {
namespace {

using testing::CompareGraphOutputs;
using testing::RandomFeeds;

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}

TEST(EliminateDeadNodes, RemovesUnreachedNodesAndTheirInitializers) {
  GraphBuilder b("dead");
  const std::string x = b.input("x", DType::kFloat32, {2});
  const std::string kept = b.constant(Floats({2}, {1, 2}), "kept");
  const std::string unused = b.constant(Floats({2}, {3, 4}), "unused");
  const std::string d = b.op("Mul", {x, unused}, {}, "d");
  b.op("Exp", {d}, {}, "e");  // reaches no output
  b.output(b.op("Add", {x, kept}, {}, "y"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(EliminateDeadNodes(graph));
  EXPECT_EQ(graph.to_string(),
            "graph dead\n"
            "  input x: float32[2]\n"
            "  const kept: float32[2]\n"
            "  y = Add(x, kept)  # y\n"
            "  output y: float32[?]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
  EXPECT_FALSE(EliminateDeadNodes(graph));
}

TEST(EliminateDeadNodes, BypassesInternalIdentities) {
  GraphBuilder b("identity");
  const std::string x = b.input("x", DType::kFloat32, {2});
  const std::string i1 = b.op("Identity", {x}, {}, "i1");
  const std::string i2 = b.op("Identity", {i1}, {}, "i2");
  const std::string r = b.op("Relu", {i2}, {}, "r");
  b.output(b.op("Add", {i1, r}, {}, "y"));
  // A fetched Identity stays: its output name is the fetch name.
  b.output(b.op("Identity", {r}, {}, "fetched"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(EliminateDeadNodes(graph));
  EXPECT_EQ(graph.to_string(),
            "graph identity\n"
            "  input x: float32[2]\n"
            "  r = Relu(x)  # r\n"
            "  y = Add(x, r)  # y\n"
            "  fetched = Identity(r)  # fetched\n"
            "  output y: float32[?]\n"
            "  output fetched: float32[?]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
}

TEST(EliminateDeadNodes, KeepsTheInterface) {
  GraphBuilder b("interface");
  const std::string x = b.input("x", DType::kFloat32, {2});
  b.input("unfed", DType::kFloat32, {2});
  // An initializer giving a graph input its default stays with the input.
  b.input("defaulted", DType::kFloat32, {2});
  b.constant(Floats({2}, {1, 1}), "defaulted");
  b.output(b.op("Relu", {x}, {}, "y"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();

  EXPECT_FALSE(EliminateDeadNodes(graph));
  EXPECT_EQ(graph.to_string(), listing);
  EXPECT_EQ(graph.initializers.count("defaulted"), 1u);
}

TEST(EliminateDeadNodes, KeepsANodeWhenOneOutputIsUsed) {
  GraphBuilder b("split");
  const std::string x = b.input("x", DType::kFloat32, {4});
  const std::vector<std::string> halves =
      b.op_multi("Split", {x}, 2, {{"num_outputs", int64_t{2}}}, "split");
  b.output(b.op("Neg", {halves[1]}, {}, "y"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();

  EXPECT_FALSE(EliminateDeadNodes(graph));
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(EliminateDeadNodes, DropsTypesOfRemovedValues) {
  GraphBuilder b("types");
  const std::string x = b.input("x", DType::kFloat32, {2});
  b.op("Exp", {x}, {}, "dead");
  b.output(b.op("Relu", {x}, {}, "y"));
  Graph graph = b.build();
  graph.value_types["dead"] = TensorType{DType::kFloat32, SymbolicShape{2}};
  graph.value_types["y"] = TensorType{DType::kFloat32, SymbolicShape{2}};

  EXPECT_TRUE(EliminateDeadNodes(graph));
  EXPECT_EQ(graph.value_types.count("dead"), 0u);
  EXPECT_EQ(graph.value_types.count("y"), 1u);
}

}  // namespace
}  // namespace loom::graph
