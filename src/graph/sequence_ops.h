// Sequence and optional ops in the IR (ONNX's sequence and optional
// values, loom/graph.h ValueKind): which ops they are and their type rules.
//
//   SequenceEmpty                   → seq(dtype)          (attribute dtype, default float)
//   SequenceConstruct(t...)         → seq(t's type)       (all the same dtype)
//   SequenceInsert(s, t, pos?)      → seq                 (t has s's dtype)
//   SequenceAt(s, pos)              → tensor
//   SequenceErase(s, pos?)          → seq
//   SequenceLength(s)               → int64 scalar
//   SplitToSequence(t, split?)      → seq(t's dtype)      (axis, keepdims)
//   ConcatFromSequence(s)           → tensor              (axis, new_axis)
//   SequenceMap(s, extra...)        → seq... (body run per element; an extra
//                                     sequence gives its element i, an extra
//                                     tensor itself)
//   Optional(t?)                    → optional(t's type), or of the type the
//                                     importer wrote as attributes dtype (an
//                                     ONNX element type) and sequence (0/1)
//   OptionalHasElement(o?)          → bool scalar
//   OptionalGetElement(o)           → the held type
//
// An element shape is what every element shares: where elements may differ
// the dimension is unknown, where the rank may differ the shape is.
//
// Errors: InvalidArgumentError naming the node, for a tensor where a
// sequence is expected and the reverse, or differing dtypes.
#pragma once

#include <string_view>
#include <vector>

#include "graph/control_flow.h"
#include "graph/type_rules.h"
#include "loom/graph.h"

namespace loom::graph {

// The ops above (Identity, If, Loop and Scan also pass sequences and
// optionals on, but are no sequence ops).
bool IsSequenceOp(std::string_view op);

// Whether `op` may take or give a sequence or an optional: the sequence
// ops, Identity and control flow. Every other op takes tensors only.
bool TakesNonTensorValues(std::string_view op);

std::vector<TensorType> InferSequenceEmpty(const NodeTypeContext& ctx);
std::vector<TensorType> InferSequenceConstruct(const NodeTypeContext& ctx);
std::vector<TensorType> InferSequenceInsert(const NodeTypeContext& ctx);
std::vector<TensorType> InferSequenceAt(const NodeTypeContext& ctx);
std::vector<TensorType> InferSequenceErase(const NodeTypeContext& ctx);
std::vector<TensorType> InferSequenceLength(const NodeTypeContext& ctx);
std::vector<TensorType> InferSplitToSequence(const NodeTypeContext& ctx);
std::vector<TensorType> InferConcatFromSequence(const NodeTypeContext& ctx);
std::vector<TensorType> InferOptional(const NodeTypeContext& ctx);
std::vector<TensorType> InferOptionalHasElement(const NodeTypeContext& ctx);
std::vector<TensorType> InferOptionalGetElement(const NodeTypeContext& ctx);

// SequenceMap: its body typed for one element (as control flow's are).
ControlFlowTypes InferSequenceMapTypes(const NodeTypeContext& ctx);
std::vector<TensorType> InferSequenceMap(const NodeTypeContext& ctx);

}  // namespace loom::graph
