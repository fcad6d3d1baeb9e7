// Checks on a parsed ModelProto that come before conversion: the opset and
// the op types Loom can run. Each throws
// loom::InvalidArgumentError without the model's path; the loader adds it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom_onnx/onnx.pb.h"
#include "onnx_import/function_inliner.h"

namespace loom::onnx_import {

// "" and "ai.onnx" both name ONNX's default operator set.
bool IsDefaultDomain(std::string_view domain);

// The default-domain opset the graph is read at: the model's import of the
// default domain, or, for a model that imports none, the one its inlined
// `functions` import (exporters of function-only graphs may leave the
// model's out; every function that imports it must then agree). Throws when
// there is none, it is imported twice, the functions disagree, or it is
// newer than the schemas Loom knows (kNewestOnnxOpset). Whether each op's
// version at that opset is one Loom reads is CheckOpVersions' question
// (opset_adapter.h); whether a function at another opset reads the same,
// CheckFunctionOpsets' (function_inliner.h). Imports of other domains are
// allowed as long as no node uses them (exporters add them by habit, and
// model-local functions are imported under their own domain).
int DefaultDomainOpset(const onnx::ModelProto& model, std::span<const InlinedFunction> functions);

// One error listing every op type with no Loom kernel and no rewrite into
// ops that have one (or from another domain, shown as "domain::Op"), each
// with the nodes that use it
// (`node_names`: one per node of `graph`, as UniqueNodeNames gives; the
// nodes of subgraphs, checked too, are named within their subgraph).
void CheckOpsSupported(const onnx::GraphProto& graph, const std::vector<std::string>& node_names);

// The default-domain op types of `graph` and its subgraphs, each once, in
// order of first use.
std::vector<std::string> DefaultDomainOpTypes(const onnx::GraphProto& graph);

}  // namespace loom::onnx_import
