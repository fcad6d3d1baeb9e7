// Checks on a parsed ModelProto that come before conversion: the opset, the
// op types Loom can run, and the ONNX library's own checker. Each throws
// loom::InvalidArgumentError without the model's path; the loader adds it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "onnx/onnx_pb.h"

namespace loom::onnx_import {

// Default-domain opsets the importer converts. 11 is where Clip, Pad and
// Slice took their bounds as inputs; 17 is the newest libonnx 1.12 knows.
inline constexpr int kMinOpset = 11;
inline constexpr int kMaxOpset = 17;

// "" and "ai.onnx" both name ONNX's default operator set.
bool IsDefaultDomain(std::string_view domain);

// The model's default-domain opset. Throws when it is missing, imported
// twice, or above kMaxOpset. A model below kMinOpset is read as a kMinOpset
// model when every op it uses has the same definition at both (exporters
// stamp the opset where an op last changed); otherwise it throws, naming the
// ops that changed. Imports of other domains are allowed as long as no node
// uses them (exporters add them by habit).
int DefaultDomainOpset(const onnx::ModelProto& model);

// The default-domain op types in `graph` (each once, in order of first use)
// whose definition at `opset` differs from the one at kMinOpset — what keeps
// an old-opset model from being read as a kMinOpset one.
std::vector<std::string> OpsChangedSinceOpset(const onnx::GraphProto& graph, int opset);

// One error listing every op type with no Loom kernel (or from another
// domain, shown as "domain::Op"), each with the nodes that use it
// (`node_names`: one per node of `graph`, as UniqueNodeNames gives).
void CheckOpsSupported(const onnx::GraphProto& graph, const std::vector<std::string>& node_names);

// Runs onnx::checker::check_model. Tensors stored as external data are
// moved to graph inputs in a copy first: the checker would look for their
// files relative to the process's working folder, and the importer checks
// them itself under stricter rules. Skipped for IR versions newer than the
// library's (it would reject them outright; conversion still checks what it
// reads).
void RunOnnxChecker(const onnx::ModelProto& model);

}  // namespace loom::onnx_import
