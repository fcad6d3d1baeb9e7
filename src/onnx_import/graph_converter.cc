#include "onnx_import/graph_converter.h"

#include <set>

#include "loom/errors.h"
#include "onnx_import/attribute_converter.h"
#include "onnx_import/value_types.h"

namespace loom::onnx_import {
namespace {

// Constant's value attributes Loom converts; the others (sparse_value,
// value_string(s)) have no Loom dtype.
Tensor ConstantValue(const Attributes& attributes, const std::string& where) {
  if (attributes.size() != 1) {
    throw InvalidArgumentError(where + ": expected exactly one value attribute, got " +
                               std::to_string(attributes.size()));
  }
  const auto& [name, value] = *attributes.begin();
  if (name == "value" && std::holds_alternative<Tensor>(value)) return std::get<Tensor>(value);
  if (name == "value_float" && std::holds_alternative<float>(value)) {
    return Tensor::from_vector(Shape(), std::vector<float>{std::get<float>(value)});
  }
  if (name == "value_int" && std::holds_alternative<int64_t>(value)) {
    return Tensor::from_vector(Shape(), std::vector<int64_t>{std::get<int64_t>(value)});
  }
  if (name == "value_floats" && std::holds_alternative<std::vector<float>>(value)) {
    const auto& values = std::get<std::vector<float>>(value);
    return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
  }
  if (name == "value_ints" && std::holds_alternative<std::vector<int64_t>>(value)) {
    const auto& values = std::get<std::vector<int64_t>>(value);
    return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
  }
  throw InvalidArgumentError(where + ": attribute '" + name +
                             "' is not supported here (value, value_float(s), value_int(s))");
}

class Converter {
 public:
  Converter(const onnx::ModelProto& model, const std::vector<std::string>& node_names,
            const ExternalDataPolicy& policy)
      : model_(model),
        graph_proto_(model.graph()),
        names_(node_names),
        policy_(policy),
        symbols_(graph_proto_) {}

  Graph Run() {
    graph_.name = graph_proto_.name().empty() ? "graph" : graph_proto_.name();
    if (graph_proto_.sparse_initializer_size() > 0) {
      throw InvalidArgumentError("sparse initializers are not supported ('" +
                                 graph_proto_.sparse_initializer(0).values().name() + "')");
    }
    for (const onnx::TensorProto& tensor : graph_proto_.initializer()) AddInitializer(tensor);
    for (const onnx::ValueInfoProto& input : graph_proto_.input()) AddInput(input);
    for (int i = 0; i < graph_proto_.node_size(); ++i) AddNode(graph_proto_.node(i), names_[i]);
    for (const onnx::ValueInfoProto& output : graph_proto_.output()) {
      const std::string what = "graph output '" + output.name() + "'";
      if (output.name().empty()) throw InvalidArgumentError("a graph output has no name");
      graph_.outputs.push_back({output.name(), ConvertValueType(output, false, symbols_, what)});
    }
    return std::move(graph_);
  }

 private:
  void Define(const std::string& value, const std::string& by) {
    if (!defined_.insert(value).second) {
      throw InvalidArgumentError("value '" + value + "' is defined twice (again by " + by + ")");
    }
  }

  void AddInitializer(const onnx::TensorProto& tensor) {
    if (tensor.name().empty()) throw InvalidArgumentError("an initializer has no name");
    const std::string what = "initializer '" + tensor.name() + "'";
    Define(tensor.name(), what);
    graph_.initializers.emplace(tensor.name(), TensorFromProto(tensor, policy_, what));
  }

