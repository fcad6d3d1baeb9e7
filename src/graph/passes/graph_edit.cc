#include "graph/passes/graph_edit.h"

#include <algorithm>
#include <cmath>

namespace loom::graph {
namespace {

constexpr float kDefaultEpsilon = 1e-5f;  // ONNX's default

bool IsFloatVector(const Tensor* t) {
  return t != nullptr && t->dtype() == DType::kFloat32 && t->shape().rank() == 1;
}

template <typename T>
T AttributeOr(const Node& node, const std::string& name, T fallback) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end() || !std::holds_alternative<T>(it->second)) return fallback;
  return std::get<T>(it->second);
}

}  // namespace

std::optional<ChannelAffine> ReadBatchNormalization(const Graph& graph, const Node& bn) {
  if (bn.inputs.size() != 5 || bn.outputs.empty() || bn.outputs[0].empty()) return std::nullopt;
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    if (!bn.outputs[i].empty()) return std::nullopt;  // training outputs are requested
  }
  if (AttributeOr<int64_t>(bn, "training_mode", 0) != 0) return std::nullopt;
  const Tensor* params[4];
  for (size_t i = 0; i < 4; ++i) {
    params[i] = FindConstant(graph, bn.inputs[i + 1]);
    if (!IsFloatVector(params[i]) ||
        params[i]->num_elements() != (params[0] ? params[0]->num_elements() : -1)) {
      return std::nullopt;
    }
  }
  const double epsilon = AttributeOr<float>(bn, "epsilon", kDefaultEpsilon);
  const float* scale = params[0]->data<float>();
  const float* bias = params[1]->data<float>();
  const float* mean = params[2]->data<float>();
  const float* var = params[3]->data<float>();
  ChannelAffine affine;
  for (int64_t c = 0; c < params[0]->num_elements(); ++c) {
    const double a = scale[c] / std::sqrt(static_cast<double>(var[c]) + epsilon);
    affine.a.push_back(a);
    affine.shift.push_back(bias[c] - mean[c] * a);
  }
  return affine;
}

GraphIndex::GraphIndex(const Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& output : graph.nodes[i].outputs) {
      if (!output.empty()) producer_.emplace(output, i);
    }
    for (const std::string& input : graph.nodes[i].inputs) {
      if (!input.empty()) consumers_[input].push_back(i);
    }
  }
  for (const ValueInfo& output : graph.outputs) graph_outputs_.insert(output.name);
}

std::optional<size_t> GraphIndex::producer(const std::string& value) const {
  auto it = producer_.find(value);
  if (it == producer_.end()) return std::nullopt;
  return it->second;
}

const std::vector<size_t>& GraphIndex::consumers(const std::string& value) const {
  static const std::vector<size_t> kNone;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNone : it->second;
}

bool GraphIndex::has_single_private_use(const std::string& value) const {
  return consumers(value).size() == 1 && !is_graph_output(value);
}

const Tensor* FindConstant(const Graph& graph, const std::string& value) {
  if (value.empty()) return nullptr;
  auto it = graph.initializers.find(value);
  if (it == graph.initializers.end()) return nullptr;
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == value) return nullptr;
  }
  return &it->second;
}

std::optional<std::vector<int64_t>> ReduceAxes(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs[1].empty()) {
    return node.attributes.has("axes") ? node.attributes.get_ints("axes") : std::vector<int64_t>{};
  }
  if (node.attributes.has("axes")) return std::nullopt;
  const Tensor* t = FindConstant(graph, node.inputs[1]);
  if (t == nullptr || t->dtype() != DType::kInt64 || t->shape().rank() != 1) return std::nullopt;
  return std::vector<int64_t>(t->data<int64_t>(), t->data<int64_t>() + t->num_elements());
}

std::optional<TensorType> KnownType(const Graph& graph, const std::string& value) {
  if (auto it = graph.initializers.find(value); it != graph.initializers.end()) {
    const std::vector<int64_t>& dims = it->second.shape().dims();
    return TensorType{it->second.dtype(), SymbolicShape(dims.begin(), dims.end())};
  }
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == value) return input.type;
  }
  if (auto it = graph.value_types.find(value); it != graph.value_types.end()) return it->second;
  return std::nullopt;
}

std::string NodeLabel(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + ")";
}

NameGenerator::NameGenerator(const Graph& graph) {
  for (const ValueInfo& input : graph.inputs) taken_.insert(input.name);
  for (const ValueInfo& output : graph.outputs) taken_.insert(output.name);
  for (const auto& [name, tensor] : graph.initializers) taken_.insert(name);
  for (const Node& node : graph.nodes) {
    taken_.insert(node.name);
    for (const std::string& output : node.outputs) taken_.insert(output);
  }
}

std::string NameGenerator::Fresh(const std::string& base) {
  std::string name = base;
  for (int suffix = 1; taken_.count(name) > 0; ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  taken_.insert(name);
  return name;
}

void EraseNodes(Graph& graph, const std::vector<bool>& erase) {
  size_t kept = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (erase[i]) continue;
    if (kept != i) graph.nodes[kept] = std::move(graph.nodes[i]);
    ++kept;
  }
  graph.nodes.resize(kept);
}

void RemoveUnusedInitializers(Graph& graph, const std::vector<std::string>& candidates) {
  std::set<std::string> used;
  for (const Node& node : graph.nodes) used.insert(node.inputs.begin(), node.inputs.end());
  for (const ValueInfo& input : graph.inputs) used.insert(input.name);
  for (const ValueInfo& output : graph.outputs) used.insert(output.name);
  for (const std::string& name : candidates) {
    if (used.count(name) == 0) graph.initializers.erase(name);
  }
}

void DropStaleValueTypes(Graph& graph) {
  std::set<std::string> produced;
  for (const Node& node : graph.nodes) produced.insert(node.outputs.begin(), node.outputs.end());
  std::erase_if(graph.value_types,
                [&produced](const auto& entry) { return produced.count(entry.first) == 0; });
}

}  // namespace loom::graph
