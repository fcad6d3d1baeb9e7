// SGEMM throughput: Loom's kernels::f32_gemm next to OpenBLAS's cblas_sgemm,
// row-major C[m x n] = A[m x k] * B[k x n] (no transposes, alpha 1, beta 0).
//
// Shapes: square 64..2048, and inference shapes m in {1, 8, 64} (batch or
// tokens) by k = n in {512, 1024, 4096} (a weight matrix). Each at 1 and 2
// threads in total; Loom's pool then has threads - 1 workers, since the
// caller takes part, and OpenBLAS gets openblas_set_num_threads(threads).
// BM_LoomSgemm uses SelectIsa(); BM_LoomSgemmIsa/<isa> runs every supported
// micro-kernel at 1 thread on two square sizes.
//
// Before timing, each Loom benchmark checks its result for that shape,
// thread count and ISA against single-threaded cblas_sgemm and skips with an
// error if they differ; main then exits 1, so the smoke test catches it.
//
// Reported: GFLOP/s = 2 m n k per call / wall time, median of 3 repetitions.
// A, B and C stay allocated across calls, so sizes that fit in cache are
// timed warm, for both libraries alike.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "fma_peak_bench.h"
#include "kernels/gemm/gemm.h"
#include "kernels/isa.h"
#include "threading/thread_pool.h"
#include "threading/threading_config.h"

namespace loom::bench {
namespace {

using kernels::GemmArgs;
using kernels::Isa;
using threading::ThreadPool;

// Three repetitions and short runs keep the whole binary near 80 s on 2
// cores; 2048^3 takes ~0.2 s a call on one thread, so a repetition of it is
// one or two calls.
constexpr int kRepetitions = 3;
constexpr double kMinTimeS = 0.2;

// Max |Loom - OpenBLAS| over max |OpenBLAS|. Both sum k products in float in
// different orders; for every shape here that differs by at most 8e-7
// (measured on 2026-11-29), so 1e-4 flags a wrong kernel, not rounding.
constexpr double kMaxRelativeError = 1e-4;

constexpr uint32_t kSeed = 20261129;

struct Shape {
  int64_t m, n, k;
};

// Correctness checks that failed; main exits 1 if any did.
std::atomic<int> g_failed_checks{0};

// A, B and C of one shape in 64-byte aligned buffers, allocated and filled
// once per benchmark run, outside the timed loop. A and B are uniform in
// [-1, 1] from a fixed seed.
class Operands {
 public:
  explicit Operands(const Shape& shape)
      : shape_(shape),
        a_(Bytes(shape.m * shape.k)),
        b_(Bytes(shape.k * shape.n)),
        c_(Bytes(shape.m * shape.n)) {
    std::mt19937 rng(kSeed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& x : a()) x = uniform(rng);
    for (float& x : b()) x = uniform(rng);
  }

  const Shape& shape() const { return shape_; }
  std::span<float> a() { return View(a_, shape_.m * shape_.k); }
  std::span<float> b() { return View(b_, shape_.k * shape_.n); }
  std::span<float> c() { return View(c_, shape_.m * shape_.n); }

  // Loom's arguments for C = A * B into `c`.
  GemmArgs LoomArgs(std::span<float> c) {
    GemmArgs args;
    args.m = shape_.m;
    args.n = shape_.n;
    args.k = shape_.k;
    args.a = a().data();
    args.lda = shape_.k;
    args.b = b().data();
    args.ldb = shape_.n;
    args.c = c.data();
    args.ldc = shape_.n;
    return args;
  }

  // The same product with cblas_sgemm, on as many threads as OpenBLAS was
  // last told to use.
  void OpenBlasSgemm(std::span<float> c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Blas(shape_.m), Blas(shape_.n),
                Blas(shape_.k), 1.0f, a().data(), Blas(shape_.k), b().data(), Blas(shape_.n), 0.0f,
                c.data(), Blas(shape_.n));
  }

 private:
  static size_t Bytes(int64_t elements) { return static_cast<size_t>(elements) * sizeof(float); }
  static std::span<float> View(base::AlignedBuffer& buffer, int64_t elements) {
    return {static_cast<float*>(buffer.data()), static_cast<size_t>(elements)};
  }
  static blasint Blas(int64_t value) { return static_cast<blasint>(value); }

