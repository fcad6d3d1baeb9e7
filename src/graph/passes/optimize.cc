#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "graph/control_flow.h"
#include "graph/passes/passes.h"
#include "graph/type_inference.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

// Each round either shrinks the graph or changes nothing, so a fixed point
// comes within a few rounds; the cap only turns a pass bug that undoes
// another pass's work into a bounded loop instead of a hang.
constexpr int kMaxRounds = 64;

// A capture whose outer value is a constant (an initializer that is not a
// graph input) becomes an initializer of each subgraph of `node` (the same
// tensor, shared), and leaves the node's implicit inputs: the subgraphs'
// kernels then prepare for it as for any constant (a loop body's Gemm packs
// its weights once, not every iteration).
bool MoveConstantCapturesInside(const Graph& graph, Node& node) {
  if (node.implicit_inputs == 0) return false;
  std::set<std::string> graph_inputs;
  for (const ValueInfo& input : graph.inputs) graph_inputs.insert(input.name);
  std::vector<std::pair<std::string, std::shared_ptr<Graph>>> subgraphs;
  for (auto& [name, subgraph] : Subgraphs(node)) {
    subgraphs.emplace_back(name, std::make_shared<Graph>(*subgraph));
  }
  bool moved = false;
  for (int k = node.implicit_inputs - 1; k >= 0; --k) {
    const size_t index = node.num_onnx_inputs() + static_cast<size_t>(k);
    const std::string& outer = node.inputs[index];
    auto constant = graph.initializers.find(outer);
    if (constant == graph.initializers.end() || graph_inputs.count(outer) != 0) continue;
    const bool fits = std::all_of(subgraphs.begin(), subgraphs.end(), [&](const auto& entry) {
      const Graph& sub = *entry.second;
      const size_t position = sub.inputs.size() - static_cast<size_t>(node.implicit_inputs) + k;
      return position < sub.inputs.size() && sub.initializers.count(sub.inputs[position].name) == 0;
    });
    if (!fits) continue;
    for (auto& [name, sub] : subgraphs) {
      const size_t position = sub->inputs.size() - static_cast<size_t>(node.implicit_inputs) + k;
      sub->initializers.emplace(sub->inputs[position].name, constant->second);
      sub->inputs.erase(sub->inputs.begin() + static_cast<std::ptrdiff_t>(position));
    }
    node.inputs.erase(node.inputs.begin() + static_cast<std::ptrdiff_t>(index));
    --node.implicit_inputs;
    moved = true;
  }
  if (!moved) return false;
  for (auto& [name, sub] : subgraphs) node.attributes[name] = std::move(sub);
  return true;
}

}  // namespace

// Control flow's subgraphs, typed for their node's inputs by the InferTypes
// before (control_flow.h), take in their constant captures and are
// optimized as graphs of their own: the passes
// keep a graph's input and output names, so the captures bound by position
// stay in place. The outer passes treat the control-flow node as opaque.
void OptimizeSubgraphs(Graph& graph, const OptimizationOptions& options) {
  bool moved = false;
  for (Node& node : graph.nodes) moved = MoveConstantCapturesInside(graph, node) || moved;
  if (moved) EliminateDeadNodes(graph);  // initializers only the captures read
  InferTypes(graph);
  for (Node& node : graph.nodes) {
    for (auto& [name, subgraph] : Subgraphs(node)) {
      const SubgraphDepthGuard depth("node '" + node.name + "'");
      auto optimized = std::make_shared<Graph>(*subgraph);
      try {
        OptimizeGraph(*optimized, options);
      } catch (const SubgraphDepthError&) {
        throw;
      } catch (const InvalidArgumentError&) {
        // An If branch that cannot be typed for these inputs (control_flow.h)
        // stays as it is: it fails if it is ever taken.
        if (node.op_type != "If") throw;
        continue;
      }
      node.attributes[name] = std::move(optimized);
    }
  }
}

void OptimizeGraph(Graph& graph, const OptimizationOptions& options) {
  if (options.level < 0 || options.level > 2) {
    throw InvalidArgumentError("OptimizeGraph: level must be 0, 1 or 2 (got " +
                               std::to_string(options.level) + ")");
  }
  if (options.level >= 1) {
    if (!options.evaluate) {
      throw InvalidArgumentError("OptimizeGraph: level " + std::to_string(options.level) +
                                 " folds constants and needs an evaluator (options.evaluate)");
    }
    // The passes rely on a well-formed, acyclic graph.
    verify_graph(graph);
    for (int round = 0; round < kMaxRounds; ++round) {
      // Dead nodes first, so folding never evaluates what nobody reads.
      bool changed = EliminateDeadNodes(graph);
      // Shapes known before any run fold with the arithmetic on them.
      InferTypes(graph);
      changed = FoldStaticShapes(graph) || changed;
      if (options.level >= 2) {
        // Before folding, which would turn the weights' DequantizeLinear
        // into a float constant the pattern no longer shows.
        changed = FuseQdqConv(graph) || changed;
        // Before folding too: a DQ of a constant would fold, and the pair
        // would no longer show.
        changed = DropQdqAroundSelection(graph) || changed;
        changed = FuseQdqAdd(graph) || changed;
      }
      changed = FoldConstants(graph, options.evaluate) || changed;
      if (options.level >= 2) {
        // The transformer fusions read dtypes, ranks and last dims; folding
        // may have replaced the nodes whose types are known.
        InferTypes(graph);
        // Pow(d, 2) becomes the Mul(d, d) layer-norm fusion matches; GELU
        // before bias/activation fusion, which fuses a Gelu node into a Conv.
        changed = SimplifyPow(graph) || changed;
        changed = PoolSpatialMeans(graph) || changed;
        changed = FuseLayerNormalization(graph) || changed;
        changed = FuseGelu(graph) || changed;
        changed = FuseAttention(graph) || changed;
        // Batch norm before fusion: folding needs the bare Conv/Gemm, and
        // the bias it leaves is what fusion then keeps.
        changed = FoldBatchNormalization(graph) || changed;
        changed = FuseBiasAndActivation(graph) || changed;
      }
      if (!changed) break;
    }
    if (options.level >= 2 && options.nchwc_block != 0) {
      InferTypes(graph);  // the layout pass reads channel counts
      UseBlockedLayout(graph, options.nchwc_block, options.winograd);
    }
    OptimizeSubgraphs(graph, options);
  }
  InferTypes(graph);
}

}  // namespace loom::graph
