#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

using kernels::testing::ErrorMessageOf;
using kernels::testing::TensorValues;
using testing::CompareGraphOutputs;
using testing::EvaluateNode;
using testing::Floats;
using testing::Int64s;
using testing::RandomFeeds;

// EvaluateNode, counting the nodes it runs by name.
struct CountingEvaluator {
  std::vector<std::string> evaluated;
  NodeEvaluator Get() {
    return [this](const Node& node, const std::vector<const Tensor*>& inputs) {
      evaluated.push_back(node.name);
      return EvaluateNode(node, inputs);
    };
  }
};

TEST(FoldConstants, FoldsAChainInOneCall) {
  GraphBuilder b("chain");
  const std::string x = b.input("x", DType::kFloat32, {3});
  const std::string c1 = b.constant(Floats({3}, {1, 2, 3}), "c1");
  const std::string c2 = b.constant(Floats({3}, {10, 20, 30}), "c2");
  const std::string s = b.op("Add", {c1, c2}, {}, "s");
  const std::string m = b.op("Mul", {s, c1}, {}, "m");
  b.output(b.op("Add", {x, m}, {}, "y"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(),
            "graph chain\n"
            "  input x: float32[3]\n"
            "  const m: float32[3]\n"
            "  y = Add(x, m)  # y\n"
            "  output y: float32[?]\n");
  // (1 + 10) * 1, (2 + 20) * 2, (3 + 30) * 3
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("m")), (std::vector<float>{11, 44, 99}));
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
  verify_graph(graph);
  EXPECT_FALSE(FoldConstants(graph, EvaluateNode));
}

TEST(FoldConstants, RandomGeneratorsStay) {
  GraphBuilder b("noise");
  const std::string x = b.input("x", DType::kFloat32, {3});
  const std::string c = b.constant(Floats({3}, {0.5f, 0.5f, 0.5f}), "c");
  const std::string u =
      b.op("RandomUniform", {}, {{"shape", std::vector<int64_t>{3}}, {"seed", 1.0f}}, "u");
  const std::string coin = b.op("Bernoulli", {c}, {}, "coin");
  b.output(b.op("Add", {x, b.op("Add", {u, coin}, {}, "noise")}, {}, "y"));
  Graph graph = b.build();
  EXPECT_FALSE(FoldConstants(graph, EvaluateNode));
  EXPECT_NE(graph.find_node("u"), nullptr);
  EXPECT_NE(graph.find_node("coin"), nullptr);
}

TEST(FoldConstants, GraphOutputStaysNodeProduced) {
  GraphBuilder b("fetched");
  const std::string x = b.input("x", DType::kFloat32, {2});
  const std::string c = b.constant(Floats({2}, {1, -2}), "c");
  const std::string n = b.op("Neg", {c}, {}, "n");
  b.output(n);
  // A consumer of the fetched value folds on: it reads the new initializer.
  const std::string e = b.op("Exp", {n}, {}, "e");
  b.output(b.op("Add", {x, e}, {}, "z"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(),
            "graph fetched\n"
            "  input x: float32[2]\n"
            "  const e: float32[2]\n"
            "  const n_folded: float32[2]\n"
            "  n = Identity(n_folded)  # n\n"
            "  z = Add(x, e)  # z\n"
            "  output n: float32[?]\n"
            "  output z: float32[?]\n");
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("n_folded")), (std::vector<float>{-1, 2}));
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
  // The Identity left behind is not folded again.
  EXPECT_FALSE(FoldConstants(graph, EvaluateNode));
}

TEST(FoldConstants, ConstantNodeBecomesAnInitializer) {
  GraphBuilder b("constant");
  const std::string x = b.input("x", DType::kFloat32, {2});
  const std::string k = b.op("Constant", {}, {{"value", Floats({2}, {3, 4})}}, "k");
  b.output(b.op("Mul", {x, k}, {}, "y"));
  Graph graph = b.build();

  EXPECT_TRUE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(),
            "graph constant\n"
            "  input x: float32[2]\n"
            "  const k: float32[2]\n"
            "  y = Mul(x, k)  # y\n"
            "  output y: float32[?]\n");
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("k")), (std::vector<float>{3, 4}));
}

