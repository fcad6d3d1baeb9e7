// DropQdqAroundSelection: in a QDQ model (ONNX Runtime's quantize_static),
// an operator whose every output element is one of its input's elements
// runs on float32 between a DequantizeLinear and a QuantizeLinear:
//
//   xq → DequantizeLinear(s, z) → MaxPool → QuantizeLinear(s, z) → yq
//
// With the same parameters on both sides the pair does nothing, and the
// operator runs on xq directly (ONNX Runtime drops the same pairs):
//
//   xq → MaxPool → yq
//
// Why it is exact. Let v be a quantized value and k = v - z (|k| <= 255).
// - The round trip: DQ gives p = fl(k * s) = k * s * (1 + e), |e| <= 2^-24,
//   and Q computes fl(p / s) = k * (1 + e) * (1 + e'), within
//   255 * 2^-23 < 0.5 of k, so it rounds back to k and z + k = v lies in
//   range: Q(DQ(v)) = v. This needs s > 0 and normal, and k * s finite
//   (s <= FLT_MAX / 256): a subnormal product would lose bits, a zero or
//   infinite scale makes 0 / 0 or inf / inf. The pass test runs all 256
//   values of both dtypes through a range of scales.
// - Selection commutes with DQ: Reshape, Flatten, Transpose, Squeeze and
//   Unsqueeze only move elements; MaxPool takes a maximum, and DQ is
//   increasing for s > 0, so max(DQ(v_i)) = DQ(max(v_i)); its padding is
//   never selected. So Q(op(DQ(x))) = Q(DQ(op(x))) = op(x).
// The kernels of these ops accept int8 and uint8 (kernels/registry.cc).
//
// What the rewrite needs, per operator (else it stays):
// - MaxPool with one output (no Indices), or Reshape, Flatten, Transpose,
//   Squeeze, Unsqueeze; its data input (input 0) written by a per-tensor
//   DequantizeLinear (qdq_match.h) that its other inputs do not read.
// - Its output read by a per-tensor QuantizeLinear alone and not a graph
//   output; that Q's dtype, scale and zero point the DQ's, bit for bit.
// The operator keeps its name and takes the Q's output. The DQ stays while
// something else reads it; otherwise it goes here, and with the Q go the
// parameters no one else reads. Matches never overlap: each operator has its
// own Q, and DQs are only read.
#include <cfloat>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"
#include "graph/passes/qdq_match.h"

namespace loom::graph {
namespace {

const std::set<std::string, std::less<>> kSelectionOps = {"Flatten", "MaxPool",   "Reshape",
                                                          "Squeeze", "Transpose", "Unsqueeze"};

// Whether Q(DQ(v)) = v for every 8-bit v at this scale (the file comment).
bool RoundTripIsExact(float scale) { return scale >= FLT_MIN && scale <= FLT_MAX / 256; }

class QdqSelectionEliminator {
 public:
  explicit QdqSelectionEliminator(Graph& graph)
      : graph_(graph), index_(graph), erase_(graph.nodes.size(), false) {}

  bool Run() {
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (kSelectionOps.count(graph_.nodes[i].op_type) > 0) changed = Elide(i) || changed;
    }
    if (!changed) return false;
    FinishQdqRewrite(graph_, erase_, dequantizers_, unused_);
    return true;
  }

 private:
  bool Elide(size_t op_index) {
    const Node& op = graph_.nodes[op_index];
    if (op.inputs.empty() || op.outputs.size() != 1) return false;
    const std::string& x = op.inputs[0];
    for (size_t k = 1; k < op.inputs.size(); ++k) {
      if (op.inputs[k] == x) return false;
    }
    const std::optional<size_t> dq_index = index_.producer(x);
    if (!dq_index) return false;
    const Node& dq = graph_.nodes[*dq_index];
    const std::optional<PerTensorQuant> in = MatchPerTensorDequantize(graph_, dq);
    if (!in || !RoundTripIsExact(in->scale_value)) return false;

    const std::string& y = op.outputs[0];
    if (!index_.has_single_private_use(y)) return false;
    const size_t q_index = index_.consumers(y)[0];
    const Node& q = graph_.nodes[q_index];
    const std::optional<PerTensorQuant> out = MatchPerTensorQuantize(graph_, q);
    if (!out || q.inputs[0] != y || !out->same_values(*in)) return false;

    Node& rewritten = graph_.nodes[op_index];
    rewritten.inputs[0] = dq.inputs[0];
    rewritten.outputs = q.outputs;
    erase_[q_index] = true;
    unused_.push_back(q.inputs[1]);
    unused_.push_back(q.inputs[2]);
    dequantizers_.insert(*dq_index);
    return true;
  }

  Graph& graph_;
  const GraphIndex index_;
  std::vector<bool> erase_;
  // The DQs the rewritten operators read, erased at the end when nothing
  // else does.
  std::set<size_t> dequantizers_;
  // Parameters of erased nodes, removed at the end when nothing reads them.
  std::vector<std::string> unused_;
};

}  // namespace

bool DropQdqAroundSelection(Graph& graph) { return QdqSelectionEliminator(graph).Run(); }

}  // namespace loom::graph
