// A tiny graph interpreter for the pass tests (test-only: the runtime has the
// real executor). It runs each node's kernel in topological order, one at a
// time, on the caller's thread with the portable ISA, so two graphs that
// compute the same function give outputs equal up to rounding — which is
// what the pass tests check.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "loom/graph.h"

namespace loom::graph::testing {

// A float32 tensor of `dims` holding `values` (constants in the pass tests).
inline Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}

// An int64 tensor of `dims` holding `values` (shapes, axes, indices).
inline Tensor Int64s(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}

// Runs `node`'s kernel on `inputs` (null = absent): the NodeEvaluator the
// constant-folding tests hand to FoldConstants. Throws what the kernel throws.
std::vector<Tensor> EvaluateNode(const Node& node, const std::vector<const Tensor*>& inputs);

// Runs `graph` with `feeds` (by graph input name; a feed also overrides an
// initializer of the same name) and returns every graph output by name.
// Throws loom::InvalidArgumentError for a missing feed, an unknown op or a
// cycle.
std::map<std::string, Tensor> EvaluateGraph(const Graph& graph,
                                            const std::map<std::string, Tensor>& feeds);

// A random tensor for each graph input: floats uniform in [-1, 1), integers
// in [0, 3], bools 0/1. Every input's shape must be known.
std::map<std::string, Tensor> RandomFeeds(const Graph& graph, uint32_t seed);

// Runs both graphs on `feeds` and compares their outputs by name (the two
// must list the same outputs): empty when all agree within
// |a - e| <= atol + rtol * |e|, else a message naming the first difference.
std::string CompareGraphOutputs(const Graph& expected, const Graph& actual,
                                const std::map<std::string, Tensor>& feeds, double rtol,
                                double atol);

}  // namespace loom::graph::testing
