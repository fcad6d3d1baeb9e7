// loom::Graph → ModelProto (include/loom/onnx.h, save_onnx_model).
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <optional>

#include "kernels/onnx_dtype.h"
#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom_onnx/onnx.pb.h"
#include "onnx_import/onnx_op_versions.h"
#include "onnx_import/tensor_proto.h"
#include "ops/onnx_attribute_names.h"

namespace loom {
namespace {

// onnx 1.19's IR version, the one that goes with opset 24.
constexpr int64_t kIrVersion = 12;
constexpr const char* kLoomDomain = "ai.loom";

void SetType(const TensorType& type, onnx::TypeProto* proto) {
  // A sequence or an optional wraps the tensor type (ValueKind).
  switch (type.kind) {
    case ValueKind::kTensor:
      break;
    case ValueKind::kSequence:
      proto = proto->mutable_sequence_type()->mutable_elem_type();
      break;
    case ValueKind::kOptionalTensor:
      proto = proto->mutable_optional_type()->mutable_elem_type();
      break;
    case ValueKind::kOptionalSequence:
      proto = proto->mutable_optional_type()
                  ->mutable_elem_type()
                  ->mutable_sequence_type()
                  ->mutable_elem_type();
      break;
  }
  onnx::TypeProto::Tensor* tensor = proto->mutable_tensor_type();
  tensor->set_elem_type(static_cast<int32_t>(kernels::OnnxDataType(type.dtype)));
  if (!type.shape) return;  // unknown rank: no shape field
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (const Dim& dim : *type.shape) {
    onnx::TensorShapeProto::Dimension* d = shape->add_dim();
    if (dim.is_known()) {
      d->set_dim_value(dim.size());
    } else {
      d->set_dim_param(dim.symbol());
    }
  }
}

void AddValueInfo(const std::string& name, const TensorType& type,
                  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list) {
  onnx::ValueInfoProto* info = list->Add();
  info->set_name(name);
  SetType(type, info->mutable_type());
}

void WriteGraph(const Graph& graph, const std::vector<std::string>& outer_names,
                onnx::GraphProto* proto, bool* uses_loom_domain);

// `outer_names`: the node's implicit inputs, which its subgraphs read as
// their trailing inputs (loom/graph.h).
void SetAttribute(const std::string& name, const AttributeValue& value,
                  const std::vector<std::string>& outer_names, onnx::AttributeProto* proto,
                  bool* uses_loom_domain) {
  proto->set_name(name);
  if (const auto* i = std::get_if<int64_t>(&value)) {
    proto->set_type(onnx::AttributeProto::INT);
    proto->set_i(*i);
  } else if (const auto* f = std::get_if<float>(&value)) {
    proto->set_type(onnx::AttributeProto::FLOAT);
    proto->set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    proto->set_type(onnx::AttributeProto::STRING);
    proto->set_s(*s);
  } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
    proto->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : *ints) proto->add_ints(v);
  } else if (const auto* floats = std::get_if<std::vector<float>>(&value)) {
    proto->set_type(onnx::AttributeProto::FLOATS);
    for (float v : *floats) proto->add_floats(v);
  } else if (const auto* strings = std::get_if<std::vector<std::string>>(&value)) {
    proto->set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& v : *strings) proto->add_strings(v);
  } else if (const auto* graph = std::get_if<GraphAttribute>(&value)) {
    if (*graph == nullptr) throw InvalidArgumentError("attribute '" + name + "' holds no graph");
    proto->set_type(onnx::AttributeProto::GRAPH);
    WriteGraph(**graph, outer_names, proto->mutable_g(), uses_loom_domain);
  } else {
    proto->set_type(onnx::AttributeProto::TENSOR);
    *proto->mutable_t() = onnx_import::TensorToProto(std::get<Tensor>(value), name);
  }
}

