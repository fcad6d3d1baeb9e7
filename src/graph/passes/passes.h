// Graph passes: each rewrites a Graph in place and returns whether it changed
// anything. One pass per file, each with a test comparing Graph::to_string()
// before and after.
//
// Passes keep the graph valid (verify_graph passes after each) and keep every
// graph input and output name. They never run kernels themselves: constant
// folding receives an evaluator from the runtime layer (layering:
// graph must not run kernels).
#pragma once

#include <functional>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

// Evaluates `node` on constant inputs (null = an absent optional input) and
// returns its outputs. Provided by the runtime (it runs the node's kernel).
using NodeEvaluator =
    std::function<std::vector<Tensor>(const Node& node, const std::vector<const Tensor*>& inputs)>;

// Replaces every node whose inputs are all initializers by initializers
// holding its outputs, computed by `evaluate`. Graph outputs stay produced by
// a node (an Identity of the folded constant) so fetch names are unchanged.
bool FoldConstants(Graph& graph, const NodeEvaluator& evaluate);

// Removes nodes none of whose outputs reach a graph output, and initializers
// no remaining node uses.
bool EliminateDeadNodes(Graph& graph);

// Conv (or Gemm with a constant B) followed by an inference BatchNormalization
// whose parameters are constants: scales the weights and bias so the
// BatchNormalization disappears. Only when the conv output has no other
// consumer.
bool FoldBatchNormalization(Graph& graph);

// Conv/Gemm (+ Add of a constant per-channel bias) (+ an activation: Relu,
// LeakyRelu, Clip with constant bounds, Sigmoid, Tanh, HardSigmoid,
// HardSwish, Silu (Mul(x, Sigmoid(x)) too), Gelu) → one Conv/Gemm node with a
// bias input and the "activation"/"activation_params" attributes
// (kernels/fused_activation.h). Only when each intermediate has one consumer
// and is not a graph output.
bool FuseBiasAndActivation(Graph& graph);

struct OptimizationOptions {
  // 0: none; 1: constant folding and dead-node elimination; 2: 1 plus the
  // fusions (the default).
  int level = 2;
  NodeEvaluator evaluate;  // required for level >= 1
};

// Runs the passes in order, to a fixed point, then type inference.
void OptimizeGraph(Graph& graph, const OptimizationOptions& options);

}  // namespace loom::graph
