#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"

namespace loom::graph {
namespace {

using testing::CompareGraphOutputs;
using testing::Floats;
using testing::RandomFeeds;

// x * x and x are what std::pow gives for exponents 2 and 1; sqrt may
// differ from pow(x, 0.5) in the last bit.
constexpr double kRtol = 1e-6;
constexpr double kAtol = 1e-7;

// x [2, 3] → Pow(x, exponent), typed.
Graph PowGraph(const Tensor& exponent, DType dtype = DType::kFloat32) {
  GraphBuilder b("pow");
  const std::string x = b.input("x", dtype, {2, 3});
  b.output(b.op("Pow", {x, b.constant(exponent, "e")}, {}, "pow"));
  Graph graph = b.build();
  InferTypes(graph);
  return graph;
}

TEST(SimplifyPow, SquareBecomesMul) {
  Graph graph = PowGraph(Floats({}, {2.0f}));
  const Graph before = graph;
  EXPECT_TRUE(SimplifyPow(graph));
  EXPECT_EQ(graph.to_string(),
            "graph pow\n"
            "  input x: float32[2, 3]\n"
            "  pow = Mul(x, x)  # pow\n"
            "  output pow: float32[2, 3]\n");
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), kRtol, kAtol), "");
  EXPECT_FALSE(SimplifyPow(graph));
}

TEST(SimplifyPow, HalfBecomesSqrtAndOneIdentity) {
  // Square roots of [-1, 1) inputs: NaN for negatives in both graphs, so
  // compare on |x| too (the feeds are replaced by their squares).
  for (const auto& [exponent, op] : {std::pair{0.5f, "Sqrt"}, std::pair{1.0f, "Identity"}}) {
    SCOPED_TRACE(op);
    Graph graph = PowGraph(Floats({1}, {exponent}));
    const Graph before = graph;
    EXPECT_TRUE(SimplifyPow(graph));
    EXPECT_EQ(graph.to_string(),
              "graph pow\n"
              "  input x: float32[2, 3]\n"
              "  pow = " +
                  std::string(op) +
                  "(x)  # pow\n"
                  "  output pow: float32[2, 3]\n");
    std::map<std::string, Tensor> feeds = RandomFeeds(before, 2);
    float* x = feeds.at("x").data<float>();
    for (int i = 0; i < 6; ++i) x[i] = x[i] * x[i];
    EXPECT_EQ(CompareGraphOutputs(before, graph, feeds, kRtol, kAtol), "");
  }
}

TEST(SimplifyPow, IntegerExponentCounts) {
  Graph graph = PowGraph(Tensor::from_vector<int64_t>(Shape({}), {2}));
  EXPECT_TRUE(SimplifyPow(graph));
  EXPECT_EQ(graph.nodes[0].op_type, "Mul");
  EXPECT_EQ(graph.initializers.count("e"), 0u);
}

TEST(SimplifyPow, OtherExponentsAreKept) {
  for (float exponent : {3.0f, -1.0f, 2.0001f, 0.0f}) {
    Graph graph = PowGraph(Floats({}, {exponent}));
    const std::string listing = graph.to_string();
    EXPECT_FALSE(SimplifyPow(graph)) << exponent;
    EXPECT_EQ(graph.to_string(), listing);
  }
}

TEST(SimplifyPow, ExponentThatBroadcastsIsKept) {
  // [1, 1, 1] raises the output's rank to 3; [3] holds three exponents.
  EXPECT_FALSE([] {
    Graph graph = PowGraph(Floats({1, 1, 1}, {2.0f}));
    return SimplifyPow(graph);
  }());
  EXPECT_FALSE([] {
    Graph graph = PowGraph(Floats({3}, {2.0f, 2.0f, 2.0f}));
    return SimplifyPow(graph);
  }());
}

TEST(SimplifyPow, NonFloatBaseAndOverridableExponentAreKept) {
  {
    Graph graph = PowGraph(Floats({}, {2.0f}), DType::kFloat64);
    EXPECT_FALSE(SimplifyPow(graph));
  }
  {
    // An initializer that is also a graph input is a default, not a constant.
    Graph graph = PowGraph(Floats({}, {2.0f}));
    graph.inputs.push_back({"e", TensorType{DType::kFloat32, SymbolicShape{}}});
    EXPECT_FALSE(SimplifyPow(graph));
  }
}

TEST(SimplifyPow, UnknownBaseTypeIsKept) {
  // No InferTypes: the Pow reads a node output whose dtype is unknown.
  GraphBuilder b("untyped");
  const std::string x = b.input("x", DType::kFloat32, {2, 3});
  const std::string y = b.op("Neg", {x}, {}, "neg");
  b.output(b.op("Pow", {y, b.constant(Floats({}, {2.0f}), "e")}, {}, "pow"));
  Graph graph = b.build();
  EXPECT_FALSE(SimplifyPow(graph));
  InferTypes(graph);
  EXPECT_TRUE(SimplifyPow(graph));
}

}  // namespace
}  // namespace loom::graph
