#include "onnx_import/graph_converter.h"

#include <algorithm>
#include <memory>
#include <set>

#include "graph/control_flow.h"
#include "kernels/onnx_dtype.h"
#include "loom/errors.h"
#include "onnx_import/attribute_converter.h"
#include "onnx_import/node_names.h"
#include "onnx_import/value_types.h"

namespace loom::onnx_import {
namespace {

// Constant's value attributes Loom converts; sparse_value is refused.
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
  if (name == "value_string" && std::holds_alternative<std::string>(value)) {
    return Tensor::from_vector(Shape(), std::vector<std::string>{std::get<std::string>(value)});
  }
  if (name == "value_strings" && std::holds_alternative<std::vector<std::string>>(value)) {
    const auto& values = std::get<std::vector<std::string>>(value);
    return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
  }
  throw InvalidArgumentError(
      where + ": attribute '" + name +
      "' is not supported here (value, value_float(s), value_int(s), value_string(s))");
}

class Converter {
 public:
  // `depth`: 0 for the model's graph, 1 for its subgraphs, and so on.
  Converter(const onnx::GraphProto& graph_proto, int64_t ir_version,
            const std::vector<std::string>& node_names, const ExternalDataPolicy& policy, int depth)
      : ir_version_(ir_version),
        graph_proto_(graph_proto),
        names_(node_names),
        policy_(policy),
        depth_(depth),
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
      TensorType type = ConvertValueType(output, false, symbols_, what);
      // A subgraph's declared output shapes are often an exporter's traced
      // first iteration (a loop-carried value may grow): only the dtype is
      // kept, and type inference finds the shapes.
      if (depth_ > 0) type.shape.reset();
      graph_.outputs.push_back({output.name(), type});
    }
    if (depth_ == 0) CheckCapturesDefined();
    return std::move(graph_);
  }

  // A subgraph's outer-scope values: the names its nodes read (their
  // implicit inputs included) and its outputs name that it does not define,
  // in order of first use. Call after Run() on a subgraph's converter.
  std::vector<std::string> FreeNames(const Graph& graph) const {
    std::vector<std::string> free;
    auto note = [&](const std::string& name) {
      if (!name.empty() && defined_.count(name) == 0 &&
          std::find(free.begin(), free.end(), name) == free.end()) {
        free.push_back(name);
      }
    };
    for (const Node& node : graph.nodes) {
      for (const std::string& input : node.inputs) note(input);
    }
    for (const ValueInfo& output : graph.outputs) note(output.name);
    return free;
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
      // A subgraph's input types come from the node that runs it (type
      // inference replaces them), so a subgraph may leave them out.
      graph_.inputs.push_back({input.name(), ConvertValueType(input, depth_ == 0, symbols_, what)});
      return;
    }
    if (!input_names_.insert(input.name()).second) {
      throw InvalidArgumentError(what + " is listed twice");
    }
    if (ir_version_ < 4) return;  // a constant, see the header
    const Tensor& value = initializer->second;
    TensorType type{value.dtype(),
                    SymbolicShape(value.shape().dims().begin(), value.shape().dims().end())};
    if (input.has_type()) type = ConvertValueType(input, true, symbols_, what);
    graph_.inputs.push_back({input.name(), type});
  }

  void AddNode(const onnx::NodeProto& proto, const std::string& name) {
    const std::string where = "node '" + name + "' (" + proto.op_type() + ")";
    // Subgraphs convert first, each into a graph of its own; their
    // outer-scope values become the node's implicit inputs below.
    std::vector<std::shared_ptr<Graph>> subgraphs;
    std::vector<std::string> captures;
    const SubgraphConverter convert_subgraph = [&](const onnx::GraphProto& proto_graph,
                                                   const std::string& what) -> GraphAttribute {
      if (depth_ + 1 > graph::kMaxSubgraphDepth) {
        throw InvalidArgumentError(what + ": subgraphs are nested more than " +
                                   std::to_string(graph::kMaxSubgraphDepth) + " levels deep");
      }
      const std::vector<std::string> names = UniqueNodeNames(proto_graph);
      Converter converter(proto_graph, ir_version_, names, policy_, depth_ + 1);
      std::shared_ptr<Graph> subgraph;
      try {
        subgraph = std::make_shared<Graph>(converter.Run());
      } catch (const InvalidArgumentError& e) {
        throw InvalidArgumentError(what + ": " + e.what());
      }
      for (const std::string& free_name : converter.FreeNames(*subgraph)) {
        if (std::find(captures.begin(), captures.end(), free_name) == captures.end()) {
          captures.push_back(free_name);
        }
      }
      subgraphs.push_back(subgraph);
      return subgraph;
    };
    Attributes attributes = proto.op_type() == "Optional"
                                ? ConvertAttributes(WithOptionalTypeAsInts(proto, where), policy_,
                                                    where, &convert_subgraph)
                                : ConvertAttributes(proto, policy_, where, &convert_subgraph);
    // Every subgraph of the node takes all of its captures, in one order,
    // as trailing inputs named after the outer values (loom/graph.h). Their
    // types come from the outer graph when types are inferred.
    for (const std::shared_ptr<Graph>& subgraph : subgraphs) {
      for (const std::string& capture : captures) {
        subgraph->inputs.push_back({capture, TensorType{DType::kFloat32, std::nullopt}});
      }
    }
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
    node.inputs.insert(node.inputs.end(), captures.begin(), captures.end());
    node.implicit_inputs = static_cast<int>(captures.size());
    // Unused trailing outputs are dropped (MaxPool's Indices, say, which the
    // kernel does not produce), except Split's (its output count is its
    // number of parts) and control flow's (its outputs match its subgraphs').
    int last = proto.output_size();
    if (proto.op_type() != "Split" && subgraphs.empty()) {
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

  // Optional's `type` (a TypeProto, which Loom's attributes do not hold)
  // becomes two ints: `dtype`, an ONNX element type as SequenceEmpty's,
  // and `sequence`, 1 when the optional holds a sequence
  // (graph/sequence_ops.h).
  onnx::NodeProto WithOptionalTypeAsInts(const onnx::NodeProto& proto, const std::string& where) {
    onnx::NodeProto adjusted = proto;
    adjusted.clear_attribute();
    for (const onnx::AttributeProto& attribute : proto.attribute()) {
      if (attribute.name() != "type" || attribute.type() != onnx::AttributeProto::TYPE_PROTO) {
        *adjusted.add_attribute() = attribute;
        continue;
      }
      const TensorType held =
          ConvertTypeProto(attribute.tp(), true, symbols_, where + ": attribute 'type'");
      if (held.is_optional()) {
        throw InvalidArgumentError(where + ": attribute 'type' is " + held.to_string() +
                                   "; an optional holds a tensor or a sequence");
      }
      onnx::AttributeProto* dtype = adjusted.add_attribute();
      dtype->set_name("dtype");
      dtype->set_type(onnx::AttributeProto::INT);
      dtype->set_i(kernels::OnnxDataType(held.dtype));
      onnx::AttributeProto* sequence = adjusted.add_attribute();
      sequence->set_name("sequence");
      sequence->set_type(onnx::AttributeProto::INT);
      sequence->set_i(held.holds_sequence() ? 1 : 0);
    }
    return adjusted;
  }

  // In the model's graph, every value a subgraph reads from outside must
  // exist: a name no enclosing graph defines is the model's error.
  void CheckCapturesDefined() const {
    for (const Node& node : graph_.nodes) {
      for (size_t i = node.num_onnx_inputs(); i < node.inputs.size(); ++i) {
        if (defined_.count(node.inputs[i]) == 0) {
          throw InvalidArgumentError("node '" + node.name + "' (" + node.op_type +
                                     "): a subgraph reads '" + node.inputs[i] +
                                     "', which neither the subgraph nor any enclosing graph "
                                     "defines");
        }
      }
    }
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

  const int64_t ir_version_;
  const onnx::GraphProto& graph_proto_;
  const std::vector<std::string>& names_;
  const ExternalDataPolicy& policy_;
  const int depth_;
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
  return Converter(model.graph(), model.ir_version(), node_names, policy, 0).Run();
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
