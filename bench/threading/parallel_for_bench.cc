// Loom's fork-join and task latency; omp_baseline_bench.cc has the OpenMP
// counterpart of each benchmark here. Results: bench/results/.
//
//   BM_LoomForkJoin           back-to-back ParallelFor, n = threads, empty body
//   BM_LoomForkJoinAfterIdle  one ParallelFor after an idle gap (µs, manual time)
//   BM_LoomWorkAfterIdle      the same with kWorkUnits x kWorkUnitUs of real work
//   BM_LoomTinyTasks          10,000 Schedule'd atomic increments, items/s
//
// "threads" counts threads in total: the pool has threads-1 workers and the
// caller is the last one, as in the runtime's intra-op pool.
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "bench_common.h"
#include "threading/parallel_for.h"
#include "threading/thread_pool.h"

namespace loom::bench {
namespace {

using threading::ParallelFor;
using threading::RangeFn;
using threading::ThreadPool;
using threading::ThreadPoolOptions;

// Exactly kMinShardCostNs per unit: the smallest job the cost model shards
// over every thread (one index per thread), and far below
// kWakeAwayMinCostNs, so the fork-join measures the cheap wake-up path.
constexpr double kForceShardingCostNs = threading::kMinShardCostNs;

ThreadPool MakePool(int workers, int spin_wait_us) {
  ThreadPoolOptions options;
  options.name = "bench";
  options.num_threads = workers;
  options.spin_wait_us = spin_wait_us;
  return ThreadPool(options);
}

// The empty fork-join body. It records which shards ran off the calling
// thread, so the report can say how often a worker took part at all: Loom's
// caller runs any shard nobody has started, so an empty job may finish
// before the woken worker gets there. Each shard has its own cache line.
class EmptyForkJoin {
 public:
  EmptyForkJoin(ThreadPool* pool, int threads)
      : pool_(pool), threads_(threads), caller_(std::this_thread::get_id()) {
    body_ = [this](int64_t begin, int64_t end) {
      benchmark::DoNotOptimize(end);
      for (int64_t i = begin; i < end; ++i) {
        slots_[static_cast<size_t>(i)].on_helper = std::this_thread::get_id() != caller_;
      }
    };
  }

  void Run() {
    ParallelFor(pool_, threads_, kForceShardingCostNs, body_);
    for (int i = 0; i < threads_; ++i) helper_shards_ += slots_[static_cast<size_t>(i)].on_helper;
    shards_ += threads_;
  }

  // Fraction of shards that ran on a pool worker rather than the caller.
  double helper_share() const {
    return shards_ == 0 ? 0.0 : static_cast<double>(helper_shards_) / static_cast<double>(shards_);
  }

 private:
  struct alignas(64) Slot {
    bool on_helper = false;
  };

  ThreadPool* pool_;
  int threads_;
  std::thread::id caller_;
  RangeFn body_;
  std::array<Slot, 8> slots_{};  // one per shard; threads <= 8
  int64_t helper_shards_ = 0;
  int64_t shards_ = 0;
};

void BM_LoomForkJoin(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  ThreadPool pool = MakePool(threads - 1, static_cast<int>(state.range(1)));
  EmptyForkJoin fork_join(&pool, threads);
  for (auto _ : state) fork_join.Run();
  state.counters["helper_share"] = fork_join.helper_share();
}
BENCHMARK(BM_LoomForkJoin)
    ->ArgNames({"threads", "spin_us"})
    ->Args({1, 0})  // no workers: spin_wait_us is never consulted
    ->Args({2, 0})
    ->Args({2, 50})
    ->Args({2, 1000})
    ->Apply(BackToBackSettings)
    ->Unit(benchmark::kNanosecond);

void BM_LoomForkJoinAfterIdle(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  ThreadPool pool = MakePool(threads - 1, static_cast<int>(state.range(1)));
  EmptyForkJoin fork_join(&pool, threads);
  TimeAfterIdle(state, state.range(2), [&] { fork_join.Run(); });
  state.counters["helper_share"] = fork_join.helper_share();
}

// 400 µs of busy work over 2 threads after an idle gap: ~200 µs if the woken
// worker takes half of it, ~400 µs if the caller ends up doing it all.
void BM_LoomWorkAfterIdle(benchmark::State& state) {
  ThreadPool pool = MakePool(1, static_cast<int>(state.range(0)));
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int64_t> helper_units{0};
  const RangeFn body = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) BusyWaitUs(kWorkUnitUs);
    if (std::this_thread::get_id() != caller) {
      helper_units.fetch_add(end - begin, std::memory_order_relaxed);
    }
  };
  TimeAfterIdle(state, state.range(1),
                [&] { ParallelFor(&pool, kWorkUnits, kWorkUnitUs * 1e3, body); });
  state.counters["helper_share"] = static_cast<double>(helper_units.load()) /
                                   static_cast<double>(state.iterations() * kWorkUnits);
}

