#include <gtest/gtest.h>

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
using testing::EvaluateNode;
using testing::Floats;
using testing::RandomFeeds;

// The kernel multiplies by 1 / sqrt(var + eps) where the pattern divides by
// sqrt(var + eps): the outputs (about unit size) differ by a few ulp.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-5;

std::string ExpectSame(const Graph& before, const Graph& after) {
  return CompareGraphOutputs(before, after, RandomFeeds(before, 3), kRtol, kAtol);
}

// How the decomposed layer norm is written.
struct Spec {
  bool axes_as_input = false;  // opset 18: ReduceMean(x, axes)
  int64_t axis = -1;
  bool square_by_mul = false;  // Mul(d, d) instead of Pow(d, 2)
  bool reciprocal = false;     // Mul(d, Reciprocal(std)) instead of Div(d, std)
  bool swap_operands = false;  // constants first in Add(eps), Mul(scale), Add(bias)
  Tensor epsilon = Floats({}, {1e-5f});
  Tensor scale = RandomTensor(DType::kFloat32, Shape({8}), 2);
  Tensor bias = RandomTensor(DType::kFloat32, Shape({8}), 3);
  bool with_scale = true;
  bool with_bias = true;
};

// x [2, 5, 8] → the layer norm PyTorch exports, node by node.
struct LayerNormGraph {
  explicit LayerNormGraph(const Spec& spec = {}) {
    auto pair = [&spec](const std::string& value, const std::string& constant) {
      return spec.swap_operands ? std::vector<std::string>{constant, value}
                                : std::vector<std::string>{value, constant};
    };
    auto reduce = [&](const std::string& input, const std::string& name) {
      const std::vector<int64_t> axes = {spec.axis};
      if (spec.axes_as_input) {
        const std::string a =
            b.constant(Tensor::from_vector<int64_t>(Shape({1}), axes), name + "_axes");
        return b.op("ReduceMean", {input, a}, {}, name);
      }
      return b.op("ReduceMean", {input}, {{"axes", axes}}, name);
    };
    const std::string mean = reduce(x, "mean");
    d = b.op("Sub", {x, mean}, {}, "sub");
    const std::string square =
        spec.square_by_mul ? b.op("Mul", {d, d}, {}, "square")
                           : b.op("Pow", {d, b.constant(Floats({}, {2.0f}), "two")}, {}, "square");
    const std::string var = reduce(square, "var");
    const std::string shifted =
        b.op("Add", pair(var, b.constant(spec.epsilon, "eps")), {}, "eps_add");
    const std::string std_dev = b.op("Sqrt", {shifted}, {}, "sqrt");
    if (spec.reciprocal) {
      const std::string inverse = b.op("Reciprocal", {std_dev}, {}, "reciprocal");
      y = b.op("Mul", pair(d, inverse), {}, "normalize");
    } else {
      y = b.op("Div", {d, std_dev}, {}, "normalize");
    }
    if (spec.with_scale) y = b.op("Mul", pair(y, b.constant(spec.scale, "gamma")), {}, "scale");
    if (spec.with_bias) y = b.op("Add", pair(y, b.constant(spec.bias, "beta")), {}, "bias");
  }

  // Marks y as the output and returns the typed graph.
  Graph Build() {
    b.output(y);
    Graph graph = b.build();
    InferTypes(graph);
    return graph;
  }

  GraphBuilder b{"ln"};
  std::string x = b.input("x", DType::kFloat32, {2, 5, 8});
  std::string d;
  std::string y;
};

