#include "runtime/subgraph_runner.h"

#include <exception>
#include <new>

#include "loom/errors.h"

namespace loom::runtime {
namespace {

std::string Prefix(const std::string& where, const PlanNode& node) {
  return where + ": node '" + node.name + "' (" + node.op_type + "): ";
}

}  // namespace

void RunPlanNode(const ExecutionPlan& plan, const PlanNode& node, std::vector<Value>& slots,
                 threading::ThreadPool* pool, const RunControl& control) {
  const kernels::KernelContext ctx{pool, plan.isa(), static_cast<int>(node.outputs.size())};
  const auto check_count = [&](size_t produced) {
    if (produced < node.outputs.size()) {
      throw RuntimeError("the kernel produced " + std::to_string(produced) +
                         " outputs, the graph expects " + std::to_string(node.outputs.size()));
    }
  };
  if (node.kernel->takes_values()) {
    // Constants are tensors of the plan; a value kernel sees them as values.
    std::vector<Value> constants(node.inputs.size());
    std::vector<const Value*> inputs(node.inputs.size(), nullptr);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int slot = node.inputs[i];
      if (slot < 0) continue;
      if (const Tensor* constant = plan.constant(slot)) {
        constants[i] = *constant;
        inputs[i] = &constants[i];
      } else {
        inputs[i] = &slots[slot];
      }
    }
    std::vector<Value> outputs =
        node.kernel->RunValues(ctx, ValueInputs(inputs.data(), inputs.size()), control);
    check_count(outputs.size());
    for (size_t i = 0; i < node.outputs.size(); ++i) slots[node.outputs[i]] = std::move(outputs[i]);
    return;
  }
  // Most ops have at most a handful of inputs; avoid a heap vector for them
  // (a loop body's nodes run once per iteration).
  constexpr size_t kInline = 8;
  const Tensor* inline_inputs[kInline];
  std::vector<const Tensor*> heap_inputs;
  const Tensor** inputs = inline_inputs;
  if (node.inputs.size() > kInline) {
    heap_inputs.resize(node.inputs.size());
    inputs = heap_inputs.data();
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int slot = node.inputs[i];
    const Tensor* constant = slot < 0 ? nullptr : plan.constant(slot);
    if (slot < 0 || constant != nullptr) {
      inputs[i] = constant;
      continue;
    }
    inputs[i] = slots[slot].tensor_if();
    if (inputs[i] == nullptr) {
      throw InvalidArgumentError("input " + std::to_string(i) + " is " + slots[slot].describe() +
                                 ", the op takes tensors");
    }
  }
  std::vector<Tensor> outputs =
      node.kernel->Run(ctx, kernels::KernelInputs(inputs, node.inputs.size()), control);
  check_count(outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i) slots[node.outputs[i]] = std::move(outputs[i]);
}

std::vector<Value> RunSubgraph(const ExecutionPlan& plan, std::vector<Value> inputs,
                               threading::ThreadPool* pool, const RunControl& control,
                               const std::string& where) {
  const std::vector<int>& input_slots = plan.input_slots();
  if (inputs.size() != input_slots.size()) {
    throw RuntimeError(where + ": " + std::to_string(inputs.size()) +
                       " inputs given, the subgraph has " + std::to_string(input_slots.size()));
  }
  std::vector<Value> slots(plan.num_slots());
  for (size_t i = 0; i < inputs.size(); ++i) slots[input_slots[i]] = std::move(inputs[i]);
  std::vector<int> reads_left(plan.num_slots());
  std::vector<char> fetched(plan.num_slots(), 0);
  for (int slot = 0; slot < plan.num_slots(); ++slot) reads_left[slot] = plan.num_reads(slot);
  for (int slot : plan.output_slots()) fetched[slot] = 1;

  for (const PlanNode& node : plan.nodes()) {
    control.CheckInterruption();
    try {
      RunPlanNode(plan, node, slots, pool, control);
    } catch (const CancelledError&) {
      throw;
    } catch (const DeadlineExceededError&) {
      throw;
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError(Prefix(where, node) + e.what());
    } catch (const std::bad_alloc&) {
      throw RuntimeError(Prefix(where, node) + "out of memory");
    } catch (const std::exception& e) {
      throw RuntimeError(Prefix(where, node) + e.what());
    }
    for (int slot : node.outputs) {
      // An output nobody reads is dropped at once.
      if (reads_left[slot] == 0 && !fetched[slot]) slots[slot] = Value();
    }
    for (int slot : node.inputs) {
      if (slot >= 0 && --reads_left[slot] == 0 && !fetched[slot] && plan.producer(slot) >= 0) {
        slots[slot] = Value();
      }
    }
  }
  std::vector<Value> results;
  results.reserve(plan.output_slots().size());
  for (int slot : plan.output_slots()) {
    const Tensor* constant = plan.constant(slot);
    results.push_back(constant != nullptr ? Value(*constant) : slots[slot]);
  }
  return results;
}

}  // namespace loom::runtime
