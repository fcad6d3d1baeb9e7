#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::graph {
namespace {

using testing::CompareGraphOutputs;
using testing::Floats;
using testing::RandomFeeds;
using Ints = std::vector<int64_t>;

// The fused kernel sums the same products in another order and divides by
// the softmax sum at the end: rounding-level differences.
constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;

std::string ExpectSame(const Graph& before, const Graph& after) {
  return CompareGraphOutputs(before, after, RandomFeeds(before, 3), kRtol, kAtol);
}

// Inputs [B, S, H, D] = [2, 5, 3, 8] for Q, K and V, each moved to
// [B, H, S, D] by Transpose [0, 2, 1, 3] as the exporters do.
struct Heads {
  GraphBuilder b{"attention"};
  std::string q_in = b.input("q", DType::kFloat32, {2, 5, 3, 8});
  std::string k_in = b.input("k", DType::kFloat32, {2, 5, 3, 8});
  std::string v_in = b.input("v", DType::kFloat32, {2, 5, 3, 8});
  std::string q = b.op("Transpose", {q_in}, {{"perm", Ints{0, 2, 1, 3}}}, "q_t");
  std::string v = b.op("Transpose", {v_in}, {{"perm", Ints{0, 2, 1, 3}}}, "v_t");
  std::string sqrt_d = b.constant(Floats({}, {std::sqrt(8.0f)}), "sqrt_d");
};

Graph Typed(GraphBuilder& b) {
  Graph graph = b.build();
  InferTypes(graph);
  return graph;
}

TEST(FuseAttention, SplitKeyTransposesAndAdditiveMask) {
  // export_transformers.py: Kᵀ as Transpose [0, 1, 3, 2] of the heads
  // transpose; Div by sqrt(D); a padding mask [B, 1, 1, S].
  Heads g;
  const std::string mask = g.b.input("mask", DType::kFloat32, {2, 1, 1, 5});
  const std::string k = g.b.op("Transpose", {g.k_in}, {{"perm", Ints{0, 2, 1, 3}}}, "k_t");
  const std::string kt = g.b.op("Transpose", {k}, {{"perm", Ints{0, 1, 3, 2}}}, "k_tt");
  const std::string s = g.b.op("MatMul", {g.q, kt}, {}, "qk");
  const std::string scaled = g.b.op("Div", {s, g.sqrt_d}, {}, "div");
  const std::string masked = g.b.op("Add", {scaled, mask}, {}, "add");
  const std::string p = g.b.op("Softmax", {masked}, {{"axis", int64_t{-1}}}, "softmax");
  g.b.output(g.b.op("MatMul", {p, g.v}, {}, "pv"));
  Graph graph = Typed(g.b);
  const Graph before = graph;

  EXPECT_TRUE(FuseAttention(graph));
  // Every transpose goes: the kernel reads [B, S, H, D] directly.
  EXPECT_EQ(graph.to_string(),
            "graph attention\n"
            "  input q: float32[2, 5, 3, 8]\n"
            "  input k: float32[2, 5, 3, 8]\n"
            "  input v: float32[2, 5, 3, 8]\n"
            "  input mask: float32[2, 1, 1, 5]\n"
            "  pv = LoomAttention(q, k, v, mask) {k_layout=\"bshd\", q_layout=\"bshd\", "
            "scale=0.353553, v_layout=\"bshd\"}  # pv\n"
            "  output pv: float32[2, 3, 5, 8]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
  EXPECT_FALSE(FuseAttention(graph));
}

TEST(FuseAttention, BertKeyTransposeAndMulScale) {
  // Hugging Face BERT: Kᵀ as one Transpose [0, 2, 3, 1] of [B, S, H, D];
  // here the scale is a Mul with the constant first, and no mask. Q is
  // read by a second node too, so its transpose stays and feeds the fused
  // node in [B, H, S, D].
  Heads g;
  const std::string kt = g.b.op("Transpose", {g.k_in}, {{"perm", Ints{0, 2, 3, 1}}}, "k_t");
  const std::string s = g.b.op("MatMul", {g.q, kt}, {}, "qk");
  const std::string c = g.b.constant(Floats({1}, {0.25f}), "c");
  const std::string scaled = g.b.op("Mul", {c, s}, {}, "mul");
  const std::string p = g.b.op("Softmax", {scaled}, {{"axis", int64_t{3}}}, "softmax");
  g.b.output(g.b.op("MatMul", {p, g.v}, {}, "pv"));
  g.b.output(g.b.op("Neg", {g.q}, {}, "neg"));
  Graph graph = Typed(g.b);
  const Graph before = graph;

  EXPECT_TRUE(FuseAttention(graph));
  EXPECT_EQ(graph.to_string(),
            "graph attention\n"
            "  input q: float32[2, 5, 3, 8]\n"
            "  input k: float32[2, 5, 3, 8]\n"
            "  input v: float32[2, 5, 3, 8]\n"
            "  const sqrt_d: float32[]\n"  // Heads' divisor, unused here from the start
            "  q_t = Transpose(q) {perm=[0, 2, 1, 3]}  # q_t\n"
            "  pv = LoomAttention(q_t, k, v) {k_layout=\"bshd\", scale=0.25, "
            "v_layout=\"bshd\"}  # pv\n"
            "  neg = Neg(q_t)  # neg\n"
            "  output pv: float32[2, 3, 5, 8]\n"
            "  output neg: float32[2, 3, 5, 8]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseAttention, WhereBoolMaskOnHeadMajorKeys) {
  // torch scaled_dot_product_attention-like: K already [B, H, S, D],
  // Kᵀ by Transpose [0, 1, 3, 2]; Where(keep, scores, -inf) with a bool
  // [S, S] mask (fully masked rows are NaN in both graphs).
  GraphBuilder b("sdpa");
  const std::string q = b.input("q", DType::kFloat32, {1, 2, 7, 16});
  const std::string k = b.input("k", DType::kFloat32, {1, 2, 9, 16});
  const std::string v = b.input("v", DType::kFloat32, {1, 2, 9, 4});
  const std::string keep = b.input("keep", DType::kBool, {7, 9});
  const std::string kt = b.op("Transpose", {k}, {{"perm", Ints{0, 1, 3, 2}}}, "k_t");
  const std::string s = b.op("MatMul", {q, kt}, {}, "qk");
  const std::string scaled = b.op("Mul", {s, b.constant(Floats({}, {0.25f}), "c")}, {}, "mul");
  const float inf = std::numeric_limits<float>::infinity();
  const std::string masked =
      b.op("Where", {keep, scaled, b.constant(Floats({}, {-inf}), "fill")}, {}, "where");
  const std::string p = b.op("Softmax", {masked}, {}, "softmax");
  b.output(b.op("MatMul", {p, v}, {}, "pv"));
  Graph graph = Typed(b);
  const Graph before = graph;

  EXPECT_TRUE(FuseAttention(graph));
  EXPECT_EQ(graph.to_string(),
            "graph sdpa\n"
            "  input q: float32[1, 2, 7, 16]\n"
            "  input k: float32[1, 2, 9, 16]\n"
            "  input v: float32[1, 2, 9, 4]\n"
            "  input keep: bool[7, 9]\n"
            "  pv = LoomAttention(q, k, v, keep) {mask_fill=-inf, scale=0.25}  # pv\n"
            "  output pv: float32[1, 2, 7, 4]\n");
  EXPECT_EQ(ExpectSame(before, graph), "");
}

TEST(FuseAttention, ConstantCausalMasksBecomeTheCausalAttribute) {
  // A decoder's constant masks, additive (-inf above the diagonal) and
  // bool (Where with the float32 lowest as fill): both become causal = 1.
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t s = 6;
  std::vector<float> additive(s * s);
  std::vector<bool> keep(s * s);
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t j = 0; j < s; ++j) {
      additive[static_cast<size_t>(i * s + j)] = j <= i ? 0.0f : -inf;
      keep[static_cast<size_t>(i * s + j)] = j <= i;
    }
  }
  for (bool bool_mask : {false, true}) {
    GraphBuilder b("decoder");
    const std::string q = b.input("q", DType::kFloat32, {1, 2, s, 8});
    const std::string k = b.input("k", DType::kFloat32, {1, 2, s, 8});
    const std::string v = b.input("v", DType::kFloat32, {1, 2, s, 8});
    const std::string kt = b.op("Transpose", {k}, {{"perm", Ints{0, 1, 3, 2}}}, "k_t");
    const std::string scores = b.op(
        "Div", {b.op("MatMul", {q, kt}, {}, "qk"), b.constant(Floats({}, {2.0f}), "c")}, {}, "div");
    std::string masked;
    if (bool_mask) {
      const std::string mask =
          b.constant(Tensor::from_vector(Shape({1, 1, s, s}), keep), "causal_mask");
      const std::string fill =
          b.constant(Floats({}, {std::numeric_limits<float>::lowest()}), "fill");
      masked = b.op("Where", {mask, scores, fill}, {}, "where");
    } else {
      masked =
          b.op("Add", {scores, b.constant(Floats({s, s}, additive), "causal_mask")}, {}, "add");
    }
    b.output(b.op("MatMul", {b.op("Softmax", {masked}, {}, "softmax"), v}, {}, "pv"));
    Graph graph = Typed(b);
    const Graph before = graph;

    EXPECT_TRUE(FuseAttention(graph));
    EXPECT_EQ(graph.to_string(),
              "graph decoder\n"
              "  input q: float32[1, 2, 6, 8]\n"
              "  input k: float32[1, 2, 6, 8]\n"
              "  input v: float32[1, 2, 6, 8]\n"
              "  pv = LoomAttention(q, k, v) {causal=1, scale=0.5}  # pv\n"
              "  output pv: float32[1, 2, 6, 8]\n");
    EXPECT_EQ(ExpectSame(before, graph), "");
  }
}

TEST(FuseAttention, AlmostCausalMasksStayInputs) {
  // -10000 above the diagonal is not exactly "left out": kept as a mask.
  const int64_t s = 4;
  std::vector<float> additive(s * s);
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t j = 0; j < s; ++j) additive[static_cast<size_t>(i * s + j)] = j <= i ? 0 : -1e4f;
  }
  GraphBuilder b("decoder");
  const std::string q = b.input("q", DType::kFloat32, {1, 1, s, 8});
  const std::string k = b.input("k", DType::kFloat32, {1, 1, s, 8});
  const std::string kt = b.op("Transpose", {k}, {{"perm", Ints{0, 1, 3, 2}}}, "k_t");
  const std::string added =
      b.op("Add", {b.op("MatMul", {q, kt}, {}, "qk"), b.constant(Floats({s, s}, additive), "m")},
           {}, "add");
  b.output(b.op("MatMul", {b.op("Softmax", {added}, {}, "softmax"), k}, {}, "pv"));
  Graph graph = Typed(b);
  const Graph before = graph;
  EXPECT_TRUE(FuseAttention(graph));
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].inputs, (std::vector<std::string>{"q", "k", "k", "m"}));
  EXPECT_EQ(graph.nodes[0].attributes.count("causal"), 0u);
  EXPECT_EQ(ExpectSame(before, graph), "");
}

