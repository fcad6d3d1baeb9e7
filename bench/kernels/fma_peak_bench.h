// BM_FmaPeak/<isa>: this machine's single-core FMA peak in GFLOP/s, one
// benchmark per vector ISA the CPU supports (fma_peak_bench.cc).
#pragma once

namespace loom::bench {

// Registers the FMA peak benchmarks; call before RunSpecifiedBenchmarks.
void RegisterFmaPeakBenchmarks();

}  // namespace loom::bench