  void AddInput(const onnx::ValueInfoProto& input) {
    if (input.name().empty()) throw InvalidArgumentError("a graph input has no name");
    const std::string what = "graph input '" + input.name() + "'";
    auto initializer = graph_.initializers.find(input.name());
    if (initializer == graph_.initializers.end()) {
      Define(input.name(), what);
      graph_.inputs.push_back({input.name(), ConvertValueType(input, true, symbols_, what)});
      return;
    }
    if (!input_names_.insert(input.name()).second) {
      throw InvalidArgumentError(what + " is listed twice");
    }
    if (model_.ir_version() < 4) return;  // a constant, see the header
    const Tensor& value = initializer->second;
    TensorType type{value.dtype(),
                    SymbolicShape(value.shape().dims().begin(), value.shape().dims().end())};
    if (input.has_type()) type = ConvertValueType(input, true, symbols_, what);
    graph_.inputs.push_back({input.name(), type});
  }

  void AddNode(const onnx::NodeProto& proto, const std::string& name) {
    const std::string where = "node '" + name + "' (" + proto.op_type() + ")";
    Attributes attributes = ConvertAttributes(proto, policy_, where);
    if (proto.op_type() == "Constant") {
      if (proto.output_size() != 1 || proto.output(0).empty()) {
        throw InvalidArgumentError(where + ": expected one named output");
      }
      Define(proto.output(0), where);
      graph_.initializers.emplace(proto.output(0), ConstantValue(attributes, where));
      return;
    }
    Node node;
    node.name = name;
    node.op_type = proto.op_type();
    node.inputs.assign(proto.input().begin(), proto.input().end());
    // Unused trailing outputs are dropped (MaxPool's Indices, say, which the
    // kernel does not produce), except Split's: its output count is its
    // number of parts.
    int last = proto.output_size();
    if (proto.op_type() != "Split") {
      while (last > 0 && proto.output(last - 1).empty()) --last;
    }
    for (int k = 0; k < last; ++k) {
      std::string output = proto.output(k);
      if (output.empty()) output = FreshValueName(name + ":unused" + std::to_string(k));
      Define(output, where);
      node.outputs.push_back(std::move(output));
    }
    node.attributes = std::move(attributes);
    graph_.nodes.push_back(std::move(node));
  }

  // `base`, or `base` + "_<k>" if some value of the model already has it.
  std::string FreshValueName(const std::string& base) {
    if (all_values_.empty()) {
      for (const onnx::NodeProto& node : graph_proto_.node()) {
        all_values_.insert(node.input().begin(), node.input().end());
        all_values_.insert(node.output().begin(), node.output().end());
      }
      for (const auto& info : graph_proto_.input()) all_values_.insert(info.name());
      for (const auto& info : graph_proto_.output()) all_values_.insert(info.name());
      for (const auto& tensor : graph_proto_.initializer()) all_values_.insert(tensor.name());
    }
    std::string name = base;
    for (int k = 1; all_values_.count(name); ++k) name = base + "_" + std::to_string(k);
    all_values_.insert(name);
    return name;
  }

  const onnx::ModelProto& model_;
  const onnx::GraphProto& graph_proto_;
  const std::vector<std::string>& names_;
  const ExternalDataPolicy& policy_;
  SymbolTable symbols_;
  Graph graph_;
  std::set<std::string> defined_;
  std::set<std::string> input_names_;
  std::set<std::string> all_values_;
};

void AddRank(const onnx::ValueInfoProto& info, std::map<std::string, int>& ranks) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
  ranks[info.name()] = info.type().tensor_type().shape().dim_size();
}

}  // namespace

Graph ConvertGraph(const onnx::ModelProto& model, const std::vector<std::string>& node_names,
                   const ExternalDataPolicy& policy) {
  if (!model.has_graph()) throw InvalidArgumentError("the model has no graph");
  return Converter(model, node_names, policy).Run();
}

std::map<std::string, int> DeclaredRanks(const onnx::GraphProto& graph) {
  std::map<std::string, int> ranks;
  for (const auto& info : graph.value_info()) AddRank(info, ranks);
  for (const auto& info : graph.output()) AddRank(info, ranks);
  for (const auto& info : graph.input()) AddRank(info, ranks);
  for (const auto& tensor : graph.initializer()) ranks[tensor.name()] = tensor.dims_size();
  return ranks;
}

}  // namespace loom::onnx_import
