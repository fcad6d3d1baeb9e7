// ParallelFor: split a loop over a thread pool, the calling thread included.
//
//   ParallelFor(pool, n, cost_per_unit_ns, fn);
//
// does the same work as the serial loop
//
//   fn(0, n);            // i.e. for (int64_t i = 0; i < n; ++i) body(i);
//
// but calls fn on disjoint sub-ranges [begin, end) that together cover
// [0, n) exactly once, possibly on several threads at the same time.
//
// Which thread runs what: the caller claims shards from the front of [0, n)
// and helpers from the back, so the caller's sub-ranges always form a prefix
// and, run after run, each thread gets about the same part of the data.
// Shards shrink toward the end (the first is about n / (2 x threads), the
// last a few units), so the threads finish close together.
//
// How many threads: at most pool->num_threads() + 1 (the pool's workers plus
// the caller). A cost model caps it so each shard carries at least
// kMinShardCostNs of work (n * cost_per_unit_ns estimated); work too small to
// pay for one wake-up runs inline as fn(0, n) without touching the pool. A
// null pool or a pool with no workers always runs inline.
//
// The caller does not wait for helpers to wake up: it claims and runs any
// shard nobody has started yet, and waits only for shards already running on
// other threads. That makes nesting safe — a ParallelFor inside a shard, a
// worker, or an inter-op thread cannot deadlock — and means a sleeping pool
// costs the caller one futex wake, not a wake-up latency.
//
// Errors: if fn throws, shards not yet started are skipped, and the first
// exception is re-thrown on the caller once no shard is running any more.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace loom::threading {

class ThreadPool;

// Work below this per shard is not worth waking a thread for. Guess: a
// futex wake is ~2-5 µs of the caller's time and a blocked worker needs
// ~10-50 µs to start; bench/threading measures the real numbers.
inline constexpr double kMinShardCostNs = 10'000;

// Work from this size up wakes sleeping helpers away from the caller's CPU
// (WakePlacement::kAwayFromWaker). That wake costs the caller ~35 µs on the
// KVM development machines and lets a helper run beside it; 400 µs of work
// after an idle gap then took 240-300 µs instead of 410 µs. Below ~200 µs the
// wake's cost eats most of the gain.
inline constexpr double kWakeAwayMinCostNs = 200'000;

// Memory-bound work (copies, layout changes) over fewer bytes than this
// stays on the calling thread: the caller has usually just written them, so
// they sit in its L2, and a helper on another core would first pull them
// across. ShuffleNet-V2's 90-360 KB Transposes, Slices, Concats and NCHWc
// reorders ran 1.2-1.4x slower on two threads than on one (sum of per-node
// minima over 5 traces, 2-vCPU KVM Xeon).
inline constexpr int64_t kMinParallelMemoryBytes = int64_t{1} << 20;

// The cost_per_unit_ns to hand ParallelFor for memory-bound work touching
// `bytes` in all: 0 (run inline) below `min_bytes` (kMinParallelMemoryBytes
// unless the caller measured another threshold for its work), else
// cost_per_unit_ns.
inline double MemoryBoundCost(int64_t bytes, double cost_per_unit_ns,
                              int64_t min_bytes = kMinParallelMemoryBytes) {
  return bytes < min_bytes ? 0.0 : cost_per_unit_ns;
}

using RangeFn = std::function<void(int64_t begin, int64_t end)>;

void ParallelFor(ThreadPool* pool, int64_t n, double cost_per_unit_ns, const RangeFn& fn);

// Caps every ParallelFor on the calling thread, while it lives, at
// `max_threads` threads (the caller included); 1 makes them run inline.
// loom::data uses it for max_intra_op_parallelism: ops called inside a map
// function must not fan out over the intra-op pool while the data pool is
// already running that function in parallel. Nested limits take the
// smaller value; max_threads <= 0 leaves the current limit.
class ScopedParallelismLimit {
 public:
  explicit ScopedParallelismLimit(int max_threads);
  ~ScopedParallelismLimit();
  ScopedParallelismLimit(const ScopedParallelismLimit&) = delete;
  ScopedParallelismLimit& operator=(const ScopedParallelismLimit&) = delete;

 private:
  int previous_;
};

// The most threads a ParallelFor over `pool` may use on this thread: the
// pool's workers plus the caller, within any ScopedParallelismLimit.
int MaxParallelism(const ThreadPool* pool);

// The number of threads ParallelFor would use for this much work; exposed
// so tests and kernels can reason about sharding.
int ParallelForThreadCount(const ThreadPool* pool, int64_t n, double cost_per_unit_ns);

struct WorkerInfo;

// Where ParallelFor reports the helpers' share of a traced loop.
class HelperTraceSink {
 public:
  // One helper's span of one loop: from claiming its first shard to
  // finishing its last. Called on the helper thread, before the loop counts
  // as done (so the sink outlives every call), possibly from several
  // helpers at once. `worker` is the helper's WorkerInfo.
  virtual void RecordHelperSpan(int64_t tag, const WorkerInfo& worker,
                                std::chrono::steady_clock::time_point begin,
                                std::chrono::steady_clock::time_point end) = 0;

  virtual ~HelperTraceSink() = default;
};

// While one lives on a thread, every ParallelFor that thread calls reports
// each helper's span to `sink` with `tag` (the executor passes the node).
// Loops that helpers start themselves are not traced. Null sink: no effect.
class ScopedHelperTrace {
 public:
  ScopedHelperTrace(HelperTraceSink* sink, int64_t tag);
  ~ScopedHelperTrace();
  ScopedHelperTrace(const ScopedHelperTrace&) = delete;
  ScopedHelperTrace& operator=(const ScopedHelperTrace&) = delete;

 private:
  HelperTraceSink* previous_sink_;
  int64_t previous_tag_;
};

}  // namespace loom::threading
