// onnx::TensorProto ⇄ loom::Tensor, shared by the importer (initializers,
// Constant attributes) and the conformance runner (input_*.pb / output_*.pb).
#pragma once

#include <string>

#include "loom/tensor.h"
#include "loom_onnx/onnx.pb.h"

namespace loom::onnx_import {

// Where a TensorProto's external data may be read from: files inside
// `model_dir` only. An empty model_dir refuses external data.
struct ExternalDataPolicy {
  std::string model_dir;
};

// Converts `proto` (raw_data, typed fields or external data). Throws
// loom::InvalidArgumentError naming `what` (e.g. "initializer 'conv1.weight'")
// for an unsupported element type, a size that does not match the dims, a
// negative or overflowing dim, or unsafe/out-of-range external data.
Tensor TensorFromProto(const onnx::TensorProto& proto, const ExternalDataPolicy& policy,
                       const std::string& what);

// The TensorProto holding `tensor` as raw_data (for tests and tools).
onnx::TensorProto TensorToProto(const Tensor& tensor, const std::string& name);

}  // namespace loom::onnx_import
