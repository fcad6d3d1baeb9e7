#include "graph/passes/graph_edit.h"

#include <algorithm>

namespace loom::graph {

GraphIndex::GraphIndex(const Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& output : graph.nodes[i].outputs) {
      if (!output.empty()) producer_.emplace(output, i);
    }
    for (const std::string& input : graph.nodes[i].inputs) {
      if (!input.empty()) consumers_[input].push_back(i);
    }
  }
  for (const ValueInfo& output : graph.outputs) graph_outputs_.insert(output.name);
}

std::optional<size_t> GraphIndex::producer(const std::string& value) const {
  auto it = producer_.find(value);
  if (it == producer_.end()) return std::nullopt;
  return it->second;
}

const std::vector<size_t>& GraphIndex::consumers(const std::string& value) const {
  static const std::vector<size_t> kNone;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNone : it->second;
}

bool GraphIndex::has_single_private_use(const std::string& value) const {
  return consumers(value).size() == 1 && !is_graph_output(value);
}

const Tensor* FindConstant(const Graph& graph, const std::string& value) {
  if (value.empty()) return nullptr;
  auto it = graph.initializers.find(value);
  if (it == graph.initializers.end()) return nullptr;
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == value) return nullptr;
  }
  return &it->second;
}

std::string NodeLabel(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + ")";
}

NameGenerator::NameGenerator(const Graph& graph) {
  for (const ValueInfo& input : graph.inputs) taken_.insert(input.name);
  for (const ValueInfo& output : graph.outputs) taken_.insert(output.name);
  for (const auto& [name, tensor] : graph.initializers) taken_.insert(name);
  for (const Node& node : graph.nodes) {
    taken_.insert(node.name);
    for (const std::string& output : node.outputs) taken_.insert(output);
  }
}

std::string NameGenerator::Fresh(const std::string& base) {
  std::string name = base;
  for (int suffix = 1; taken_.count(name) > 0; ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  taken_.insert(name);
  return name;
}

void EraseNodes(Graph& graph, const std::vector<bool>& erase) {
  size_t kept = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (erase[i]) continue;
    if (kept != i) graph.nodes[kept] = std::move(graph.nodes[i]);
    ++kept;
  }
  graph.nodes.resize(kept);
}

void RemoveUnusedInitializers(Graph& graph, const std::vector<std::string>& candidates) {
  std::set<std::string> used;
  for (const Node& node : graph.nodes) used.insert(node.inputs.begin(), node.inputs.end());
  for (const ValueInfo& input : graph.inputs) used.insert(input.name);
  for (const ValueInfo& output : graph.outputs) used.insert(output.name);
  for (const std::string& name : candidates) {
    if (used.count(name) == 0) graph.initializers.erase(name);
  }
}

void DropStaleValueTypes(Graph& graph) {
  std::set<std::string> produced;
  for (const Node& node : graph.nodes) produced.insert(node.outputs.begin(), node.outputs.end());
  std::erase_if(graph.value_types,
                [&produced](const auto& entry) { return produced.count(entry.first) == 0; });
}

}  // namespace loom::graph
