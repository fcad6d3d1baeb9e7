// Type inference: the dtype and (possibly symbolic) shape of every value.
//
// Walks the nodes in topological order and applies one rule per op type
// (type_rules.cc's table). A rule reads its inputs' types and the node's
// attributes (and constant inputs such as Reshape's shape when they are
// initializers, or Constant nodes) and returns the outputs' types. Where a
// dimension cannot be known before running (data-dependent), it becomes a
// fresh symbol "?<node>.<k>" (type_rules.h: IsUnknownDim), so the rank
// survives; a shape is nullopt only when even the rank is unknown. Never
// guessed. value_types is rebuilt from scratch on every call. A declared
// graph-output type without a shape is a placeholder (GraphBuilder::output
// declares one); one with a shape is checked.
//
// Errors: a dtype or shape that does not fit the op throws
// loom::InvalidArgumentError naming the node, the op, the input and expected
// vs. actual, e.g.
//   "node 'add_3' (Add): inputs 'a' float32[2, 3] and 'b' float32[4] do not
//    broadcast (axis 1: 3 vs 4)".
// Symbolic dimensions are compared by name; a symbol meeting a known size is
// accepted (the run-time check catches a wrong binding).
#pragma once

#include "loom/graph.h"

namespace loom::graph {

// Fills graph.value_types for every node output and sets the type of every
// graph output. Control-flow nodes get their subgraphs replaced by copies
// typed for the node's inputs (control_flow.h). Declared graph-output types that contradict the
// inferred ones throw. Requires a structurally valid, acyclic graph (verify_graph's first checks).
void InferTypes(Graph& graph);

}  // namespace loom::graph
