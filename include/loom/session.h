// Sessions: a verified, optimized graph ready to run many times.
//
//   loom::Session session(std::move(graph));
//   std::vector<loom::Tensor> out = session.run({{"x", x}});   // all outputs
//
// Construction verifies the graph (loom::verify_graph), optimizes it
// (constant folding, dead-node elimination, BatchNorm folding, bias and
// activation fusion), prepares kernels whose weights are constants (packing
// them once), and plans memory. Creating the first session starts the global
// runtime (unless it has private pools), which freezes the threading
// configuration.
//
// How a run uses threads (docs/executor.md has the measurements):
//  - The thread calling run() executes nodes itself. A step runs at most
//    inter_op_threads nodes at the same time: the caller plus up to
//    inter_op_threads - 1 "loom-inter-*" workers. inter = 1 is a strictly
//    serial schedule on the caller, in a topological order.
//  - A node that becomes ready while its producer's thread has another
//    successor to run is handed to an inter-op worker only when it is
//    expected to take long enough to pay for the hand-off (a moving average
//    of its measured time) and the machine has CPUs the running nodes'
//    intra-op work leaves idle; otherwise it runs inline, later, on the same
//    thread. So intra 2 + inter 2 on a 2-CPU machine never puts three busy
//    threads on two CPUs.
//  - Each node parallelizes through the intra-op pool (ParallelFor), the
//    thread running it taking part.
//  - Memory: a node's output is freed (returned to the session's buffer
//    pool) after its last consumer has run; buffers are reused across nodes
//    and runs. RunStats::peak_bytes reports the most tensor memory a run held.
//
// Errors: construction throws loom::InvalidArgumentError for an invalid graph.
// run() throws InvalidArgumentError for a missing, unknown or mistyped feed or
// an unknown fetch; when a node fails, the step stops (nodes not yet started
// are skipped, running ones finish), and run() rethrows the node's error as
// "node '<name>' (<op>): <cause>" with the cause's type. A cancelled run
// throws loom::CancelledError, an expired one loom::DeadlineExceededError;
// both are checked before each node starts (a running kernel is not
// interrupted). No thread stays blocked after run() returns or throws.
//
// Thread safety: run() may be called from many threads at once on one
// session; each call has its own intermediate state.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/graph.h"
#include "loom/tensor.h"
#include "loom/value.h"

namespace loom {

// Cancels the runs it is passed to, from any thread. Copies share one flag.
class CancellationToken {
 public:
  CancellationToken() : cancelled_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() { cancelled_->store(true, std::memory_order_release); }
  bool cancelled() const { return cancelled_->load(std::memory_order_acquire); }

 private:
  std::shared_ptr<std::atomic<bool>> cancelled_;
};

struct SessionOptions {
  // Private pools, as ONNX Runtime offers: this session creates its own
  // threads sized below (0 = automatic, as for the global settings), named
  // with its number ("loom-s1-intra-0", "loom-s1-inter-0"; describe() lists
  // them with owner "session 1"), and destroys them with the session. It
  // neither starts nor freezes the global pools; it does share the
  // process's CPU budget (which it fixes). Default: the global runtime's
  // pools, shared by every session and eager op.
  bool use_private_thread_pools = false;
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  // 0: run the graph as given; 1: constant folding and dead-node
  // elimination; 2: also BatchNorm folding and bias/activation fusion.
  int optimization_level = 2;
  // At level 2: run convolution chains in the channel-blocked layout
  // (NCHWc, blocks of 16 channels with AVX-512, 8 otherwise), with reorder
  // nodes only at the edges; false keeps every node NCHW (to compare the
  // two, as ONNX Runtime's ORT_ENABLE_EXTENDED vs ORT_ENABLE_ALL).
  bool blocked_layout = true;
  // With the blocked layout: 3x3 stride-1 convolutions may run as Winograd
  // F(4x4, 3x3) where that is faster (1.5-2.1x on ResNet-18's 64- and
  // 128-channel layers); false keeps the direct kernel everywhere (to
  // compare, or for results closer to the direct sum: Winograd's rounding
  // is ~1e-5 of the sum of the |w x| terms).
  bool winograd = true;
  // Run one node at a time, on the thread that calls run() (ONNX Runtime's
  // ORT_SEQUENTIAL): the session's inter-op count is 1 whatever the pools
  // are, and it never uses (nor creates) an inter-op pool.
  bool sequential = false;
  // The most bytes one run's tensors may hold at once (intermediate values
  // and outputs; RunStats::peak_bytes reports what a run used): a run that
  // would go above fails with loom::RuntimeError before allocating. 0 = no
  // cap of the session's own; the process's memory cap (loom::memory_cap())
  // bounds every run anyway.
  int64_t max_memory_bytes = 0;
};

struct RunOptions {
  std::optional<CancellationToken> cancellation;
  // The run fails with DeadlineExceededError once this much time has passed
  // since run() was called; zero = no deadline.
  std::chrono::nanoseconds timeout{0};
  // Record a TraceEvent per node into RunStats::trace.
  bool trace = false;
};

// One node's run on one thread. A node whose loops intra-op helpers shared
// has one event on the thread that ran it plus one per helper
// (intra_op_helper = true), spanning that helper's first to last shard.
struct TraceEvent {
  std::string node;
  std::string op;
  int64_t start_ns = 0;  // since the run started
  int64_t end_ns = 0;
  std::string thread;  // "loom-inter-0", "loom-intra-0", or "caller" for the thread in run()
  int tid = 0;         // kernel thread id
  bool intra_op_helper = false;
};

struct OpProfile {
  std::string op;
  int64_t calls = 0;
  double total_ms = 0;
  double share = 0;  // of the summed node time, 0..1
};

struct RunStats {
  double wall_ms = 0;
  int64_t peak_bytes = 0;  // most tensor bytes the run's nodes held at once
  int64_t nodes_run = 0;
  std::vector<TraceEvent> trace;  // when RunOptions::trace, in start order

  // The trace as Chrome / Perfetto JSON ({"traceEvents": [...]} with
  // complete "ph": "X" events, one track per thread).
  std::string chrome_trace_json() const;
  // Time per op type, largest first (the nodes' own events; helpers' spans
  // overlap them and are not added).
  std::vector<OpProfile> op_profile() const;
};

class Session {
 public:
  explicit Session(Graph graph, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the nodes needed for `fetches` (value names; empty = every graph
  // output, in graph order) on `feeds` (graph input name → tensor; each
  // must match the input's dtype and shape, symbolic dimensions binding to
  // one size per run). Returns the fetched tensors in order.
  std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds,
                          const std::vector<std::string>& fetches = {},
                          const RunOptions& options = {}, RunStats* stats = nullptr) const;

  // run() for graphs whose inputs or outputs may be sequences or optionals
  // (loom/value.h): a sequence input takes Value::Sequence, an optional one
  // a value or Value::None() (not fed: None); an empty optional output comes back as
  // Value::None(). Errors and thread safety as run(), which is this with
  // tensors only (and throws InvalidArgumentError for a fetch that is not
  // a tensor).
  std::vector<Value> run_values(const std::map<std::string, Value>& feeds,
                                const std::vector<std::string>& fetches = {},
                                const RunOptions& options = {}, RunStats* stats = nullptr) const;

  const std::vector<ValueInfo>& inputs() const;
  const std::vector<ValueInfo>& outputs() const;
  // The graph after optimization, as it runs.
  const Graph& graph() const;
  int intra_op_threads() const;
  int inter_op_threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loom
