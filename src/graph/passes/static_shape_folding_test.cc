#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::graph {
namespace {

using kernels::testing::TensorValues;
using testing::CompareGraphOutputs;
using testing::EvaluateNode;
using testing::Int64s;
using testing::RandomFeeds;

// What the Constant node that replaced `node` holds.
std::vector<int64_t> ConstantValues(const Graph& graph, const std::string& node) {
  const Node* constant = graph.find_node(node);
  EXPECT_NE(constant, nullptr);
  EXPECT_EQ(constant->op_type, "Constant");
  return TensorValues<int64_t>(constant->attributes.get_tensor("value"));
}

// ShuffleNet's channel split as torch exports it: x [1, 6, 2] ->
// Shape -> Gather(1) -> Div(2) -> Slice(x, 0, half, axis 1).
Graph ChannelSplit(const std::vector<Dim>& dims) {
  GraphBuilder b("split");
  const std::string x = b.input("x", DType::kFloat32, dims);
  const std::string shape = b.op("Shape", {x}, {}, "shape");
  const std::string channels =
      b.op("Gather", {shape, b.constant(Int64s({}, {1}), "one")}, {{"axis", int64_t{0}}}, "c");
  const std::string half = b.op("Div", {channels, b.constant(Int64s({}, {2}), "two")}, {}, "half");
  const std::string ends = b.op("Unsqueeze", {half, b.constant(Int64s({1}, {0}), "axes")}, {}, "e");
  b.output(b.op(
      "Slice",
      {x, b.constant(Int64s({1}, {0}), "starts"), ends, b.constant(Int64s({1}, {1}), "slice_axes")},
      {}, "y"));
  Graph graph = b.build();
  InferTypes(graph);
  return graph;
}

TEST(FoldStaticShapes, ShapeOfAStaticValueBecomesAConstantAndItsArithmeticFolds) {
  Graph graph = ChannelSplit({1, 6, 2});
  const Graph before = graph;
  EXPECT_TRUE(FoldStaticShapes(graph));
  EXPECT_EQ(ConstantValues(graph, "shape"), (std::vector<int64_t>{1, 6, 2}));
  EXPECT_FALSE(FoldStaticShapes(graph));

  // The optimizer folds the whole chain: only the Slice runs.
  Graph optimized = before;
  OptimizeGraph(optimized, {.level = 1, .evaluate = EvaluateNode});
  EXPECT_EQ(optimized.to_string(),
            "graph split\n"
            "  input x: float32[1, 6, 2]\n"
            "  const e: int64[1]\n"
            "  const slice_axes: int64[1]\n"
            "  const starts: int64[1]\n"
            "  y = Slice(x, starts, e, slice_axes)  # y\n"
            "  output y: float32[1, 3, 2]\n");
  EXPECT_EQ(TensorValues<int64_t>(optimized.initializers.at("e")), (std::vector<int64_t>{3}));
  EXPECT_EQ(CompareGraphOutputs(before, optimized, RandomFeeds(before, 1), 0, 0), "");
}

TEST(FoldStaticShapes, SymbolicDimensionsKeepTheNode) {
  Graph graph = ChannelSplit({"N", 6, 2});
  const std::string listing = graph.to_string();
  EXPECT_FALSE(FoldStaticShapes(graph));
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(FoldStaticShapes, DataDependentShapesKeepTheNode) {
  // NonZero's count is known only when it runs: an invented dimension.
  GraphBuilder b("nonzero");
  const std::string x = b.input("x", DType::kFloat32, {4});
  const std::string nz = b.op("NonZero", {x}, {}, "nz");
  b.output(b.op("Shape", {nz}, {}, "shape"));
  Graph graph = b.build();
  InferTypes(graph);
  EXPECT_FALSE(FoldStaticShapes(graph));
  EXPECT_EQ(graph.find_node("shape")->op_type, "Shape");
}

TEST(FoldStaticShapes, StartAndEndAsOnnxResolvesThem) {
  struct Case {
    Attributes attributes;
    std::vector<int64_t> expected;
  };
  const std::vector<Case> cases = {
      {{}, {2, 3, 5, 7}},
      {Attributes().set("start", int64_t{1}), {3, 5, 7}},
      {Attributes().set("start", int64_t{-2}), {5, 7}},
      {Attributes().set("end", int64_t{-1}), {2, 3, 5}},
      {Attributes().set("start", int64_t{1}).set("end", int64_t{3}), {3, 5}},
      {Attributes().set("start", int64_t{-9}).set("end", int64_t{9}), {2, 3, 5, 7}},  // clamped
      {Attributes().set("start", int64_t{3}).set("end", int64_t{1}), {}},             // empty
  };
  for (const Case& c : cases) {
    GraphBuilder b("shape");
    const std::string x = b.input("x", DType::kFloat32, {2, 3, 5, 7});
    b.output(b.op("Shape", {x}, c.attributes, "shape"));
    Graph graph = b.build();
    InferTypes(graph);
    const Graph before = graph;
    EXPECT_TRUE(FoldStaticShapes(graph));
    EXPECT_EQ(ConstantValues(graph, "shape"), c.expected);
    // The kernel agrees on the same attributes.
    EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
  }
}

TEST(FoldStaticShapes, SizeBecomesAScalar) {
  GraphBuilder b("size");
  const std::string x = b.input("x", DType::kFloat32, {2, 3, 5});
  b.output(b.op("Size", {x}, {}, "size"));
  Graph graph = b.build();
  InferTypes(graph);
  const Graph before = graph;
  EXPECT_TRUE(FoldStaticShapes(graph));
  const Tensor value = graph.find_node("size")->attributes.get_tensor("value");
  EXPECT_EQ(value.shape().rank(), 0);
  EXPECT_EQ(TensorValues<int64_t>(value), (std::vector<int64_t>{30}));
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
}

}  // namespace
}  // namespace loom::graph
