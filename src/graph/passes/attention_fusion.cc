// FuseAttention: the scaled-dot-product attention transformer exports write,
//
//   S = MatMul(Q, Kᵀ) → Div(S, c) | Mul(S, c) | Mul(c, S) (optional)
//     → Add(·, mask) | Add(mask, ·) | Where(keep, ·, fill) (optional)
//     → Softmax(axis -1) → MatMul(·, V)
//
// becomes one LoomAttention (kernels/attention/attention.h), which never
// materializes the [B, H, Sq, Sk] scores. The operands are read from before
// the exporters' layout transposes when there are some:
//
//   Q, V: Transpose(X [B, S, H, D], perm [0, 2, 1, 3])  → X, layout "bshd"
//   Kᵀ:   Transpose(X [B, S, H, D], perm [0, 2, 3, 1])  → X, "bshd" (HF BERT)
//         Transpose(Transpose(X, [0, 2, 1, 3]), [0, 1, 3, 2]) → X, "bshd"
//         Transpose(K [B, H, S, D], perm [0, 1, 3, 2])  → K, "bhsd"
//
// and a transpose is removed when the pattern was its only reader; a Kᵀ
// that no transpose made is not matched (the kernel reads K by rows).
//
// Conditions: Q, K and V are float32 of known rank 4, Q's and K's depth
// agree; the scores are rank 4 and the Softmax is over their last axis; c
// (the scale, 1/c for Div) and fill are one-element float32 constants; a
// float32 (Add) or bool (Where) mask has a known shape that broadcasts to
// the scores without growing them; every intermediate from the first MatMul
// to the Softmax has the next step as its only reader and is not a graph
// output. A constant causal mask ([1, ..., Sq, Sk]: 0 / true where key
// j <= query i, -inf or at most -1e30 elsewhere) becomes causal = 1, so the
// kernel skips the keys past the diagonal; other masks stay an input. The
// fused node takes the last MatMul's name, place and output.
//
// Matches never overlap: each is anchored on one Softmax, and its nodes are
// private to it (the transposes it removes included).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

// `value`'s shape when its dtype is `dtype` and its rank is known.
std::optional<SymbolicShape> ShapeOf(const Graph& graph, const std::string& value, DType dtype) {
  const std::optional<TensorType> type = KnownType(graph, value);
  if (!type || type->dtype != dtype || !type->shape) return std::nullopt;
  return type->shape;
}

// The single float32 value of a one-element constant, else nullopt.
std::optional<float> ScalarConstant(const Graph& graph, const std::string& value) {
  const Tensor* t = FindConstant(graph, value);
  if (t == nullptr || t->dtype() != DType::kFloat32 || t->num_elements() != 1) return std::nullopt;
  return t->data<float>()[0];
}

std::vector<int64_t> Perm(const Node& node) {
  auto it = node.attributes.find("perm");
  if (it == node.attributes.end() || !std::holds_alternative<std::vector<int64_t>>(it->second)) {
    return {};
  }
  return std::get<std::vector<int64_t>>(it->second);
}

// One operand as the fused node reads it: a value, its layout, and the
// transposes it was read through (removed when the pattern owned them).
struct Operand {
  std::string value;
  bool sequence_major = false;
  std::vector<size_t> transposes;
};

// A MatMul's scores: [B, H, Sq, Sk] from Q [B, H, Sq, D] and Kᵀ.
struct Scores {
  size_t matmul;
  Operand q, k;
};

class AttentionFuser {
 public:
  explicit AttentionFuser(Graph& graph)
      : graph_(graph), index_(graph), erase_(graph.nodes.size(), false) {}

