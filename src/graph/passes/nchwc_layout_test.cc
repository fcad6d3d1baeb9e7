#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

using kernels::testing::RandomTensor;
using testing::CompareGraphOutputs;
using testing::RandomFeeds;
using Ints = std::vector<int64_t>;

// The graph interpreter runs the portable ISA, whose block is 8.
constexpr int kBlock = 8;

int CountOps(const Graph& graph, const std::string& op) {
  int count = 0;
  for (const Node& node : graph.nodes) count += node.op_type == op ? 1 : 0;
  return count;
}

const Node* NodeNamed(const Graph& graph, const std::string& name) { return graph.find_node(name); }

// Types first (the pass reads channel counts), then the pass, then a check
// that the result verifies and computes the same outputs.
// Direct convolutions only, so the blocked graph sums in the same order as
// the plain one (Winograd: WinogradIsTheKernelsChoiceUnlessSwitchedOff below
// and kernels/nchwc/nchwc_test.cc).
Graph Blocked(const Graph& before) {
  Graph after = before;
  InferTypes(after);
  EXPECT_TRUE(UseBlockedLayout(after, kBlock, /*winograd=*/false));
  verify_graph(after);
  InferTypes(after);
  return after;
}

std::string Conv(GraphBuilder& b, const std::string& x, int64_t in, int64_t out, int64_t k,
                 uint32_t seed, const std::string& name, Ints strides = {1, 1}, int64_t group = 1) {
  const int64_t pad = k / 2;
  const std::string w =
      b.constant(RandomTensor(DType::kFloat32, Shape({out, in / group, k, k}), seed), name + "_w");
  const std::string bias =
      b.constant(RandomTensor(DType::kFloat32, Shape({out}), seed + 100), name + "_b");
  return b.op("Conv", {x, w, bias},
              {{"pads", Ints{pad, pad, pad, pad}}, {"strides", strides}, {"group", group}}, name);
}

// A small ResNet: stem (3 channels) -> MaxPool -> a residual block -> a
// depthwise + squeeze-excitation block -> GlobalAveragePool -> Flatten -> Gemm.
Graph SmallResNet(Dim batch) {
  GraphBuilder b("resnet");
  const std::string x = b.input("x", DType::kFloat32, {batch, 3, 20, 18});
  const std::string stem = b.op("Relu", {Conv(b, x, 3, 16, 7, 1, "stem", {2, 2})}, {}, "stem_relu");
  const std::string pool = b.op(
      "MaxPool", {stem},
      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}, "pool");
  const std::string c1 = b.op("Relu", {Conv(b, pool, 16, 16, 3, 2, "c1")}, {}, "c1_relu");
  const std::string c2 = Conv(b, c1, 16, 16, 3, 3, "c2");
  const std::string res = b.op("Relu", {b.op("Add", {c2, pool}, {}, "res_add")}, {}, "res_relu");
  const std::string dw = Conv(b, res, 16, 16, 3, 4, "dw", {1, 1}, 16);
  const std::string squeeze = b.op("GlobalAveragePool", {dw}, {}, "se_pool");
  const std::string gate =
      b.op("HardSigmoid", {Conv(b, squeeze, 16, 16, 1, 5, "se_fc")}, {}, "se_gate");
  const std::string scaled = b.op("Mul", {dw, gate}, {}, "se_mul");
  const std::string head = b.op("GlobalAveragePool", {scaled}, {}, "head_pool");
  const std::string flat = b.op("Flatten", {head}, {}, "flatten");
  const std::string fc_w = b.constant(RandomTensor(DType::kFloat32, Shape({5, 16}), 9), "fc_w");
  b.output(b.op("Gemm", {flat, fc_w}, {{"transB", int64_t{1}}}, "fc"), "logits");
  return b.build();
}

