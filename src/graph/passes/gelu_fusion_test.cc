#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"

namespace loom::graph {
namespace {

using testing::CompareGraphOutputs;
using testing::Floats;
using testing::RandomFeeds;

// The Gelu kernel evaluates the same formula in one expression; exporters'
// float32 constants (sqrt(2) rounded) move the result by a few ulp.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

std::string ExpectSame(const Graph& before, const Graph& after) {
  return CompareGraphOutputs(before, after, RandomFeeds(before, 3), kRtol, kAtol);
}

// The erf form as PyTorch writes it for nn.GELU():
// Mul(Mul(x, Add(Erf(Div(x, sqrt2)), 1)), 0.5).
struct ErfGelu {
  explicit ErfGelu(float sqrt2 = static_cast<float>(std::sqrt(2.0)), float half = 0.5f) {
    const std::string scaled =
        b.op("Div", {x, b.constant(Floats({}, {sqrt2}), "sqrt2")}, {}, "div");
    erf = b.op("Erf", {scaled}, {}, "erf");
    const std::string gate = b.op("Add", {erf, b.constant(Floats({}, {1.0f}), "one")}, {}, "add");
    const std::string product = b.op("Mul", {x, gate}, {}, "mul");
    y = b.op("Mul", {product, b.constant(Floats({}, {half}), "half")}, {}, "mul_1");
  }
  Graph Build() {
    b.output(y);
    return b.build();
  }

  GraphBuilder b{"gelu"};
  std::string x = b.input("x", DType::kFloat32, {2, 16});
  std::string erf;
  std::string y;
};

// The tanh form as PyTorch 1.13 writes it for nn.GELU(approximate="tanh"):
// Mul(0.5, Mul(x, Add(1, Tanh(Mul(beta, Add(x, Mul(kappa, Mul(x, Mul(x, x)))))))))
// or, with `pow`, the cube as Pow(x, 3) (hand-written "new GELU").
struct TanhGelu {
  explicit TanhGelu(bool pow = false, float kappa = 0.044715f) {
    const std::string cube =
        pow ? b.op("Pow", {x, b.constant(Floats({}, {3.0f}), "three")}, {}, "cube")
            : b.op("Mul", {x, b.op("Mul", {x, x}, {}, "square")}, {}, "cube");
    const std::string term =
        b.op("Mul", {b.constant(Floats({}, {kappa}), "kappa"), cube}, {}, "term");
    const std::string sum = b.op("Add", {x, term}, {}, "sum");
    const std::string beta = b.constant(Floats({}, {0.7978845608f}), "beta");
    const std::string inner = b.op("Mul", {beta, sum}, {}, "inner");
    const std::string tanh = b.op("Tanh", {inner}, {}, "tanh");
    const std::string gate = b.op("Add", {b.constant(Floats({}, {1.0f}), "one"), tanh}, {}, "gate");
    const std::string product = b.op("Mul", {x, gate}, {}, "product");
    y = b.op("Mul", {b.constant(Floats({}, {0.5f}), "half"), product}, {}, "gelu");
  }
  Graph Build() {
    b.output(y);
    return b.build();
  }

