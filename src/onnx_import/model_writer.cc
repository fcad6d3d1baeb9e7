// loom::Graph → ModelProto (include/loom/onnx.h, save_onnx_model).
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

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

void SetAttribute(const std::string& name, const AttributeValue& value,
                  onnx::AttributeProto* proto) {
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
  } else {
    proto->set_type(onnx::AttributeProto::TENSOR);
    *proto->mutable_t() = onnx_import::TensorToProto(std::get<Tensor>(value), name);
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
  onnx::GraphProto* proto = model.mutable_graph();
  proto->set_name(graph.name);
  bool uses_loom_domain = false;
  for (const ValueInfo& input : graph.inputs) {
    AddValueInfo(input.name, input.type, proto->mutable_input());
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
    if (!ops::IsOnnxOpWithOnnxAttributes(node.op_type, attributes)) {
      n->set_domain(kLoomDomain);
      uses_loom_domain = true;
    }
    for (const std::string& input : node.inputs) n->add_input(input);
    for (const std::string& output : node.outputs) n->add_output(output);
    for (const auto& [name, value] : attributes) SetAttribute(name, value, n->add_attribute());
  }
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
