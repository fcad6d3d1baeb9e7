// Settings and helpers shared by the Loom and OpenMP fork-join benchmarks, so
// both sides are measured the same way.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace loom::bench {

// Medians over this many repetitions are what bench/results quotes: the
// machine is a noisy 2-core VM, and one preempted run moves a mean a lot.
inline constexpr int kRepetitions = 5;

// Tasks per iteration of the tiny-task throughput benchmarks.
inline constexpr int kTinyTasks = 10'000;

// Back-to-back benchmarks: short runs keep the whole suite near 2 minutes.
inline void BackToBackSettings(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->MinTime(0.2)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
}

// Idle gaps for the empty fork-join: 1 ms sits inside libgomp's default
// spin (~3 ms by its own estimate), 20 and 50 ms are past every spin setting.
inline const std::vector<int64_t> kIdleGapsMs = {1, 20, 50};

// The fork-join with work: kWorkUnits units of kWorkUnitUs each, 200 µs on
// 2 threads and 400 µs on one, so the time says whether the helper helped.
inline constexpr int kWorkUnits = 8;
inline constexpr int kWorkUnitUs = 50;

// Keeps the calling thread busy for `us` microseconds. Reading the clock
// rather than counting loop trips makes a unit take the same wall time on any
// core and cannot be optimized away.
inline void BusyWaitUs(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Runs `fork_join` once per benchmark iteration after `gap_ms` of sleep on
// the calling thread, and times only the call. Besides the mean (the
// benchmark's own time) it reports the median and the maximum of the calls
// as p50_us and max_us, since one preemption dominates a mean of 40.
// Register with RegisterAfterIdle.
template <typename ForkJoin>
void TimeAfterIdle(benchmark::State& state, int64_t gap_ms, ForkJoin&& fork_join) {
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<size_t>(state.max_iterations));
  for (auto _ : state) {
    std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    const auto start = std::chrono::steady_clock::now();
    fork_join();
    const auto stop = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(seconds);
    samples_us.push_back(seconds * 1e6);
  }
  if (samples_us.empty()) return;
  std::sort(samples_us.begin(), samples_us.end());
  state.counters["p50_us"] = samples_us[samples_us.size() / 2];
  state.counters["max_us"] = samples_us.back();
}

// Registers `fn` as an after-idle benchmark for each argument list in
// `args` with each idle gap in `gaps_ms` appended as the last argument
// "gap_ms". 40 timed calls per repetition, 20 for gaps of 50 ms and more,
// keep each configuration under 2 s a repetition.
inline void RegisterAfterIdle(const char* name, void (*fn)(benchmark::State&),
                              std::vector<std::string> arg_names,
                              const std::vector<std::vector<int64_t>>& args,
                              const std::vector<int64_t>& gaps_ms) {
  arg_names.push_back("gap_ms");
  for (const auto& base : args) {
    for (int64_t gap_ms : gaps_ms) {
      std::vector<int64_t> full = base;
      full.push_back(gap_ms);
      benchmark::RegisterBenchmark(name, fn)
          ->ArgNames(arg_names)
          ->Args(full)
          ->Iterations(gap_ms >= 50 ? 20 : 40)
          ->UseManualTime()
          ->Repetitions(kRepetitions)
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace loom::bench
