// Topological sorting of a graph's nodes (Kahn's algorithm), shared by the
// verifier, the passes and the session planner.
#pragma once

#include <cstddef>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

struct TopologicalOrder {
  // Node indices such that every node comes after the producers of its
  // inputs; among nodes ready at the same time, the lower index first.
  std::vector<size_t> order;
  // Nodes that could not be placed: they lie on, or downstream of, a cycle.
  std::vector<size_t> unsorted;
};

// Values no node produces (graph inputs, initializers, undefined names) count
// as available from the start.
TopologicalOrder SortTopologically(const Graph& graph);

}  // namespace loom::graph

namespace loom {
using graph::SortTopologically;
using graph::TopologicalOrder;
}  // namespace loom
