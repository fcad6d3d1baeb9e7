#include "onnx_import/testing/test_model.h"

#include <algorithm>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "onnx_import/tensor_proto.h"

namespace loom::onnx_import::testing {
namespace {

void SetType(onnx::ValueInfoProto* info, int32_t elem_type, const std::vector<TestDim>& dims) {
  onnx::TypeProto_Tensor* type = info->mutable_type()->mutable_tensor_type();
  type->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = type->mutable_shape();
  for (const TestDim& dim : dims) {
    onnx::TensorShapeProto_Dimension* d = shape->add_dim();
    if (!dim.symbol.empty()) {
      d->set_dim_param(dim.symbol);
    } else if (dim.size >= 0) {
      d->set_dim_value(dim.size);
    }
  }
}

onnx::AttributeProto* Add(onnx::NodeProto* node, const std::string& name,
                          onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(type);
  return attribute;
}

}  // namespace

TestModel::TestModel(int opset, int64_t ir_version) {
  model_.set_ir_version(ir_version);
  model_.set_producer_name("loom-test");
  onnx::OperatorSetIdProto* import = model_.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

void TestModel::Input(const std::string& name, int32_t elem_type,
                      const std::vector<TestDim>& dims) {
  onnx::ValueInfoProto* info = graph().add_input();
  info->set_name(name);
  SetType(info, elem_type, dims);
}

void TestModel::Output(const std::string& name, int32_t elem_type,
                       const std::vector<TestDim>& dims) {
  onnx::ValueInfoProto* info = graph().add_output();
  info->set_name(name);
  SetType(info, elem_type, dims);
}

void TestModel::UntypedOutput(const std::string& name) { graph().add_output()->set_name(name); }

onnx::TensorProto* TestModel::Initializer(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto* proto = graph().add_initializer();
  *proto = TensorToProto(tensor, name);
  return proto;
}

onnx::NodeProto* TestModel::Node(const std::string& op, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* node = graph().add_node();
  node->set_op_type(op);
  if (!name.empty()) node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  for (const std::string& output : outputs) node->add_output(output);
  return node;
}

onnx::FunctionProto* TestModel::Function(const std::string& domain, const std::string& name,
                                         const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& outputs, int opset) {
  const bool imported = domain.empty() || domain == "ai.onnx" ||
                        std::any_of(model_.opset_import().begin(), model_.opset_import().end(),
                                    [&](const onnx::OperatorSetIdProto& import) {
                                      return import.domain() == domain;
                                    });
  if (!imported) {
    onnx::OperatorSetIdProto* import = model_.add_opset_import();
    import->set_domain(domain);
    import->set_version(1);
  }
  onnx::FunctionProto* function = model_.add_functions();
  function->set_domain(domain);
  function->set_name(name);
  for (const std::string& input : inputs) function->add_input(input);
  for (const std::string& output : outputs) function->add_output(output);
  if (opset > 0) {
    onnx::OperatorSetIdProto* import = function->add_opset_import();
    import->set_domain("");
    import->set_version(opset);
  }
  return function;
}

onnx::NodeProto* FunctionNode(onnx::FunctionProto* function, const std::string& op,
                              const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* node = function->add_node();
  node->set_op_type(op);
  if (!name.empty()) node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  for (const std::string& output : outputs) node->add_output(output);
  return node;
}

std::string TestModel::Serialize() const {
  std::string bytes;
  if (!model_.SerializeToString(&bytes)) throw RuntimeError("TestModel: serialization failed");
  return bytes;
}

onnx::NodeProto* SetInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  Add(node, name, onnx::AttributeProto::INT)->set_i(value);
  return node;
}

onnx::NodeProto* SetFloat(onnx::NodeProto* node, const std::string& name, float value) {
  Add(node, name, onnx::AttributeProto::FLOAT)->set_f(value);
  return node;
}

onnx::NodeProto* SetString(onnx::NodeProto* node, const std::string& name,
                           const std::string& value) {
  Add(node, name, onnx::AttributeProto::STRING)->set_s(value);
  return node;
}

onnx::NodeProto* SetInts(onnx::NodeProto* node, const std::string& name,
                         const std::vector<int64_t>& values) {
  onnx::AttributeProto* attribute = Add(node, name, onnx::AttributeProto::INTS);
  for (int64_t v : values) attribute->add_ints(v);
  return node;
}

onnx::NodeProto* SetFloats(onnx::NodeProto* node, const std::string& name,
                           const std::vector<float>& values) {
  onnx::AttributeProto* attribute = Add(node, name, onnx::AttributeProto::FLOATS);
  for (float v : values) attribute->add_floats(v);
  return node;
}

onnx::NodeProto* SetStrings(onnx::NodeProto* node, const std::string& name,
                            const std::vector<std::string>& values) {
  onnx::AttributeProto* attribute = Add(node, name, onnx::AttributeProto::STRINGS);
  for (const std::string& v : values) attribute->add_strings(v);
  return node;
}

onnx::NodeProto* SetGraph(onnx::NodeProto* node, const std::string& name,
                          const onnx::GraphProto& graph) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::GRAPH);
  *attribute->mutable_g() = graph;
  return node;
}

onnx::NodeProto* SetTensor(onnx::NodeProto* node, const std::string& name, const Tensor& value) {
  *Add(node, name, onnx::AttributeProto::TENSOR)->mutable_t() = TensorToProto(value, "");
  return node;
}

onnx::NodeProto* SetRef(onnx::NodeProto* node, const std::string& name,
                        onnx::AttributeProto::AttributeType type, const std::string& ref) {
  Add(node, name, type)->set_ref_attr_name(ref);
  return node;
}

std::vector<float> Values(const Tensor& tensor) {
  const float* p = tensor.data<float>();
  return std::vector<float>(p, p + tensor.num_elements());
}

std::string LoadError(const std::string& bytes) {
  try {
    load_onnx_model_from_bytes(bytes, "", "test.onnx");
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

}  // namespace loom::onnx_import::testing