TEST(FuseLayerNormalization, PyTorchPattern) {
  Graph graph = LayerNormGraph().Build();
  const Graph before = graph;

  EXPECT_TRUE(FuseLayerNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph ln\n"
            "  input x: float32[2, 5, 8]\n"
            "  const beta: float32[8]\n"
            "  const gamma: float32[8]\n"
            "  bias = LayerNormalization(x, gamma, beta) {axis=-1, epsilon=1e-05}  # bias\n"
            "  output bias: float32[2, 5, 8]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
  EXPECT_FALSE(FuseLayerNormalization(graph));
}

TEST(FuseLayerNormalization, EveryWayOfWritingIt) {
  std::vector<Spec> specs(6);
  specs[0].axes_as_input = true;
  specs[1].axis = 2;  // rank - 1
  specs[2].square_by_mul = true;
  specs[3].reciprocal = true;
  specs[4].swap_operands = true;
  specs[5] = {.axes_as_input = true,
              .axis = 2,
              .square_by_mul = true,
              .reciprocal = true,
              .swap_operands = true};
  for (size_t i = 0; i < specs.size(); ++i) {
    SCOPED_TRACE(i);
    Graph graph = LayerNormGraph(specs[i]).Build();
    const Graph before = graph;
    EXPECT_TRUE(FuseLayerNormalization(graph));
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(graph.nodes[0].op_type, "LayerNormalization");
    EXPECT_EQ(graph.nodes[0].inputs, (std::vector<std::string>{"x", "gamma", "beta"}));
    // Only the scale and bias are left.
    EXPECT_EQ(graph.initializers.size(), 2u);
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
}

TEST(FuseLayerNormalization, WithoutScaleAndBiasTheScaleIsOnes) {
  Spec spec;
  spec.with_scale = false;
  spec.with_bias = false;
  spec.epsilon = Floats({1}, {1e-3f});
  Graph graph = LayerNormGraph(spec).Build();
  const Graph before = graph;

  EXPECT_TRUE(FuseLayerNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph ln\n"
            "  input x: float32[2, 5, 8]\n"
            "  const normalize_scale: float32[8]\n"
            "  normalize = LayerNormalization(x, normalize_scale) {axis=-1, epsilon=0.001}"
            "  # normalize\n"
            "  output normalize: float32[2, 5, 8]\n");
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("normalize_scale")),
            std::vector<float>(8, 1.0f));
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseLayerNormalization, BroadcastScaleAndBiasAreExpanded) {
  Spec spec;
  spec.scale = Floats({}, {1.5f});
  spec.bias = RandomTensor(DType::kFloat32, Shape({1, 1, 8}), 4);
  spec.with_bias = true;
  Graph graph = LayerNormGraph(spec).Build();
  const Graph before = graph;

  EXPECT_TRUE(FuseLayerNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph ln\n"
            "  input x: float32[2, 5, 8]\n"
            "  const bias_bias: float32[8]\n"
            "  const bias_scale: float32[8]\n"
            "  bias = LayerNormalization(x, bias_scale, bias_bias) {axis=-1, epsilon=1e-05}"
            "  # bias\n"
            "  output bias: float32[2, 5, 8]\n");
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("bias_scale")), std::vector<float>(8, 1.5f));
  EXPECT_EQ(TensorValues<float>(graph.initializers.at("bias_bias")),
            TensorValues<float>(spec.bias));
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseLayerNormalization, NonConstantScaleStaysAfterTheFusedNode) {
  // gamma as a graph input too: a default the caller may override.
  LayerNormGraph g;
  Graph graph = g.Build();
  graph.inputs.push_back({"gamma", TensorType{DType::kFloat32, SymbolicShape{8}}});
  InferTypes(graph);
  const Graph before = graph;

  EXPECT_TRUE(FuseLayerNormalization(graph));
  EXPECT_EQ(graph.to_string(),
            "graph ln\n"
            "  input x: float32[2, 5, 8]\n"
            "  input gamma: float32[8]\n"
            "  const beta: float32[8]\n"
            "  const gamma: float32[8]\n"
            "  const normalize_scale: float32[8]\n"
            "  normalize = LayerNormalization(x, normalize_scale) {axis=-1, epsilon=1e-05}"
            "  # normalize\n"
            "  scale = Mul(normalize, gamma)  # scale\n"
            "  bias = Add(scale, beta)  # bias\n"
            "  output bias: float32[2, 5, 8]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseLayerNormalization, PerRowScaleIsNotAbsorbed) {
  // [5, 1] varies along axis 1, not the normalized axis.
  Spec spec;
  spec.scale = RandomTensor(DType::kFloat32, Shape({5, 1}), 5);
  spec.with_bias = false;
  Graph graph = LayerNormGraph(spec).Build();
  const Graph before = graph;
  EXPECT_TRUE(FuseLayerNormalization(graph));
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.producer_of("scale")->op_type, "Mul");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseLayerNormalization, ExtraReaderOfAnIntermediateBlocksFusion) {
  for (const std::string which : {"sub", "mean", "var", "normalize"}) {
    SCOPED_TRACE(which);
    LayerNormGraph g;
    g.b.output(g.b.op("Neg", {which}, {}, "extra"));
    Graph graph = g.Build();
    const std::string listing = graph.to_string();
    if (which == "normalize") {
      // Only the scale and bias stay out: the core still fuses.
      EXPECT_TRUE(FuseLayerNormalization(graph));
      EXPECT_EQ(graph.producer_of("normalize")->op_type, "LayerNormalization");
      continue;
    }
    EXPECT_FALSE(FuseLayerNormalization(graph));
    EXPECT_EQ(graph.to_string(), listing);
  }
}

TEST(FuseLayerNormalization, FetchedIntermediateBlocksFusion) {
  LayerNormGraph g;
  g.b.output(g.d);
  Graph graph = g.Build();
  EXPECT_FALSE(FuseLayerNormalization(graph));
}

TEST(FuseLayerNormalization, XMayHaveOtherReaders) {
  // The residual branch of a pre-norm block reads x too; x stays.
  LayerNormGraph g;
  g.y = g.b.op("Add", {g.y, g.x}, {}, "residual");
  Graph graph = g.Build();
  const Graph before = graph;
  EXPECT_TRUE(FuseLayerNormalization(graph));
  EXPECT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseLayerNormalization, PerChannelEpsilonIsNotFused) {
  Spec spec;
  spec.epsilon = RandomTensor(DType::kFloat32, Shape({8}), 6, 1e-6, 1e-5);
  Graph graph = LayerNormGraph(spec).Build();
  const std::string listing = graph.to_string();
  EXPECT_FALSE(FuseLayerNormalization(graph));
  EXPECT_EQ(graph.to_string(), listing);
}

