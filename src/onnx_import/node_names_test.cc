#include "onnx_import/node_names.h"

#include <gtest/gtest.h>

namespace loom::onnx_import {
namespace {

onnx::GraphProto Nodes(const std::vector<std::pair<std::string, std::string>>& op_and_name) {
  onnx::GraphProto graph;
  for (const auto& [op, name] : op_and_name) {
    onnx::NodeProto* node = graph.add_node();
    node->set_op_type(op);
    if (!name.empty()) node->set_name(name);
  }
  return graph;
}

TEST(NodeNames, GivenUniqueNamesAreKept) {
  EXPECT_EQ(UniqueNodeNames(Nodes({{"Relu", "a"}, {"Add", "b"}})),
            (std::vector<std::string>{"a", "b"}));
}

TEST(NodeNames, EmptyNamesGetOpAndIndex) {
  EXPECT_EQ(UniqueNodeNames(Nodes({{"Relu", ""}, {"Add", ""}, {"", ""}})),
            (std::vector<std::string>{"Relu_0", "Add_1", "node_2"}));
}

TEST(NodeNames, DuplicatesKeepTheFirstAndRenameTheRest) {
  EXPECT_EQ(UniqueNodeNames(Nodes({{"Relu", "x"}, {"Relu", "x"}, {"Add", "x"}})),
            (std::vector<std::string>{"x", "Relu_1", "Add_2"}));
}

TEST(NodeNames, GeneratedNamesAvoidNamesGivenLater) {
  // Node 0 would become "Relu_0", which node 1 carries itself.
  EXPECT_EQ(UniqueNodeNames(Nodes({{"Relu", ""}, {"Add", "Relu_0"}, {"Relu", "Relu_0"}})),
            (std::vector<std::string>{"Relu_0_1", "Relu_0", "Relu_2"}));
}

}  // namespace
}  // namespace loom::onnx_import
