// FoldConstants: one sweep in topological order folds whole chains, since a
// folded node's outputs are constants by the time its consumers are visited.
//
// Choices:
// - A node producing a graph output is folded too, into an initializer with
//   a fresh name read by an Identity that keeps the output's name (fetch
//   names are node outputs). Other consumers of that output read the new
//   initializer directly, so folding continues past it.
// - Outputs are capped (kFoldedBytesLimit below) and for the ops whose
//   output size comes from input *values* (ConstantOfShape, Expand, Tile,
//   Range, Pad) the size is predicted before anything is allocated.
// - A kernel error while folding is a model error the run would hit anyway:
//   it is rethrown at once, naming the node.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/int_math.h"
#include "graph/control_flow.h"
#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"
#include "graph/sequence_ops.h"
#include "graph/topological_order.h"
#include "kernels/random/random_ops.h"
#include "kernels/reference/element_access.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

// Folded outputs live as long as the session, while an unfolded node's output
// lives only during a run. 16 MiB is well above what folding is for (shape
// arithmetic, index tensors, small weight transforms), so only generators
// blowing a few bytes up into a large tensor are refused; weight transforms
// of any size (Transpose, Reshape, Cast float16 → float32) still fold, as up
// to twice their inputs' size is always allowed.
constexpr double kFoldedBytesLimit = 16.0 * (1 << 20);
constexpr double kInputGrowthAllowed = 2.0;

std::vector<double> DimsOf(const Tensor& tensor) {
  return std::vector<double>(tensor.shape().dims().begin(), tensor.shape().dims().end());
}

// The int64 values of a 1-D index tensor (shapes, repeats, pads), or nullopt
// when it is not one: the kernel then reports the problem.
std::optional<std::vector<double>> IndexValues(const Tensor* tensor) {
  if (tensor == nullptr || tensor->dtype() != DType::kInt64 || tensor->shape().rank() != 1) {
    return std::nullopt;
  }
  std::vector<double> values;
  for (int64_t i = 0; i < tensor->num_elements(); ++i) {
    values.push_back(static_cast<double>(tensor->data<int64_t>()[i]));
  }
  return values;
}

// The output bytes of ops whose output size depends on input values, in
// double so that a product that overflows int64 still compares as huge;
// nullopt for other ops (their outputs are checked after evaluation) or when
// the inputs are malformed (the kernel then throws).
std::optional<double> PredictedOutputBytes(const Node& node,
                                           const std::vector<const Tensor*>& inputs) {
  auto input = [&inputs](size_t i) { return i < inputs.size() ? inputs[i] : nullptr; };
  const std::string& op = node.op_type;
  if (op == "ConstantOfShape") {
    const auto shape = IndexValues(input(0));
    if (!shape) return std::nullopt;
    double element = 4.0;  // float32 unless "value" says otherwise
    auto value = node.attributes.find("value");
    if (value != node.attributes.end() && std::holds_alternative<Tensor>(value->second)) {
      element = static_cast<double>(dtype_size(std::get<Tensor>(value->second).dtype()));
    }
    return base::Product(*shape) * element;
  }
  if (input(0) == nullptr) return std::nullopt;
  const Tensor& data = *input(0);
  const double element = static_cast<double>(dtype_size(data.dtype()));
  if (op == "Expand") {
    const auto shape = IndexValues(input(1));
    if (!shape) return std::nullopt;
    std::vector<double> dims = DimsOf(data);
    std::vector<double> out(std::max(dims.size(), shape->size()), 1.0);
    for (size_t i = 0; i < out.size(); ++i) {
      const double a = i < dims.size() ? dims[dims.size() - 1 - i] : 1.0;
      const double b = i < shape->size() ? (*shape)[shape->size() - 1 - i] : 1.0;
      out[i] = std::max(a, b);
    }
    return base::Product(out) * element;
  }
  if (op == "Tile") {
    const auto repeats = IndexValues(input(1));
    std::vector<double> dims = DimsOf(data);
    if (!repeats || repeats->size() != dims.size()) return std::nullopt;
    for (size_t i = 0; i < dims.size(); ++i) dims[i] *= std::max(0.0, (*repeats)[i]);
    return base::Product(dims) * element;
  }
  if (op == "Pad") {
    const auto pads = IndexValues(input(1));
    std::vector<double> dims = DimsOf(data);
    if (!pads || pads->size() != 2 * dims.size() || input(3) != nullptr) return std::nullopt;
    for (size_t i = 0; i < dims.size(); ++i) {
      dims[i] = std::max(0.0, dims[i] + (*pads)[i] + (*pads)[i + dims.size()]);
    }
    return base::Product(dims) * element;
  }
  if (op == "Range") {
    if (input(1) == nullptr || input(2) == nullptr || data.num_elements() != 1 ||
        input(1)->num_elements() != 1 || input(2)->num_elements() != 1) {
      return std::nullopt;
    }
    const double start = kernels::ReadElementAsDouble(data, 0);
    const double limit = kernels::ReadElementAsDouble(*input(1), 0);
    const double delta = kernels::ReadElementAsDouble(*input(2), 0);
    if (delta == 0.0) return std::nullopt;
    return std::max(0.0, std::ceil((limit - start) / delta)) * element;
  }
  return std::nullopt;
}

