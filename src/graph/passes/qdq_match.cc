#include "graph/passes/qdq_match.h"

#include <cstring>

#include "graph/passes/graph_edit.h"
#include "kernels/onnx_dtype.h"

namespace loom::graph {
namespace {

// Whether an output_dtype / precision attribute is unset (0) or names `dtype`.
bool UnsetOr(const Node& node, const char* attribute, DType dtype) {
  const int64_t code = node.attributes.get_int(attribute, 0);
  return code == 0 || kernels::DTypeFromOnnxDataType(code) == dtype;
}

// The scale and zero point inputs 1 and 2 when both are one-element
// constants of the right dtypes.
std::optional<PerTensorQuant> ReadParameters(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 3 || node.outputs.size() != 1 ||
      node.attributes.get_int("block_size", 0) != 0) {
    return std::nullopt;
  }
  const Tensor* scale = FindConstant(graph, node.inputs[1]);
  const Tensor* zero_point = FindConstant(graph, node.inputs[2]);
  if (scale == nullptr || scale->dtype() != DType::kFloat32 || scale->num_elements() != 1 ||
      zero_point == nullptr || zero_point->num_elements() != 1) {
    return std::nullopt;
  }
  PerTensorQuant q;
  q.scale = node.inputs[1];
  q.zero_point = node.inputs[2];
  q.scale_value = scale->data<float>()[0];
  q.dtype = zero_point->dtype();
  if (q.dtype == DType::kUInt8) {
    q.zero_point_value = zero_point->data<uint8_t>()[0];
  } else if (q.dtype == DType::kInt8) {
    q.zero_point_value = zero_point->data<int8_t>()[0];
  } else {
    return std::nullopt;
  }
  return q;
}

}  // namespace

bool PerTensorQuant::same_values(const PerTensorQuant& other) const {
  // Bits, not ==: 0.0f and -0.0f are different scales.
  return dtype == other.dtype && zero_point_value == other.zero_point_value &&
         std::memcmp(&scale_value, &other.scale_value, sizeof(float)) == 0;
}

std::optional<PerTensorQuant> MatchPerTensorDequantize(const Graph& graph, const Node& dq) {
  if (dq.op_type != "DequantizeLinear" || !UnsetOr(dq, "output_dtype", DType::kFloat32)) {
    return std::nullopt;
  }
  std::optional<PerTensorQuant> q = ReadParameters(graph, dq);
  if (!q) return std::nullopt;
  const std::optional<TensorType> x = KnownType(graph, dq.inputs[0]);
  if (!x || x->dtype != q->dtype) return std::nullopt;
  return q;
}

std::optional<PerTensorQuant> MatchPerTensorQuantize(const Graph& graph, const Node& q) {
  if (q.op_type != "QuantizeLinear") return std::nullopt;
  std::optional<PerTensorQuant> params = ReadParameters(graph, q);
  // A float16/bfloat16 division rounds differently from the int8 kernels.
  if (!params || !UnsetOr(q, "output_dtype", params->dtype) ||
      !UnsetOr(q, "precision", DType::kFloat32)) {
    return std::nullopt;
  }
  return params;
}

void FinishQdqRewrite(Graph& graph, std::vector<bool>& erase, const std::set<size_t>& dequantizers,
                      std::vector<std::string> unused) {
  const GraphIndex after(graph);
  for (size_t dq : dequantizers) {
    const std::string& output = graph.nodes[dq].outputs[0];
    if (!after.consumers(output).empty() || after.is_graph_output(output)) continue;
    erase[dq] = true;
    unused.insert(unused.end(), graph.nodes[dq].inputs.begin(), graph.nodes[dq].inputs.end());
  }
  EraseNodes(graph, erase);
  RemoveUnusedInitializers(graph, unused);
  DropStaleValueTypes(graph);
}

}  // namespace loom::graph
