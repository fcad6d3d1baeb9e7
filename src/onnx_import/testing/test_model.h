// Builds small ONNX models in code for the importer's tests:
//
//   TestModel m(/*opset=*/13);
//   m.Input("x", onnx::TensorProto::FLOAT, {"N", 4});
//   m.Initializer(loom::Tensor::from_vector<float>({4}, {1, 2, 3, 4}), "w");
//   onnx::NodeProto* add = m.Node("Add", {"x", "w"}, {"y"});
//   m.Output("y", onnx::TensorProto::FLOAT, {"N", 4});
//   loom::Graph g = loom::load_onnx_model_from_bytes(m.Serialize());
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/graph.h"
#include "loom/tensor.h"
#include "loom_onnx/onnx.pb.h"

namespace loom::onnx_import::testing {

// A dimension for Input/Output: a size, a symbol, or kUnnamedDim (neither).
struct TestDim {
  TestDim(int64_t value) : size(value) {}      // NOLINT
  TestDim(int value) : size(value) {}          // NOLINT
  TestDim(const char* name) : symbol(name) {}  // NOLINT
  int64_t size = -1;
  std::string symbol;
};
inline const TestDim kUnnamedDim = TestDim(int64_t{-1});

class TestModel {
 public:
  explicit TestModel(int opset = 13, int64_t ir_version = 8);

  void Input(const std::string& name, int32_t elem_type, const std::vector<TestDim>& dims);
  void Output(const std::string& name, int32_t elem_type, const std::vector<TestDim>& dims);
  // An output with only a name (no type), as some exporters write.
  void UntypedOutput(const std::string& name);
  // Adds `tensor` as a raw_data initializer; returns the proto to edit.
  onnx::TensorProto* Initializer(const Tensor& tensor, const std::string& name);
  // Appends a node (empty name: none set).
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  // Adds a model-local function `domain`::`name` (importing `domain` at
  // version 1 into the model if it is not the default one) whose body
  // imports the default domain at `opset` (0: no import). Add its nodes with
  // FunctionNode; returns the proto to edit.
  onnx::FunctionProto* Function(const std::string& domain, const std::string& name,
                                const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs, int opset = 13);

  onnx::ModelProto& proto() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  std::string Serialize() const;

 private:
  onnx::ModelProto model_;
};

// Appends a node to a function's body (empty name: none set).
onnx::NodeProto* FunctionNode(onnx::FunctionProto* function, const std::string& op,
                              const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs,
                              const std::string& name = "");

// Attribute setters; each returns the node for chaining.
onnx::NodeProto* SetInt(onnx::NodeProto* node, const std::string& name, int64_t value);
onnx::NodeProto* SetFloat(onnx::NodeProto* node, const std::string& name, float value);
onnx::NodeProto* SetString(onnx::NodeProto* node, const std::string& name,
                           const std::string& value);
onnx::NodeProto* SetInts(onnx::NodeProto* node, const std::string& name,
                         const std::vector<int64_t>& values);
onnx::NodeProto* SetFloats(onnx::NodeProto* node, const std::string& name,
                           const std::vector<float>& values);
onnx::NodeProto* SetStrings(onnx::NodeProto* node, const std::string& name,
                            const std::vector<std::string>& values);
onnx::NodeProto* SetTensor(onnx::NodeProto* node, const std::string& name, const Tensor& value);
// A GRAPH attribute (control flow): another TestModel's graph() serves as
// the subgraph.
onnx::NodeProto* SetGraph(onnx::NodeProto* node, const std::string& name,
                          const onnx::GraphProto& graph);
// An attribute `name` of `type` that refers to the enclosing function's
// attribute `ref` (AttributeProto.ref_attr_name).
onnx::NodeProto* SetRef(onnx::NodeProto* node, const std::string& name,
                        onnx::AttributeProto::AttributeType type, const std::string& ref);

// The float32 elements of `tensor` (which must be float32).
std::vector<float> Values(const Tensor& tensor);

// The message of the InvalidArgumentError loading `bytes` throws (label
// "test.onnx"), or "" when it loads.
std::string LoadError(const std::string& bytes);

// Whether `text` contains `fragment`.
bool Contains(const std::string& text, const std::string& fragment);

}  // namespace loom::onnx_import::testing
