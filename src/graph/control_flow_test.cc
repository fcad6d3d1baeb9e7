// Type inference of If, Loop and Scan on graphs built in code: the expected
// types follow from the ONNX definitions, worked out by hand.
#include "graph/control_flow.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::kBool;
using testing::kF32;
using testing::kI64;
using testing::Render;

ValueInfo Info(std::string name, DType dtype, std::optional<SymbolicShape> shape) {
  return {std::move(name), TensorType{dtype, std::move(shape)}};
}

// A subgraph whose inputs are `inputs` (types are placeholders: the node
// gives them) and whose one node is `op` over them.
GraphAttribute OneOp(const std::vector<std::string>& inputs, const std::string& op,
                     const std::vector<std::string>& op_inputs,
                     const std::vector<std::string>& outputs, Attributes attrs = {}) {
  auto graph = std::make_shared<Graph>();
  graph->name = "sub";
  for (const std::string& input : inputs) graph->inputs.push_back(Info(input, kF32, {}));
  graph->nodes.push_back(Node{op + "_0", op, op_inputs, {outputs.back()}, std::move(attrs)});
  for (const std::string& output : outputs) {
    graph->outputs.push_back(Info(output, kF32, std::nullopt));
  }
  return graph;
}

TEST(ControlFlowTypes, IfMergesBranchShapesAndTypesItsBranches) {
  Graph g;
  g.inputs = {Info("c", kBool, SymbolicShape{}), Info("a", kF32, SymbolicShape{2, 3}),
              Info("b", kF32, SymbolicShape{2, 4})};
  Node node{"if", "If", {"c", "a", "b"}, {"z"}, {}};
  node.implicit_inputs = 2;
  node.attributes["then_branch"] = OneOp({"a", "b"}, "Relu", {"a"}, {"t"});
  node.attributes["else_branch"] = OneOp({"a", "b"}, "Relu", {"b"}, {"e"});
  g.nodes = {node};
  g.outputs = {Info("z", kF32, std::nullopt)};
  InferTypes(g);
  EXPECT_EQ(Render(g.outputs[0].type), "float32[2, ?]");
  // The branches were typed for the node's inputs and written back.
  const GraphAttribute then_branch = g.nodes[0].attributes.get_graph("then_branch");
  EXPECT_EQ(Render(then_branch->inputs[1].type), "float32[2, 4]");
  EXPECT_EQ(Render(then_branch->outputs[0].type), "float32[2, 3]");
}

TEST(ControlFlowTypes, IfConditionMustBeBool) {
  Graph g;
  g.inputs = {Info("c", kF32, SymbolicShape{}), Info("a", kF32, SymbolicShape{2})};
  Node node{"if", "If", {"c", "a"}, {"z"}, {}};
  node.implicit_inputs = 1;
  node.attributes["then_branch"] = OneOp({"a"}, "Relu", {"a"}, {"t"});
  node.attributes["else_branch"] = OneOp({"a"}, "Relu", {"a"}, {"e"});
  g.nodes = {node};
  g.outputs = {Info("z", kF32, std::nullopt)};
  try {
    InferTypes(g);
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'if' (If): cond must be bool"), std::string::npos)
        << e.what();
  }
}

// Loop(M, "", s) whose body is s' = Concat(s, s): the carried value's
// length changes, so it becomes unknown; scan output s' stacked.
TEST(ControlFlowTypes, LoopCarriedShapeThatChangesBecomesUnknown) {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {Info("i", kI64, {}), Info("cond", kBool, {}), Info("s", kF32, {})};
  body->nodes = {Node{"cat", "Concat", {"s", "s"}, {"s2"}, {{"axis", int64_t{0}}}},
                 Node{"keep", "Identity", {"cond"}, {"cond2"}, {}},
                 Node{"copy", "Identity", {"s2"}, {"scan"}, {}}};
  body->outputs = {Info("cond2", kBool, std::nullopt), Info("s2", kF32, std::nullopt),
                   Info("scan", kF32, std::nullopt)};
  Graph g;
  g.inputs = {Info("M", kI64, SymbolicShape{}), Info("s0", kF32, SymbolicShape{3})};
  Node node{
      "loop", "Loop", {"M", "", "s0"}, {"s_final", "scans"}, {{"body", GraphAttribute(body)}}};
  g.nodes = {node};
  g.outputs = {Info("s_final", kF32, std::nullopt), Info("scans", kF32, std::nullopt)};
  InferTypes(g);
  EXPECT_EQ(Render(g.outputs[0].type), "float32[?]");
  EXPECT_EQ(Render(g.outputs[1].type), "float32[?, ?]");
}

