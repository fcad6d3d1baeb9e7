// FuseLayerNormalization: the layer norm PyTorch's exporter writes before
// opset 17, one op per step,
//
//   mean = ReduceMean(x, axes=[-1])      d = Sub(x, mean)
//   var = ReduceMean(Pow(d, 2))          (or Mul(d, d): SimplifyPow's form)
//   std = Sqrt(Add(var, eps))            n = Div(d, std)   (or Mul(d, Reciprocal(std)))
//   y = Add(Mul(n, scale), bias)         (Mul and Add optional)
//
// becomes one LayerNormalization(x, scale, bias) {axis=-1, epsilon}: one
// kernel making three passes over each row while it is in cache, instead of
// up to nine ops each streaming a full-size tensor through memory. The
// kernel computes the same two-pass statistics (layer_norm.cc).
//
// The anchor is the first ReduceMean. x itself stays (it may have other
// readers); everything between x and y must be read only where the pattern
// reads it and not be fetched: mean by the Sub, d by the square and the
// division, each other intermediate by the next step. The optional Mul/Add
// are taken when their other operand is a float32 constant that varies
// along the last axis only ([C], [1, C], a scalar, ...); otherwise they stay
// as they are after the fused node.
//
// The fused node takes the last matched node's name and output. Matches
// never overlap: the output of every node a match erases is read only inside
// that match, and a node already claimed by a match is not matched again.
#include <optional>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"

namespace loom::graph {
namespace {

template <typename T>
T AttributeOr(const Node& node, const std::string& name, T fallback) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end() || !std::holds_alternative<T>(it->second)) return fallback;
  return std::get<T>(it->second);
}

// The other operand of a two-input `node` that reads `value` once; "" when
// it does not.
std::string OtherOperand(const Node& node, const std::string& value) {
  if (node.inputs.size() != 2 || node.inputs[0] == node.inputs[1]) return "";
  if (node.inputs[0] == value) return node.inputs[1];
  if (node.inputs[1] == value) return node.inputs[0];
  return "";
}

// A one-element float32 constant whose rank is at most `rank` (so adding it
// keeps the shape); nullopt otherwise.
std::optional<float> ScalarConstant(const Graph& graph, const std::string& value, int rank) {
  const Tensor* t = FindConstant(graph, value);
  if (t == nullptr || t->dtype() != DType::kFloat32 || t->num_elements() != 1 ||
      t->shape().rank() > rank) {
    return std::nullopt;
  }
  return t->data<float>()[0];
}

// The layer norm's shape: rank and last dim of x.
struct RowShape {
  int rank;
  int64_t channels;
};

struct Match {
  std::string x;
  float epsilon = 0;
  std::string scale;                   // a constant operand, or "" (ones)
  std::string bias;                    // a constant operand, or ""
  std::vector<size_t> nodes;           // every matched node; the last one is rewritten
  std::vector<std::string> constants;  // what the erased nodes read
};

class LayerNormFuser {
 public:
  explicit LayerNormFuser(Graph& graph)
      : graph_(graph), index_(graph), names_(graph), used_(graph.nodes.size(), false) {}

