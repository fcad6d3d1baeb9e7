// InferTypes: one walk in topological order, each node typed by its rule
// (type_rules.h) after the registry's dtype check of its type-determining
// input; then the graph outputs, checked against their declared types.
#include "graph/type_inference.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/control_flow.h"
#include "graph/sequence_ops.h"
#include "graph/topological_order.h"
#include "graph/type_rules.h"
#include "kernels/registry.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

[[noreturn]] void Fail(const Graph& graph, const std::string& detail) {
  throw InvalidArgumentError("graph '" + graph.name + "': " + detail);
}

// The registry lists the dtypes each kernel takes for its type-determining
// input, which is input 0 for every op (ConstantOfShape's is its int64 shape).
void CheckKernelDType(const NodeTypeContext& ctx) {
  const kernels::KernelRegistration* kernel = kernels::FindKernel(ctx.node().op_type);
  if (kernel == nullptr || !ctx.has_input(0)) return;
  const DType dtype = ctx.input(0).dtype;
  if ((kernel->dtypes & kernels::DTypeBit(dtype)) != 0) return;
  ctx.Fail("input " + ctx.Describe(0) + " has dtype " + std::string(dtype_name(dtype)) +
           ", which the kernel does not support (supported: " +
           kernels::DTypeMaskToString(kernel->dtypes) + ")");
}

// Ops without a rule (only reachable for op types with no kernel, which
// verify_graph rejects first): the first input's dtype, shapes unknown.
std::vector<TensorType> FallbackTypes(const NodeTypeContext& ctx) {
  DType dtype = DType::kFloat32;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i)) {
      dtype = ctx.input(i).dtype;
      break;
    }
  }
  return std::vector<TensorType>(ctx.num_outputs(), TensorType{dtype, std::nullopt});
}

// A declared graph-output type with a shape is a promise to check; one
// without (GraphBuilder::output's default) is only a placeholder. Where the
// inferred dim is unknown, the declared one is kept.
TensorType MergeDeclared(const Graph& graph, const ValueInfo& declared,
                         const TensorType& inferred) {
  if (!declared.type.shape) return inferred;
  const auto fail = [&] {
    Fail(graph, "graph output '" + declared.name + "' is declared as " + declared.type.to_string() +
                    " but inferred as " + inferred.to_string());
  };
  if (declared.type.dtype != inferred.dtype || declared.type.kind != inferred.kind) fail();
  if (!inferred.shape) return declared.type;
  const SymbolicShape& want = *declared.type.shape;
  const SymbolicShape& got = *inferred.shape;
  if (want.size() != got.size()) fail();
  SymbolicShape merged;
  for (size_t i = 0; i < got.size(); ++i) {
    if (want[i].is_known() && got[i].is_known() && want[i].size() != got[i].size()) fail();
    const bool keep_declared = !got[i].is_known() && (want[i].is_known() || IsUnknownDim(got[i]));
    merged.push_back(keep_declared ? want[i] : got[i]);
  }
  return TensorType{inferred.dtype, merged, inferred.kind};
}

}  // namespace

void InferTypes(Graph& graph) {
  std::map<std::string, TensorType> types;  // every value typed so far
  std::map<std::string, Tensor> constants;  // values known before running
  std::set<std::string> input_names;
  for (const ValueInfo& input : graph.inputs) {
    for (const Dim& dim : input.type.shape.value_or(SymbolicShape{})) {
      if (dim.is_known() && dim.size() < 0) {
        Fail(graph, "graph input '" + input.name + "' has a negative dimension (" +
                        input.type.to_string() + "); an unknown size needs a symbol");
      }
    }
    types[input.name] = input.type;
    input_names.insert(input.name);
  }
  for (const auto& [name, tensor] : graph.initializers) {
    // An initializer that is also a graph input is only a default: not constant.
    if (input_names.count(name) != 0) continue;
    types[name] = TensorType{tensor.dtype(), ToSymbolicShape(tensor.shape())};
    constants[name] = tensor;
  }

  const TopologicalOrder order = SortTopologically(graph);
  if (!order.unsorted.empty()) {
    const Node& node = graph.nodes[order.unsorted.front()];
    Fail(graph, "cannot infer types: node '" + node.name + "' (" + node.op_type +
                    ") lies on or after a cycle");
  }
  graph.value_types.clear();
  for (size_t index : order.order) {
    Node& node = graph.nodes[index];
    std::vector<std::optional<TensorType>> inputs;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& name = node.inputs[i];
      if (name.empty()) {
        inputs.emplace_back();
        continue;
      }
      auto it = types.find(name);
      if (it == types.end()) {
        Fail(graph, "node '" + node.name + "' (" + node.op_type + "): input " + std::to_string(i) +
                        " '" + name + "' is not defined by any node, graph input or initializer");
      }
      inputs.emplace_back(it->second);
    }
    const NodeTypeContext ctx(graph, node, std::move(inputs), constants);
    if (!TakesNonTensorValues(node.op_type)) {
      for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        if (ctx.has_input(i) && !ctx.input(i).is_tensor()) {
          ctx.Fail("input " + ctx.Describe(i) + " is not a tensor; " + node.op_type +
                   " takes tensors");
        }
      }
    }
    CheckKernelDType(ctx);
    std::vector<TensorType> outputs;
    if (HasSubgraphs(node)) {
      // Control flow: the subgraphs typed for these inputs replace the
      // node's (control_flow.h), so later stages find them typed.
      ControlFlowTypes typed = InferControlFlowTypes(ctx);
      outputs = std::move(typed.outputs);
      for (auto& [name, subgraph] : typed.subgraphs) node.attributes[name] = std::move(subgraph);
    } else {
      const TypeRule* rule = FindTypeRule(node.op_type);
      outputs = rule ? rule->infer(ctx) : FallbackTypes(ctx);
    }
    if (node.outputs.size() > outputs.size()) {
      ctx.Fail("has " + std::to_string(node.outputs.size()) + " outputs, but " + node.op_type +
               " produces " + std::to_string(outputs.size()));
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      types[node.outputs[i]] = outputs[i];
      graph.value_types[node.outputs[i]] = outputs[i];
    }
    if (std::optional<Tensor> value = ConstantNodeValue(node)) constants[node.outputs[0]] = *value;
  }

  for (ValueInfo& output : graph.outputs) {
    auto it = types.find(output.name);
    if (it == types.end()) {
      Fail(graph,
           "graph output '" + output.name + "' is not defined by any node, input or initializer");
    }
    output.type = MergeDeclared(graph, output, it->second);
  }
}

}  // namespace loom::graph