TEST(UseBlockedLayout, ConvertsAResNetWithReordersOnlyAtTheEdges) {
  const Graph before = SmallResNet(Dim(2));
  const Graph after = Blocked(before);
  // No reorder before the stem (it reads NCHW), one after the last pool.
  EXPECT_EQ(CountOps(after, "NchwcReorderInput"), 0) << after.to_string();
  EXPECT_EQ(CountOps(after, "NchwcReorderOutput"), 1) << after.to_string();
  EXPECT_EQ(CountOps(after, "Conv"), 0);
  EXPECT_EQ(CountOps(after, "NchwcConv"), 5);
  EXPECT_EQ(CountOps(after, "NchwcMaxPool"), 1);
  EXPECT_EQ(CountOps(after, "NchwcGlobalAveragePool"), 2);
  // Squeeze-excitation's scale: x [N, C, H, W] * gate [N, C, 1, 1].
  EXPECT_EQ(NodeNamed(after, "se_mul")->op_type, "NchwcChannelAffine");
  // The residual Add and its Relu went into c2's kernel.
  EXPECT_EQ(NodeNamed(after, "res_add"), nullptr);
  EXPECT_EQ(NodeNamed(after, "res_relu"), nullptr);
  const Node* c2 = NodeNamed(after, "c2");
  ASSERT_NE(c2, nullptr);
  ASSERT_EQ(c2->inputs.size(), 4u);
  EXPECT_EQ(c2->inputs[3], "pool_nchwc");
  EXPECT_EQ(std::get<std::string>(c2->attributes.at("activation")), "Relu");
  const Node* stem = NodeNamed(after, "stem");
  ASSERT_NE(stem, nullptr);
  EXPECT_EQ(std::get<std::string>(stem->attributes.at("input_layout")), "nchw");
  // The graph's output keeps its name and the blocked values show in the listing.
  EXPECT_EQ(after.outputs[0].name, "logits");
  EXPECT_NE(after.to_string().find("NchwcConv"), std::string::npos);
  EXPECT_EQ(CompareGraphOutputs(before, after, RandomFeeds(before, 1), 1e-4, 1e-5), "");
}

TEST(UseBlockedLayout, WinogradIsTheKernelsChoiceUnlessSwitchedOff) {
  const Graph before = SmallResNet(Dim(int64_t{1}));
  Graph automatic = before;
  InferTypes(automatic);
  ASSERT_TRUE(UseBlockedLayout(automatic, kBlock));
  Graph direct = before;
  InferTypes(direct);
  ASSERT_TRUE(UseBlockedLayout(direct, kBlock, /*winograd=*/false));
  int convs = 0;
  for (const Node& node : automatic.nodes) {
    if (node.op_type != "NchwcConv") continue;
    ++convs;
    EXPECT_EQ(node.attributes.count("winograd"), 0u) << node.name;  // the kernel decides
  }
  EXPECT_EQ(convs, 5);
  for (const Node& node : direct.nodes) {
    if (node.op_type == "NchwcConv") {
      EXPECT_EQ(std::get<int64_t>(node.attributes.at("winograd")), 0) << node.name;
    }
  }
  // The residual block's 3x3 convs may run as Winograd by default: the
  // same outputs within its rounding (kernels/nchwc/nchwc_test.cc).
  InferTypes(automatic);
  verify_graph(automatic);
  EXPECT_EQ(CompareGraphOutputs(before, automatic, RandomFeeds(before, 1), 1e-4, 1e-4), "");
}

TEST(UseBlockedLayout, WorksWithASymbolicBatch) {
  Graph before = SmallResNet(Dim("N"));
  const Graph after = Blocked(before);
  EXPECT_EQ(CountOps(after, "NchwcConv"), 5);
  // RandomFeeds needs known shapes: evaluate with a batch of 3.
  before.inputs[0].type.shape = SymbolicShape{3, 3, 20, 18};
  Graph fixed = after;
  fixed.inputs[0].type.shape = SymbolicShape{3, 3, 20, 18};
  EXPECT_EQ(CompareGraphOutputs(before, fixed, RandomFeeds(before, 2), 1e-4, 1e-5), "");
}

TEST(UseBlockedLayout, ReordersBackForOpsWithoutABlockedKernel) {
  GraphBuilder b("mixed");
  const std::string x = b.input("x", DType::kFloat32, {1, 12, 6, 6});
  const std::string c1 = Conv(b, x, 12, 10, 3, 1, "c1");
  // Transpose has no blocked kernel; c1's value is also a graph output.
  const std::string t = b.op("Transpose", {c1}, {{"perm", Ints{0, 1, 3, 2}}}, "transpose");
  const std::string c2 = Conv(b, t, 10, 9, 1, 2, "c2");
  b.output(c1, "features");
  b.output(c2, "out");
  const Graph before = b.build();
  const Graph after = Blocked(before);
  // x (12 channels) and the transposed value are reordered in; "features"
  // is reordered out once, under its own name, for Transpose and the fetch.
  EXPECT_EQ(CountOps(after, "NchwcReorderInput"), 2) << after.to_string();
  EXPECT_EQ(CountOps(after, "NchwcReorderOutput"), 2) << after.to_string();
  EXPECT_NE(NodeNamed(after, "transpose"), nullptr);
  EXPECT_EQ(after.producer_of("features")->op_type, "NchwcReorderOutput");
  EXPECT_EQ(CompareGraphOutputs(before, after, RandomFeeds(before, 3), 1e-4, 1e-5), "");
}

