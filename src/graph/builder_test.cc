// GraphBuilder: names, multi-output nodes, output renaming, verification;
// and Graph::to_string, the listing pass tests compare.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference.h"
#include "loom/errors.h"
#include "loom/graph.h"

namespace loom {
namespace {

constexpr DType kF32 = DType::kFloat32;

TEST(GraphBuilder, FreshNamesCountAcrossConstantsAndNodes) {
  GraphBuilder b("names");
  const std::string x = b.input("x", kF32, {2});
  EXPECT_EQ(x, "x");
  EXPECT_EQ(b.constant(Tensor(kF32, Shape({2}))), "const_0");
  const std::string relu = b.op("Relu", {x});
  EXPECT_EQ(relu, "Relu_1");
  EXPECT_EQ(b.op("Relu", {relu}), "Relu_2");
  EXPECT_EQ(b.op("Relu", {relu}, {}, "mine"), "mine");
  EXPECT_EQ(b.constant(Tensor(kF32, Shape({2})), "w"), "w");
  b.output("mine");
  const Graph g = b.build();
  EXPECT_EQ(g.name, "names");
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "Relu_1");
  EXPECT_EQ(g.nodes[0].outputs, std::vector<std::string>{"Relu_1"});
  EXPECT_EQ(g.initializers.count("const_0"), 1u);
  EXPECT_EQ(g.initializers.count("w"), 1u);
}

TEST(GraphBuilder, OpMultiNamesOutputsByIndex) {
  GraphBuilder b;
  const std::vector<std::string> outs =
      b.op_multi("Split", {b.input("x", kF32, {4})}, 2, {{"num_outputs", int64_t{2}}}, "split");
  EXPECT_EQ(outs, (std::vector<std::string>{"split:0", "split:1"}));
  const std::vector<std::string> fresh =
      b.op_multi("Split", {outs[0]}, 2, {{"num_outputs", int64_t{2}}});
  EXPECT_EQ(fresh, (std::vector<std::string>{"Split_0:0", "Split_0:1"}));
  for (const std::string& out : {outs[1], fresh[0], fresh[1]}) b.output(out);
  const Graph g = b.build();
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].outputs, outs);
  EXPECT_EQ(g.nodes[1].inputs, std::vector<std::string>{"split:0"});
}

TEST(GraphBuilder, OutputRenameRenamesTheNodeOutputAndItsConsumers) {
  GraphBuilder b;
  const std::string relu = b.op("Relu", {b.input("x", kF32, {2})}, {}, "relu");
  const std::string sig = b.op("Sigmoid", {relu}, {}, "sig");
  b.output(relu, "features");
  b.output(sig);
  const Graph g = b.build();
  const Node* relu_node = g.find_node("relu");
  ASSERT_NE(relu_node, nullptr);
  EXPECT_EQ(relu_node->outputs, std::vector<std::string>{"features"});
  EXPECT_EQ(g.find_node("sig")->inputs, std::vector<std::string>{"features"});
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.outputs[0].name, "features");
  EXPECT_EQ(g.outputs[1].name, "sig");
  EXPECT_EQ(g.producer_of("relu"), nullptr);  // the old name is gone
  EXPECT_EQ(g.nodes.size(), 2u);              // no Identity needed
}

TEST(GraphBuilder, RenamingAValueAlreadyFetchedAddsAnIdentity) {
  GraphBuilder b;
  const std::string relu = b.op("Relu", {b.input("x", kF32, {2})}, {}, "relu");
  b.output(relu);
  b.output(relu, "alias");
  const Graph g = b.build();  // both fetch names stay valid
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.outputs[0].name, "relu");
  EXPECT_EQ(g.outputs[1].name, "alias");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].outputs, std::vector<std::string>{"relu"});
  EXPECT_EQ(g.nodes[1].op_type, "Identity");
  EXPECT_EQ(g.nodes[1].inputs, std::vector<std::string>{"relu"});
  EXPECT_EQ(g.nodes[1].outputs, std::vector<std::string>{"alias"});
}

TEST(GraphBuilder, RenamingAGraphInputOrConstantAddsAnIdentity) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {2});
  const std::string w = b.constant(Tensor(kF32, Shape({3})), "w");
  b.output(x, "copy");
  b.output(w, "weights");
  const Graph g = b.build();
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "copy_identity");
  EXPECT_EQ(g.nodes[0].op_type, "Identity");
  EXPECT_EQ(g.nodes[0].inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(g.nodes[0].outputs, std::vector<std::string>{"copy"});
  EXPECT_EQ(g.nodes[1].outputs, std::vector<std::string>{"weights"});
  EXPECT_EQ(g.outputs[0].name, "copy");
  EXPECT_EQ(g.outputs[1].name, "weights");
}