  bool Run() {
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (graph_.nodes[i].op_type != "ReduceMean" || used_[i]) continue;
      std::optional<Match> match = MatchFrom(i);
      if (!match) continue;
      Rewrite(*match);
      changed = true;
    }
    if (!changed) return false;
    std::vector<bool> erase(graph_.nodes.size(), false);
    for (size_t k : erased_) erase[k] = true;
    EraseNodes(graph_, erase);
    RemoveUnusedInitializers(graph_, replaced_);
    DropStaleValueTypes(graph_);
    return true;
  }

 private:
  // True when `node` is a one-output ReduceMean over the last axis of a
  // rank-`rank` input, keeping dims, axes as attribute or constant input.
  bool ReducesLastAxis(const Node& node, int rank, Match& match) const {
    if (node.op_type != "ReduceMean" || node.outputs.size() != 1 || node.inputs.empty() ||
        AttributeOr<int64_t>(node, "keepdims", 1) != 1) {
      return false;
    }
    const std::optional<std::vector<int64_t>> axes = ReduceAxes(graph_, node);
    if (!axes || axes->size() != 1 || ((*axes)[0] != -1 && (*axes)[0] != rank - 1)) return false;
    if (node.inputs.size() >= 2 && !node.inputs[1].empty()) {
      match.constants.push_back(node.inputs[1]);
    }
    return true;
  }

  // The single private reader of `value`, when it is a node with one output
  // not yet claimed by another match.
  std::optional<size_t> OnlyReader(const std::string& value) const {
    if (!index_.has_single_private_use(value)) return std::nullopt;
    const size_t k = index_.consumers(value)[0];
    if (used_[k] || graph_.nodes[k].outputs.size() != 1) return std::nullopt;
    return k;
  }

  // A float32 constant to broadcast along the last axis of the rows: every
  // dim 1 but the last, which is 1 or C, and no more dims than x.
  bool IsRowConstant(const std::string& value, const RowShape& row) const {
    const Tensor* t = FindConstant(graph_, value);
    if (t == nullptr || t->dtype() != DType::kFloat32 || t->shape().rank() > row.rank) {
      return false;
    }
    const std::vector<int64_t>& dims = t->shape().dims();
    for (size_t j = 0; j < dims.size(); ++j) {
      const bool last = j + 1 == dims.size();
      if (dims[j] != 1 && !(last && dims[j] == row.channels)) return false;
    }
    return true;
  }

  std::optional<RowShape> RowShapeOf(const std::string& x) const {
    const std::optional<TensorType> type = KnownType(graph_, x);
    if (!type || type->dtype != DType::kFloat32 || !type->shape || type->shape->empty()) {
      return std::nullopt;
    }
    const Dim& last = type->shape->back();
    if (!last.is_known()) return std::nullopt;
    return RowShape{static_cast<int>(type->shape->size()), last.size()};
  }

  std::optional<Match> MatchFrom(size_t first) const {
    const Node& mean_node = graph_.nodes[first];
    if (mean_node.inputs.empty()) return std::nullopt;
    Match m;
    m.x = mean_node.inputs[0];
    const std::optional<RowShape> row = RowShapeOf(m.x);
    if (!row || !ReducesLastAxis(mean_node, row->rank, m)) return std::nullopt;
    m.nodes.push_back(first);

    // d = Sub(x, mean), read by the square and the division only.
    const std::optional<size_t> sub_index = OnlyReader(mean_node.outputs[0]);
    if (!sub_index) return std::nullopt;
    const Node& sub = graph_.nodes[*sub_index];
    if (sub.op_type != "Sub" || sub.inputs.size() != 2 || sub.inputs[0] != m.x ||
        sub.inputs[1] != mean_node.outputs[0]) {
      return std::nullopt;
    }
    m.nodes.push_back(*sub_index);
    const std::string& d = sub.outputs[0];
    if (index_.is_graph_output(d)) return std::nullopt;
    std::vector<size_t> readers = index_.consumers(d);
    std::optional<size_t> square_index;
    std::optional<size_t> divide_index;
    for (size_t k : readers) {
      if (used_[k]) return std::nullopt;
      const Node& reader = graph_.nodes[k];
      const bool square =
          (reader.op_type == "Mul" && reader.inputs.size() == 2 && reader.inputs[0] == d &&
           reader.inputs[1] == d) ||
          (reader.op_type == "Pow" && reader.inputs.size() == 2 && reader.inputs[0] == d &&
           ScalarConstant(graph_, reader.inputs[1], row->rank) == 2.0f);
      if (square) {
        if (square_index && *square_index != k) return std::nullopt;
        square_index = k;
      } else {
        if (divide_index) return std::nullopt;
        divide_index = k;
      }
    }
    if (!square_index || !divide_index) return std::nullopt;
    const Node& square = graph_.nodes[*square_index];
    if (square.outputs.size() != 1) return std::nullopt;
    if (square.op_type == "Pow") m.constants.push_back(square.inputs[1]);
    m.nodes.push_back(*square_index);

    // var = ReduceMean(square); std = Sqrt(Add(var, eps)).
    const std::optional<size_t> var_index = OnlyReader(square.outputs[0]);
    if (!var_index || !ReducesLastAxis(graph_.nodes[*var_index], row->rank, m) ||
        graph_.nodes[*var_index].inputs[0] != square.outputs[0]) {
      return std::nullopt;
    }
    m.nodes.push_back(*var_index);
    const std::string& var = graph_.nodes[*var_index].outputs[0];
    const std::optional<size_t> add_index = OnlyReader(var);
    if (!add_index || graph_.nodes[*add_index].op_type != "Add") return std::nullopt;
    const std::string eps_name = OtherOperand(graph_.nodes[*add_index], var);
    const std::optional<float> epsilon = ScalarConstant(graph_, eps_name, row->rank);
    if (!epsilon) return std::nullopt;
    m.epsilon = *epsilon;
    m.constants.push_back(eps_name);
    m.nodes.push_back(*add_index);
    const std::optional<size_t> sqrt_index = OnlyReader(graph_.nodes[*add_index].outputs[0]);
    if (!sqrt_index || graph_.nodes[*sqrt_index].op_type != "Sqrt" ||
        graph_.nodes[*sqrt_index].inputs.size() != 1) {
      return std::nullopt;
    }
    m.nodes.push_back(*sqrt_index);

    // n = Div(d, std), or Mul(d, Reciprocal(std)) in either order.
    const std::string& std_dev = graph_.nodes[*sqrt_index].outputs[0];
    const std::optional<size_t> std_reader = OnlyReader(std_dev);
    if (!std_reader) return std::nullopt;
    const Node& divide = graph_.nodes[*divide_index];
    if (divide.outputs.size() != 1) return std::nullopt;
    if (*std_reader == *divide_index) {
      if (divide.op_type != "Div" || divide.inputs.size() != 2 || divide.inputs[0] != d ||
          divide.inputs[1] != std_dev) {
        return std::nullopt;
      }
    } else {
      const Node& reciprocal = graph_.nodes[*std_reader];
      if (reciprocal.op_type != "Reciprocal" || reciprocal.inputs.size() != 1 ||
          !index_.has_single_private_use(reciprocal.outputs[0]) ||
          index_.consumers(reciprocal.outputs[0])[0] != *divide_index || divide.op_type != "Mul" ||
          OtherOperand(divide, d) != reciprocal.outputs[0]) {
        return std::nullopt;
      }
      m.nodes.push_back(*std_reader);
    }
    m.nodes.push_back(*divide_index);

    // Optional Mul(n, scale), then optional Add(·, bias).
    std::string y = divide.outputs[0];
    if (const std::optional<size_t> k = OnlyReader(y); k && graph_.nodes[*k].op_type == "Mul") {
      const std::string scale = OtherOperand(graph_.nodes[*k], y);
      if (!scale.empty() && IsRowConstant(scale, *row)) {
        m.scale = scale;
        m.nodes.push_back(*k);
        y = graph_.nodes[*k].outputs[0];
      }
    }
    if (const std::optional<size_t> k = OnlyReader(y); k && graph_.nodes[*k].op_type == "Add") {
      const std::string bias = OtherOperand(graph_.nodes[*k], y);
      if (!bias.empty() && IsRowConstant(bias, *row)) {
        m.bias = bias;
        m.nodes.push_back(*k);
      }
    }
    return m;
  }

  // `name` when the constant is already [C], else a fresh [C] initializer
  // "<node>_<what>" holding it broadcast to the row (ones when `name` is "").
  std::string RowInitializer(const std::string& name, const std::string& node,
                             const std::string& what, int64_t channels) {
    const Tensor* t = name.empty() ? nullptr : FindConstant(graph_, name);
    if (t != nullptr && t->shape().rank() == 1 && t->shape().dim(0) == channels) return name;
    std::vector<float> values(static_cast<size_t>(channels), 1.0f);
    if (t != nullptr) {
      for (int64_t c = 0; c < channels; ++c) {
        values[static_cast<size_t>(c)] = t->data<float>()[t->num_elements() == 1 ? 0 : c];
      }
      replaced_.push_back(name);
    }
    const std::string fresh = names_.Fresh(node + "_" + what);
    graph_.initializers[fresh] = Tensor::from_vector(Shape({channels}), values);
    return fresh;
  }

  void Rewrite(const Match& m) {
    const int64_t channels = RowShapeOf(m.x)->channels;
    Node& last = graph_.nodes[m.nodes.back()];
    std::vector<std::string> inputs = {m.x, RowInitializer(m.scale, last.name, "scale", channels)};
    if (!m.bias.empty()) inputs.push_back(RowInitializer(m.bias, last.name, "bias", channels));
    last.op_type = "LayerNormalization";
    last.inputs = std::move(inputs);
    last.attributes = {{"axis", int64_t{-1}}, {"epsilon", m.epsilon}};
    for (size_t k : m.nodes) used_[k] = true;
    erased_.insert(erased_.end(), m.nodes.begin(), m.nodes.end() - 1);
    replaced_.insert(replaced_.end(), m.constants.begin(), m.constants.end());
  }

  Graph& graph_;
  const GraphIndex index_;
  NameGenerator names_;
  std::vector<bool> used_;
  std::vector<size_t> erased_;
  std::vector<std::string> replaced_;
};

}  // namespace

bool FuseLayerNormalization(Graph& graph) { return LayerNormFuser(graph).Run(); }

}  // namespace loom::graph
