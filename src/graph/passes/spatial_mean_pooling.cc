// PoolSpatialMeans: ReduceMean over the two spatial axes of a 4-D float32
// tensor (axes {2, 3} or {-2, -1}, as attribute or constant input) becomes
// GlobalAveragePool, followed by Flatten(axis 1) when keepdims is 0.
// PyTorch exports x.mean([2, 3]) (ShuffleNet-V2's and others' pooling) this
// way. As GlobalAveragePool it stays in the NCHWc layout (nchwc_layout.cc):
// ShuffleNet-V2's last pooling was a reorder of 1024 x 7 x 7 to NCHW (15 us)
// and a ReduceMean (27 us; ONNX Runtime 7) before.
//
// The two compute the same mean in a different order of additions, so the
// results may differ in the last bits.
//
// A ReduceMean with keepdims 1 is rewritten where it stands (it keeps its
// name and output); with keepdims 0 it becomes the pool, writing a new
// value, and a Flatten named after it writes the original output.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

// The reduced axes (ReduceAxes), normalized to [0, rank) and sorted;
// nullopt when not known or when it reduces all axes (none given).
std::optional<std::vector<int64_t>> NormalizedAxes(const Graph& graph, const Node& node, int rank) {
  std::optional<std::vector<int64_t>> axes = ReduceAxes(graph, node);
  if (!axes || axes->empty()) return std::nullopt;
  for (int64_t& a : *axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    if (a < 0) a += rank;
  }
  std::sort(axes->begin(), axes->end());
  return axes;
}

}  // namespace

bool PoolSpatialMeans(Graph& graph) {
  NameGenerator names(graph);
  std::vector<std::string> axes_constants;
  bool changed = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    if (node.op_type != "ReduceMean" || node.inputs.empty() || node.outputs.size() != 1) continue;
    const std::optional<TensorType> type = KnownType(graph, node.inputs[0]);
    if (!type || type->dtype != DType::kFloat32 || !type->shape || type->shape->size() != 4) {
      continue;
    }
    // GlobalAveragePool refuses an empty plane, where ReduceMean gives NaN.
    const auto empty = [](const Dim& d) { return d.is_known() && d.size() == 0; };
    if (empty((*type->shape)[2]) || empty((*type->shape)[3])) continue;
    const std::optional<std::vector<int64_t>> axes = NormalizedAxes(graph, node, 4);
    if (!axes || *axes != std::vector<int64_t>{2, 3}) continue;
    const int64_t keepdims = node.attributes.get_int("keepdims", 1);
    if (keepdims != 0 && keepdims != 1) continue;
    if (node.inputs.size() >= 2 && !node.inputs[1].empty())
      axes_constants.push_back(node.inputs[1]);
    node.op_type = "GlobalAveragePool";
    node.inputs.resize(1);
    node.attributes = Attributes();
    changed = true;
    if (keepdims == 1) continue;
    Node flatten;
    flatten.name = names.Fresh(node.name + "_flatten");
    flatten.op_type = "Flatten";
    flatten.outputs = node.outputs;
    node.outputs = {names.Fresh(node.outputs[0] + "_pooled")};
    flatten.inputs = node.outputs;
    flatten.attributes.set("axis", int64_t{1});
    graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                       std::move(flatten));
    ++i;
  }
  if (!changed) return false;
  RemoveUnusedInitializers(graph, axes_constants);
  DropStaleValueTypes(graph);
  return true;
}

}  // namespace loom::graph
