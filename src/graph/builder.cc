#include <utility>

#include "loom/errors.h"
#include "loom/graph.h"

namespace loom {

GraphBuilder::GraphBuilder(std::string graph_name) { graph_.name = std::move(graph_name); }

std::string GraphBuilder::FreshNodeName(const std::string& op_type) {
  return op_type + "_" + std::to_string(next_id_++);
}

std::string GraphBuilder::input(std::string name, DType dtype, SymbolicShape shape) {
  graph_.inputs.push_back({name, TensorType{dtype, std::move(shape)}});
  return name;
}

std::string GraphBuilder::constant(Tensor value, std::string name) {
  if (name.empty()) name = "const_" + std::to_string(next_id_++);
  graph_.initializers[name] = std::move(value);
  return name;
}

std::string GraphBuilder::op(const std::string& op_type, std::vector<std::string> inputs,
                             Attributes attributes, std::string name) {
  if (name.empty()) name = FreshNodeName(op_type);
  graph_.nodes.push_back(Node{name, op_type, std::move(inputs), {name}, std::move(attributes)});
  return name;
}

std::vector<std::string> GraphBuilder::op_multi(const std::string& op_type,
                                                std::vector<std::string> inputs, int num_outputs,
                                                Attributes attributes, std::string name) {
  if (name.empty()) name = FreshNodeName(op_type);
  std::vector<std::string> outputs;
  for (int i = 0; i < num_outputs; ++i) outputs.push_back(name + ":" + std::to_string(i));
  graph_.nodes.push_back(Node{name, op_type, std::move(inputs), outputs, std::move(attributes)});
  return outputs;
}

void GraphBuilder::output(const std::string& value, std::string name) {
  if (name.empty() || name == value) {
    graph_.outputs.push_back({value, {}});
    return;
  }
  Node* producer = nullptr;
  for (Node& node : graph_.nodes) {
    for (std::string& output : node.outputs) {
      if (output == value) producer = &node;
    }
  }
  bool already_output = false;
  for (const ValueInfo& existing : graph_.outputs) already_output |= existing.name == value;
  if (producer == nullptr || already_output) {
    // A graph input or constant cannot be renamed in place, nor a value
    // already fetched under its own name (that output would disappear).
    op("Identity", {value}, {}, name + "_identity");
    graph_.nodes.back().outputs = {name};
  } else {
    for (Node& node : graph_.nodes) {
      for (std::string& output : node.outputs) {
        if (output == value) output = name;
      }
      for (std::string& input : node.inputs) {
        if (input == value) input = name;
      }
    }
  }
  graph_.outputs.push_back({name, {}});
}

Graph GraphBuilder::build() {
  Graph graph = std::move(graph_);
  graph_ = Graph{};
  verify_graph(graph);
  return graph;
}

}  // namespace loom