TEST(UseBlockedLayout, ConcatStaysBlockedOnlyForWholeBlocks) {
  GraphBuilder b("concat");
  const std::string x = b.input("x", DType::kFloat32, {1, 8, 5, 5});
  const std::string a = Conv(b, x, 8, 16, 3, 1, "a");
  const std::string c = Conv(b, x, 8, 8, 1, 2, "c");
  const std::string joined = b.op("Concat", {a, c}, {{"axis", int64_t{1}}}, "join");
  const std::string odd = Conv(b, x, 8, 5, 1, 3, "odd");
  const std::string joined_odd = b.op("Concat", {joined, odd}, {{"axis", int64_t{1}}}, "join_odd");
  b.output(Conv(b, joined_odd, 29, 8, 3, 4, "after"), "y");
  const Graph before = b.build();
  const Graph after = Blocked(before);
  EXPECT_EQ(NodeNamed(after, "join")->inputs[0], "a_nchwc");   // blocked
  EXPECT_EQ(NodeNamed(after, "join_odd")->inputs[0], "join");  // plain: 5 channels
  EXPECT_EQ(CompareGraphOutputs(before, after, RandomFeeds(before, 4), 1e-4, 1e-5), "");
}

TEST(UseBlockedLayout, BatchNormAndChannelConstantsStayBlocked) {
  GraphBuilder b("densenet");
  const std::string x = b.input("x", DType::kFloat32, {1, 8, 6, 6});
  const std::string c1 = Conv(b, x, 8, 13, 3, 1, "c1");
  std::vector<std::string> bn_inputs = {c1};
  for (uint32_t k = 0; k < 4; ++k) {
    // scale, bias, mean, and a positive variance
    Tensor t = RandomTensor(DType::kFloat32, Shape({13}), 20 + k, k == 3 ? 0.5 : -1.0, 1.5);
    bn_inputs.push_back(b.constant(t, "bn_p" + std::to_string(k)));
  }
  const std::string bn = b.op("BatchNormalization", bn_inputs, {{"epsilon", 1e-3f}}, "bn");
  const std::string act = b.op("Relu", {bn}, {}, "bn_relu");
  const std::string c2 = Conv(b, act, 13, 11, 3, 2, "c2");
  const std::string shift =
      b.constant(RandomTensor(DType::kFloat32, Shape({1, 11, 1, 1}), 30), "shift");
  b.output(b.op("Add", {shift, c2}, {}, "add_shift"), "y");
  const Graph before = b.build();
  const Graph after = Blocked(before);
  EXPECT_EQ(CountOps(after, "BatchNormalization"), 0) << after.to_string();
  // BN + Relu and the shift are one NchwcChannelAffine each.
  EXPECT_EQ(NodeNamed(after, "bn")->op_type, "NchwcChannelAffine");
  EXPECT_EQ(std::get<std::string>(NodeNamed(after, "bn")->attributes.at("activation")), "Relu");
  EXPECT_EQ(NodeNamed(after, "bn_relu"), nullptr);
  EXPECT_EQ(NodeNamed(after, "add_shift")->op_type, "NchwcChannelAffine");
  EXPECT_EQ(CountOps(after, "NchwcReorderInput"), 1) << after.to_string();
  EXPECT_EQ(CountOps(after, "NchwcReorderOutput"), 1) << after.to_string();
  EXPECT_EQ(after.producer_of("y")->op_type, "NchwcReorderOutput");
  EXPECT_EQ(CompareGraphOutputs(before, after, RandomFeeds(before, 5), 1e-4, 1e-5), "");
}

TEST(UseBlockedLayout, LeavesGroupsItCannotBlockAndUnknownShapes) {
  GraphBuilder b("grouped");
  const std::string x = b.input("x", DType::kFloat32, {1, 12, 6, 6});
  // 4 channels per group: not a multiple of the block, not depthwise.
  b.output(Conv(b, x, 12, 12, 3, 1, "grouped", {1, 1}, 3), "y");
  Graph graph = b.build();
  InferTypes(graph);
  EXPECT_FALSE(UseBlockedLayout(graph, kBlock));
  EXPECT_EQ(CountOps(graph, "Conv"), 1);
}

TEST(UseBlockedLayout, RejectsOtherBlockSizes) {
  Graph graph = SmallResNet(Dim(1));
  EXPECT_THROW(UseBlockedLayout(graph, 4), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::graph
