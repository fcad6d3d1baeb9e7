// RunSubgraph: runs a control-flow node's subgraph (its own ExecutionPlan,
// prepared once when the session was created) to completion on the calling
// thread — the thread running the control-flow node. No thread is created
// and no node is handed to the inter-op pool: the nodes run one after
// another in the plan's topological order, each parallelizing through the
// same intra-op pool (ctx.pool) as any node of the run. Tensors are
// allocated through the allocator the executor installed for the node, so
// the subgraph's values count in the run's memory accounting and limit, and
// each is dropped after its last reader.
//
// The run's cancellation and deadline are checked before each node.
//
// Errors: a node's InvalidArgumentError is rethrown naming the subgraph and
// the node; CancelledError and DeadlineExceededError pass through unchanged;
// other errors become RuntimeError naming them.
//
// Thread safety: the plan is shared read-only; concurrent runs are safe.
#pragma once

#include <string>
#include <vector>

#include "kernels/op_kernel.h"
#include "runtime/execution_plan.h"
#include "runtime/node_kernel.h"

namespace loom::runtime {

// Runs one node of `plan` on the values in `slots` (constants from the
// plan): its inputs bound, its kernel run with `pool`, `control` and the
// plan's ISA, its outputs moved into their slots. Throws RuntimeError when
// the kernel returns fewer outputs than the node has (no slot written). A
// tensor kernel given a sequence or an empty optional throws
// InvalidArgumentError (type inference keeps them apart; this is the
// run-time guard). The graph executor and RunSubgraph both run nodes
// through it; writing only the node's own output slots, it may run
// beside other nodes of the same step.
void RunPlanNode(const ExecutionPlan& plan, const PlanNode& node, std::vector<Value>& slots,
                 threading::ThreadPool* pool, const RunControl& control);

// `inputs[i]` feeds the plan's input i; returns the plan's outputs in order.
std::vector<Value> RunSubgraph(const ExecutionPlan& plan, std::vector<Value> inputs,
                               threading::ThreadPool* pool, const RunControl& control,
                               const std::string& where);

}  // namespace loom::runtime
