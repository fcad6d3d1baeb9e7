// onnx::AttributeProto → loom::AttributeValue.
//
// INT, FLOAT, STRING, INTS, FLOATS, STRINGS and TENSOR convert; GRAPH(S)
// (control flow), SPARSE_TENSOR(S), TENSORS, TYPE_PROTO(S) and references
// to function attributes are refused with an InvalidArgumentError naming
// the attribute and `where` (e.g. "node 'conv1' (Conv)").
#pragma once

#include <string>

#include "loom/attributes.h"
#include "loom_onnx/onnx.pb.h"
#include "onnx_import/tensor_proto.h"

namespace loom::onnx_import {

AttributeValue ConvertAttribute(const onnx::AttributeProto& attribute,
                                const ExternalDataPolicy& policy, const std::string& where);

// Every attribute of `node`; a name given twice is an error.
Attributes ConvertAttributes(const onnx::NodeProto& node, const ExternalDataPolicy& policy,
                             const std::string& where);

}  // namespace loom::onnx_import
