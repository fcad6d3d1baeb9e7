#include "runtime/execution_plan.h"

#include <algorithm>

#include "graph/topological_order.h"
#include "loom/errors.h"
#include "runtime/sequence_kernels.h"

namespace loom::runtime {

ExecutionPlan::ExecutionPlan(const Graph& graph, kernels::Isa isa) : isa_(isa) {
  auto add_slot = [this](const std::string& name) {
    auto [it, inserted] = slot_of_.emplace(name, static_cast<int>(slot_names_.size()));
    if (inserted) {
      slot_names_.push_back(name);
      constants_.emplace_back();
      producers_.push_back(-1);
      reads_.push_back(0);
    }
    return it->second;
  };
  for (const ValueInfo& input : graph.inputs) input_slots_.push_back(add_slot(input.name));
  for (const auto& [name, tensor] : graph.initializers) {
    const int slot = add_slot(name);
    // An initializer that is also a graph input is only a default, which a
    // feed replaces: it is not a constant for the kernels to bake in.
    if (std::find(input_slots_.begin(), input_slots_.end(), slot) == input_slots_.end()) {
      constants_[slot] = tensor;
    }
  }

  const TopologicalOrder order = SortTopologically(graph);
  nodes_ = std::vector<PlanNode>(order.order.size());
  // Slots first, kernels second: constants_ must stop growing before
  // pointers into it are handed to the kernels being prepared.
  for (size_t position = 0; position < order.order.size(); ++position) {
    const Node& node = graph.nodes[order.order[position]];
    PlanNode& planned = nodes_[position];
    planned.name = node.name;
    planned.op_type = node.op_type;
    for (const std::string& input : node.inputs) {
      const int slot = input.empty() ? -1 : add_slot(input);
      planned.inputs.push_back(slot);
      if (slot >= 0) ++reads_[slot];
    }
    for (const std::string& output : node.outputs) {
      const int slot = add_slot(output);
      producers_[slot] = static_cast<int>(position);
      planned.outputs.push_back(slot);
    }
  }
  for (const ValueInfo& output : graph.outputs) output_slots_.push_back(add_slot(output.name));
  // Identity is a registry (tensor) kernel; one that passes a sequence or
  // an optional on gets the runtime layer's value kernel.
  const auto holds_tensor = [&graph](const std::string& value) {
    for (const ValueInfo& input : graph.inputs) {
      if (input.name == value) return input.type.is_tensor();
    }
    auto it = graph.value_types.find(value);
    return it == graph.value_types.end() || it->second.is_tensor();
  };
  for (size_t position = 0; position < order.order.size(); ++position) {
    const Node& node = graph.nodes[order.order[position]];
    PlanNode& planned = nodes_[position];
    std::vector<const Tensor*> constant_inputs;
    for (int slot : planned.inputs) constant_inputs.push_back(slot < 0 ? nullptr : constant(slot));
    try {
      const bool passes_value =
          node.op_type == "Identity" && !node.inputs.empty() && !holds_tensor(node.inputs[0]);
      planned.kernel =
          passes_value ? MakeSequenceKernel(node, isa) : MakeNodeKernel(node, constant_inputs, isa);
    } catch (const InvalidArgumentError& error) {
      throw InvalidArgumentError("graph '" + graph.name + "': node '" + node.name + "' (" +
                                 node.op_type + "): " + error.what());
    }
  }
  // Producers come before consumers in `nodes_`, so every producer index is
  // known once all nodes are placed.
  for (size_t position = 0; position < nodes_.size(); ++position) {
    PlanNode& planned = nodes_[position];
    std::vector<int> producer_nodes;
    for (int slot : planned.inputs) {
      if (slot >= 0 && producers_[slot] >= 0) producer_nodes.push_back(producers_[slot]);
    }
    std::sort(producer_nodes.begin(), producer_nodes.end());
    producer_nodes.erase(std::unique(producer_nodes.begin(), producer_nodes.end()),
                         producer_nodes.end());
    planned.num_producers = static_cast<int>(producer_nodes.size());
    for (int producer_node : producer_nodes) {
      nodes_[producer_node].successors.push_back(static_cast<int>(position));
    }
  }
}

int ExecutionPlan::FindSlot(const std::string& value) const {
  auto it = slot_of_.find(value);
  return it == slot_of_.end() ? -1 : it->second;
}

}  // namespace loom::runtime