TEST(ControlFlowTypes, LoopKeepsAStableCarriedShape) {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {Info("i", kI64, {}), Info("cond", kBool, {}), Info("s", kF32, {})};
  body->nodes = {Node{"neg", "Neg", {"s"}, {"s2"}, {}},
                 Node{"keep", "Identity", {"cond"}, {"cond2"}, {}}};
  body->outputs = {Info("cond2", kBool, std::nullopt), Info("s2", kF32, std::nullopt),
                   Info("s", kF32, std::nullopt)};
  Graph g;
  g.inputs = {Info("M", kI64, SymbolicShape{}), Info("s0", kF32, SymbolicShape{2, 5})};
  g.nodes = {Node{
      "loop", "Loop", {"M", "", "s0"}, {"s_final", "scans"}, {{"body", GraphAttribute(body)}}}};
  g.outputs = {Info("s_final", kF32, std::nullopt), Info("scans", kF32, std::nullopt)};
  InferTypes(g);
  EXPECT_EQ(Render(g.outputs[0].type), "float32[2, 5]");
  EXPECT_EQ(Render(g.outputs[1].type), "float32[?, 2, 5]");
}

TEST(ControlFlowTypes, ScanSlicesInputsAndStacksOutputs) {
  // States acc [4]; scan input X [4, 7] along axis 1 (slices [4]); scan
  // output along axis 1: [4, 7].
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {Info("acc", kF32, {}), Info("x", kF32, {})};
  body->nodes = {Node{"add", "Add", {"acc", "x"}, {"acc2"}, {}},
                 Node{"copy", "Identity", {"acc2"}, {"step"}, {}}};
  body->outputs = {Info("acc2", kF32, std::nullopt), Info("step", kF32, std::nullopt)};
  Graph g;
  g.inputs = {Info("acc0", kF32, SymbolicShape{4}), Info("X", kF32, SymbolicShape{4, 7})};
  g.nodes = {Node{"scan",
                  "Scan",
                  {"acc0", "X"},
                  {"acc_final", "steps"},
                  {{"body", GraphAttribute(body)},
                   {"num_scan_inputs", int64_t{1}},
                   {"scan_input_axes", std::vector<int64_t>{1}},
                   {"scan_output_axes", std::vector<int64_t>{-1}}}}};
  g.outputs = {Info("acc_final", kF32, std::nullopt), Info("steps", kF32, std::nullopt)};
  InferTypes(g);
  EXPECT_EQ(Render(g.outputs[0].type), "float32[4]");
  EXPECT_EQ(Render(g.outputs[1].type), "float32[4, 7]");
  const GraphAttribute typed = g.nodes[0].attributes.get_graph("body");
  EXPECT_EQ(Render(typed->inputs[1].type), "float32[4]");
}

TEST(ControlFlowTypes, ScanLengthsThatDifferAreRefused) {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {Info("x", kF32, {}), Info("y", kF32, {})};
  body->nodes = {Node{"add", "Add", {"x", "y"}, {"z"}, {}}};
  body->outputs = {Info("z", kF32, std::nullopt)};
  Graph g;
  g.inputs = {Info("X", kF32, SymbolicShape{3, 2}), Info("Y", kF32, SymbolicShape{4, 2})};
  g.nodes = {Node{"scan",
                  "Scan",
                  {"X", "Y"},
                  {"zs"},
                  {{"body", GraphAttribute(body)}, {"num_scan_inputs", int64_t{2}}}}};
  g.outputs = {Info("zs", kF32, std::nullopt)};
  EXPECT_THROW(InferTypes(g), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::graph