TEST(GraphBuilder, OutputUnderItsOwnNameChangesNothing) {
  GraphBuilder b;
  const std::string relu = b.op("Relu", {b.input("x", kF32, {2})}, {}, "relu");
  b.output(relu, "relu");
  const Graph g = b.build();
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.outputs[0].name, "relu");
}

TEST(GraphBuilder, BuildVerifies) {
  GraphBuilder b("bad");
  b.output(b.op("Relu", {"nowhere"}, {}, "relu"));
  try {
    b.build();
    FAIL() << "build() accepted an undefined input";
  } catch (const InvalidArgumentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "graph 'bad': node 'relu' (Relu): input 0 'nowhere' is not defined by any node, "
              "graph input or initializer");
  }
}

TEST(GraphBuilder, BuildVerifiesTypes) {
  GraphBuilder b("bad");
  const std::string x = b.input("x", kF32, {2});
  const std::string y = b.input("y", kF32, {3});
  b.output(b.op("Add", {x, y}, {}, "add"));
  EXPECT_THROW(b.build(), InvalidArgumentError);
}

TEST(GraphBuilder, BuildLeavesTheBuilderEmpty) {
  GraphBuilder b("first");
  b.output(b.op("Relu", {b.input("x", kF32, {2})}));
  const Graph g = b.build();
  EXPECT_EQ(g.nodes.size(), 1u);
  try {
    b.build();
    FAIL() << "an empty builder built a graph";
  } catch (const InvalidArgumentError& e) {
    EXPECT_EQ(std::string(e.what()), "graph 'graph': the graph has no outputs");
  }
}

// ---- Graph::to_string ----

Graph SmallGraph() {
  GraphBuilder b("tiny");
  const std::string x = b.input("x", kF32, {"N", 4});
  const std::string w = b.constant(Tensor(kF32, Shape({4, 2})), "w");
  const std::string six = b.constant(Tensor(kF32, Shape()), "six");
  const std::string mm = b.op("MatMul", {x, w}, {}, "mm");
  const std::vector<std::string> halves = b.op_multi(
      "Split", {mm}, 2, {{"axis", int64_t{1}}, {"split", std::vector<int64_t>{1, 1}}}, "sp");
  const std::string clip = b.op("Clip", {halves[0], "", six}, {}, "clip");
  b.output(clip, "y");
  b.output(halves[1]);
  return b.build();
}

TEST(GraphToString, ListsInputsConstantsNodesAndOutputs) {
  EXPECT_EQ(SmallGraph().to_string(),
            "graph tiny\n"
            "  input x: float32[N, 4]\n"
            "  const six: float32[]\n"
            "  const w: float32[4, 2]\n"
            "  mm = MatMul(x, w)  # mm\n"
            "  sp:0, sp:1 = Split(mm) {axis=1, split=[1, 1]}  # sp\n"
            "  y = Clip(sp:0, <absent>, six)  # clip\n"
            "  output y: float32[?]\n"
            "  output sp:1: float32[?]\n");
}

TEST(GraphToString, ShowsInferredOutputTypes) {
  Graph g = SmallGraph();
  graph::InferTypes(g);
  const std::string text = g.to_string();
  EXPECT_NE(text.find("  output y: float32[N, 1]\n  output sp:1: float32[N, 1]\n"),
            std::string::npos)
      << text;
}

TEST(GraphToString, ListsNodesInTopologicalOrder) {
  Graph g;
  g.name = "order";
  g.inputs = {{"x", TensorType{kF32, SymbolicShape{2}}}};
  g.nodes = {Node{"second", "Neg", {"a"}, {"b"}, {{"note", std::string("late")}}},
             Node{"first", "Relu", {"x"}, {"a"}, {{"alpha", 0.5f}}}};
  g.outputs = {{"b", TensorType{kF32, SymbolicShape{2}}}};
  EXPECT_EQ(g.to_string(),
            "graph order\n"
            "  input x: float32[2]\n"
            "  a = Relu(x) {alpha=0.5}  # first\n"
            "  b = Neg(a) {note=\"late\"}  # second\n"
            "  output b: float32[2]\n");
}

}  // namespace
}  // namespace loom