// How long after the caller enters ParallelFor a spinning helper starts its
// first shard, as between the nodes of a session run (a SpinScope, and 5 µs
// of the caller's own work between loops). Two units of 20 µs: the caller
// takes one, the helper the other. Reported as helper_start_us (mean) with
// the loop's time.
void BM_LoomHelperStart(benchmark::State& state) {
  ThreadPool pool = MakePool(1, 1000);
  ThreadPool::SpinScope scope(&pool);
  const std::thread::id caller = std::this_thread::get_id();
  std::chrono::steady_clock::time_point entered;
  double delay_ns = 0;
  int64_t helped = 0;
  const RangeFn body = [&](int64_t begin, int64_t end) {
    if (std::this_thread::get_id() != caller) {
      delay_ns += static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - entered)
                                          .count());
      ++helped;
    }
    for (int64_t i = begin; i < end; ++i) BusyWaitUs(20);
  };
  for (auto _ : state) {
    BusyWaitUs(5);
    entered = std::chrono::steady_clock::now();
    ParallelFor(&pool, 2, 20e3, body);
  }
  state.counters["helper_start_us"] =
      helped == 0 ? 0 : delay_ns / 1e3 / static_cast<double>(helped);
  state.counters["helper_share"] =
      static_cast<double>(helped) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_LoomHelperStart)->Apply(BackToBackSettings)->Unit(benchmark::kMicrosecond);

// Schedules kTinyTasks increments and waits, yielding, until all have run.
// Yielding rather than spinning: with 2 workers the caller is a third thread
// on 2 cores, and a pure spin would steal a core from a worker.
void BM_LoomTinyTasks(benchmark::State& state) {
  ThreadPool pool = MakePool(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::atomic<int64_t> done{0};
  for (auto _ : state) {
    done.store(0, std::memory_order_relaxed);
    for (int i = 0; i < kTinyTasks; ++i) {
      pool.Schedule([&done] { done.fetch_add(1, std::memory_order_relaxed); });
    }
    while (done.load(std::memory_order_relaxed) != kTinyTasks) std::this_thread::yield();
  }
  state.SetItemsProcessed(state.iterations() * kTinyTasks);
}
BENCHMARK(BM_LoomTinyTasks)
    ->ArgNames({"workers", "spin_us"})
    ->ArgsProduct({{1, 2}, {0, 50, 1000}})
    ->Apply(BackToBackSettings)
    ->Unit(benchmark::kMicrosecond);

[[maybe_unused]] const bool kAfterIdleRegistered = [] {
  RegisterAfterIdle("BM_LoomForkJoinAfterIdle", BM_LoomForkJoinAfterIdle, {"threads", "spin_us"},
                    {{1, 0}, {2, 0}, {2, 50}, {2, 1000}}, kIdleGapsMs);
  RegisterAfterIdle("BM_LoomWorkAfterIdle", BM_LoomWorkAfterIdle, {"spin_us"}, {{0}, {50}, {1000}},
                    {1, 20});
  return true;
}();

}  // namespace
}  // namespace loom::bench
