#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"

namespace loom::graph {
namespace {

using testing::CompareGraphOutputs;
using testing::RandomFeeds;

// The same mean summed in another order: last-bit differences.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

struct MeanSpec {
  std::vector<int64_t> axes = {2, 3};
  int64_t keepdims = 0;
  bool axes_as_input = false;  // opset 18
  SymbolicShape shape = {2, 5, 3, 4};
  DType dtype = DType::kFloat32;
};

// x → Relu → ReduceMean → output "y".
Graph MeanGraph(const MeanSpec& spec) {
  GraphBuilder b("mean");
  const std::string x = b.input("x", spec.dtype, spec.shape);
  const std::string r = b.op("Relu", {x}, {}, "relu");
  std::string mean;
  if (spec.axes_as_input) {
    const std::string axes = b.constant(
        Tensor::from_vector<int64_t>(Shape({static_cast<int64_t>(spec.axes.size())}), spec.axes),
        "axes");
    mean = b.op("ReduceMean", {r, axes}, Attributes().set("keepdims", spec.keepdims), "mean");
  } else {
    mean = b.op("ReduceMean", {r},
                Attributes().set("axes", spec.axes).set("keepdims", spec.keepdims), "mean");
  }
  b.output(mean, "y");
  Graph graph = b.build();
  InferTypes(graph);
  return graph;
}

TEST(PoolSpatialMeans, WithoutKeptDimsBecomesPoolAndFlatten) {
  Graph graph = MeanGraph({});
  const Graph before = graph;
  EXPECT_TRUE(PoolSpatialMeans(graph));
  InferTypes(graph);
  EXPECT_EQ(graph.to_string(),
            "graph mean\n"
            "  input x: float32[2, 5, 3, 4]\n"
            "  relu = Relu(x)  # relu\n"
            "  y_pooled = GlobalAveragePool(relu)  # mean\n"
            "  y = Flatten(y_pooled) {axis=1}  # mean_flatten\n"
            "  output y: float32[2, 5]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 3), kRtol, kAtol), "");
  EXPECT_FALSE(PoolSpatialMeans(graph));
}

TEST(PoolSpatialMeans, KeptDimsNegativeAxesBecomePoolInPlace) {
  Graph graph = MeanGraph({.axes = {-1, -2}, .keepdims = 1});
  const Graph before = graph;
  EXPECT_TRUE(PoolSpatialMeans(graph));
  InferTypes(graph);
  EXPECT_EQ(graph.to_string(),
            "graph mean\n"
            "  input x: float32[2, 5, 3, 4]\n"
            "  relu = Relu(x)  # relu\n"
            "  y = GlobalAveragePool(relu)  # mean\n"
            "  output y: float32[2, 5, 1, 1]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 4), kRtol, kAtol), "");
}

TEST(PoolSpatialMeans, AxesInputFormDropsTheAxesConstant) {
  Graph graph = MeanGraph({.axes_as_input = true, .shape = {3, 16, 7, 7}});
  const Graph before = graph;
  EXPECT_TRUE(PoolSpatialMeans(graph));
  EXPECT_EQ(graph.initializers.count("axes"), 0u);
  EXPECT_EQ(graph.nodes[1].op_type, "GlobalAveragePool");
  EXPECT_EQ(graph.nodes[2].op_type, "Flatten");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 5), kRtol, kAtol), "");
}

TEST(PoolSpatialMeans, SymbolicBatchKeepsItsOutputType) {
  Graph graph = MeanGraph({.shape = {"n", 16, 7, 7}});
  EXPECT_TRUE(PoolSpatialMeans(graph));
  InferTypes(graph);
  EXPECT_EQ(graph.outputs[0].type.to_string(), "float32[n, 16]");
}

TEST(PoolSpatialMeans, OtherMeansStay) {
  const std::vector<MeanSpec> kept = {
      {.axes = {1, 2}},
      {.axes = {3}},
      {.axes = {1, 2, 3}},
      {.axes = {1, 2}, .shape = {2, 5, 3}},  // rank 3
      {.shape = {2, 5, 3, 4, 2}},            // rank 5: axes 2, 3 are not the last two
      {.dtype = DType::kFloat64},
      {.shape = {2, 5, 0, 4}},  // an empty plane: ReduceMean's NaN, not the pool's error
  };
  for (const MeanSpec& spec : kept) {
    Graph graph = MeanGraph(spec);
    const std::string listing = graph.to_string();
    EXPECT_FALSE(PoolSpatialMeans(graph)) << listing;
    EXPECT_EQ(graph.to_string(), listing);
  }
}

TEST(PoolSpatialMeans, AllAxesMeanStays) {
  GraphBuilder b("mean");
  const std::string x = b.input("x", DType::kFloat32, {2, 5, 3, 4});
  b.output(b.op("ReduceMean", {x}, Attributes().set("keepdims", int64_t{0}), "mean"), "y");
  Graph graph = b.build();
  InferTypes(graph);
  EXPECT_FALSE(PoolSpatialMeans(graph));
}

}  // namespace
}  // namespace loom::graph
