#include "graph/passes/testing/graph_eval.h"

#include "graph/passes/graph_edit.h"
#include "graph/topological_order.h"
#include "kernels/registry.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::graph::testing {

std::vector<Tensor> EvaluateNode(const Node& node, const std::vector<const Tensor*>& inputs) {
  const kernels::KernelRegistration* kernel = kernels::FindKernel(node.op_type);
  if (kernel == nullptr) throw InvalidArgumentError(NodeLabel(node) + ": no kernel");
  const kernels::KernelContext context{nullptr, kernels::Isa::kPortable};
  return kernels::RunKernel(*kernel, context, node.attributes,
                            kernels::KernelInputs(inputs.data(), inputs.size()));
}

std::map<std::string, Tensor> EvaluateGraph(const Graph& graph,
                                            const std::map<std::string, Tensor>& feeds) {
  std::map<std::string, Tensor> values = graph.initializers;
  for (const ValueInfo& input : graph.inputs) {
    auto feed = feeds.find(input.name);
    if (feed != feeds.end()) {
      values[input.name] = feed->second;
    } else if (values.count(input.name) == 0) {
      throw InvalidArgumentError("graph input '" + input.name + "' is not fed");
    }
  }
  const TopologicalOrder order = SortTopologically(graph);
  if (!order.unsorted.empty()) throw InvalidArgumentError("the graph has a cycle");
  for (size_t index : order.order) {
    const Node& node = graph.nodes[index];
    std::vector<const Tensor*> inputs;
    for (const std::string& name : node.inputs) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      auto it = values.find(name);
      if (it == values.end()) {
        throw InvalidArgumentError(NodeLabel(node) + ": input '" + name + "' has no value");
      }
      inputs.push_back(&it->second);
    }
    std::vector<Tensor> outputs = EvaluateNode(node, inputs);
    for (size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i) {
      if (!node.outputs[i].empty()) values[node.outputs[i]] = outputs[i];
    }
  }
  std::map<std::string, Tensor> fetched;
  for (const ValueInfo& output : graph.outputs) {
    auto it = values.find(output.name);
    if (it == values.end()) {
      throw InvalidArgumentError("graph output '" + output.name + "' was not computed");
    }
    fetched[output.name] = it->second;
  }
  return fetched;
}

std::map<std::string, Tensor> RandomFeeds(const Graph& graph, uint32_t seed) {
  std::map<std::string, Tensor> feeds;
  for (const ValueInfo& input : graph.inputs) {
    if (!input.type.shape) {
      throw InvalidArgumentError("graph input '" + input.name + "' has an unknown shape");
    }
    std::vector<int64_t> dims;
    for (const Dim& dim : *input.type.shape) {
      if (!dim.is_known()) {
        throw InvalidArgumentError("graph input '" + input.name + "' has a symbolic shape");
      }
      dims.push_back(dim.size());
    }
    const bool is_float = dtype_is_float(input.type.dtype);
    feeds[input.name] = kernels::testing::RandomTensor(input.type.dtype, Shape(dims), seed++,
                                                       is_float ? -1.0 : 0.0, is_float ? 1.0 : 3.0);
  }
  return feeds;
}

std::string CompareGraphOutputs(const Graph& expected, const Graph& actual,
                                const std::map<std::string, Tensor>& feeds, double rtol,
                                double atol) {
  const std::map<std::string, Tensor> want = EvaluateGraph(expected, feeds);
  const std::map<std::string, Tensor> got = EvaluateGraph(actual, feeds);
  if (want.size() != got.size()) return "the graphs have different numbers of outputs";
  for (const auto& [name, tensor] : want) {
    auto it = got.find(name);
    if (it == got.end()) return "output '" + name + "' is missing";
    if (it->second.dtype() != tensor.dtype() || !(it->second.shape() == tensor.shape())) {
      return "output '" + name + "': " + std::string(dtype_name(it->second.dtype())) +
             it->second.shape().to_string() + " vs expected " +
             std::string(dtype_name(tensor.dtype())) + tensor.shape().to_string();
    }
    const std::string mismatch = kernels::testing::CompareTensors(it->second, tensor, rtol, atol);
    if (!mismatch.empty()) return "output '" + name + "': " + mismatch;
  }
  return "";
}

}  // namespace loom::graph::testing
