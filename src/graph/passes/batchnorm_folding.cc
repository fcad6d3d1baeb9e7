// FoldBatchNormalization. Inference BatchNormalization is per channel c
//   y = (x - mean[c]) * a[c] + bias[c],  a[c] = scale[c] / sqrt(var[c] + epsilon),
// and x is linear in the Conv weights (or Gemm's B) of output channel c, so
//   W'[c, ...] = W[c, ...] * a[c]
//   B'[c]      = (B[c] - mean[c]) * a[c] + bias[c]
// computes y directly. a and B' are computed in double, as the kernel does.
// For Gemm, Y = alpha * A B + beta * C, the channel is the column n: B's
// column n (row n when transB) is scaled, and C' = beta * C * a + bias -
// mean * a with beta then 1; C must not vary along rows so C' is a vector.
//
// The Conv/Gemm keeps its name and takes the BatchNormalization's output
// name, so everything downstream is unchanged. Matches never overlap: each
// BatchNormalization is the only consumer of its own Conv/Gemm.
#include <cmath>
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

// A constant bias input of `node` (index 2), as per-channel values; an
// absent one is zeros. nullopt when present but not a constant of `shape_ok`.
template <typename ShapeOk>
std::optional<std::vector<double>> ReadBias(const Graph& graph, const Node& node, int64_t channels,
                                            ShapeOk shape_ok) {
  std::vector<double> values(static_cast<size_t>(channels), 0.0);
  if (node.inputs.size() < 3 || node.inputs[2].empty()) return values;
  const Tensor* bias = FindConstant(graph, node.inputs[2]);
  if (bias == nullptr || bias->dtype() != DType::kFloat32 || !shape_ok(bias->shape())) {
    return std::nullopt;
  }
  // Per-channel or broadcast from one value (the shape check allows no other).
  const bool single = bias->num_elements() == 1;
  for (int64_t c = 0; c < channels; ++c) values[c] = bias->data<float>()[single ? 0 : c];
  return values;
}

Tensor BiasTensor(const ChannelAffine& bn, const std::vector<double>& bias, double bias_scale) {
  Tensor out(DType::kFloat32, Shape({static_cast<int64_t>(bias.size())}));
  for (size_t c = 0; c < bias.size(); ++c) {
    out.data<float>()[c] = static_cast<float>(bias_scale * bias[c] * bn.a[c] + bn.shift[c]);
  }
  return out;
}

struct Folded {
  Tensor weights;
  Tensor bias;
};

std::optional<Folded> FoldIntoConv(const Graph& graph, const Node& conv, const ChannelAffine& bn) {
  const Tensor* w = conv.inputs.size() >= 2 ? FindConstant(graph, conv.inputs[1]) : nullptr;
  const int64_t channels = static_cast<int64_t>(bn.a.size());
  if (w == nullptr || w->dtype() != DType::kFloat32 || w->shape().rank() < 3 ||
      w->shape().dim(0) != channels) {
    return std::nullopt;
  }
  const auto bias = ReadBias(graph, conv, channels, [channels](const Shape& s) {
    return s.rank() == 1 && s.dim(0) == channels;
  });
  if (!bias) return std::nullopt;
  Tensor weights = w->clone();
  const int64_t per_channel = channels == 0 ? 0 : w->num_elements() / channels;
  float* p = weights.data<float>();
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < per_channel; ++i) {
      p[c * per_channel + i] = static_cast<float>(p[c * per_channel + i] * bn.a[c]);
    }
  }
  return Folded{weights, BiasTensor(bn, *bias, 1.0)};
}

std::optional<Folded> FoldIntoGemm(const Graph& graph, const Node& gemm, const ChannelAffine& bn) {
  const Tensor* b = gemm.inputs.size() >= 2 ? FindConstant(graph, gemm.inputs[1]) : nullptr;
  const bool trans_b = AttributeOr<int64_t>(gemm, "transB", 0) != 0;
  const int64_t n = static_cast<int64_t>(bn.a.size());
  if (b == nullptr || b->dtype() != DType::kFloat32 || b->shape().rank() != 2 ||
      b->shape().dim(trans_b ? 0 : 1) != n) {
    return std::nullopt;
  }
  // C must be the same for every row: [], [1], [N], [1, 1] or [1, N].
  const auto bias = ReadBias(graph, gemm, n, [n](const Shape& s) {
    const int64_t last = s.rank() == 0 ? 1 : s.dim(-1);
    return s.rank() <= 2 && (last == 1 || last == n) && (s.rank() < 2 || s.dim(0) == 1);
  });
  if (!bias) return std::nullopt;
  Tensor weights = b->clone();
  float* p = weights.data<float>();
  const int64_t rows = b->shape().dim(0), cols = b->shape().dim(1);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t col = 0; col < cols; ++col) {
      p[r * cols + col] = static_cast<float>(p[r * cols + col] * bn.a[trans_b ? r : col]);
    }
  }
  const double beta = AttributeOr<float>(gemm, "beta", 1.0f);
  return Folded{weights, BiasTensor(bn, *bias, beta)};
}

}  // namespace

bool FoldBatchNormalization(Graph& graph) {
  const GraphIndex index(graph);
  NameGenerator names(graph);
  std::vector<bool> erase(graph.nodes.size(), false);
  std::vector<std::string> replaced;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& bn = graph.nodes[i];
    if (bn.op_type != "BatchNormalization" || bn.inputs.empty()) continue;
    const std::optional<size_t> producer = index.producer(bn.inputs[0]);
    if (!producer || !index.has_single_private_use(bn.inputs[0])) continue;
    Node& node = graph.nodes[*producer];
    const bool conv = node.op_type == "Conv";
    if ((!conv && node.op_type != "Gemm") || node.outputs.size() != 1 ||
        node.attributes.count("activation") > 0) {
      continue;
    }
    const std::optional<ChannelAffine> affine = ReadBatchNormalization(graph, bn);
    if (!affine) continue;
    const std::optional<Folded> folded =
        conv ? FoldIntoConv(graph, node, *affine) : FoldIntoGemm(graph, node, *affine);
    if (!folded) continue;

    const std::string weights = names.Fresh(node.inputs[1] + "_bn");
    const bool has_bias = node.inputs.size() >= 3 && !node.inputs[2].empty();
    const std::string bias = names.Fresh((has_bias ? node.inputs[2] : node.name + "_bias") + "_bn");
    graph.initializers[weights] = folded->weights;
    graph.initializers[bias] = folded->bias;
    replaced.push_back(node.inputs[1]);
    if (has_bias) replaced.push_back(node.inputs[2]);
    replaced.insert(replaced.end(), bn.inputs.begin() + 1, bn.inputs.end());
    node.inputs.resize(3);
    node.inputs[1] = weights;
    node.inputs[2] = bias;
    if (!conv && node.attributes.count("beta") > 0) node.attributes["beta"] = 1.0f;
    node.outputs[0] = bn.outputs[0];
    erase[i] = true;
  }
  if (replaced.empty()) return false;
  EraseNodes(graph, erase);
  RemoveUnusedInitializers(graph, replaced);
  DropStaleValueTypes(graph);
  return true;
}

}  // namespace loom::graph
