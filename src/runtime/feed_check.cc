#include "runtime/feed_check.h"

#include "loom/errors.h"

namespace loom::runtime {
namespace {

std::string InputNames(const Graph& graph) {
  std::string names;
  for (const ValueInfo& input : graph.inputs)
    names += (names.empty() ? "'" : ", '") + input.name + "'";
  return names.empty() ? "none" : names;
}

std::string Describe(const Tensor& tensor) {
  return std::string(dtype_name(tensor.dtype())) + tensor.shape().to_string();
}

}  // namespace

std::vector<std::pair<int, Value>> CheckFeeds(const Graph& graph, const ExecutionPlan& plan,
                                              const std::map<std::string, Value>& feeds) {
  std::map<std::string, const ValueInfo*> declared;
  for (const ValueInfo& input : graph.inputs) declared[input.name] = &input;
  for (const auto& [name, value] : feeds) {
    if (declared.count(name) == 0) {
      throw InvalidArgumentError("run: '" + name + "' is not an input of graph '" + graph.name +
                                 "' (its inputs: " + InputNames(graph) + ")");
    }
  }
  std::map<std::string, std::pair<int64_t, std::string>> symbols;  // symbol → (size, input)
  // Checks one tensor against `shape`; `bind`: its symbols bind sizes.
  const auto check_shape = [&](const std::string& what, const std::string& input_name,
                               const SymbolicShape& shape, const Tensor& tensor, bool bind) {
    if (static_cast<int>(shape.size()) != tensor.shape().rank()) {
      throw InvalidArgumentError(what + " (rank differs)");
    }
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      const int64_t size = tensor.shape().dims()[axis];
      const Dim& dim = shape[axis];
      if (dim.is_known() && dim.size() != size) {
        throw InvalidArgumentError(what + " (dimension " + std::to_string(axis) + " is " +
                                   std::to_string(size) + ", expected " +
                                   std::to_string(dim.size()) + ")");
      }
      if (!dim.is_known() && bind) {
        auto [it, inserted] = symbols.emplace(dim.symbol(), std::pair{size, input_name});
        if (!inserted && it->second.first != size) {
          throw InvalidArgumentError(what + " (dimension " + std::to_string(axis) + " '" +
                                     dim.symbol() + "' is " + std::to_string(size) +
                                     ", but input '" + it->second.second + "' bound it to " +
                                     std::to_string(it->second.first) + ")");
        }
      }
    }
  };
  std::vector<std::pair<int, Value>> result;
  for (const ValueInfo& input : graph.inputs) {
    auto fed = feeds.find(input.name);
    const int slot = plan.FindSlot(input.name);
    if (fed == feeds.end()) {
      auto initializer = graph.initializers.find(input.name);
      if (initializer == graph.initializers.end() && input.type.is_optional()) {
        result.emplace_back(slot, Value::None());  // as ONNX Runtime: empty
        continue;
      }
      if (initializer == graph.initializers.end()) {
        throw InvalidArgumentError("run: graph input '" + input.name + "' (" +
                                   input.type.to_string() + ") was not fed");
      }
      result.emplace_back(slot, initializer->second);
      continue;
    }
    const Value& value = fed->second;
    const std::string what = "run: input '" + input.name + "' expects " + input.type.to_string() +
                             ", got " + value.describe();
    if (value.is_none()) {
      if (!input.type.is_optional()) throw InvalidArgumentError(what + " (not an optional)");
    } else if (value.is_sequence()) {
      if (!input.type.holds_sequence()) throw InvalidArgumentError(what + " (not a sequence)");
      if (value.element_dtype() != input.type.dtype) {
        throw InvalidArgumentError(what + " (dtype differs)");
      }
      if (input.type.shape) {
        const std::vector<Tensor>& elements = value.elements();
        for (size_t i = 0; i < elements.size(); ++i) {
          check_shape(what + " (element " + std::to_string(i) + " " + Describe(elements[i]) + ")",
                      input.name, *input.type.shape, elements[i], false);
        }
      }
    } else {
      const Tensor& tensor = value.tensor();
      if (input.type.holds_sequence()) throw InvalidArgumentError(what + " (not a sequence)");
      if (tensor.dtype() != input.type.dtype) {
        throw InvalidArgumentError(what + " (dtype differs)");
      }
      if (input.type.shape) check_shape(what, input.name, *input.type.shape, tensor, true);
    }
    result.emplace_back(slot, value);
  }
  return result;
}

std::vector<int> ResolveFetches(const Graph& graph, const ExecutionPlan& plan,
                                const std::vector<std::string>& fetches) {
  std::vector<int> slots;
  for (const std::string& fetch : fetches) {
    const int slot = plan.FindSlot(fetch);
    if (slot < 0) {
      std::string outputs;
      for (const ValueInfo& output : graph.outputs) {
        outputs += (outputs.empty() ? "'" : ", '") + output.name + "'";
      }
      throw InvalidArgumentError("run: no value named '" + fetch + "' in graph '" + graph.name +
                                 "' (its outputs: " + outputs +
                                 "; an intermediate value the optimizer removed can be fetched "
                                 "with optimization off: in Python "
                                 "SessionOptions.graph_optimization_level = "
                                 "GraphOptimizationLevel.ORT_DISABLE_ALL, in C++ "
                                 "SessionOptions::optimization_level = 0)");
    }
    slots.push_back(slot);
  }
  return slots;
}

}  // namespace loom::runtime
