// A checked onnx::ModelProto → loom::Graph, before opset adaptation and
// verification (model_loader.cc runs the whole pipeline).
//
//  - initializers become Graph::initializers; Constant nodes too (their
//    value, value_float(s) or value_int(s) attribute);
//  - graph inputs that are not initializers are inputs; an initializer also
//    listed as an input stays an input whose default is the initializer
//    (IR version >= 4; before IR 4 every initializer was listed as an input
//    by rule, so there they stay constants, as in ONNX Runtime);
//  - nodes keep their op type, inputs and attributes and take the names
//    UniqueNodeNames gives; an output left empty (an unused optional
//    output) gets a fresh name; trailing ones are dropped (not Split's,
//    whose output count is its number of parts, nor control flow's);
//  - GRAPH attributes (If, Loop, Scan) become subgraphs, converted the same
//    way, nested at most graph::kMaxSubgraphDepth deep. A subgraph's
//    outer-scope values (names it reads but does not define, through
//    nested subgraphs too) become trailing inputs of every subgraph of the
//    node and the node's implicit inputs (loom/graph.h); in the model's
//    graph each must be defined, else an InvalidArgumentError names the
//    node and the value. Subgraph inputs may omit their types; subgraph
//    outputs keep their declared dtype only (shapes are inferred).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "loom/graph.h"
#include "loom_onnx/onnx.pb.h"
#include "onnx_import/tensor_proto.h"

namespace loom::onnx_import {

// Throws loom::InvalidArgumentError naming the value or node at fault.
Graph ConvertGraph(const onnx::ModelProto& model, const std::vector<std::string>& node_names,
                   const ExternalDataPolicy& policy);

// The rank of every value whose ValueInfo (input, output or value_info) or
// initializer states one: what the opset adapter may rely on before type
// inference has run.
std::map<std::string, int> DeclaredRanks(const onnx::GraphProto& graph);

}  // namespace loom::onnx_import
