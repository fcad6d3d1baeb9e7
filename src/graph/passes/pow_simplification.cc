// SimplifyPow: Pow with a constant scalar exponent of 2, 0.5 or 1 becomes
// Mul(x, x), Sqrt(x) or Identity(x). The Pow kernel calls std::pow per
// element and broadcasts the exponent; the replacements are one multiply or
// one sqrt instruction. PyTorch exports x ** 2 (layer norm's variance) this
// way, and Mul(d, d) is what layer-norm fusion then matches.
//
// The results agree with std::pow: pow(x, 2) and x * x are both the exactly
// rounded square, pow(x, 1) is x. pow(x, 0.5) and sqrt(x) differ only at
// -0 (pow gives +0) and -inf (pow gives +inf, sqrt NaN).
//
// Each node is rewritten where it stands: it keeps its name and output, so
// matches cannot overlap.
#include <optional>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

// The value of a one-element numeric constant that leaves the base's shape
// as it is (rank 0, or no higher than the base's known rank); nullopt
// otherwise.
std::optional<double> ScalarExponent(const Graph& graph, const std::string& value,
                                     const TensorType& base) {
  const Tensor* t = FindConstant(graph, value);
  if (t == nullptr || t->num_elements() != 1) return std::nullopt;
  const int rank = t->shape().rank();
  if (rank > 0 && (!base.shape || rank > static_cast<int>(base.shape->size()))) {
    return std::nullopt;
  }
  switch (t->dtype()) {
    case DType::kFloat32:
      return t->data<float>()[0];
    case DType::kFloat64:
      return t->data<double>()[0];
    case DType::kInt32:
      return t->data<int32_t>()[0];
    case DType::kInt64:
      return static_cast<double>(t->data<int64_t>()[0]);
    default:
      return std::nullopt;
  }
}

}  // namespace

bool SimplifyPow(Graph& graph) {
  std::vector<std::string> exponents;
  for (Node& node : graph.nodes) {
    if (node.op_type != "Pow" || node.inputs.size() != 2 || node.outputs.size() != 1) continue;
    const std::string x = node.inputs[0];
    const std::optional<TensorType> base = KnownType(graph, x);
    if (!base || base->dtype != DType::kFloat32) continue;
    const std::optional<double> exponent = ScalarExponent(graph, node.inputs[1], *base);
    if (!exponent) continue;
    std::vector<std::string> inputs;
    if (*exponent == 2.0) {
      node.op_type = "Mul";
      inputs = {x, x};
    } else if (*exponent == 0.5) {
      node.op_type = "Sqrt";
      inputs = {x};
    } else if (*exponent == 1.0) {
      node.op_type = "Identity";
      inputs = {x};
    } else {
      continue;
    }
    exponents.push_back(node.inputs[1]);
    node.inputs = std::move(inputs);
    node.attributes.clear();
  }
  if (exponents.empty()) return false;
  RemoveUnusedInitializers(graph, exponents);
  return true;
}

}  // namespace loom::graph
