// Conv layers of ResNet-18 and MobileNet-V2 at their real shapes (batch 1,
// 224x224 input), through PreparedConv (NCHW, weights packed once, as a
// session does) and PreparedNchwcConv (the blocked layout a session uses at
// level 2: BM_NchwcConv, input already blocked, or NCHW for a first layer
// with 3 channels), at 1 and 2 intra-op threads. Reports GFLOP/s (2 flops per
// multiply-add of the direct loop nest) next to the single-core FMA peak
// measured in the same run (BM_FmaPeak), so "% of peak" is
// GFLOPS / (threads x peak).
//
// LOOM_MAX_ISA caps the ISA as it does for the runtime. LOOM_BENCH_COLD=1
// makes BM_NchwcConv read weights and input from L3, as inside a model.
//
// Before timing, each layer is checked once against ConvReference on a
// subset of output channels' worth of work; a mismatch skips the layer with
// an error and makes the binary exit 1.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fma_peak_bench.h"
#include "kernels/conv/conv.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/testing/kernel_test_util.h"
#include "threading/thread_pool.h"

namespace loom::bench {
namespace {

using kernels::Isa;

std::atomic<int> g_failed_checks{0};

struct Layer {
  std::string name;
  int64_t in_channels, out_channels, size, kernel, stride, group;
};

// name: model.layer; size is the input's height = width.
const std::vector<Layer>& Layers() {
  static const std::vector<Layer> layers = {
      {"resnet18.conv1_7x7s2", 3, 64, 224, 7, 2, 1},
      {"resnet18.layer1_3x3", 64, 64, 56, 3, 1, 1},
      {"resnet18.layer2_3x3s2", 64, 128, 56, 3, 2, 1},
      {"resnet18.layer2_1x1s2_down", 64, 128, 56, 1, 2, 1},
      {"resnet18.layer2_3x3", 128, 128, 28, 3, 1, 1},
      {"resnet18.layer3_3x3", 256, 256, 14, 3, 1, 1},
      {"resnet18.layer4_3x3", 512, 512, 7, 3, 1, 1},
      {"mobilenetv2.stem_3x3s2", 3, 32, 224, 3, 2, 1},
      {"mobilenetv2.dw_3x3_32", 32, 32, 112, 3, 1, 32},
      {"mobilenetv2.pw_1x1_32to16", 32, 16, 112, 1, 1, 1},
      {"mobilenetv2.pw_1x1_16to96", 16, 96, 112, 1, 1, 1},
      {"mobilenetv2.dw_3x3s2_96", 96, 96, 112, 3, 2, 96},
      {"mobilenetv2.dw_3x3_144", 144, 144, 56, 3, 1, 144},
      {"mobilenetv2.pw_1x1_144to24", 144, 24, 56, 1, 1, 1},
      {"mobilenetv2.pw_1x1_192to32", 192, 32, 28, 1, 1, 1},
      {"mobilenetv2.dw_3x3_576", 576, 576, 14, 3, 1, 576},
      {"mobilenetv2.pw_1x1_960to160", 960, 160, 7, 1, 1, 1},
      {"mobilenetv2.pw_1x1_320to1280", 320, 1280, 7, 1, 1, 1},
      {"densenet121.block1_1x1_192to128", 192, 128, 56, 1, 1, 1},
      {"densenet121.block1_3x3_128to32", 128, 32, 56, 3, 1, 1},
      {"resnet50.layer1_1x1_256to64", 256, 64, 56, 1, 1, 1},
      {"resnet50.layer2_1x1_256to128", 256, 128, 56, 1, 1, 1},
      {"resnet50.layer2_1x1s2_down_256to512", 256, 512, 56, 1, 2, 1},
      {"resnet50.layer3_1x1_1024to256", 1024, 256, 14, 1, 1, 1},
      {"regnetx400.block3_1x1_160", 160, 160, 14, 1, 1, 1},
      {"regnetx400.block3_3x3_g10", 160, 160, 14, 3, 1, 10},
      {"regnetx400.block4_1x1_400", 400, 400, 7, 1, 1, 1},
      {"regnetx400.block4_3x3_g25", 400, 400, 7, 3, 1, 25},
  };
  return layers;
}

Attributes LayerAttributes(const Layer& layer) {
  Attributes attrs;
  const int64_t pad = layer.kernel / 2;
  attrs.set("strides", std::vector<int64_t>{layer.stride, layer.stride});
  attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  attrs.set("group", layer.group);
  return attrs;
}

std::unique_ptr<threading::ThreadPool> MakePool(int threads) {
  threading::ThreadPoolOptions options;
  options.name = "bench";
  options.num_threads = threads - 1;  // the caller is the last thread
  options.spin_wait_us = 50;
  return std::make_unique<threading::ThreadPool>(options);
}

void RunLayer(benchmark::State& state, const Layer& layer, int threads) {
  const char* cap = std::getenv("LOOM_MAX_ISA");
  const Isa isa =
      kernels::SelectIsaFromSetting(cap ? std::optional<std::string>(cap) : std::nullopt);
  const Attributes attrs = LayerAttributes(layer);
  const Tensor x = kernels::testing::RandomTensor(
      DType::kFloat32, {1, layer.in_channels, layer.size, layer.size}, 1);
  const Tensor w = kernels::testing::RandomTensor(
      DType::kFloat32,
      {layer.out_channels, layer.in_channels / layer.group, layer.kernel, layer.kernel}, 2);
  const Tensor b = kernels::testing::RandomTensor(DType::kFloat32, {layer.out_channels}, 3);
  const kernels::PreparedConv conv(attrs, w, &b, isa);
  const auto pool = MakePool(threads);
  const kernels::KernelContext ctx{pool.get(), isa};
  Tensor y = conv.Run(ctx, x);
  // The reference is slow; check the small layers fully and trust the unit
  // tests for the rest (same code paths).
  const double macs = static_cast<double>(y.num_elements()) *
                      static_cast<double>(layer.in_channels / layer.group) *
                      static_cast<double>(layer.kernel * layer.kernel);
  if (macs < 3e8) {
    const std::string mismatch =
        kernels::testing::CompareTensors(y, kernels::ConvReference(attrs, x, w, &b), 1e-4, 1e-3);
    if (!mismatch.empty()) {
      g_failed_checks.fetch_add(1);
      state.SkipWithError(mismatch.c_str());
      return;
    }
  }
  for (auto _ : state) {
    y = conv.Run(ctx, x);
    benchmark::DoNotOptimize(y.raw_data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * macs / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(kernels::IsaName(isa)));
}

void RunNchwcLayer(benchmark::State& state, const Layer& layer, int threads) {
  const char* cap = std::getenv("LOOM_MAX_ISA");
  const Isa isa =
      kernels::SelectIsaFromSetting(cap ? std::optional<std::string>(cap) : std::nullopt);
  const int block = kernels::NchwcBlockSize(isa);
  Attributes attrs = LayerAttributes(layer);
  attrs.set("block", int64_t{block});
  const bool plain = layer.in_channels < block && layer.group == 1;
  if (plain) attrs.set("input_layout", std::string("nchw"));
  const Tensor x = kernels::testing::RandomTensor(
      DType::kFloat32, {1, layer.in_channels, layer.size, layer.size}, 1);
  const Tensor w = kernels::testing::RandomTensor(
      DType::kFloat32,
      {layer.out_channels, layer.in_channels / layer.group, layer.kernel, layer.kernel}, 2);
  const Tensor b = kernels::testing::RandomTensor(DType::kFloat32, {layer.out_channels}, 3);
  const kernels::PreparedNchwcConv conv(attrs, w, &b, isa);
  const Tensor xb = plain ? x : kernels::NchwToNchwc(x, block);
  const auto pool = MakePool(threads);
  const kernels::KernelContext ctx{pool.get(), isa};
  Tensor y = conv.Run(ctx, xb, nullptr);
  // LOOM_BENCH_COLD=1: cycle through copies of the layer (weights and
  // input) totalling over 16 MiB, so each run reads them from L3, as a layer
  // inside a model does, instead of from a warm L2.
  std::vector<std::unique_ptr<kernels::PreparedNchwcConv>> copies;
  std::vector<Tensor> inputs;
  const char* cold = std::getenv("LOOM_BENCH_COLD");
  if (cold != nullptr && std::string(cold) == "1") {
    const int64_t bytes = (w.num_elements() + xb.num_elements()) * 4;
    const int64_t n = std::max<int64_t>(2, (int64_t{16} << 20) / std::max<int64_t>(bytes, 1));
    for (int64_t i = 0; i < n; ++i) {
      copies.push_back(std::make_unique<kernels::PreparedNchwcConv>(attrs, w, &b, isa));
      inputs.push_back(xb.clone());
    }
  }
  size_t next = 0;
  const double macs = static_cast<double>(y.num_elements() / y.shape().dim(1) / block) *
                      static_cast<double>(layer.out_channels) *
                      static_cast<double>(layer.in_channels / layer.group) *
                      static_cast<double>(layer.kernel * layer.kernel);
  if (macs < 3e8) {
    const std::string mismatch = kernels::testing::CompareTensors(
        kernels::NchwcToNchw(y, layer.out_channels),
        kernels::ConvReference(LayerAttributes(layer), x, w, &b), 1e-4, 1e-3);
    if (!mismatch.empty()) {
      g_failed_checks.fetch_add(1);
      state.SkipWithError(mismatch.c_str());
      return;
    }
  }
  for (auto _ : state) {
    if (copies.empty()) {
      y = conv.Run(ctx, xb, nullptr);
    } else {
      y = copies[next]->Run(ctx, inputs[next], nullptr);
      next = (next + 1) % copies.size();
    }
    benchmark::DoNotOptimize(y.raw_data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * macs / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(kernels::IsaName(isa)) + (copies.empty() ? "" : " cold"));
}

void RegisterConvBenchmarks() {
  // Layer by layer, 1 then 2 threads: the ratio compares runs seconds
  // apart, so drift on a shared machine hits both alike.
  for (const Layer& layer : Layers()) {
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(
          ("BM_Conv/" + layer.name + "/threads:" + std::to_string(threads)).c_str(),
          [=](benchmark::State& state) { RunLayer(state, layer, threads); })
          ->UseRealTime()
          ->MinTime(0.2)
          ->Repetitions(5)
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(
          ("BM_NchwcConv/" + layer.name + "/threads:" + std::to_string(threads)).c_str(),
          [=](benchmark::State& state) { RunNchwcLayer(state, layer, threads); })
          ->UseRealTime()
          ->MinTime(0.2)
          ->Repetitions(5)
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace loom::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  loom::bench::RegisterFmaPeakBenchmarks();
  loom::bench::RegisterConvBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return loom::bench::g_failed_checks.load() == 0 ? 0 : 1;
}
