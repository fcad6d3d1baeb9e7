// FuseBiasAndActivation: Conv/Gemm → Add(constant bias) → activation becomes
// one Conv/Gemm with a bias input and the fused-activation attributes, which
// the kernels apply to each output tile while it is in cache (conv.cc's
// ConvEpilogue, matmul.cc's epilogues). A MatMul whose B is a constant 2-D
// float32 matrix becomes a FusedMatMul (kernels/gemm/matmul.h) when anything
// fuses into it; plain MatMul has no bias input or activation.
//
// A bias fuses when it is the same for every position of a channel: right-
// aligned against the output, every axis but the channel axis has size 1.
// The channel axis is 1 for Conv: [1, M, 1, 1] or [M, 1, 1] — not [M], which
// broadcasts along the last spatial axis. For Gemm ([rows, N]) and MatMul
// ([..., rows, N]) it is the last: [N], [1, N], [1, 1, N].
//
// Each fused node keeps its name and takes the last fused node's output
// name. Matches never overlap: every intermediate has a single consumer, so
// each chain belongs to one Conv/Gemm.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "graph/passes/graph_edit.h"
#include "graph/passes/passes.h"
#include "kernels/fused_activation.h"

namespace loom::graph {
namespace {

using kernels::Activation;
using kernels::ActivationKind;

constexpr float kInfinity = std::numeric_limits<float>::infinity();

template <typename T>
T AttributeOr(const Node& node, const std::string& name, T fallback) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end() || !std::holds_alternative<T>(it->second)) return fallback;
  return std::get<T>(it->second);
}

// What is known of `value`'s shape (KnownType's).
std::optional<SymbolicShape> KnownShape(const Graph& graph, const std::string& value) {
  const std::optional<TensorType> type = KnownType(graph, value);
  if (!type) return std::nullopt;
  return type->shape;
}

// A Clip bound: the constant one-element input `index`, else the float
// attribute `name`, else `unbounded`; nullopt when the input is not constant.
std::optional<float> ClipBound(const Graph& graph, const Node& clip, size_t index,
                               const std::string& name, float unbounded) {
  if (index < clip.inputs.size() && !clip.inputs[index].empty()) {
    const Tensor* bound = FindConstant(graph, clip.inputs[index]);
    if (bound == nullptr || bound->dtype() != DType::kFloat32 || bound->num_elements() != 1) {
      return std::nullopt;
    }
    return bound->data<float>()[0];
  }
  return AttributeOr<float>(clip, name, unbounded);
}

// The activation `node` applies to its input 0, with ONNX's attribute
// defaults; nullopt when it is not one the kernels fuse.
std::optional<Activation> ReadActivation(const Graph& graph, const Node& node) {
  const std::string& op = node.op_type;
  if (node.outputs.size() != 1) return std::nullopt;
  Activation activation;
  if (op == "Relu") {
    activation.kind = ActivationKind::kRelu;
  } else if (op == "LeakyRelu") {
    activation = {ActivationKind::kLeakyRelu, AttributeOr<float>(node, "alpha", 0.01f)};
  } else if (op == "Sigmoid") {
    activation.kind = ActivationKind::kSigmoid;
  } else if (op == "Tanh") {
    activation.kind = ActivationKind::kTanh;
  } else if (op == "HardSigmoid") {
    activation = {ActivationKind::kHardSigmoid, AttributeOr<float>(node, "alpha", 0.2f),
                  AttributeOr<float>(node, "beta", 0.5f)};
  } else if (op == "HardSwish") {
    activation.kind = ActivationKind::kHardSwish;
  } else if (op == "Silu") {
    activation.kind = ActivationKind::kSilu;
  } else if (op == "Gelu") {
    const std::string approximate = AttributeOr<std::string>(node, "approximate", "none");
    if (approximate != "none" && approximate != "tanh") return std::nullopt;
    activation.kind = ActivationKind::kGelu;
    activation.gelu_tanh = approximate == "tanh";
  } else if (op == "Clip") {
    const std::optional<float> low = ClipBound(graph, node, 1, "min", -kInfinity);
    const std::optional<float> high = ClipBound(graph, node, 2, "max", kInfinity);
    if (!low || !high) return std::nullopt;
    activation = {ActivationKind::kClip, *low, *high};
  } else {
    return std::nullopt;
  }
  return activation;
}