// The export_transformers.py pattern with one change each.
struct Variant {
  bool scores_fetched = false;  // the Div output is also a graph output
  bool scale_is_input = false;  // the divisor is a graph input
  bool softmax_axis_2 = false;  // Softmax over the query axis
  bool mask_grows = false;      // the mask has a batch the scores lack
};

Graph Build(const Variant& v) {
  Heads g;
  const std::string k = g.b.op("Transpose", {g.k_in}, {{"perm", Ints{0, 2, 1, 3}}}, "k_t");
  const std::string kt = g.b.op("Transpose", {k}, {{"perm", Ints{0, 1, 3, 2}}}, "k_tt");
  const std::string s = g.b.op("MatMul", {g.q, kt}, {}, "qk");
  const std::string c = v.scale_is_input ? g.b.input("c", DType::kFloat32, {}) : g.sqrt_d;
  std::string x = g.b.op("Div", {s, c}, {}, "div");
  if (v.scores_fetched) g.b.output(x);
  if (v.mask_grows) {
    x = g.b.op("Add", {x, g.b.input("mask", DType::kFloat32, {4, 1, 1, 1, 5})}, {}, "add");
  }
  const int64_t axis = v.softmax_axis_2 ? 2 : -1;
  const std::string p = g.b.op("Softmax", {x}, {{"axis", axis}}, "softmax");
  g.b.output(g.b.op("MatMul", {p, g.v}, {}, "pv"));
  return Typed(g.b);
}

