// The verifier's parts, for graph-layer code that types subgraphs itself
// (control_flow.cc): verify_graph (loom/graph.h) is VerifyStructure followed
// by type inference on a copy.
#pragma once

#include <cstddef>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

// Names, definitions, cycles and op types (verify_graph's checks before type
// inference). Returns the node indices in a topological order. Throws as
// verify_graph does.
std::vector<size_t> VerifyStructure(const Graph& graph);

}  // namespace loom::graph
