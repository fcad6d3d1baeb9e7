// onnx::AttributeProto → loom::AttributeValue.
//
// INT, FLOAT, STRING, INTS, FLOATS, STRINGS and TENSOR convert; GRAPH (control
// flow's subgraphs) converts through the caller's `convert_subgraph` (the
// graph converter, which knows the enclosing scopes) and is refused without
// one; GRAPHS, SPARSE_TENSOR(S), TENSORS, TYPE_PROTO(S) and references to
// function attributes are refused with an InvalidArgumentError naming the
// attribute and `where` (e.g. "node 'conv1' (Conv)").
#pragma once

#include <functional>
#include <string>

#include "loom/attributes.h"
#include "loom_onnx/onnx.pb.h"
#include "onnx_import/tensor_proto.h"

namespace loom::onnx_import {

// Converts a GRAPH attribute's graph; `what` names the attribute.
using SubgraphConverter =
    std::function<GraphAttribute(const onnx::GraphProto& graph, const std::string& what)>;

AttributeValue ConvertAttribute(const onnx::AttributeProto& attribute,
                                const ExternalDataPolicy& policy, const std::string& where,
                                const SubgraphConverter* convert_subgraph = nullptr);

// Every attribute of `node`; a name given twice is an error.
Attributes ConvertAttributes(const onnx::NodeProto& node, const ExternalDataPolicy& policy,
                             const std::string& where,
                             const SubgraphConverter* convert_subgraph = nullptr);

}  // namespace loom::onnx_import
