// This machine's single-core FMA peak: the ceiling the SGEMM numbers are
// read against (bench/results quotes "% of peak" from it).
//
// Each step issues kChains fused multiply-adds on independent accumulators.
// Independent chains let the core overlap FMAs up to its throughput limit;
// one chain would measure latency instead. 12 chains cover latency 4 x 2
// FMA pipes (Zen 4, Skylake) and latency 4 x 3 on wider cores, with 12 of
// the 16 (AVX2) or 32 (AVX-512) vector registers.
//
// Reported: GFLOP/s = 2 flops x lanes x FMAs / wall time, on one thread.
#include "fma_peak_bench.h"

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"

namespace loom::bench {
namespace {

constexpr int kChains = 12;

// Steps per benchmark iteration: 12 M FMAs, a few ms at any plausible clock.
constexpr int64_t kSteps = 1'000'000;

// acc = acc * kScale + kAdd converges to kAdd / (1 - kScale) = 0.1, so the
// values stay normal (no denormal slow path) and never overflow.
constexpr float kScale = 0.999f;
constexpr float kAdd = 1e-4f;

template <size_t kLanes>
float SumLanes(const float (&lanes)[kLanes]) {
  float sum = 0.0f;
  for (float x : lanes) sum += x;
  return sum;
}

// Returns a sum of the accumulators so the chains cannot be dropped.
// The fixed-size loops are fully unrolled, so the array lives in registers.
__attribute__((target("avx2,fma"))) float FmaChainsAvx2(int64_t steps) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c));
  const __m256 scale = _mm256_set1_ps(kScale);
  const __m256 add = _mm256_set1_ps(kAdd);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], scale, add);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  return SumLanes(lanes);
}

__attribute__((target("avx512f"))) float FmaChainsAvx512(int64_t steps) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512 scale = _mm512_set1_ps(kScale);
  const __m512 add = _mm512_set1_ps(kAdd);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], scale, add);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  // Stored rather than _mm512_reduce_add_ps, which trips GCC 12's
  // -Wuninitialized inside its own header.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return SumLanes(lanes);
}

template <int kLanes>
void RunFmaPeak(benchmark::State& state, float (*chains)(int64_t)) {
  int64_t steps = kSteps;
  for (auto _ : state) {
    // Opaque step count: the loop cannot be folded at compile time.
    benchmark::DoNotOptimize(steps);
    benchmark::DoNotOptimize(chains(steps));
  }
  constexpr double kFlopsPerStep = 2.0 * kLanes * kChains;
  state.counters["GFLOPS"] = benchmark::Counter(kFlopsPerStep * static_cast<double>(kSteps) / 1e9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void RegisterFmaPeakBenchmarks() {
  // Short runs suffice: the loop touches no memory, so repetitions agree to
  // well under 1 % unless the VM is preempted.
  const auto settings = [](benchmark::internal::Benchmark* b) {
    b->UseRealTime()->MinTime(0.2)->Repetitions(3)->ReportAggregatesOnly(true);
  };
  if (kernels::IsaSupported(kernels::Isa::kAvx2Fma)) {
    settings(benchmark::RegisterBenchmark("BM_FmaPeak/avx2_fma", [](benchmark::State& state) {
      RunFmaPeak<8>(state, FmaChainsAvx2);
    }));
  }
  if (kernels::IsaSupported(kernels::Isa::kAvx512f)) {
    settings(benchmark::RegisterBenchmark("BM_FmaPeak/avx512f", [](benchmark::State& state) {
      RunFmaPeak<16>(state, FmaChainsAvx512);
    }));
  }
}

}  // namespace loom::bench