  Shape shape_;
  base::AlignedBuffer a_, b_, c_;
};

// A pool giving `threads` threads in all. One thread needs no pool: a null
// pool makes f32_gemm run on the caller.
std::unique_ptr<ThreadPool> MakePool(int threads) {
  if (threads <= 1) return nullptr;
  threading::ThreadPoolOptions options;
  options.name = "bench";
  options.num_threads = threads - 1;
  // The runtime's default, so back-to-back calls see the pool as a model
  // would.
  options.spin_wait_us = threading::kDefaultSpinWaitUs;
  return std::make_unique<ThreadPool>(options);
}

// Returns "" when Loom's C = A * B matches single-threaded OpenBLAS, else
// what went wrong. Loom's C starts as NaN: with beta = 0 it must not be read.
std::string CheckAgainstOpenBlas(Operands& operands, ThreadPool* pool, Isa isa) {
  const Shape& shape = operands.shape();
  std::vector<float> expected(static_cast<size_t>(shape.m * shape.n));
  openblas_set_num_threads(1);
  operands.OpenBlasSgemm(expected);

  std::span<float> actual = operands.c();
  std::fill(actual.begin(), actual.end(), std::numeric_limits<float>::quiet_NaN());
  kernels::f32_gemm(operands.LoomArgs(actual), pool, isa);

  double max_value = 0.0;
  double max_diff = 0.0;
  for (size_t i = 0; i < expected.size(); ++i) {
    max_value = std::max(max_value, std::fabs(static_cast<double>(expected[i])));
    const double diff = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    // A NaN left in C (or produced) fails the check outright.
    max_diff =
        std::isnan(diff) ? std::numeric_limits<double>::infinity() : std::max(max_diff, diff);
  }
  const double relative = max_value > 0.0 ? max_diff / max_value : max_diff;
  if (relative <= kMaxRelativeError) return "";
  std::ostringstream message;
  message << "Loom differs from OpenBLAS: max |diff| / max |C| = " << relative << " > "
          << kMaxRelativeError;
  return message.str();
}

void SetGflopsCounter(benchmark::State& state, const Shape& shape) {
  const double flops = 2.0 * static_cast<double>(shape.m * shape.n * shape.k);
  state.counters["GFLOPS"] =
      benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void RunLoom(benchmark::State& state, const Shape& shape, int threads, Isa isa) {
  Operands operands(shape);
  const std::unique_ptr<ThreadPool> pool = MakePool(threads);
  if (const std::string error = CheckAgainstOpenBlas(operands, pool.get(), isa); !error.empty()) {
    g_failed_checks.fetch_add(1, std::memory_order_relaxed);
    state.SkipWithError(error.c_str());
    return;
  }
  const GemmArgs args = operands.LoomArgs(operands.c());
  for (auto _ : state) {
    kernels::f32_gemm(args, pool.get(), isa);
    benchmark::ClobberMemory();
  }
  SetGflopsCounter(state, shape);
  state.SetLabel(std::string(kernels::IsaName(isa)));
}

// C = A * B with B packed once beforehand, as a MatMul whose B is a
// constant weight runs (PreparedMatMul).
void RunLoomPackedB(benchmark::State& state, const Shape& shape, int threads, Isa isa) {
  Operands operands(shape);
  const std::unique_ptr<ThreadPool> pool = MakePool(threads);
  GemmArgs args = operands.LoomArgs(operands.c());
  const kernels::PackedGemmMatrix packed = kernels::PackedGemmMatrix::PackB(args, isa);
  args.packed_b = &packed;
  for (auto _ : state) {
    kernels::f32_gemm(args, pool.get(), isa);
    benchmark::ClobberMemory();
  }
  SetGflopsCounter(state, shape);
  state.SetLabel(std::string(kernels::IsaName(isa)));
}

void RunOpenBlas(benchmark::State& state, const Shape& shape, int threads) {
  Operands operands(shape);
  openblas_set_num_threads(threads);
  for (auto _ : state) {
    operands.OpenBlasSgemm(operands.c());
    benchmark::ClobberMemory();
  }
  SetGflopsCounter(state, shape);
  state.SetLabel(openblas_get_corename());
}

std::vector<Shape> SquareShapes() {
  std::vector<Shape> shapes;
  for (int64_t size : {64, 128, 256, 512, 1024, 2048}) shapes.push_back({size, size, size});
  return shapes;
}

std::vector<Shape> InferenceShapes() {
  std::vector<Shape> shapes;
  for (int64_t m : {1, 8, 64}) {
    for (int64_t kn : {512, 1024, 4096}) shapes.push_back({m, kn, kn});
  }
  return shapes;
}

// Transformer and MLP shapes (m = tokens, k x n a weight matrix): the
// encoders of bench/compare/export_transformers.py (d 128 with 64 tokens,
// d 384 with 128 tokens) and the issue-16 list (1024^3 and 512^3 are in
// SquareShapes).
std::vector<Shape> TransformerShapes() {
  // The last, 1 x 784 x 1024, is the shared mlp.onnx's first layer at batch 1.
  return {{1, 1024, 1024},  {4, 1024, 1024}, {8, 1024, 1024},  {16, 1024, 1024}, {32, 1024, 1024},
          {16, 128, 128},   {32, 128, 128},  {32, 384, 384},   {64, 128, 128},   {64, 512, 128},
          {64, 128, 512},   {128, 384, 384}, {128, 1536, 384}, {128, 384, 1536}, {256, 256, 2048},
          {64, 1024, 1024}, {1, 1024, 4096}, {8, 4096, 1024},  {1, 1024, 784}};
}

std::string Name(const std::string& prefix, const Shape& shape, int threads) {
  return prefix + "/m:" + std::to_string(shape.m) + "/n:" + std::to_string(shape.n) +
         "/k:" + std::to_string(shape.k) + "/threads:" + std::to_string(threads);
}

void Settings(benchmark::internal::Benchmark* b) {
  b->UseRealTime()
      ->MinTime(kMinTimeS)
      ->Repetitions(kRepetitions)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

// Registration order is run order. OpenBLAS runs last, 2 threads at the
// very end: its idle worker spins for a while after each multi-threaded call
// and would otherwise take a CPU from the Loom runs that follow.
void RegisterSgemmBenchmarks() {
  std::vector<Shape> shapes = SquareShapes();
  for (const Shape& shape : InferenceShapes()) shapes.push_back(shape);
  for (const Shape& shape : TransformerShapes()) shapes.push_back(shape);
  const Isa best = kernels::SelectIsa();

  for (int threads : {1, 2}) {
    for (const Shape& shape : shapes) {
      Settings(benchmark::RegisterBenchmark(
          Name("BM_LoomSgemm", shape, threads).c_str(),
          [=](benchmark::State& state) { RunLoom(state, shape, threads, best); }));
    }
  }
  for (int threads : {1, 2}) {
    for (const Shape& shape : TransformerShapes()) {
      Settings(benchmark::RegisterBenchmark(
          Name("BM_LoomSgemmPackedB", shape, threads).c_str(),
          [=](benchmark::State& state) { RunLoomPackedB(state, shape, threads, best); }));
    }
  }
  for (Isa isa : {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (!kernels::IsaSupported(isa)) continue;
    for (int64_t size : {256, 1024}) {
      const Shape shape{size, size, size};
      const std::string prefix = "BM_LoomSgemmIsa/" + std::string(kernels::IsaName(isa));
      Settings(benchmark::RegisterBenchmark(
          Name(prefix, shape, 1).c_str(),
          [=](benchmark::State& state) { RunLoom(state, shape, 1, isa); }));
    }
  }
  for (int threads : {1, 2}) {
    for (const Shape& shape : shapes) {
      Settings(benchmark::RegisterBenchmark(
          Name("BM_OpenBlasSgemm", shape, threads).c_str(),
          [=](benchmark::State& state) { RunOpenBlas(state, shape, threads); }));
    }
  }
}

}  // namespace
}  // namespace loom::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("loom_isa",
                              std::string(loom::kernels::IsaName(loom::kernels::SelectIsa())));
  benchmark::AddCustomContext("openblas_config", openblas_get_config());
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
  loom::bench::RegisterFmaPeakBenchmarks();
  loom::bench::RegisterSgemmBenchmarks();
  // Exit status 1 when a correctness check failed or the filter matched
  // nothing, so a smoke run cannot pass by running no benchmark.
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return ran == 0 || loom::bench::g_failed_checks.load() > 0 ? 1 : 0;
}
