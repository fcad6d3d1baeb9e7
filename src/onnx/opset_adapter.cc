#include "onnx/opset_adapter.h"

#include <array>

#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

// Moves attribute `name` (ints) of node `index` into input slot 1 as an
// int64 initializer. A node that already has input 1 keeps it (the input
// wins in the kernels too) and the attribute is dropped.
void AttributeToInput1(OpsetAdapter& adapter, size_t index, const std::string& name) {
  Node& node = adapter.node(index);
  auto it = node.attributes.find(name);
  if (it == node.attributes.end()) return;
  if (!std::holds_alternative<std::vector<int64_t>>(it->second)) {
    throw InvalidArgumentError("node '" + node.name + "' (" + node.op_type + "): attribute '" +
                               name + "' must be a list of ints");
  }
  const std::vector<int64_t> values = std::get<std::vector<int64_t>>(it->second);
  node.attributes.erase(it);
  if (node.inputs.size() >= 2 && !node.inputs[1].empty()) return;
  const std::string node_name = node.name;
  const std::string constant = adapter.AddInt64Constant(node_name + "/" + name, values);
  Node& same = adapter.node(index);
  if (same.inputs.size() < 2) same.inputs.resize(2);
  same.inputs[1] = constant;
}

void AxesToInput(OpsetAdapter& adapter, size_t index) { AttributeToInput1(adapter, index, "axes"); }

void SplitToInput(OpsetAdapter& adapter, size_t index) {
  AttributeToInput1(adapter, index, "split");
}

// Opsets 11-17 split into equal parts when no sizes are given, as many as
// the node has outputs; the kernel cannot see its output count, so it is
// told through opset 18's num_outputs.
void SplitCountToAttribute(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  const bool has_input = node.inputs.size() >= 2 && !node.inputs[1].empty();
  if (has_input || node.attributes.count("split") || node.attributes.count("num_outputs")) return;
  node.attributes["num_outputs"] = static_cast<int64_t>(node.outputs.size());
}

void CoerceSoftmaxTo2D(OpsetAdapter& adapter, size_t index) {
  Node& node = adapter.node(index);
  int64_t axis = 1;  // the pre-13 default
  if (auto it = node.attributes.find("axis"); it != node.attributes.end()) {
    if (!std::holds_alternative<int64_t>(it->second)) {
      throw InvalidArgumentError("node '" + node.name + "' (" + node.op_type +
                                 "): attribute 'axis' must be an int");
    }
    axis = std::get<int64_t>(it->second);
  }
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.inputs[0].empty()) {
    return;  // malformed: left for the verifier to report
  }
  const int rank = adapter.DeclaredRank(node.inputs[0]);
  if (axis == -1 || (rank > 0 && axis == rank - 1)) {
    node.attributes["axis"] = int64_t{-1};
    return;
  }
  // y = Reshape(Softmax(Flatten(x, axis), axis=1), Shape(x)); the original
  // node becomes the 2-D Softmax and keeps its name.
  const std::string x = node.inputs[0];
  const std::string y = node.outputs[0];
  const std::string name = node.name;
  const std::string flat = adapter.FreshValueName(y + "/flat2d");
  const std::string normalized = adapter.FreshValueName(y + "/softmax2d");
  const std::string shape = adapter.FreshValueName(y + "/input_shape");
  node.inputs[0] = flat;
  node.outputs[0] = normalized;
  node.attributes["axis"] = int64_t{1};
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/flatten"),
                       "Flatten",
                       {x},
                       {flat},
                       Attributes{{"axis", axis}}});
  adapter.AddNode(Node{adapter.FreshNodeName(name + "/shape"), "Shape", {x}, {shape}, {}});
  adapter.AddNode(
      Node{adapter.FreshNodeName(name + "/reshape"), "Reshape", {normalized, shape}, {y}, {}});
}

constexpr auto kRewrites = std::to_array<OpsetRewrite>({
    {"ReduceSum", 13, AxesToInput},
    {"ReduceMean", 18, AxesToInput},
    {"ReduceMax", 18, AxesToInput},
    {"ReduceMin", 18, AxesToInput},
    {"ReduceProd", 18, AxesToInput},
    {"ReduceL1", 18, AxesToInput},
    {"ReduceL2", 18, AxesToInput},
    {"ReduceLogSumExp", 18, AxesToInput},
    {"ReduceSumSquare", 18, AxesToInput},
    {"Squeeze", 13, AxesToInput},
    {"Unsqueeze", 13, AxesToInput},
    {"Split", 13, SplitToInput},
    {"Split", 18, SplitCountToAttribute},
    {"Softmax", 13, CoerceSoftmaxTo2D},
    {"LogSoftmax", 13, CoerceSoftmaxTo2D},
});

}  // namespace

std::span<const OpsetRewrite> OpsetRewrites() { return kRewrites; }

OpsetAdapter::OpsetAdapter(Graph& graph, const std::map<std::string, int>& declared_ranks)
    : graph_(graph), declared_ranks_(declared_ranks) {
  for (const ValueInfo& v : graph.inputs) values_.insert(v.name);
  for (const ValueInfo& v : graph.outputs) values_.insert(v.name);
  for (const auto& [name, tensor] : graph.initializers) values_.insert(name);
  for (const Node& node : graph.nodes) {
    node_names_.insert(node.name);
    values_.insert(node.inputs.begin(), node.inputs.end());
    values_.insert(node.outputs.begin(), node.outputs.end());
  }
}

void OpsetAdapter::AddNode(Node node) {
  node_names_.insert(node.name);
  graph_.nodes.push_back(std::move(node));
}

std::string OpsetAdapter::FreshValueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; values_.count(name); ++k) name = base + "_" + std::to_string(k);
  values_.insert(name);
  return name;
}

std::string OpsetAdapter::FreshNodeName(const std::string& base) {
  std::string name = base;
  for (int k = 1; node_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  node_names_.insert(name);
  return name;
}

std::string OpsetAdapter::AddInt64Constant(const std::string& base,
                                           const std::vector<int64_t>& values) {
  const std::string name = FreshValueName(base);
  graph_.initializers.emplace(
      name, Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values));
  return name;
}

int OpsetAdapter::DeclaredRank(const std::string& value) const {
  auto it = declared_ranks_.find(value);
  return it == declared_ranks_.end() ? -1 : it->second;
}

void AdaptToLatestOpset(Graph& graph, int opset, const std::map<std::string, int>& declared_ranks) {
  OpsetAdapter adapter(graph, declared_ranks);
  // Only the model's own nodes: nodes a rewrite appends are already in the
  // newest form.
  const size_t count = graph.nodes.size();
  for (size_t i = 0; i < count; ++i) {
    for (const OpsetRewrite& rewrite : kRewrites) {
      if (opset < rewrite.below_opset && graph.nodes[i].op_type == rewrite.op) {
        rewrite.rewrite(adapter, i);
      }
    }
  }
}

}  // namespace loom::onnx_import
