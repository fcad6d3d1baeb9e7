#include "onnx_import/conformance/testing/test_models.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "onnx_import/tensor_proto.h"

namespace loom::conformance::testing {
namespace {

namespace fs = std::filesystem;

void SetValueInfo(const ValueSpec& spec, onnx::ValueInfoProto* info) {
  info->set_name(spec.name);
  onnx::TypeProto_Tensor* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(spec.elem_type);
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (int64_t d : spec.dims) shape->add_dim()->set_dim_value(d);
}

}  // namespace

onnx::ModelProto SingleNodeModel(const std::string& op_type, const std::vector<ValueSpec>& inputs,
                                 const std::vector<ValueSpec>& outputs, int64_t opset,
                                 const std::string& domain) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("loom-conformance-test");
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  if (!domain.empty()) {
    onnx::OperatorSetIdProto* other = model.add_opset_import();
    other->set_domain(domain);
    other->set_version(1);
  }
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op_type);
  node->set_domain(domain);
  node->set_name("node0");
  for (const ValueSpec& in : inputs) {
    node->add_input(in.name);
    SetValueInfo(in, graph->add_input());
  }
  for (const ValueSpec& out : outputs) {
    node->add_output(out.name);
    SetValueInfo(out, graph->add_output());
  }
  return model;
}

onnx::TensorProto Proto(const Tensor& tensor, const std::string& name) {
  return onnx_import::TensorToProto(tensor, name);
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

void WriteCase(const std::string& dir, const onnx::ModelProto& model,
               const std::vector<DataSet>& data_sets) {
  fs::remove_all(dir);
  WriteBytes((fs::path(dir) / "model.onnx").string(), model.SerializeAsString());
  for (size_t n = 0; n < data_sets.size(); ++n) {
    const fs::path set = fs::path(dir) / ("test_data_set_" + std::to_string(n));
    for (size_t k = 0; k < data_sets[n].inputs.size(); ++k) {
      WriteBytes((set / ("input_" + std::to_string(k) + ".pb")).string(),
                 data_sets[n].inputs[k].SerializeAsString());
    }
    for (size_t k = 0; k < data_sets[n].outputs.size(); ++k) {
      WriteBytes((set / ("output_" + std::to_string(k) + ".pb")).string(),
                 data_sets[n].outputs[k].SerializeAsString());
    }
  }
}

}  // namespace loom::conformance::testing