TEST(FuseLayerNormalization, AxesOtherThanTheLastAreNotFused) {
  for (int64_t axis : {1, -2}) {
    Spec spec;
    spec.axis = axis;
    spec.with_scale = false;
    spec.with_bias = false;
    Graph graph = LayerNormGraph(spec).Build();
    EXPECT_FALSE(FuseLayerNormalization(graph)) << axis;
  }
}

TEST(FuseLayerNormalization, WrongSquareOrSubtractionIsNotFused) {
  {
    // Pow(d, 3).
    LayerNormGraph g;
    Graph graph = g.Build();
    graph.initializers.at("two") = Floats({}, {3.0f});
    EXPECT_FALSE(FuseLayerNormalization(graph));
  }
  {
    // Sub(mean, x): the sign of d flips.
    LayerNormGraph g;
    Graph graph = g.Build();
    for (Node& node : graph.nodes) {
      if (node.op_type == "Sub") std::swap(node.inputs[0], node.inputs[1]);
    }
    EXPECT_FALSE(FuseLayerNormalization(graph));
  }
}

TEST(FuseLayerNormalization, UnknownLastDimOrTypesAreNotFused) {
  {
    GraphBuilder b("symbolic");
    const std::string x = b.input("x", DType::kFloat32, {2, "C"});
    const std::string mean = b.op("ReduceMean", {x}, {{"axes", std::vector<int64_t>{-1}}});
    const std::string d = b.op("Sub", {x, mean});
    const std::string var =
        b.op("ReduceMean", {b.op("Mul", {d, d})}, {{"axes", std::vector<int64_t>{-1}}});
    const std::string eps = b.constant(Floats({}, {1e-5f}));
    b.output(b.op("Div", {d, b.op("Sqrt", {b.op("Add", {var, eps})})}));
    Graph graph = b.build();
    InferTypes(graph);
    EXPECT_FALSE(FuseLayerNormalization(graph));
  }
  {
    // x is a node output and InferTypes has not run.
    GraphBuilder b("untyped");
    const std::string x = b.op("Neg", {b.input("x", DType::kFloat32, {2, 8})}, {}, "neg");
    const std::string mean = b.op("ReduceMean", {x}, {{"axes", std::vector<int64_t>{-1}}});
    const std::string d = b.op("Sub", {x, mean});
    const std::string var =
        b.op("ReduceMean", {b.op("Mul", {d, d})}, {{"axes", std::vector<int64_t>{-1}}});
    const std::string eps = b.constant(Floats({}, {1e-5f}));
    b.output(b.op("Div", {d, b.op("Sqrt", {b.op("Add", {var, eps})})}));
    Graph graph = b.build();
    EXPECT_FALSE(FuseLayerNormalization(graph));
    InferTypes(graph);
    EXPECT_TRUE(FuseLayerNormalization(graph));
  }
}

TEST(FuseLayerNormalization, KeepdimsZeroIsNotFused) {
  LayerNormGraph g;
  Graph graph = g.Build();
  graph.nodes[0].attributes["keepdims"] = int64_t{0};
  EXPECT_FALSE(FuseLayerNormalization(graph));
}

TEST(FuseLayerNormalization, TwoLayerNormsInARow) {
  // The second reads the first's output: matches must not overlap.
  LayerNormGraph g;
  const std::string first = g.y;
  const std::string mean = g.b.op("ReduceMean", {first}, {{"axes", std::vector<int64_t>{-1}}});
  const std::string d = g.b.op("Sub", {first, mean});
  const std::string var =
      g.b.op("ReduceMean", {g.b.op("Mul", {d, d})}, {{"axes", std::vector<int64_t>{-1}}});
  const std::string eps = g.b.constant(Floats({}, {1e-6f}));
  g.y = g.b.op("Div", {d, g.b.op("Sqrt", {g.b.op("Add", {var, eps})})}, {}, "second");
  Graph graph = g.Build();
  const Graph before = graph;
  EXPECT_TRUE(FuseLayerNormalization(graph));
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.producer_of("second")->inputs[0], "bias");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseLayerNormalization, OptimizeGraphFusesThePowForm) {
  // Through OptimizeGraph: SimplifyPow turns Pow(d, 2) into Mul(d, d) and
  // the types come from the loop's own InferTypes.
  Graph graph = LayerNormGraph().Build();
  graph.value_types.clear();
  const Graph before = graph;
  OptimizationOptions options;
  options.evaluate = EvaluateNode;
  OptimizeGraph(graph, options);
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op_type, "LayerNormalization");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

}  // namespace
}  // namespace loom::graph
