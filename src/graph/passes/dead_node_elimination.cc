// EliminateDeadNodes: bypasses Identity nodes that only rename a value
// inside the graph, then keeps the nodes that graph outputs reach by walking
// producers backwards, and drops the initializers nothing reads any more.
// Graph inputs are never removed: they are the graph's interface, fed or not.
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

// Rewires the consumers of each Identity whose output is not fetched to the
// Identity's input. The Identity becomes dead and goes with the rest.
bool BypassIdentities(Graph& graph) {
  GraphIndex index(graph);
  std::unordered_map<std::string, std::string> alias;  // Identity output -> its input
  for (const Node& node : graph.nodes) {
    if (node.op_type != "Identity" || node.inputs.size() != 1 || node.outputs.size() != 1 ||
        node.inputs[0].empty() || index.is_graph_output(node.outputs[0]) ||
        index.consumers(node.outputs[0]).empty()) {
      continue;
    }
    alias.emplace(node.outputs[0], node.inputs[0]);
  }
  if (alias.empty()) return false;
  // Chains of Identities resolve to the first input; the graph is acyclic, so
  // every chain ends.
  auto resolve = [&alias](std::string value) {
    for (auto it = alias.find(value); it != alias.end(); it = alias.find(value)) {
      value = it->second;
    }
    return value;
  };
  for (Node& node : graph.nodes) {
    for (std::string& input : node.inputs) {
      if (alias.count(input) > 0) input = resolve(input);
    }
  }
  return true;
}

}  // namespace

bool EliminateDeadNodes(Graph& graph) {
  bool changed = BypassIdentities(graph);
  const GraphIndex index(graph);
  std::vector<bool> live(graph.nodes.size(), false);
  std::vector<std::string> pending;
  for (const ValueInfo& output : graph.outputs) pending.push_back(output.name);
  while (!pending.empty()) {
    const std::string value = std::move(pending.back());
    pending.pop_back();
    const std::optional<size_t> producer = index.producer(value);
    if (!producer || live[*producer]) continue;
    live[*producer] = true;
    for (const std::string& input : graph.nodes[*producer].inputs) {
      if (!input.empty()) pending.push_back(input);
    }
  }
  std::vector<bool> dead(live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    dead[i] = !live[i];
    changed = changed || dead[i];
  }
  EraseNodes(graph, dead);
  std::vector<std::string> initializers;
  for (const auto& [name, tensor] : graph.initializers) initializers.push_back(name);
  const size_t before = graph.initializers.size();
  RemoveUnusedInitializers(graph, initializers);
  changed = changed || graph.initializers.size() != before;
  if (changed) DropStaleValueTypes(graph);
  return changed;
}

}  // namespace loom::graph
