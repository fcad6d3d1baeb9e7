// FuseQdqAdd: the residual Adds of a QDQ model (ONNX Runtime's
// quantize_static) run on float32 between quantized ends,
//
//   aq → DequantizeLinear(sa, za) ─┐
//                                  ├→ Add → [Relu →] QuantizeLinear(sy, zy) → yq
//   bq → DequantizeLinear(sb, zb) ─┘
//
// four elementwise passes over float32 tensors four times the int8 size.
// They become one LoomQLinearAdd(aq, sa, za, bq, sb, zb, sy, zy) {relu}
// (kernels/quant/quant.h), which computes each element with the same
// float32 operations in the same order, so the result is the same bits
// (ONNX Runtime's QLinearAdd instead rounds differently).
//
// What the fusion needs, per Add (else it stays):
// - Both inputs written by per-tensor DequantizeLinears (qdq_match.h:
//   one-element constant float32 scales and int8/uint8 zero points of the
//   inputs' known dtypes); aq and bq of equal shapes, dimension by
//   dimension the same number or the same symbol (the kernel does not
//   broadcast; a shape the graph does not tell is not guessed).
// - The Add's output read by a per-tensor QuantizeLinear alone, or by a
//   Relu alone whose output the QuantizeLinear alone reads; neither is a
//   graph output.
// The LoomQLinearAdd takes the Add's name and the Q's output. The DQs stay
// while something else reads them (the other branch of a residual block
// often does); otherwise they go here, with the parameters no one else
// reads. Matches never overlap: each Add has its own Q, and DQs are only
// read.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"
#include "graph/passes/qdq_match.h"

namespace loom::graph {
namespace {

class QdqAddFuser {
 public:
  explicit QdqAddFuser(Graph& graph)
      : graph_(graph), index_(graph), erase_(graph.nodes.size(), false) {}

  bool Run() {
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (graph_.nodes[i].op_type == "Add") changed = Fuse(i) || changed;
    }
    if (!changed) return false;
    FinishQdqRewrite(graph_, erase_, dequantizers_, unused_);
    return true;
  }

 private:
  // The DQ writing `value` and its parameters, when it is per tensor.
  std::optional<std::pair<size_t, PerTensorQuant>> Dequantizer(const std::string& value) const {
    const std::optional<size_t> p = index_.producer(value);
    if (!p) return std::nullopt;
    std::optional<PerTensorQuant> q = MatchPerTensorDequantize(graph_, graph_.nodes[*p]);
    if (!q) return std::nullopt;
    return std::make_pair(*p, *q);
  }

  // Whether aq and bq have the same known rank and equal dimensions.
  bool SameShapes(const std::string& aq, const std::string& bq) const {
    const std::optional<TensorType> a = KnownType(graph_, aq);
    const std::optional<TensorType> b = KnownType(graph_, bq);
    return a && b && a->shape && b->shape && *a->shape == *b->shape;
  }

  bool Fuse(size_t add_index) {
    const Node& add = graph_.nodes[add_index];
    if (add.inputs.size() != 2 || add.outputs.size() != 1) return false;
    const auto a = Dequantizer(add.inputs[0]);
    const auto b = Dequantizer(add.inputs[1]);
    if (!a || !b) return false;
    const std::string& aq = graph_.nodes[a->first].inputs[0];
    const std::string& bq = graph_.nodes[b->first].inputs[0];
    if (!SameShapes(aq, bq)) return false;

    // Add → [Relu →] Q, each intermediate read by the next step alone.
    std::string sum = add.outputs[0];
    if (!index_.has_single_private_use(sum)) return false;
    size_t next = index_.consumers(sum)[0];
    std::optional<size_t> relu;
    if (graph_.nodes[next].op_type == "Relu") {
      const Node& r = graph_.nodes[next];
      if (r.inputs.size() != 1 || r.outputs.size() != 1) return false;
      relu = next;
      sum = r.outputs[0];
      if (!index_.has_single_private_use(sum)) return false;
      next = index_.consumers(sum)[0];
    }
    const Node& q = graph_.nodes[next];
    const std::optional<PerTensorQuant> y = MatchPerTensorQuantize(graph_, q);
    if (!y || q.inputs[0] != sum) return false;

    Node& fused = graph_.nodes[add_index];
    fused.op_type = "LoomQLinearAdd";
    fused.inputs = {aq,       a->second.scale, a->second.zero_point,
                    bq,       b->second.scale, b->second.zero_point,
                    y->scale, y->zero_point};
    fused.attributes = Attributes();
    if (relu) fused.attributes.set("relu", int64_t{1});
    fused.outputs = q.outputs;
    erase_[next] = true;
    if (relu) erase_[*relu] = true;
    dequantizers_.insert(a->first);
    dequantizers_.insert(b->first);
    return true;
  }

  Graph& graph_;
  const GraphIndex index_;
  std::vector<bool> erase_;
  // The DQs fused Adds read, erased at the end when nothing else does.
  std::set<size_t> dequantizers_;
  // Parameters of erased DQs, removed at the end when nothing reads them.
  std::vector<std::string> unused_;
};

}  // namespace

bool FuseQdqAdd(Graph& graph) { return QdqAddFuser(graph).Run(); }

}  // namespace loom::graph