double TotalBytes(const std::vector<const Tensor*>& tensors) {
  double total = 0.0;
  for (const Tensor* t : tensors) total += t == nullptr ? 0.0 : static_cast<double>(t->nbytes());
  return total;
}

}  // namespace

bool FoldConstants(Graph& graph, const NodeEvaluator& evaluate) {
  if (!evaluate) throw InvalidArgumentError("FoldConstants: no node evaluator given");
  std::set<std::string> constants;
  for (const auto& [name, tensor] : graph.initializers) {
    if (FindConstant(graph, name) != nullptr) constants.insert(name);
  }
  std::set<std::string> graph_outputs;
  for (const ValueInfo& output : graph.outputs) graph_outputs.insert(output.name);

  NameGenerator names(graph);
  const TopologicalOrder order = SortTopologically(graph);
  std::vector<bool> folded(graph.nodes.size(), false);
  // Identities that keep graph outputs node-produced, by the folded node's
  // index: the first takes the folded node's place (and name).
  std::vector<std::pair<size_t, Node>> identities;
  std::vector<std::string> consumed;
  for (size_t index : order.order) {
    const Node& node = graph.nodes[index];
    const bool all_constant = std::all_of(
        node.inputs.begin(), node.inputs.end(),
        [&](const std::string& input) { return input.empty() || constants.count(input) > 0; });
    if (!all_constant) continue;
    // An Identity of a constant fetched as a graph output is what folding
    // leaves behind: folding it again would never end.
    const bool fetched_identity =
        node.op_type == "Identity" &&
        std::all_of(node.outputs.begin(), node.outputs.end(),
                    [&](const std::string& output) { return graph_outputs.count(output) > 0; });
    if (fetched_identity) continue;
    // Control flow runs subgraphs, which only a session can: it stays (its
    // subgraphs are optimized on their own, OptimizeGraph).
    if (HasSubgraphs(node)) continue;
    // Random generators draw new values each run (unless seeded, when they
    // would fold consistently; they stay, so both forms behave alike).
    if (kernels::IsRandomOp(node.op_type)) continue;
    // Sequences and optionals are no initializers: their ops stay.
    if (IsSequenceOp(node.op_type)) continue;

    std::vector<const Tensor*> inputs;
    for (const std::string& input : node.inputs) {
      inputs.push_back(input.empty() ? nullptr : &graph.initializers.at(input));
    }
    const double allowed = std::max(kFoldedBytesLimit, kInputGrowthAllowed * TotalBytes(inputs));
    const std::optional<double> predicted = PredictedOutputBytes(node, inputs);
    if (predicted && *predicted > allowed) continue;
    std::vector<Tensor> outputs;
    try {
      outputs = evaluate(node, inputs);
    } catch (const InvalidArgumentError& error) {
      throw InvalidArgumentError(NodeLabel(node) +
                                 ": folding its constant inputs failed: " + error.what());
    }
    // Trailing optional outputs may be left out, named ones may not.
    size_t expected = 0;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (!node.outputs[i].empty()) expected = i + 1;
    }
    if (outputs.size() < expected) {
      throw InvalidArgumentError(NodeLabel(node) + ": the evaluator returned " +
                                 std::to_string(outputs.size()) + " outputs, expected " +
                                 std::to_string(expected));
    }
    std::vector<const Tensor*> results;
    for (const Tensor& t : outputs) results.push_back(&t);
    if (TotalBytes(results) > allowed) continue;

    folded[index] = true;
    consumed.insert(consumed.end(), node.inputs.begin(), node.inputs.end());
    bool node_name_used = false;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& output = node.outputs[i];
      if (output.empty()) continue;
      if (graph_outputs.count(output) == 0) {
        graph.initializers[output] = outputs[i];
        constants.insert(output);
        continue;
      }
      const std::string value = names.Fresh(output + "_folded");
      graph.initializers[value] = outputs[i];
      constants.insert(value);
      // The first Identity replaces the folded node and takes its name.
      const std::string identity_name = node_name_used ? names.Fresh(node.name) : node.name;
      node_name_used = true;
      identities.emplace_back(index, Node{identity_name, "Identity", {value}, {output}, {}});
      for (Node& other : graph.nodes) {
        for (std::string& input : other.inputs) {
          if (input == output) input = value;
        }
      }
    }
  }
  if (std::find(folded.begin(), folded.end(), true) == folded.end()) return false;
  std::vector<Node> extra;
  for (auto& [index, identity] : identities) {
    if (folded[index]) {
      graph.nodes[index] = std::move(identity);
      folded[index] = false;
    } else {
      extra.push_back(std::move(identity));
    }
  }
  EraseNodes(graph, folded);
  for (Node& identity : extra) graph.nodes.push_back(std::move(identity));
  RemoveUnusedInitializers(graph, consumed);
  DropStaleValueTypes(graph);
  return true;
}

}  // namespace loom::graph
