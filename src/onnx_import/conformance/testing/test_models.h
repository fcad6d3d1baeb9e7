// Small ONNX models and backend-test case folders for the conformance tests,
// built with the protobuf API (no Python, no files in the repository).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "loom/tensor.h"
#include "loom_onnx/onnx.pb.h"

namespace loom::conformance::testing {

struct ValueSpec {
  ValueSpec(std::string value_name, int32_t type = onnx::TensorProto::FLOAT,
            std::vector<int64_t> shape = {})
      : name(std::move(value_name)), elem_type(type), dims(std::move(shape)) {}

  std::string name;
  int32_t elem_type;
  std::vector<int64_t> dims;
};

// A model with one node `op_type` (domain `domain`) from `inputs` to
// `outputs`, importing the default domain at `opset`.
onnx::ModelProto SingleNodeModel(const std::string& op_type, const std::vector<ValueSpec>& inputs,
                                 const std::vector<ValueSpec>& outputs, int64_t opset = 13,
                                 const std::string& domain = "");

// A nameless TensorProto holding `tensor` (as the suite's files may be).
onnx::TensorProto Proto(const Tensor& tensor, const std::string& name = "");

struct DataSet {
  std::vector<onnx::TensorProto> inputs;
  std::vector<onnx::TensorProto> outputs;
};

// Writes <dir>/model.onnx and <dir>/test_data_set_<N>/{input,output}_<K>.pb,
// replacing whatever was there.
void WriteCase(const std::string& dir, const onnx::ModelProto& model,
               const std::vector<DataSet>& data_sets);

// Writes `bytes` to `path`, creating its folder.
void WriteBytes(const std::string& path, const std::string& bytes);

}  // namespace loom::conformance::testing