// Where a product's bias varies: the output's rank, its channel axis and
// the number of channels.
struct OutputGeometry {
  int rank;
  int channel_axis;
  int64_t channels;
};

// The per-channel values of `bias` added to an output of that geometry;
// nullopt when the bias varies along another axis or would grow the output.
std::optional<std::vector<float>> PerChannelBias(const Tensor& bias, const OutputGeometry& out) {
  const int rank = out.rank;
  const int64_t channels = out.channels;
  const Shape& shape = bias.shape();
  if (bias.dtype() != DType::kFloat32 || shape.rank() > rank) return std::nullopt;
  bool per_channel = false;
  for (int j = 0; j < shape.rank(); ++j) {
    const int axis = j + rank - shape.rank();
    const int64_t size = shape.dims()[static_cast<size_t>(j)];
    if (axis == out.channel_axis && size == channels) {
      per_channel = true;
    } else if (size != 1) {
      return std::nullopt;
    }
  }
  std::vector<float> values(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    values[static_cast<size_t>(c)] = bias.data<float>()[per_channel ? c : 0];
  }
  return values;
}

class Fuser {
 public:
  explicit Fuser(Graph& graph)
      : graph_(graph), index_(graph), names_(graph), erase_(graph.nodes.size(), false) {}

  bool Run() {
    bool changed = false;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const Node& node = graph_.nodes[i];
      const bool matmul = IsFusableMatMul(node);
      if ((node.op_type != "Conv" && node.op_type != "Gemm" && !matmul) ||
          node.outputs.size() != 1 || node.attributes.count("activation") > 0) {
        continue;
      }
      const bool bias = FuseBias(i);
      const bool activation = FuseActivation(i);
      if (matmul && (bias || activation)) graph_.nodes[i].op_type = "FusedMatMul";
      changed = changed || bias || activation;
    }
    if (!changed) return false;
    EraseNodes(graph_, erase_);
    RemoveUnusedInitializers(graph_, replaced_);
    DropStaleValueTypes(graph_);
    return true;
  }

 private:
  // MatMul(A, B) with B a constant float32 matrix: FusedMatMul's inputs.
  bool IsFusableMatMul(const Node& node) const {
    if (node.op_type != "MatMul" || node.inputs.size() != 2) return false;
    const Tensor* b = FindConstant(graph_, node.inputs[1]);
    return b != nullptr && b->dtype() == DType::kFloat32 && b->shape().rank() == 2;
  }

  // The output geometry of a Conv/Gemm/MatMul, from its weights' shape (and
  // for MatMul, A's rank).
  std::optional<OutputGeometry> GeometryOf(const Node& node) const {
    if (node.inputs.size() < 2) return std::nullopt;
    const std::optional<SymbolicShape> w = KnownShape(graph_, node.inputs[1]);
    if (node.op_type == "Conv") {
      if (!w || w->size() < 3 || !(*w)[0].is_known()) return std::nullopt;
      return OutputGeometry{static_cast<int>(w->size()), 1, (*w)[0].size()};
    }
    if (node.op_type == "MatMul") {
      const std::optional<SymbolicShape> a = KnownShape(graph_, node.inputs[0]);
      if (!a || a->size() < 2 || !w || w->size() != 2 || !(*w)[1].is_known()) {
        return std::nullopt;
      }
      const int rank = static_cast<int>(a->size());
      return OutputGeometry{rank, rank - 1, (*w)[1].size()};
    }
    const bool trans_b = AttributeOr<int64_t>(node, "transB", 0) != 0;
    if (!w || w->size() != 2 || !(*w)[trans_b ? 0 : 1].is_known()) return std::nullopt;
    return OutputGeometry{2, 1, (*w)[trans_b ? 0 : 1].size()};
  }

  bool FuseBias(size_t producer) {
    Node& node = graph_.nodes[producer];
    if (node.inputs.size() >= 3 && !node.inputs[2].empty()) return false;
    const std::string& y = node.outputs[0];
    if (!index_.has_single_private_use(y)) return false;
    const size_t add_index = index_.consumers(y)[0];
    const Node& add = graph_.nodes[add_index];
    if (add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1) return false;
    const std::string& other = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
    const Tensor* bias = FindConstant(graph_, other);
    const std::optional<OutputGeometry> geometry = GeometryOf(node);
    if (bias == nullptr || !geometry) return false;
    const auto values = PerChannelBias(*bias, *geometry);
    if (!values) return false;

    std::string bias_name = other;
    if (bias->shape().rank() != 1 || bias->shape().dim(0) != geometry->channels) {
      bias_name = names_.Fresh(node.name + "_bias");
      graph_.initializers[bias_name] = Tensor::from_vector(Shape({geometry->channels}), *values);
      replaced_.push_back(other);
    }
    node.inputs.resize(3);
    node.inputs[2] = bias_name;
    // Gemm scales C by beta; it had no C, so beta was unused until now.
    if (node.attributes.count("beta") > 0) node.attributes["beta"] = 1.0f;
    node.outputs[0] = add.outputs[0];
    erase_[add_index] = true;
    return true;
  }

  bool FuseActivation(size_t producer) {
    Node& node = graph_.nodes[producer];
    const std::string& y = node.outputs[0];
    if (index_.is_graph_output(y)) return false;
    const std::vector<size_t>& consumers = index_.consumers(y);
    std::optional<Activation> activation;
    std::vector<size_t> fused;
    if (consumers.size() == 1) {
      const Node& act = graph_.nodes[consumers[0]];
      if (act.inputs.empty() || act.inputs[0] != y) return false;
      for (size_t k = 1; k < act.inputs.size(); ++k) {
        if (act.inputs[k] == y) return false;
      }
      activation = ReadActivation(graph_, act);
      fused = {consumers[0]};
    } else if (consumers.size() == 2) {
      activation = MatchSiluProduct(y, consumers, fused);
    }
    if (!activation) return false;
    kernels::SetFusedActivationAttributes(*activation, node.attributes);
    node.outputs[0] = graph_.nodes[fused.back()].outputs[0];
    for (size_t k : fused) {
      erase_[k] = true;
      // Clip's bounds, now copied into activation_params.
      const std::vector<std::string>& inputs = graph_.nodes[k].inputs;
      replaced_.insert(replaced_.end(), inputs.begin(), inputs.end());
    }
    return true;
  }

  // Mul(y, Sigmoid(y)) in either operand order, the Sigmoid private to the
  // Mul: Silu. Sets `fused` to {sigmoid, mul}.
  std::optional<Activation> MatchSiluProduct(const std::string& y,
                                             const std::vector<size_t>& consumers,
                                             std::vector<size_t>& fused) const {
    for (int first = 0; first < 2; ++first) {
      const size_t s = consumers[static_cast<size_t>(first)];
      const size_t m = consumers[static_cast<size_t>(1 - first)];
      const Node& sigmoid = graph_.nodes[s];
      const Node& mul = graph_.nodes[m];
      if (sigmoid.op_type != "Sigmoid" || sigmoid.inputs.size() != 1 ||
          sigmoid.outputs.size() != 1 || mul.op_type != "Mul" || mul.inputs.size() != 2 ||
          mul.outputs.size() != 1) {
        continue;
      }
      const std::string& gate = sigmoid.outputs[0];
      const bool operands = (mul.inputs[0] == y && mul.inputs[1] == gate) ||
                            (mul.inputs[0] == gate && mul.inputs[1] == y);
      if (!operands || !index_.has_single_private_use(gate)) continue;
      fused = {s, m};
      return Activation{ActivationKind::kSilu};
    }
    return std::nullopt;
  }

  Graph& graph_;
  const GraphIndex index_;
  NameGenerator names_;
  std::vector<bool> erase_;
  std::vector<std::string> replaced_;
};

}  // namespace

bool FuseBiasAndActivation(Graph& graph) { return Fuser(graph).Run(); }

}  // namespace loom::graph