TEST(FoldConstants, ShapeOfAConstantFolds) {
  GraphBuilder b("shape");
  const std::string x = b.input("x", DType::kFloat32, {6});
  const std::string w = b.constant(Floats({2, 3}, {1, 2, 3, 4, 5, 6}), "w");
  const std::string shape = b.op("Shape", {w}, {}, "shape");
  b.output(b.op("Reshape", {x, shape}, {}, "y"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(),
            "graph shape\n"
            "  input x: float32[6]\n"
            "  const shape: int64[2]\n"
            "  y = Reshape(x, shape)  # y\n"
            "  output y: float32[?]\n");
  EXPECT_EQ(TensorValues<int64_t>(graph.initializers.at("shape")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(CompareGraphOutputs(before, graph, RandomFeeds(before, 1), 0, 0), "");
}

TEST(FoldConstants, InitializerBackingAGraphInputIsNotConstant) {
  GraphBuilder b("overridable");
  const std::string x = b.input("x", DType::kFloat32, {2});
  b.input("c", DType::kFloat32, {2});
  const std::string c = b.constant(Floats({2}, {1, 2}), "c");
  const std::string n = b.op("Neg", {c}, {}, "n");
  b.output(b.op("Add", {x, n}, {}, "y"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();

  CountingEvaluator counter;
  EXPECT_FALSE(FoldConstants(graph, counter.Get()));
  EXPECT_TRUE(counter.evaluated.empty());
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(FoldConstants, GeneratorBlowupIsNotEvaluated) {
  GraphBuilder b("blowup");
  const std::string x = b.input("x", DType::kFloat32, {1});
  // 4096 x 4096 float32 = 64 MiB from a 16-byte shape.
  const std::string big_shape = b.constant(Int64s({2}, {4096, 4096}), "big_shape");
  const std::string big = b.op("ConstantOfShape", {big_shape}, {}, "big");
  // Tile and Expand likewise: 2 x 2^22 x 4 bytes = 32 MiB each.
  const std::string one = b.constant(Floats({1, 1}, {5}), "one");
  const std::string tiled =
      b.op("Tile", {one, b.constant(Int64s({2}, {2, 1 << 22}), "reps")}, {}, "tiled");
  const std::string expanded =
      b.op("Expand", {one, b.constant(Int64s({2}, {2, 1 << 22}), "to")}, {}, "expanded");
  // A small one folds.
  const std::string small = b.op("ConstantOfShape", {b.constant(Int64s({1}, {2}), "small_shape")},
                                 {{"value", Floats({1}, {7})}}, "small");
  b.output(b.op("Add", {x, big}, {}, "y1"));
  b.output(b.op("Add", {x, tiled}, {}, "y2"));
  b.output(b.op("Add", {x, expanded}, {}, "y3"));
  b.output(b.op("Add", {x, small}, {}, "y4"));
  Graph graph = b.build();

  CountingEvaluator counter;
  EXPECT_TRUE(FoldConstants(graph, counter.Get()));
  EXPECT_EQ(counter.evaluated, std::vector<std::string>{"small"});
  EXPECT_NE(graph.find_node("big"), nullptr);
  EXPECT_NE(graph.find_node("tiled"), nullptr);
  EXPECT_NE(graph.find_node("expanded"), nullptr);
  EXPECT_EQ(graph.find_node("small"), nullptr);
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("small")), (std::vector<float>{7, 7}));
}

TEST(FoldConstants, LargeOutputOfAnUnpredictedOpIsDiscarded) {
  GraphBuilder b("outer");
  const std::string x = b.input("x", DType::kFloat32, {1});
  // [4096, 1] + [1, 4096] broadcasts to 64 MiB from 32 KiB of inputs.
  const std::string column = b.constant(Tensor(DType::kFloat32, Shape({4096, 1})), "column");
  const std::string row = b.constant(Tensor(DType::kFloat32, Shape({1, 4096})), "row");
  const std::string outer = b.op("Add", {column, row}, {}, "outer");
  b.output(b.op("Add", {x, outer}, {}, "y"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();

  EXPECT_FALSE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(FoldConstants, WeightTransformLargerThanTheCapFolds) {
  GraphBuilder b("transpose");
  const std::string x = b.input("x", DType::kFloat32, {1, 2560});
  // 2560 x 2048 float32 = 20 MiB: above the 16 MiB cap, but no bigger than
  // the weights it replaces.
  const std::string w = b.constant(Tensor(DType::kFloat32, Shape({2048, 2560})), "w");
  const std::string wt = b.op("Transpose", {w}, {}, "wt");
  b.output(b.op("MatMul", {x, wt}, {}, "y"));
  Graph graph = b.build();

  EXPECT_TRUE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(),
            "graph transpose\n"
            "  input x: float32[1, 2560]\n"
            "  const wt: float32[2560, 2048]\n"
            "  y = MatMul(x, wt)  # y\n"
            "  output y: float32[?]\n");
}

TEST(FoldConstants, EvaluatorErrorNamesTheNode) {
  // The verifier already rejects what type inference sees (a wrong Reshape,
  // an index out of range), so the error comes from a stand-in evaluator.
  GraphBuilder b("bad");
  const std::string x = b.input("x", DType::kFloat32, {3});
  const std::string c = b.constant(Floats({3}, {1, 2, 3}), "c");
  b.output(b.op("Add", {x, b.op("Neg", {c}, {}, "n")}, {}, "y"));
  Graph graph = b.build();
  const NodeEvaluator failing = [](const Node&, const std::vector<const Tensor*>&) {
    throw InvalidArgumentError("Neg: no luck");
    return std::vector<Tensor>{};
  };

  const std::string message = ErrorMessageOf([&] { FoldConstants(graph, failing); });
  EXPECT_EQ(message, "node 'n' (Neg): folding its constant inputs failed: Neg: no luck");
}

TEST(FoldConstants, NeedsAnEvaluator) {
  GraphBuilder b;
  b.output(b.op("Relu", {b.input("x", DType::kFloat32, {1})}));
  Graph graph = b.build();
  EXPECT_THROW(FoldConstants(graph, NodeEvaluator()), InvalidArgumentError);
}

TEST(FoldConstants, NothingConstantChangesNothing) {
  GraphBuilder b("plain");
  const std::string x = b.input("x", DType::kFloat32, {2});
  b.output(b.op("Add", {x, b.op("Relu", {x}, {}, "r")}, {}, "y"));
  Graph graph = b.build();
  const std::string listing = graph.to_string();
  EXPECT_FALSE(FoldConstants(graph, EvaluateNode));
  EXPECT_EQ(graph.to_string(), listing);
}

}  // namespace
}  // namespace loom::graph
