// ExecutionPlan: a verified graph compiled into what the executor needs at
// run time — integer slots instead of value names, each node's prepared
// kernel, its successors and how many producers it waits for, and how many
// times each value is read (so its buffer can go after the last read).
//
// Immutable after construction except the per-node cost estimates, which
// runs update (atomics; a stale read only changes a scheduling choice).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/isa.h"
#include "loom/graph.h"
#include "runtime/node_kernel.h"

namespace loom::runtime {

struct PlanNode {
  std::string name;
  std::string op_type;
  std::unique_ptr<NodeKernel> kernel;
  std::vector<int> inputs;      // slot per ONNX input; -1 = absent
  std::vector<int> outputs;     // slot per output
  std::vector<int> successors;  // nodes reading an output, each once
  int num_producers = 0;        // distinct nodes among the inputs' producers
  // Moving average of this node's run time in ns; negative until measured.
  // Relaxed: it is a hint, read and written without ordering.
  mutable std::atomic<int64_t> average_ns{-1};
};

class ExecutionPlan {
 public:
  // `graph` must be verified. Throws InvalidArgumentError naming the node
  // when a kernel cannot be prepared.
  ExecutionPlan(const Graph& graph, kernels::Isa isa);

  const std::vector<PlanNode>& nodes() const { return nodes_; }
  int num_slots() const { return static_cast<int>(slot_names_.size()); }
  const std::string& slot_name(int slot) const { return slot_names_[slot]; }
  // The slot of a value name, or -1.
  int FindSlot(const std::string& value) const;
  // The initializer in `slot`, or null.
  const Tensor* constant(int slot) const {
    return constants_[slot].has_value() ? &*constants_[slot] : nullptr;
  }
  // The node producing `slot`, or -1 (graph inputs, initializers).
  int producer(int slot) const { return producers_[slot]; }
  // How many node inputs read `slot` (a node reading it twice counts twice).
  int num_reads(int slot) const { return reads_[slot]; }
  // Graph input slots, in graph order, with their declared types.
  const std::vector<int>& input_slots() const { return input_slots_; }
  const std::vector<int>& output_slots() const { return output_slots_; }
  kernels::Isa isa() const { return isa_; }

 private:
  std::vector<PlanNode> nodes_;  // in a topological order
  std::vector<std::string> slot_names_;
  std::map<std::string, int> slot_of_;
  std::vector<std::optional<Tensor>> constants_;
  std::vector<int> producers_;
  std::vector<int> reads_;
  std::vector<int> input_slots_;
  std::vector<int> output_slots_;
  kernels::Isa isa_;
};

}  // namespace loom::runtime
