#include <string>

#include "graph/passes/passes.h"
#include "graph/type_inference.h"
#include "loom/errors.h"

namespace loom::graph {
namespace {

// Each round either shrinks the graph or changes nothing, so a fixed point
// comes within a few rounds; the cap only turns a pass bug that undoes
// another pass's work into a bounded loop instead of a hang.
constexpr int kMaxRounds = 64;

}  // namespace

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
  }
  InferTypes(graph);
}

}  // namespace loom::graph
