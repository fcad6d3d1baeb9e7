// FoldStaticShapes: a Shape or Size node reads only its input's shape, so
// where type inference knows that shape in full the node is a constant. It
// becomes a Constant node (same name and output), which FoldConstants then
// turns into an initializer together with the arithmetic that follows it:
// the Shape -> Gather -> Add/Div/Mul -> Slice/Reshape chains exporters write
// for channel splits and reshapes (ShuffleNet's channel shuffle, a
// transformer's head split) then cost nothing per run.
//
// Safe because a session checks every fed input against its declared shape
// (a static dimension must match), and the inferred shapes follow from the
// inputs' shapes alone; a dimension that depends on data is an invented
// symbol ("?node.k") and keeps its node.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

// The input's inferred type: a graph input's declared one, else type
// inference's (value_types); null when unknown.
const TensorType* TypeOf(const Graph& graph, const std::string& value) {
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == value) return &input.type;
  }
  const auto found = graph.value_types.find(value);
  return found == graph.value_types.end() ? nullptr : &found->second;
}

}  // namespace

bool FoldStaticShapes(Graph& graph) {
  bool changed = false;
  for (Node& node : graph.nodes) {
    if ((node.op_type != "Shape" && node.op_type != "Size") || node.inputs.size() != 1 ||
        node.outputs.size() != 1 || node.inputs[0].empty()) {
      continue;
    }
    const TensorType* type = TypeOf(graph, node.inputs[0]);
    if (type == nullptr || !type->shape) continue;
    std::vector<int64_t> dims;
    bool known = true;
    for (const Dim& dim : *type->shape) {
      known = known && dim.is_known();
      dims.push_back(dim.size());
    }
    if (!known) continue;
    Tensor value;
    if (node.op_type == "Shape") {
      // start and end as the Shape rule (and ONNX) resolve them: negative
      // counts from the back, both clamped to [0, rank].
      const auto rank = static_cast<int64_t>(dims.size());
      auto resolve = [rank](int64_t axis) {
        return std::clamp<int64_t>(axis < 0 ? axis + rank : axis, 0, rank);
      };
      const int64_t start = resolve(node.attributes.get_int("start", 0));
      const int64_t end = std::max(start, resolve(node.attributes.get_int("end", rank)));
      std::vector<int64_t> kept(dims.begin() + start, dims.begin() + end);
      value = Tensor::from_vector(Shape({static_cast<int64_t>(kept.size())}), kept);
    } else {
      int64_t count = 1;
      bool overflow = false;
      for (int64_t d : dims) overflow = overflow || __builtin_mul_overflow(count, d, &count);
      if (overflow) continue;  // the kernel reports it when the node runs
      value = Tensor::from_vector(Shape(), std::vector<int64_t>{count});
    }
    node = Node{node.name, "Constant", {}, node.outputs, Attributes().set("value", value)};
    changed = true;
  }
  return changed;
}

}  // namespace loom::graph
