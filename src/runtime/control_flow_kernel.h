// The node kernels of control flow: If, Loop and Scan (ONNX semantics,
// Scan in its opset-9 form). Each prepares its subgraphs once, when the
// session builds its plan — an ExecutionPlan per subgraph, nested kernels
// included — and runs them with RunSubgraph (subgraph_runner.h): on the
// thread running the node, on the same intra-op pool, with the run's
// allocator, never on a new thread.
//
//   If    cond (a one-element bool tensor) picks then_branch or else_branch,
//         run on the node's captures.
//   Loop  (M, cond, v_initial...) → (v_final..., scan_outputs...):
//           for (i = 0; (M absent || i < M) && (cond absent || cond); ++i)
//             (cond, v..., scan elements...) = body(i, cond, v..., captures...)
//         Scan outputs stack each iteration's element along a new axis 0;
//         after zero iterations they have length 0 and the rest of their
//         shape from the body's types (unknown dims as 0).
//   Scan  (states..., scan inputs...) → (final states..., scan outputs...):
//         iteration t takes slice t (or L-1-t, scan_input_directions = 1)
//         of each scan input along its scan_input_axes axis; scan outputs
//         stack the elements along scan_output_axes, reversed for
//         scan_output_directions = 1.
//
// The run's cancellation and deadline are checked before each iteration
// and before each node of a subgraph (RunControl).
//
// Errors (InvalidArgumentError; the executor prefixes the node's name): a
// cond that is not a one-element bool tensor, a negative or non-scalar M,
// scan inputs of different lengths, loop-carried values that change dtype,
// scan-output elements whose shape changes between iterations.
#pragma once

#include <memory>

#include "kernels/isa.h"
#include "loom/graph.h"
#include "runtime/node_kernel.h"

namespace loom::runtime {

// `node` is an If, Loop or Scan whose subgraphs type inference has typed
// (the session's graph after OptimizeGraph). Throws InvalidArgumentError
// when a subgraph cannot be prepared.
std::unique_ptr<NodeKernel> MakeControlFlowKernel(const Node& node, kernels::Isa isa);

}  // namespace loom::runtime
