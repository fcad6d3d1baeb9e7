// GraphExecutor: runs one step (one Session::run) of an ExecutionPlan.
//
// Scheduling (the rule and its measurements: docs/executor.md):
//  - The calling thread is a runner: it takes ready nodes and runs them.
//  - When a node finishes, the first successor it made ready runs next on
//    the same thread (a chain never changes threads). Further successors
//    made ready go to the step's ready queue.
//  - A queued node is offered to another runner — the caller, if it is
//    idle-waiting, else a new helper runner on the inter-op pool — only if
//    the work it starts is expensive: the moving-average time of the node
//    plus the chain behind it (successors with no other producer, which the
//    taker runs inline) is >= kHandOffMinCostNs, or not yet measured. A
//    new helper also needs the step to have fewer than inter_op_threads
//    runners, and the runners' intra-op threads to still fit the usable
//    CPUs. Cheap work waits in the queue for a runner that is already awake.
//  - Runners exit when the queue is empty; the caller waits (blocking, never
//    spinning) until every needed node has run, or until the step stopped
//    and no node is running.
//
// Memory: a slot's tensor is dropped when its last reader finishes (unless
// fetched); outputs nobody reads are dropped at once. Tensors are allocated
// through a RunAllocator on the session's BufferPool while a node runs.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "loom/session.h"
#include "loom/value.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"

namespace loom::threading {
class CpuBudget;
class ThreadPool;
}  // namespace loom::threading

namespace loom::runtime {

// A node expected to run shorter than this stays on a thread already awake.
// Handing off costs the waker a futex wake (~2-5 µs) and the node a wake-up
// latency (~30-60 µs for a sleeping worker on the development VMs; see
// docs/executor.md for the measurement), so only nodes several times longer
// gain from running beside their sibling.
inline constexpr int64_t kHandOffMinCostNs = 50'000;

struct ExecutorResources {
  threading::ThreadPool* intra_op_pool = nullptr;
  threading::ThreadPool* inter_op_pool = nullptr;
  int intra_op_threads = 1;
  int inter_op_threads = 1;
  int usable_cpus = 1;
  std::shared_ptr<BufferPool> buffers;
  // SessionOptions::max_memory_bytes: a run's tensors' cap (0 = none).
  int64_t max_run_bytes = 0;
  // The process's CPU budget (threading/cpu_budget.h), or null: inter-op
  // runners run nodes only with a token of it; the caller gives its token
  // back while it waits for them.
  threading::CpuBudget* cpu_budget = nullptr;
  // The rule's two knobs, variable so bench/runtime can measure the choice.
  int64_t hand_off_min_cost_ns = kHandOffMinCostNs;
  bool respect_cpu_budget = true;
};

// Runs the nodes needed for `fetch_slots`, given `feeds` (slot, tensor) that
// the session has checked. Returns the fetched tensors. Throws as
// loom/session.h describes for run().
std::vector<Value> ExecuteStep(const std::shared_ptr<const ExecutionPlan>& plan,
                               const ExecutorResources& resources,
                               std::vector<std::pair<int, Value>> feeds,
                               const std::vector<int>& fetch_slots, const RunOptions& options,
                               RunStats* stats);

}  // namespace loom::runtime
