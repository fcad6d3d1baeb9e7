// verify_graph: structural checks first (cheap, and every later step relies
// on them), then unknown ops (all at once, so a user porting a model sees the
// whole list), then type inference for dtype and shape mismatches.
#include "graph/verifier.h"

#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "graph/topological_order.h"
#include "graph/type_inference.h"
#include "kernels/registry.h"
#include "loom/errors.h"
#include "loom/graph.h"

namespace loom {
namespace {

[[noreturn]] void Fail(const Graph& graph, const std::string& detail) {
  throw InvalidArgumentError("graph '" + graph.name + "': " + detail);
}

std::string NodeLabel(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + ")";
}

void CheckNamesAndDefinitions(const Graph& graph) {
  // Where each value is defined, for "defined twice" messages.
  std::unordered_map<std::string, std::string> definer;
  auto define = [&](const std::string& value, const std::string& by) {
    if (value.empty()) Fail(graph, by + " defines a value with an empty name");
    auto [it, inserted] = definer.emplace(value, by);
    if (!inserted)
      Fail(graph, "value '" + value + "' is defined twice: by " + it->second + " and by " + by);
  };
  for (const ValueInfo& input : graph.inputs) define(input.name, "graph input");
  for (const auto& [name, tensor] : graph.initializers) {
    // ONNX lets an initializer give a graph input its default value.
    if (definer.count(name) == 0) define(name, "initializer");
  }
  std::set<std::string> node_names;
  for (const Node& node : graph.nodes) {
    if (node.name.empty()) Fail(graph, "a " + node.op_type + " node has no name");
    if (node.op_type.empty()) Fail(graph, "node '" + node.name + "' has no op type");
    if (!node_names.insert(node.name).second) {
      Fail(graph, "two nodes are named '" + node.name + "'");
    }
    if (node.outputs.empty()) Fail(graph, NodeLabel(node) + " has no outputs");
    if (node.implicit_inputs < 0 ||
        static_cast<size_t>(node.implicit_inputs) > node.inputs.size()) {
      Fail(graph, NodeLabel(node) + " has " + std::to_string(node.implicit_inputs) +
                      " implicit inputs but " + std::to_string(node.inputs.size()) + " inputs");
    }
    for (const std::string& output : node.outputs) define(output, NodeLabel(node));
  }
  for (const Node& node : graph.nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& input = node.inputs[i];
      if (!input.empty() && definer.count(input) == 0) {
        Fail(graph, NodeLabel(node) + ": input " + std::to_string(i) + " '" + input +
                        "' is not defined by any node, graph input or initializer");
      }
    }
  }
  if (graph.outputs.empty()) Fail(graph, "the graph has no outputs");
  std::set<std::string> output_names;
  for (const ValueInfo& output : graph.outputs) {
    if (definer.count(output.name) == 0) {
      Fail(graph,
           "graph output '" + output.name + "' is not defined by any node, input or initializer");
    }
    if (!output_names.insert(output.name).second) {
      Fail(graph, "graph output '" + output.name + "' is listed twice");
    }
  }
}

void CheckOpsAreKnown(const Graph& graph) {
  std::map<std::string, std::vector<std::string>> unknown;  // op -> nodes
  for (const Node& node : graph.nodes) {
    if (kernels::FindKernel(node.op_type) == nullptr) unknown[node.op_type].push_back(node.name);
  }
  if (unknown.empty()) return;
  std::string message = std::to_string(unknown.size()) + " unsupported op type" +
                        (unknown.size() == 1 ? "" : "s") + ":";
  for (const auto& [op, nodes] : unknown) {
    message += "\n  " + op + " (node" + (nodes.size() == 1 ? " " : "s ");
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i == 8) {
        message += ", ... " + std::to_string(nodes.size() - i) + " more";
        break;
      }
      message += (i ? ", '" : "'") + nodes[i] + "'";
    }
    message += ")";
  }
  Fail(graph, message);
}

}  // namespace

namespace graph {

std::vector<size_t> VerifyStructure(const Graph& graph) {
  CheckNamesAndDefinitions(graph);
  TopologicalOrder order = SortTopologically(graph);
  if (!order.unsorted.empty()) {
    // The first unsorted node downstream of a cycle may not lie on it; walk
    // producers among the unsorted nodes until one repeats.
    std::unordered_map<std::string, size_t> producer;
    std::set<size_t> unsorted(order.unsorted.begin(), order.unsorted.end());
    for (size_t i : order.unsorted) {
      for (const std::string& out : graph.nodes[i].outputs) producer.emplace(out, i);
    }
    size_t current = order.unsorted.front();
    std::set<size_t> seen;
    while (seen.insert(current).second) {
      for (const std::string& input : graph.nodes[current].inputs) {
        auto it = producer.find(input);
        if (it != producer.end()) {
          current = it->second;
          break;
        }
      }
    }
    Fail(graph, "the graph has a cycle through " + NodeLabel(graph.nodes[current]));
  }
  CheckOpsAreKnown(graph);
  return std::move(order.order);
}

}  // namespace graph

std::vector<size_t> verify_graph(const Graph& graph) {
  std::vector<size_t> order = graph::VerifyStructure(graph);
  Graph typed = graph;  // tensors and subgraphs are shared handles: this copies no data
  graph::InferTypes(typed);
  return order;
}

}  // namespace loom