  bool Run() {
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (graph_.nodes[i].op_type == "Softmax") changed = TryFuse(i) || changed;
    }
    if (!changed) return false;
    EraseNodes(graph_, erase_);
    RemoveUnusedInitializers(graph_, replaced_);
    DropStaleValueTypes(graph_);
    return true;
  }

 private:
  const Node& node(size_t i) const { return graph_.nodes[i]; }

  // The node producing `value` when it is `op` with one output, `value` has
  // no reader but the pattern and is not fetched.
  std::optional<size_t> PrivateProducer(const std::string& value, const std::string& op) const {
    if (!index_.has_single_private_use(value)) return std::nullopt;
    const std::optional<size_t> p = index_.producer(value);
    if (!p || erase_[*p] || node(*p).op_type != op || node(*p).outputs.size() != 1) {
      return std::nullopt;
    }
    return p;
  }

  // Whether `value` comes from a Transpose with permutation `perm`; the
  // Transpose's index.
  std::optional<size_t> TransposeOf(const std::string& value,
                                    const std::vector<int64_t>& perm) const {
    const std::optional<size_t> p = index_.producer(value);
    if (!p || erase_[*p] || node(*p).op_type != "Transpose" || node(*p).inputs.size() != 1 ||
        Perm(node(*p)) != perm) {
      return std::nullopt;
    }
    return p;
  }

  // The transposes of `operand` the pattern may remove: those whose output
  // only the pattern reads, from the outermost in.
  void Own(Operand& operand, std::vector<size_t> chain) const {
    for (size_t t : chain) {
      if (!index_.has_single_private_use(node(t).outputs[0])) break;
      operand.transposes.push_back(t);
    }
  }

  // Q or V: [B, H, S, X], or X [B, S, H, X] through Transpose [0, 2, 1, 3].
  Operand ReadHeadsOperand(const std::string& value) const {
    if (const auto t = TransposeOf(value, {0, 2, 1, 3})) {
      Operand op{node(*t).inputs[0], true, {}};
      Own(op, {*t});
      // A transpose someone else reads stays, and so must be computed
      // anyway: read its output rather than its input.
      if (op.transposes.empty()) return Operand{value, false, {}};
      return op;
    }
    return Operand{value, false, {}};
  }

  // K from Kᵀ = `value`, or nullopt when no transpose made it.
  std::optional<Operand> ReadKeys(const std::string& value) const {
    if (const auto t = TransposeOf(value, {0, 2, 3, 1})) {
      Operand op{node(*t).inputs[0], true, {}};
      Own(op, {*t});
      return op;
    }
    const auto t = TransposeOf(value, {0, 1, 3, 2});
    if (!t) return std::nullopt;
    const std::string& k = node(*t).inputs[0];
    if (const auto inner = TransposeOf(k, {0, 2, 1, 3});
        inner && index_.has_single_private_use(k)) {
      Operand op{node(*inner).inputs[0], true, {}};
      Own(op, {*t, *inner});
      if (op.transposes.size() == 2) return op;
    }
    Operand op{k, false, {}};
    Own(op, {*t});
    return op;
  }

  // The dims of an operand in [B, H, S, X] order, when float32 rank 4.
  std::optional<SymbolicShape> OperandDims(const Operand& op) const {
    std::optional<SymbolicShape> s = ShapeOf(graph_, op.value, DType::kFloat32);
    if (!s || s->size() != 4) return std::nullopt;
    if (op.sequence_major) std::swap((*s)[1], (*s)[2]);
    return s;
  }

  // Whether `mask` (of dtype `dtype`) broadcasts to `scores` without
  // growing it: right-aligned, each dim 1 or equal.
  bool MaskFits(const std::string& mask, DType dtype, const SymbolicShape& scores) const {
    const std::optional<SymbolicShape> m = ShapeOf(graph_, mask, dtype);
    if (!m || m->size() > scores.size()) return false;
    const size_t offset = scores.size() - m->size();
    for (size_t a = 0; a < m->size(); ++a) {
      const Dim& d = (*m)[a];
      if (!(d.is_known() && d.size() == 1) && !(d == scores[a + offset])) return false;
    }
    return true;
  }

  bool TryFuse(size_t softmax) {
    const Node& sm = node(softmax);
    if (sm.inputs.size() != 1 || sm.outputs.size() != 1) return false;
    // The product with V: the Softmax's only reader, as its first operand.
    if (!index_.has_single_private_use(sm.outputs[0])) return false;
    const size_t pv = index_.consumers(sm.outputs[0])[0];
    if (node(pv).op_type != "MatMul" || node(pv).inputs.size() != 2 ||
        node(pv).inputs[0] != sm.outputs[0] || node(pv).outputs.size() != 1) {
      return false;
    }

    Attributes attrs;  // LoomAttention's, filled as the pattern is read
    std::vector<size_t> fused = {softmax};
    std::string mask;
    // Walk back from the Softmax input: mask, then scale, then Q·Kᵀ.
    std::string x = sm.inputs[0];
    if (auto add = PrivateProducer(x, "Add")) {
      const Node& a = node(*add);
      // The operand that continues the chain is the one a Div/Mul/MatMul makes.
      const int chain = ContinuesChain(a.inputs[0]) ? 0 : ContinuesChain(a.inputs[1]) ? 1 : -1;
      if (chain < 0) return false;
      x = a.inputs[static_cast<size_t>(chain)];
      mask = a.inputs[static_cast<size_t>(1 - chain)];
      fused.push_back(*add);
    } else if (auto where = PrivateProducer(x, "Where")) {
      const Node& w = node(*where);
      if (w.inputs.size() != 3) return false;
      const std::optional<float> fill = ScalarConstant(graph_, w.inputs[2]);
      if (!fill || !ContinuesChain(w.inputs[1]) || w.inputs[0] == w.inputs[1]) return false;
      x = w.inputs[1];
      mask = w.inputs[0];
      attrs["mask_fill"] = *fill;
      fused.push_back(*where);
    }
    std::optional<float> scale;
    if (auto div = PrivateProducer(x, "Div")) {
      const std::optional<float> c = ScalarConstant(graph_, node(*div).inputs[1]);
      if (!c || *c == 0.0f) return false;
      scale = 1.0f / *c;
      x = node(*div).inputs[0];
      fused.push_back(*div);
    } else if (auto mul = PrivateProducer(x, "Mul")) {
      const Node& m = node(*mul);
      for (size_t side = 0; side < 2 && !scale; ++side) {
        scale = ScalarConstant(graph_, m.inputs[side]);
        if (scale) x = m.inputs[1 - side];
      }
      if (!scale) return false;
      fused.push_back(*mul);
    }
    const std::optional<size_t> qk = PrivateProducer(x, "MatMul");
    if (!qk || node(*qk).inputs.size() != 2) return false;
    fused.push_back(*qk);

    // Operands and their shapes.
    const Operand q = ReadHeadsOperand(node(*qk).inputs[0]);
    const std::optional<Operand> k = ReadKeys(node(*qk).inputs[1]);
    const Operand v = ReadHeadsOperand(node(pv).inputs[1]);
    if (!k) return false;
    const std::optional<SymbolicShape> qd = OperandDims(q);
    const std::optional<SymbolicShape> kd = OperandDims(*k);
    const std::optional<SymbolicShape> vd = OperandDims(v);
    const std::optional<SymbolicShape> scores = ShapeOf(graph_, x, DType::kFloat32);
    const std::optional<SymbolicShape> probs = ShapeOf(graph_, sm.inputs[0], DType::kFloat32);
    if (!qd || !kd || !vd || !scores || scores->size() != 4 || probs != scores) return false;
    // No broadcasting between the operands: equal B and H, Q's and K's
    // depth, K's and V's length.
    if ((*kd)[0] != (*qd)[0] || (*kd)[1] != (*qd)[1] || (*kd)[3] != (*qd)[3] ||
        (*vd)[0] != (*qd)[0] || (*vd)[1] != (*qd)[1] || (*vd)[2] != (*kd)[2]) {
      return false;
    }
    const SymbolicShape want = {(*qd)[0], (*qd)[1], (*qd)[2], (*kd)[2]};
    if (*scores != want || !SoftmaxOnLastAxis(sm)) return false;
    if (!mask.empty()) {
      const bool where = node(fused[1]).op_type == "Where";
      if (!MaskFits(mask, where ? DType::kBool : DType::kFloat32, want)) return false;
      const float fill = where ? std::get<float>(attrs["mask_fill"]) : 0.0f;
      if (IsCausalMask(mask, where, fill)) {
        // The kernel skips the key blocks past the diagonal instead.
        attrs.erase("mask_fill");
        attrs["causal"] = int64_t{1};
        mask.clear();
      }
    }

    // Rewrite: the second MatMul becomes the fused node.
    attrs["scale"] = scale.value_or(1.0f);
    if (q.sequence_major) attrs["q_layout"] = std::string("bshd");
    if (k->sequence_major) attrs["k_layout"] = std::string("bshd");
    if (v.sequence_major) attrs["v_layout"] = std::string("bshd");
    Node& out = graph_.nodes[pv];
    out.op_type = "LoomAttention";
    out.inputs = {q.value, k->value, v.value};
    if (!mask.empty()) out.inputs.push_back(mask);
    out.attributes = std::move(attrs);
    for (size_t f : fused) {
      erase_[f] = true;
      const std::vector<std::string>& inputs = node(f).inputs;
      replaced_.insert(replaced_.end(), inputs.begin(), inputs.end());
    }
    for (const Operand* op : {&q, &*k, &v}) {
      for (size_t t : op->transposes) erase_[t] = true;
    }
    return true;
  }

  // Whether `value` can be the scores below a mask: a private MatMul, or a
  // private Div/Mul of one (the mask may itself be a private Mul).
  bool ContinuesChain(const std::string& value) const {
    if (PrivateProducer(value, "MatMul")) return true;
    std::optional<size_t> scaled = PrivateProducer(value, "Div");
    if (!scaled) scaled = PrivateProducer(value, "Mul");
    if (!scaled) return false;
    for (const std::string& input : node(*scaled).inputs) {
      if (PrivateProducer(input, "MatMul")) return true;
    }
    return false;
  }

  // Whether `mask` is a constant [1, ..., 1, Sq, Sk] causal mask: query i
  // sees key j exactly when j <= i. Additive: 0 there, and -inf or at most
  // kHidden elsewhere; bool (Where with `fill`): true there, and fill -inf
  // or at most kHidden. Such a score's exp is exactly 0 next to any finite
  // visible score, and every row sees key 0, so leaving those keys out
  // (causal = 1) computes the same.
  bool IsCausalMask(const std::string& mask, bool is_bool, float fill) const {
    constexpr float kHidden = -1e30f;
    const Tensor* t = FindConstant(graph_, mask);
    if (t == nullptr || t->shape().rank() < 2 || (is_bool && fill > kHidden)) return false;
    const int rank = t->shape().rank();
    for (int a = 0; a < rank - 2; ++a) {
      if (t->shape().dim(a) != 1) return false;
    }
    const int64_t rows = t->shape().dim(rank - 2), cols = t->shape().dim(rank - 1);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t at = i * cols + j;
        const bool ok =
            is_bool ? t->data<bool>()[at] == (j <= i)
                    : (j <= i ? t->data<float>()[at] == 0.0f : t->data<float>()[at] <= kHidden);
        if (!ok) return false;
      }
    }
    return true;
  }

  bool SoftmaxOnLastAxis(const Node& sm) const {
    int64_t axis = -1;
    if (auto it = sm.attributes.find("axis"); it != sm.attributes.end()) {
      if (!std::holds_alternative<int64_t>(it->second)) return false;
      axis = std::get<int64_t>(it->second);
    }
    return axis == -1 || axis == 3;
  }

  Graph& graph_;
  const GraphIndex index_;
  std::vector<bool> erase_;
  std::vector<std::string> replaced_;
};

}  // namespace

bool FuseAttention(Graph& graph) { return AttentionFuser(graph).Run(); }

}  // namespace loom::graph
