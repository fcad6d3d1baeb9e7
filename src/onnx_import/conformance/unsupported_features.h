// Why a model cannot run in Loom, read from the model itself: the runner
// uses this to tell "Loom deliberately lacks this" (UNSUPPORTED) from a
// real failure when loading or running fails. The scan only explains a
// failure; a model the importer accepts is run whatever the scan says (the
// importer may rewrite an op the kernel registry lacks).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "loom_onnx/onnx.pb.h"

namespace loom::conformance {

// Everything in `model` Loom has no support for, one item each, sorted and
// without repeats:
//   "op Loop"                       not in the kernel registry
//   "op ai.onnx.ml.LabelEncoder"    an op of another domain
//   "opset 25 (Loom imports 1..24)" the default domain's opset
//   "op Add version 6"              an op version without a rule (opset_adapter.h)
//   "dtype uint16"                  a tensor element type Loom lacks
//   "sequence type"                 a sequence of non-tensors (of sequences, of maps)
//   "optional type"                 an optional of a map or of a sequence of non-tensors
//   "map type", "sparse tensor type"
//   "sparse initializer"
// Graph inputs, outputs, value_info, initializers and Constant tensors are
// inspected, in control flow's subgraphs too.
std::vector<std::string> FindUnsupportedFeatures(const onnx::ModelProto& model);

// The distinct op types of the top-level graph's nodes, sorted; ops of a
// domain other than the default one carry it ("ai.onnx.ml.LabelEncoder").
std::vector<std::string> OpTypes(const onnx::ModelProto& model);

// Whether an error message from loading or running says that Loom lacks a
// feature on purpose (a dtype a kernel has no code for, an attribute value
// the kernels do not implement), rather than that something went wrong.
bool IsDeliberateLimit(std::string_view message);

}  // namespace loom::conformance
