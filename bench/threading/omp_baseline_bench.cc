// OpenMP (libgomp) baselines for parallel_for_bench.cc, measured the same
// way; only this benchmark binary is built with -fopenmp.
//
//   BM_OmpForkJoin           back-to-back `parallel for` over T iterations
//   BM_OmpForkJoinAfterIdle  one `parallel for` after an idle gap
//   BM_OmpWorkAfterIdle      the same with kWorkUnits x kWorkUnitUs of real
//                            work on 2 threads, schedule(dynamic, 1)
//   BM_OmpTinyTasksDynamic   10,000 atomic increments, schedule(dynamic, 1)
//   BM_OmpTinyTasksTask      10,000 atomic increments as `omp task`s
//
// libgomp's idle threads spin (GOMP_SPINCOUNT, ~3 ms by its own estimate
// when OMP_WAIT_POLICY is unset) and then sleep on a futex; the benchmarks
// run with the defaults, as a user of an OpenMP runtime would.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>

#include "bench_common.h"

namespace loom::bench {
namespace {

// The empty body: the loop index escapes, so the loop cannot be removed.
void OmpEmptyForkJoin(int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int i = 0; i < threads; ++i) {
    int index = i;
    benchmark::DoNotOptimize(index);
  }
}

void BM_OmpForkJoin(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) OmpEmptyForkJoin(threads);
}
BENCHMARK(BM_OmpForkJoin)
    ->ArgNames({"threads"})
    ->Arg(1)
    ->Arg(2)
    ->Apply(BackToBackSettings)
    ->Unit(benchmark::kNanosecond);

void BM_OmpForkJoinAfterIdle(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  TimeAfterIdle(state, state.range(1), [threads] { OmpEmptyForkJoin(threads); });
}

// Dynamic scheduling, like the shards Loom's threads claim one by one.
void BM_OmpWorkAfterIdle(benchmark::State& state) {
  TimeAfterIdle(state, state.range(0), [] {
#pragma omp parallel for num_threads(2) schedule(dynamic, 1)
    for (int i = 0; i < kWorkUnits; ++i) BusyWaitUs(kWorkUnitUs);
  });
}

void BM_OmpTinyTasksDynamic(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::atomic<int64_t> done{0};
  for (auto _ : state) {
    done.store(0, std::memory_order_relaxed);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int i = 0; i < kTinyTasks; ++i) done.fetch_add(1, std::memory_order_relaxed);
    benchmark::DoNotOptimize(done);
  }
  state.SetItemsProcessed(state.iterations() * kTinyTasks);
}
BENCHMARK(BM_OmpTinyTasksDynamic)
    ->ArgNames({"threads"})
    ->Arg(1)
    ->Arg(2)
    ->Apply(BackToBackSettings)
    ->Unit(benchmark::kMicrosecond);

// One thread creates every task, the team runs them: the closest OpenMP
// shape to a caller Schedule'ing onto a pool. Note that libgomp runs a task
// at once in its creator when too many are queued (64 per thread).
void BM_OmpTinyTasksTask(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::atomic<int64_t> done{0};
  for (auto _ : state) {
    done.store(0, std::memory_order_relaxed);
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (int i = 0; i < kTinyTasks; ++i) {
#pragma omp task shared(done)
      done.fetch_add(1, std::memory_order_relaxed);
    }
    benchmark::DoNotOptimize(done);
  }
  state.SetItemsProcessed(state.iterations() * kTinyTasks);
}
BENCHMARK(BM_OmpTinyTasksTask)
    ->ArgNames({"threads"})
    ->Arg(1)
    ->Arg(2)
    ->Apply(BackToBackSettings)
    ->Unit(benchmark::kMicrosecond);

[[maybe_unused]] const bool kAfterIdleRegistered = [] {
  RegisterAfterIdle("BM_OmpForkJoinAfterIdle", BM_OmpForkJoinAfterIdle, {"threads"}, {{1}, {2}},
                    kIdleGapsMs);
  RegisterAfterIdle("BM_OmpWorkAfterIdle", BM_OmpWorkAfterIdle, {}, {{}}, {1, 20});
  return true;
}();

}  // namespace
}  // namespace loom::bench