  GraphBuilder b{"gelu_tanh"};
  std::string x = b.input("x", DType::kFloat32, {2, 16});
  std::string y;
};

TEST(FuseGelu, ErfFormAsPyTorchWritesIt) {
  Graph graph = ErfGelu().Build();
  const Graph before = graph;

  EXPECT_TRUE(FuseGelu(graph));
  EXPECT_EQ(graph.to_string(),
            "graph gelu\n"
            "  input x: float32[2, 16]\n"
            "  mul_1 = Gelu(x) {approximate=\"none\"}  # mul_1\n"
            "  output mul_1: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
  EXPECT_FALSE(FuseGelu(graph));
}

TEST(FuseGelu, ErfFormWithInverseSqrt2AndHalfFirst) {
  // 0.5 * x first, then times (erf(x * 0.7071...) + 1), constants first.
  GraphBuilder b("gelu");
  const std::string x = b.input("x", DType::kFloat32, {2, 16});
  const std::string scaled =
      b.op("Mul", {b.constant(Floats({}, {0.70710677f}), "inv_sqrt2"), x}, {}, "scaled");
  const std::string gate = b.op(
      "Add", {b.constant(Floats({}, {1.0f}), "one"), b.op("Erf", {scaled}, {}, "erf")}, {}, "gate");
  const std::string half_x = b.op("Mul", {x, b.constant(Floats({}, {0.5f}), "half")}, {}, "half_x");
  b.output(b.op("Mul", {gate, half_x}, {}, "gelu"));
  Graph graph = b.build();
  const Graph before = graph;

  EXPECT_TRUE(FuseGelu(graph));
  EXPECT_EQ(graph.to_string(),
            "graph gelu\n"
            "  input x: float32[2, 16]\n"
            "  gelu = Gelu(x) {approximate=\"none\"}  # gelu\n"
            "  output gelu: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseGelu, TanhFormAsPyTorchWritesIt) {
  Graph graph = TanhGelu().Build();
  const Graph before = graph;

  EXPECT_TRUE(FuseGelu(graph));
  EXPECT_EQ(graph.to_string(),
            "graph gelu_tanh\n"
            "  input x: float32[2, 16]\n"
            "  gelu = Gelu(x) {approximate=\"tanh\"}  # gelu\n"
            "  output gelu: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
  EXPECT_FALSE(FuseGelu(graph));
}

TEST(FuseGelu, TanhFormWithPowCube) {
  Graph graph = TanhGelu(/*pow=*/true).Build();
  const Graph before = graph;
  EXPECT_TRUE(FuseGelu(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op_type, "Gelu");
  EXPECT_TRUE(graph.initializers.empty());
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseGelu, ConstantsWithinTheTolerance) {
  // 1.41421 is 2.5e-6 off sqrt(2), inside the 1e-4 tolerance; 1.414 is
  // 1.5e-4 off, outside.
  {
    Graph graph = ErfGelu(1.41421f).Build();
    const Graph before = graph;
    EXPECT_TRUE(FuseGelu(graph));
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
  {
    Graph graph = ErfGelu(1.414f).Build();
    EXPECT_FALSE(FuseGelu(graph));
  }
}

TEST(FuseGelu, WrongConstantsAreNotFused) {
  {
    Graph graph = ErfGelu(static_cast<float>(std::sqrt(2.0)), 0.6f).Build();
    const std::string listing = graph.to_string();
    EXPECT_FALSE(FuseGelu(graph));
    EXPECT_EQ(graph.to_string(), listing);
  }
  {
    Graph graph = TanhGelu(false, 0.05f).Build();
    EXPECT_FALSE(FuseGelu(graph));
  }
  {
    Graph graph = TanhGelu().Build();
    graph.initializers.at("one") = Floats({}, {2.0f});
    EXPECT_FALSE(FuseGelu(graph));
  }
}

TEST(FuseGelu, ExtraReaderOrFetchedIntermediateBlocksFusion) {
  {
    ErfGelu g;
    g.b.output(g.b.op("Neg", {g.erf}, {}, "extra"));
    Graph graph = g.Build();
    const std::string listing = graph.to_string();
    EXPECT_FALSE(FuseGelu(graph));
    EXPECT_EQ(graph.to_string(), listing);
  }
  {
    ErfGelu g;
    g.b.output("mul");
    Graph graph = g.Build();
    EXPECT_FALSE(FuseGelu(graph));
  }
  {
    TanhGelu g;
    g.b.output("square");
    Graph graph = g.Build();
    EXPECT_FALSE(FuseGelu(graph));
  }
}

TEST(FuseGelu, DifferentValuesInsideAndOutsideAreNotFused) {
  // 0.5 * x * (1 + erf(z / sqrt(2))) with z != x is not a GELU of anything.
  GraphBuilder b("mixed");
  const std::string x = b.input("x", DType::kFloat32, {2, 16});
  const std::string z = b.input("z", DType::kFloat32, {2, 16});
  const std::string scaled =
      b.op("Div", {z, b.constant(Floats({}, {static_cast<float>(std::sqrt(2.0))}), "sqrt2")});
  const std::string gate = b.op("Add", {b.op("Erf", {scaled}), b.constant(Floats({}, {1.0f}))});
  b.output(b.op("Mul", {b.op("Mul", {x, gate}), b.constant(Floats({}, {0.5f}))}));
  Graph graph = b.build();
  EXPECT_FALSE(FuseGelu(graph));
}

TEST(FuseGelu, ConstantThatWouldRaiseTheRankIsNotFused) {
  // x is [2, 16]: a [1, 1] half keeps its shape, a [1, 1, 1] one makes the
  // product [1, 2, 16].
  for (const int rank : {2, 3}) {
    Graph graph = ErfGelu().Build();
    graph.initializers.at("half") = Floats(std::vector<int64_t>(rank, 1), {0.5f});
    EXPECT_EQ(FuseGelu(graph), rank == 2) << rank;
  }
}

TEST(FuseGelu, TwoGelusShareTheirInput) {
  // Two erf GELUs of the same x: each is matched once.
  GraphBuilder b("twice");
  const std::string x = b.input("x", DType::kFloat32, {4});
  for (const std::string name : {"a", "b"}) {
    const std::string scaled = b.op(
        "Div", {x, b.constant(Floats({}, {static_cast<float>(std::sqrt(2.0))}), name + "_sqrt2")});
    const std::string gate = b.op("Add", {b.op("Erf", {scaled}), b.constant(Floats({}, {1.0f}))});
    b.output(b.op("Mul", {b.op("Mul", {x, gate}), b.constant(Floats({}, {0.5f}))}, {}, name));
  }
  Graph graph = b.build();
  const Graph before = graph;
  EXPECT_TRUE(FuseGelu(graph));
  EXPECT_EQ(graph.to_string(),
            "graph twice\n"
            "  input x: float32[4]\n"
            "  a = Gelu(x) {approximate=\"none\"}  # a\n"
            "  b = Gelu(x) {approximate=\"none\"}  # b\n"
            "  output a: float32[?]\n"
            "  output b: float32[?]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

}  // namespace
}  // namespace loom::graph
