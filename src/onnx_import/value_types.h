// onnx::ValueInfoProto → loom::TensorType: the kind (tensor, sequence,
// optional), elem_type to DType, and each
// dimension to a size (dim_value), a symbol (dim_param), or — when it has
// neither — a fresh symbol of its own, so two unknown sizes never bind
// together by accident.
#pragma once

#include <set>
#include <string>

#include "loom/graph.h"
#include "loom_onnx/onnx.pb.h"

namespace loom::onnx_import {

// Hands out fresh dimension symbols ("unk__0", "unk__1", ...) that no
// dim_param in the graph already uses.
class SymbolTable {
 public:
  explicit SymbolTable(const onnx::GraphProto& graph);
  std::string Fresh();

 private:
  std::set<std::string> used_;
  int next_ = 0;
};

// The type of a graph input (`is_input`) or output: a tensor, a sequence of
// tensors, or an optional of either (ValueKind). Throws
// loom::InvalidArgumentError naming `what` for another type (maps, sparse
// tensors, sequences of sequences), an element type Loom lacks or a
// negative dimension. An input must have a type; an output without one (or
// without an element type) gets a placeholder that type inference replaces.
TensorType ConvertValueType(const onnx::ValueInfoProto& info, bool is_input, SymbolTable& symbols,
                            const std::string& what);

// The same for a TypeProto (Optional's `type` attribute).
TensorType ConvertTypeProto(const onnx::TypeProto& type, bool is_input, SymbolTable& symbols,
                            const std::string& what);

}  // namespace loom::onnx_import