// A subgraph's last outer_names.size() inputs are its captures: ONNX reads
// them from the enclosing graph by name, so they are not written as inputs.
// A capture whose outer value a pass renamed gets an Identity from the
// outer name.
void WriteGraph(const Graph& graph, const std::vector<std::string>& outer_names,
                onnx::GraphProto* proto, bool* uses_loom_domain) {
  proto->set_name(graph.name);
  if (outer_names.size() > graph.inputs.size()) {
    throw InvalidArgumentError("save_onnx_model: subgraph '" + graph.name + "' has " +
                               std::to_string(graph.inputs.size()) + " inputs, fewer than its " +
                               std::to_string(outer_names.size()) + " outer-scope values");
  }
  const size_t formal_inputs = graph.inputs.size() - outer_names.size();
  for (size_t i = 0; i < formal_inputs; ++i) {
    AddValueInfo(graph.inputs[i].name, graph.inputs[i].type, proto->mutable_input());
  }
  for (size_t k = 0; k < outer_names.size(); ++k) {
    const std::string& inner = graph.inputs[formal_inputs + k].name;
    if (inner == outer_names[k]) continue;
    onnx::NodeProto* identity = proto->add_node();
    identity->set_name(graph.name + "/capture_" + inner);
    identity->set_op_type("Identity");
    identity->add_input(outer_names[k]);
    identity->add_output(inner);
  }
  for (const ValueInfo& output : graph.outputs) {
    AddValueInfo(output.name, output.type, proto->mutable_output());
  }
  for (const auto& [name, type] : graph.value_types) {
    AddValueInfo(name, type, proto->mutable_value_info());
  }
  for (const auto& [name, tensor] : graph.initializers) {
    *proto->add_initializer() = onnx_import::TensorToProto(tensor, name);
  }
  for (const Node& node : graph.nodes) {
    onnx::NodeProto* n = proto->add_node();
    n->set_name(node.name);
    n->set_op_type(node.op_type);
    // Hints the importer adds and derives again on load (opset_adapter.cc):
    // Attention's output count. Kept, they would make the node Loom-only.
    Attributes attributes = node.attributes;
    if (node.op_type == "Attention") attributes.erase("loom_outputs");
    // Optional's type, which the importer keeps as two ints
    // (graph_converter.cc), goes back to ONNX's TYPE_PROTO attribute.
    if (node.op_type == "Optional" && attributes.has("dtype")) {
      const std::optional<DType> dtype =
          kernels::DTypeFromOnnxDataType(attributes.get_int("dtype"));
      if (!dtype) throw InvalidArgumentError("Optional '" + node.name + "': unknown dtype");
      TensorType held{*dtype, std::nullopt};
      if (attributes.get_int("sequence", 0) != 0) held.kind = ValueKind::kSequence;
      onnx::AttributeProto* type = n->add_attribute();
      type->set_name("type");
      type->set_type(onnx::AttributeProto::TYPE_PROTO);
      SetType(held, type->mutable_tp());
      attributes.erase("dtype");
      attributes.erase("sequence");
    }
    if (!ops::IsOnnxOpWithOnnxAttributes(node.op_type, attributes)) {
      n->set_domain(kLoomDomain);
      *uses_loom_domain = true;
    }
    const size_t onnx_inputs = node.num_onnx_inputs();
    for (size_t i = 0; i < onnx_inputs; ++i) n->add_input(node.inputs[i]);
    const std::vector<std::string> captures(node.inputs.begin() + onnx_inputs, node.inputs.end());
    for (const std::string& output : node.outputs) n->add_output(output);
    for (const auto& [name, value] : attributes) {
      SetAttribute(name, value, captures, n->add_attribute(), uses_loom_domain);
    }
  }
}

onnx::ModelProto ToModel(const Graph& graph) {
  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name("loom");
  model.set_producer_version(LOOM_VERSION);
  onnx::OperatorSetIdProto* onnx_opset = model.add_opset_import();
  onnx_opset->set_domain("");
  onnx_opset->set_version(onnx_import::kNewestOnnxOpset);
  bool uses_loom_domain = false;
  WriteGraph(graph, {}, model.mutable_graph(), &uses_loom_domain);
  if (uses_loom_domain) {
    onnx::OperatorSetIdProto* loom_opset = model.add_opset_import();
    loom_opset->set_domain(kLoomDomain);
    loom_opset->set_version(1);
  }
  return model;
}

}  // namespace

std::string save_onnx_model_to_bytes(const Graph& graph) {
  const onnx::ModelProto model = ToModel(graph);
  const size_t size = model.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    throw InvalidArgumentError("save_onnx_model: graph '" + graph.name + "' would be " +
                               std::to_string(size) +
                               " bytes; protobuf writes at most 2 GiB in one file");
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw RuntimeError("save_onnx_model: serializing graph '" + graph.name + "' failed");
  }
  return bytes;
}

void save_onnx_model(const Graph& graph, const std::string& path) {
  const std::string bytes = save_onnx_model_to_bytes(graph);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    throw InvalidArgumentError("save_onnx_model: cannot write '" + path +
                               "': " + std::strerror(errno));
  }
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) {
    throw InvalidArgumentError("save_onnx_model: writing '" + path +
                               "' failed: " + std::strerror(errno));
  }
}

}  // namespace loom
