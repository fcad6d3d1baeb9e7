// verify_graph: each structural error, the unknown-op list, type errors,
// and the topological order it returns.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loom/errors.h"
#include "loom/graph.h"

namespace loom {
namespace {

constexpr DType kF32 = DType::kFloat32;

TensorType F32(SymbolicShape shape) { return TensorType{kF32, std::move(shape)}; }

// x: float32[2] -> Relu "r" -> output "y".
Graph Valid() {
  Graph g;
  g.name = "g";
  g.inputs = {{"x", F32({2})}};
  g.nodes = {Node{"r", "Relu", {"x"}, {"y"}, {}}};
  g.outputs = {{"y", {}}};
  return g;
}

std::string VerifyErrorOf(const Graph& g) {
  try {
    verify_graph(g);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

TEST(VerifyGraph, AcceptsAValidGraph) {
  EXPECT_EQ(VerifyErrorOf(Valid()), "no error");
  EXPECT_EQ(verify_graph(Valid()), std::vector<size_t>{0});
}

TEST(VerifyGraph, EmptyNamesThrow) {
  Graph g = Valid();
  g.inputs.push_back({"", F32({1})});
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': graph input defines a value with an empty name");

  g = Valid();
  g.nodes[0].name = "";
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': a Relu node has no name");

  g = Valid();
  g.nodes[0].op_type = "";
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': node 'r' has no op type");

  g = Valid();
  g.nodes[0].outputs = {""};
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': node 'r' (Relu) defines a value with an empty name");
}

TEST(VerifyGraph, NodeWithoutOutputsThrows) {
  Graph g = Valid();
  g.nodes.push_back(Node{"sink", "Relu", {"x"}, {}, {}});
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': node 'sink' (Relu) has no outputs");
}

TEST(VerifyGraph, DuplicateNodeNamesThrow) {
  Graph g = Valid();
  g.nodes.push_back(Node{"r", "Neg", {"x"}, {"z"}, {}});
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': two nodes are named 'r'");
}

TEST(VerifyGraph, ValueDefinedTwiceThrows) {
  Graph g = Valid();
  g.nodes.push_back(Node{"again", "Neg", {"x"}, {"y"}, {}});
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': value 'y' is defined twice: by node 'r' (Relu) and by node 'again' (Neg)");

  g = Valid();
  g.nodes[0].outputs = {"x"};
  g.outputs = {{"x", {}}};
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': value 'x' is defined twice: by graph input and by node 'r' (Relu)");

  g = Valid();
  g.initializers["y"] = Tensor(kF32, Shape({2}));
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': value 'y' is defined twice: by initializer and by node 'r' (Relu)");
}

TEST(VerifyGraph, InitializerMayGiveAGraphInputItsDefault) {
  Graph g = Valid();
  g.initializers["x"] = Tensor(kF32, Shape({2}));
  EXPECT_EQ(VerifyErrorOf(g), "no error");
}

TEST(VerifyGraph, UndefinedInputThrows) {
  Graph g = Valid();
  g.nodes.push_back(Node{"add", "Add", {"y", "ghost"}, {"z"}, {}});
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': node 'add' (Add): input 1 'ghost' is not defined by any node, graph input "
            "or initializer");
}

TEST(VerifyGraph, AbsentOptionalInputIsFine) {
  Graph g = Valid();
  g.nodes.push_back(Node{"clip", "Clip", {"y", ""}, {"z"}, {}});
  g.outputs = {{"z", {}}};
  EXPECT_EQ(VerifyErrorOf(g), "no error");
}

TEST(VerifyGraph, GraphOutputProblemsThrow) {
  Graph g = Valid();
  g.outputs.clear();
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': the graph has no outputs");

  g = Valid();
  g.outputs.push_back({"missing", {}});
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': graph output 'missing' is not defined by any node, input or initializer");

  g = Valid();
  g.outputs.push_back({"y", {}});
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': graph output 'y' is listed twice");
}

TEST(VerifyGraph, CycleNamesANodeOnTheCycle) {
  // "down" only consumes the cycle; "a" and "b" form it. "down" comes first
  // in node order, so a message naming the first unsorted node would be wrong.
  Graph g;
  g.name = "g";
  g.inputs = {{"x", F32({2})}};
  g.nodes = {Node{"down", "Relu", {"a_out"}, {"d_out"}, {}},
             Node{"a", "Add", {"x", "b_out"}, {"a_out"}, {}},
             Node{"b", "Relu", {"a_out"}, {"b_out"}, {}}};
  g.outputs = {{"d_out", {}}};
  const std::string message = VerifyErrorOf(g);
  EXPECT_EQ(message.rfind("graph 'g': the graph has a cycle through node '", 0), 0u) << message;
  const bool names_cycle_node = message.find("node 'a' (Add)") != std::string::npos ||
                                message.find("node 'b' (Relu)") != std::string::npos;
  EXPECT_TRUE(names_cycle_node) << message;
  EXPECT_EQ(message.find("'down'"), std::string::npos) << message;
}

TEST(VerifyGraph, SelfLoopIsACycle) {
  Graph g = Valid();
  g.nodes.push_back(Node{"loop", "Add", {"x", "l"}, {"l"}, {}});
  EXPECT_EQ(VerifyErrorOf(g), "graph 'g': the graph has a cycle through node 'loop' (Add)");
}

TEST(VerifyGraph, ListsEveryUnknownOpWithItsNodes) {
  Graph g = Valid();
  g.nodes.push_back(Node{"f1", "Frobnicate", {"x"}, {"f1_out"}, {}});
  g.nodes.push_back(Node{"b1", "Bar", {"x"}, {"b1_out"}, {}});
  g.nodes.push_back(Node{"f2", "Frobnicate", {"f1_out"}, {"f2_out"}, {}});
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': 2 unsupported op types:\n"
            "  Bar (node 'b1')\n"
            "  Frobnicate (nodes 'f1', 'f2')");
}

TEST(VerifyGraph, LongUnknownOpListsAreCut) {
  Graph g = Valid();
  std::string previous = "x";
  for (int i = 0; i < 10; ++i) {
    const std::string name = "n" + std::to_string(i);
    g.nodes.push_back(Node{name, "Mystery", {previous}, {name + "_out"}, {}});
    previous = name + "_out";
  }
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': 1 unsupported op type:\n"
            "  Mystery (nodes 'n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', ... 2 more)");
}

TEST(VerifyGraph, TypeErrorsComeFromInference) {
  Graph g = Valid();
  g.inputs.push_back({"w", TensorType{DType::kInt64, SymbolicShape{2}}});
  g.nodes.push_back(Node{"add", "Add", {"y", "w"}, {"z"}, {}});
  EXPECT_EQ(VerifyErrorOf(g),
            "graph 'g': node 'add' (Add): inputs 'y' float32[2] and 'w' int64[2] must have the "
            "same dtype");
}

TEST(VerifyGraph, DoesNotModifyTheGraph) {
  const Graph g = Valid();
  verify_graph(g);
  EXPECT_TRUE(g.value_types.empty());
  EXPECT_EQ(g.outputs[0].type, TensorType{});
}

TEST(VerifyGraph, ReturnsATopologicalOrderWithTiesInNodeOrder) {
  Graph g;
  g.name = "g";
  g.inputs = {{"x", F32({2})}};
  // Listed consumers first. Dependencies: c <- b <- a; d and e need only x.
  g.nodes = {Node{"c", "Neg", {"b_out"}, {"c_out"}, {}}, Node{"d", "Relu", {"x"}, {"d_out"}, {}},
             Node{"b", "Neg", {"a_out"}, {"b_out"}, {}}, Node{"a", "Relu", {"x"}, {"a_out"}, {}},
             Node{"e", "Relu", {"x"}, {"e_out"}, {}}};
  g.outputs = {{"c_out", {}}, {"d_out", {}}, {"e_out", {}}};
  // Ready at first: d (1), a (3), e (4), lowest index first: d, then a,
  // which releases b (2); b (lower than e) releases c (0); c; then e.
  EXPECT_EQ(verify_graph(g), (std::vector<size_t>{1, 3, 2, 0, 4}));
}

}  // namespace
}  // namespace loom