TEST(FuseAttention, PatternsThatDoNotFitAreKept) {
  {
    Graph graph = Build({});
    EXPECT_TRUE(FuseAttention(graph)) << "the unchanged pattern fuses";
  }
  for (const Variant& v : {Variant{.scores_fetched = true}, Variant{.scale_is_input = true},
                           Variant{.softmax_axis_2 = true}, Variant{.mask_grows = true}}) {
    Graph graph = Build(v);
    const std::string listing = graph.to_string();
    EXPECT_FALSE(FuseAttention(graph));
    EXPECT_EQ(graph.to_string(), listing);
  }
}

TEST(FuseAttention, ScoresWithAnotherReaderAreKept) {
  Heads g;
  const std::string kt = g.b.op("Transpose", {g.k_in}, {{"perm", Ints{0, 2, 3, 1}}}, "k_t");
  const std::string s = g.b.op("MatMul", {g.q, kt}, {}, "qk");
  const std::string scaled = g.b.op("Div", {s, g.sqrt_d}, {}, "div");
  const std::string p = g.b.op("Softmax", {scaled}, {}, "softmax");
  g.b.output(g.b.op("MatMul", {p, g.v}, {}, "pv"));
  g.b.output(g.b.op("Relu", {s}, {}, "relu"));  // a second reader of Q·Kᵀ
  Graph graph = Typed(g.b);
  EXPECT_FALSE(FuseAttention(graph));
}

TEST(FuseAttention, UnknownShapesAreKept) {
  // No InferTypes: the intermediate shapes are unknown.
  Heads g;
  const std::string kt = g.b.op("Transpose", {g.k_in}, {{"perm", Ints{0, 2, 3, 1}}}, "k_t");
  const std::string s = g.b.op("MatMul", {g.q, kt}, {}, "qk");
  const std::string p = g.b.op("Softmax", {g.b.op("Div", {s, g.sqrt_d}, {}, "div")}, {}, "sm");
  g.b.output(g.b.op("MatMul", {p, g.v}, {}, "pv"));
  Graph graph = g.b.build();
  EXPECT_FALSE(FuseAttention(graph));
}

}  // namespace
}  // namespace loom::graph
