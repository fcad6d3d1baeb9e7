// ONNX node names are optional and need not be unique; Loom's are required
// and unique (they name nodes in errors, traces and profiles).
#pragma once

#include <string>
#include <vector>

#include "loom_onnx/onnx.pb.h"

namespace loom::onnx_import {

// One name per node of `graph`, in node order: the node's own name where it
// is set and first used; otherwise "<op>_<index>" ("node_<index>" without an
// op type), with "_<k>" appended if even that is taken.
std::vector<std::string> UniqueNodeNames(const onnx::GraphProto& graph);

}  // namespace loom::onnx_import
