// LoomQLinearAdd against the float path it replaces (DequantizeLinear x 2,
// Add, QuantizeLinear, each a kernel call as the executor makes them) on the
// residual Adds of a QDQ ResNet-18 (uint8 [1, C, H, W]), one thread.
// Reports bytes/s over the int8 tensors read and written (3 per element).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/quant/quant.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::bench {
namespace {

using kernels::testing::CallSingleOutput;
using kernels::testing::RandomTensor;

struct Operands {
  Tensor a, b, a_scale, a_zp, b_scale, b_zp, y_scale, y_zp;
};

Operands MakeOperands(int64_t channels, int64_t size) {
  const Shape shape({1, channels, size, size});
  return {
      RandomTensor(DType::kUInt8, shape, 1, 0, 255), RandomTensor(DType::kUInt8, shape, 2, 0, 255),
      Tensor::from_vector<float>(Shape(), {0.031f}), Tensor::from_vector<uint8_t>(Shape(), {121}),
      Tensor::from_vector<float>(Shape(), {0.047f}), Tensor::from_vector<uint8_t>(Shape(), {133}),
      Tensor::from_vector<float>(Shape(), {0.052f}), Tensor::from_vector<uint8_t>(Shape(), {0})};
}

void SetBytes(benchmark::State& state, const Operands& o) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * o.a.num_elements());
}

void BM_QLinearAdd(benchmark::State& state) {
  const Operands o = MakeOperands(state.range(0), state.range(1));
  for (auto _ : state) {
    benchmark::DoNotOptimize(CallSingleOutput(
        kernels::QLinearAddKernel,
        {&o.a, &o.a_scale, &o.a_zp, &o.b, &o.b_scale, &o.b_zp, &o.y_scale, &o.y_zp}));
  }
  SetBytes(state, o);
}

void BM_DequantizeAddQuantize(benchmark::State& state) {
  const Operands o = MakeOperands(state.range(0), state.range(1));
  for (auto _ : state) {
    const Tensor fa =
        CallSingleOutput(kernels::DequantizeLinearKernel, {&o.a, &o.a_scale, &o.a_zp});
    const Tensor fb =
        CallSingleOutput(kernels::DequantizeLinearKernel, {&o.b, &o.b_scale, &o.b_zp});
    const Tensor sum = CallSingleOutput(kernels::AddKernel, {&fa, &fb});
    benchmark::DoNotOptimize(
        CallSingleOutput(kernels::QuantizeLinearKernel, {&sum, &o.y_scale, &o.y_zp}));
  }
  SetBytes(state, o);
}

// {channels, height = width} of ResNet-18's four stages.
void ResNetAdds(benchmark::internal::Benchmark* b) {
  b->Args({64, 56})->Args({128, 28})->Args({256, 14})->Args({512, 7});
}

BENCHMARK(BM_QLinearAdd)->Apply(ResNetAdds)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DequantizeAddQuantize)->Apply(ResNetAdds)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace loom::bench

BENCHMARK_MAIN();
