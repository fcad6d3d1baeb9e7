// Inter-op experiment: does running a layer's independent ops concurrently
// on an inter-op pool beat running them one after another on the calling
// thread? The data behind AutoInterOpThreads (threading_config.h).
//
// The graph: kLayers layers, each of `width` independent ops; a layer starts
// when the previous one is done. Every op is a ParallelFor on an intra-op
// pool of 2 threads (1 worker + the op's caller) whose body burns op_us of
// calibrated work in total:
//   op_us = 5    the cost model runs it inline (5 µs < kMinShardCostNs)
//   op_us = 500  sharded over both intra threads
// A layer runs either serially (inter_workers = 0: all ops on the calling
// thread) or over an inter-op pool of inter_workers workers: width-1 ops
// are scheduled there, one runs on the calling thread, which then waits.
//
// Reported: us_per_layer (wall time of the graph / kLayers). Both pools use
// the runtime's default spin time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "bench_common.h"
#include "threading/parallel_for.h"
#include "threading/thread_pool.h"
#include "threading/threading_config.h"

namespace loom::bench {
namespace {

using threading::ParallelFor;
using threading::ThreadPool;
using threading::ThreadPoolOptions;

constexpr int kLayers = 50;

// Units per op, so a 500 µs op splits into ParallelFor's 8 shards (4 per
// thread) evenly.
constexpr int64_t kUnitsPerOp = 64;

// A dependent multiply-add chain: each step needs the previous result, so
// the compiler can neither vectorize nor drop it, and a step costs the same
// every time (the FP latency of one mul + one add).
double BurnSteps(int64_t steps, double x) {
  for (int64_t i = 0; i < steps; ++i) x = x * 0.999999 + 1e-6;
  return x;
}

// Nanoseconds per BurnSteps step: the fastest of 5 timed runs, since noise
// on a shared VM only ever adds time.
double NsPerStep() {
  static const double ns_per_step = [] {
    constexpr int64_t kSteps = 2'000'000;
    double best = 1e300;
    for (int run = 0; run < 5; ++run) {
      // The input is opaque only after `start` and the result escapes
      // before `stop`, so the loop can be neither folded nor moved out of
      // the timed span.
      double x = 1.0;
      const auto start = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(x);
      x = BurnSteps(kSteps, x);
      benchmark::DoNotOptimize(x);
      const auto stop = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double, std::nano>(stop - start).count());
    }
    return best / kSteps;
  }();
  return ns_per_step;
}

// One op of the graph: op_us of work over kUnitsPerOp units on `intra`.
class Op {
 public:
  Op(ThreadPool* intra, double op_us)
      : intra_(intra),
        cost_per_unit_ns_(op_us * 1e3 / kUnitsPerOp),
        steps_per_unit_(static_cast<int64_t>(cost_per_unit_ns_ / NsPerStep())) {
    body_ = [this](int64_t begin, int64_t end) {
      benchmark::DoNotOptimize(BurnSteps((end - begin) * steps_per_unit_, 1.0 + begin));
    };
  }

  void Run() const { ParallelFor(intra_, kUnitsPerOp, cost_per_unit_ns_, body_); }

  // Threads ParallelFor gives this op: 1 for small ops, 2 for large.
  int threads() const {
    return threading::ParallelForThreadCount(intra_, kUnitsPerOp, cost_per_unit_ns_);
  }

 private:
  ThreadPool* intra_;
  double cost_per_unit_ns_;
  int64_t steps_per_unit_;
  threading::RangeFn body_;
};

// Runs `width` copies of `op` and returns when all are done. Waiting yields
// instead of spinning: the caller shares 2 cores with up to 5 other threads.
void RunLayer(ThreadPool* inter, const Op& op, int width) {
  if (inter == nullptr) {
    for (int i = 0; i < width; ++i) op.Run();
    return;
  }
  std::atomic<int> remaining{width - 1};
  for (int i = 1; i < width; ++i) {
    inter->Schedule([&op, &remaining] {
      op.Run();
      // Release: the caller's acquire load below then sees the op's effects.
      // This is the task's last touch of `remaining`, which dies with the
      // caller's frame.
      remaining.fetch_sub(1, std::memory_order_release);
    });
  }
  op.Run();
  while (remaining.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

ThreadPoolOptions PoolOptions(const char* name, int workers) {
  ThreadPoolOptions options;
  options.name = name;
  options.num_threads = workers;
  options.spin_wait_us = threading::kDefaultSpinWaitUs;
  return options;
}

void BM_InterOpLayer(benchmark::State& state) {
  const double op_us = static_cast<double>(state.range(0));
  const int width = static_cast<int>(state.range(1));
  const int inter_workers = static_cast<int>(state.range(2));
  // A step takes a few cycles; far less means the calibration loop was
  // optimized away and every op would run for seconds.
  if (NsPerStep() < 0.1) {
    state.SkipWithError("BurnSteps calibration failed");
    return;
  }

  ThreadPool intra(PoolOptions("intra", 1));
  std::unique_ptr<ThreadPool> inter;
  if (inter_workers > 0) inter = std::make_unique<ThreadPool>(PoolOptions("inter", inter_workers));
  const Op op(&intra, op_us);

  double graph_us = 0;  // summed over iterations, for us_per_layer
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int layer = 0; layer < kLayers; ++layer) RunLayer(inter.get(), op, width);
    graph_us +=
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["us_per_layer"] =
      benchmark::Counter(graph_us / kLayers, benchmark::Counter::kAvgIterations);
  state.counters["op_threads"] = op.threads();
  state.counters["ns_per_step"] = NsPerStep();
}

void InterOpArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"op_us", "width", "inter_workers"});
  for (int op_us : {5, 500}) {
    b->Args({op_us, 1, 0});  // one op per layer: an inter pool would sit idle
    for (int width : {2, 4}) {
      for (int inter_workers : {0, 1, 2, 4}) b->Args({op_us, width, inter_workers});
    }
  }
}
BENCHMARK(BM_InterOpLayer)
    ->Apply(InterOpArgs)
    ->UseRealTime()
    ->MinTime(0.2)
    ->Repetitions(kRepetitions)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace loom::bench
