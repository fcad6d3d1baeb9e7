// Graph-executor benchmarks (issue: dataflow graphs and the inter-op
// executor). Every comparison runs its configurations interleaved
// (A B C A B C ...) in one process and reports medians, so machine drift
// hits all of them alike.
//
//   loom_executor_bench [--section dispatch|branches|handoff|models|all] [--reps N]
//                       [--json FILE]
//
// dispatch  per-node overhead: a chain and a fan-out of 1,000 one-element
//           nodes, at inter 1 and 2 (intra 1); µs per node.
// branches  two independent MatMul branches: inter 2 vs inter 1 (intra 1),
//           and the hand-off threshold at 0 vs the default.
// handoff   two branches of one MatMul each, growing: where handing a node
//           to another thread starts to pay (the threshold's evidence).
// models    ResNet-18, MobileNet-V2 and the MLP (the shared models'
//           architectures, runtime/testing/model_architectures.h) at batch 1:
//           intra 2 + inter 2 vs intra 2 + inter 1, with the executor's CPU
//           budget rule on (the default) and off.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "kernels/process_isa.h"
#include "kernels/registry.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"
#include "runtime/graph_executor.h"
#include "runtime/testing/model_architectures.h"
#include "runtime/testing/test_graphs.h"
#include "threading/runtime.h"

namespace loom::bench {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

struct Config {
  std::string label;
  int intra = 1;
  int inter = 1;
  int64_t hand_off_min_cost_ns = runtime::kHandOffMinCostNs;
  bool respect_cpu_budget = true;
};

// A plan plus private pools for one configuration: what a Session with
// private pools holds, with the scheduling knobs exposed.
class Runner {
 public:
  Runner(const Graph& graph, const Config& config) : config_(config) {
    threading::ResolvedThreading settings = threading::GlobalRuntime().settings();
    settings.intra_op_threads = {config.intra, "bench"};
    settings.inter_op_threads = {config.inter, "bench"};
    pools_ = std::make_unique<threading::Runtime>(settings, threading::ProcessCpuBudget(), "b",
                                                  "executor bench");
    const kernels::Isa isa = kernels::ProcessIsa();
    Graph optimized = graph;
    graph::OptimizationOptions options;
    threading::ThreadPool* pool = pools_->intra_op_pool();
    options.evaluate = [pool, isa](const Node& node, const std::vector<const Tensor*>& inputs) {
      return kernels::RunKernel(*kernels::FindKernel(node.op_type), {pool, isa}, node.attributes,
                                kernels::KernelInputs(inputs.data(), inputs.size()));
    };
    graph::OptimizeGraph(optimized, options);
    plan_ = std::make_shared<runtime::ExecutionPlan>(optimized, isa);
    resources_.intra_op_pool = pool;
    resources_.inter_op_pool = pools_->inter_op_pool();
    resources_.intra_op_threads = config.intra;
    resources_.inter_op_threads = config.inter;
    resources_.usable_cpus = settings.cpu.usable;
    resources_.buffers = std::make_shared<runtime::BufferPool>(size_t{1} << 30);
    resources_.hand_off_min_cost_ns = config.hand_off_min_cost_ns;
    resources_.respect_cpu_budget = config.respect_cpu_budget;
    for (int slot : plan_->output_slots()) fetches_.push_back(slot);
  }

  // Seconds for `iterations` runs on `input` (fed to the first graph input).
  double Time(const Tensor& input, int iterations) {
    const auto start = Clock::now();
    for (int i = 0; i < iterations; ++i) {
      runtime::ExecuteStep(plan_, resources_, {{plan_->input_slots()[0], input}}, fetches_, {},
                           nullptr);
    }
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  const Config& config() const { return config_; }
  size_t num_nodes() const { return plan_->nodes().size(); }

 private:
  Config config_;
  std::unique_ptr<threading::Runtime> pools_;
  std::shared_ptr<const runtime::ExecutionPlan> plan_;
  runtime::ExecutorResources resources_;
  std::vector<int> fetches_;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Runs every config `reps` times, interleaved, `iterations` runs per sample;
// returns the median seconds per run for each config.
std::vector<double> Compare(const Graph& graph, const Tensor& input,
                            const std::vector<Config>& configs, int reps, int iterations) {
  std::vector<std::unique_ptr<Runner>> runners;
  for (const Config& config : configs) {
    runners.push_back(std::make_unique<Runner>(graph, config));
    runners.back()->Time(input, std::max(3, iterations / 2));  // warm-up: costs, buffers
  }
  std::vector<std::vector<double>> samples(configs.size());
  for (int rep = 0; rep < reps; ++rep) {
    for (size_t c = 0; c < runners.size(); ++c) {
      samples[c].push_back(runners[c]->Time(input, iterations) / iterations);
    }
  }
  std::vector<double> medians;
  for (const auto& s : samples) medians.push_back(Median(s));
  return medians;
}

Tensor Filled(Shape shape, float value) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = value;
  return t;
}

json Dispatch(int reps) {
  json out = json::array();
  std::printf("\n== dispatch: 1,000 one-element nodes, intra 1 (median of %d)\n", reps);
  std::printf("%-10s %6s %12s %12s\n", "graph", "inter", "run (us)", "us/node");
  struct Case {
    const char* name;
    Graph graph;
  };
  Case cases[] = {{"chain", runtime::testing::ChainGraph(1000, 1)},
                  {"fan_out", runtime::testing::FanOutGraph(1000, 1)},
                  {"one_node", runtime::testing::ChainGraph(1, 1)}};
  for (Case& c : cases) {
    const std::vector<Config> configs = {{"inter1", 1, 1}, {"inter2", 1, 2}};
    const int iterations = c.graph.nodes.size() > 1 ? 20 : 2000;
    const std::vector<double> t = Compare(c.graph, Filled({1}, 1.0f), configs, reps, iterations);
    for (size_t i = 0; i < configs.size(); ++i) {
      const double nodes = static_cast<double>(c.graph.nodes.size());
      std::printf("%-10s %6d %12.2f %12.3f\n", c.name, configs[i].inter, t[i] * 1e6,
                  t[i] * 1e6 / nodes);
      out.push_back({{"graph", c.name},
                     {"nodes", nodes},
                     {"inter", configs[i].inter},
                     {"run_us", t[i] * 1e6},
                     {"us_per_node", t[i] * 1e6 / nodes}});
    }
  }
  return out;
}

json Branches(int reps) {
  json out = json::array();
  std::printf("\n== two independent branches of 8 x (MatMul [64 x w] x [w x w] + Relu), intra 1\n");
  std::printf("%-6s %-28s %12s %10s\n", "width", "config", "run (us)", "vs inter1");
  for (int64_t width : {64, 256}) {
    const std::vector<Config> configs = {
        {"inter1", 1, 1}, {"inter2", 1, 2}, {"inter2, hand-off threshold 0", 1, 2, 0}};
    const std::vector<double> t = Compare(runtime::testing::TwoBranchGraph(64, width, 8),
                                          Filled({64, width}, 0.5f), configs, reps, 10);
    for (size_t i = 0; i < configs.size(); ++i) {
      std::printf("%-6ld %-28s %12.1f %9.2fx\n", static_cast<long>(width), configs[i].label.c_str(),
                  t[i] * 1e6, t[0] / t[i]);
      out.push_back({{"width", width},
                     {"config", configs[i].label},
                     {"run_us", t[i] * 1e6},
                     {"speedup_vs_inter1", t[0] / t[i]}});
    }
  }
  return out;
}

// Where handing off starts to pay: two branches of ONE MatMul each, of
// growing size, run inter 1, inter 2 with the default threshold and inter 2
// handing off everything (threshold 0).
json HandOff(int reps) {
  json out = json::array();
  std::printf("\n== hand-off crossover: two branches of one MatMul [64 x w] x [w x w], intra 1\n");
  std::printf("%-6s %12s %12s %12s %14s\n", "width", "inter1 (us)", "default", "threshold 0",
              "t0 vs inter1");
  for (int64_t width : {16, 32, 64, 96, 128, 192, 256}) {
    const std::vector<Config> configs = {
        {"inter1", 1, 1}, {"inter2", 1, 2}, {"inter2 t0", 1, 2, 0}};
    const std::vector<double> t = Compare(runtime::testing::TwoBranchGraph(64, width, 1),
                                          Filled({64, width}, 0.5f), configs, reps, 50);
    std::printf("%-6ld %12.1f %12.1f %12.1f %13.2fx\n", static_cast<long>(width), t[0] * 1e6,
                t[1] * 1e6, t[2] * 1e6, t[0] / t[2]);
    out.push_back({{"width", width},
                   {"inter1_us", t[0] * 1e6},
                   {"inter2_default_us", t[1] * 1e6},
                   {"inter2_threshold0_us", t[2] * 1e6}});
  }
  return out;
}

json Models(int reps) {
  json out = json::array();
  std::printf("\n== models at batch 1 (median of %d samples x 3 runs)\n", reps);
  std::printf("%-13s %-32s %10s %12s\n", "model", "config", "run (ms)", "vs intra2+inter1");
  struct Model {
    const char* name;
    Graph graph;
    Shape input;
  };
  Model models[] = {{"resnet18", runtime::testing::ResNet18Graph(), Shape({1, 3, 224, 224})},
                    {"mobilenet_v2", runtime::testing::MobileNetV2Graph(), Shape({1, 3, 224, 224})},
                    {"mlp", runtime::testing::MlpGraph(), Shape({1, 784})}};
  for (Model& m : models) {
    const std::vector<Config> configs = {
        {"intra2+inter1", 2, 1},
        {"intra2+inter2", 2, 2},
        {"intra2+inter2, no CPU budget rule", 2, 2, runtime::kHandOffMinCostNs, false},
        {"intra1+inter1", 1, 1},
        {"intra1+inter2", 1, 2}};
    const std::vector<double> t = Compare(m.graph, Filled(m.input, 0.5f), configs, reps, 3);
    for (size_t i = 0; i < configs.size(); ++i) {
      std::printf("%-13s %-32s %10.3f %11.3fx\n", m.name, configs[i].label.c_str(), t[i] * 1e3,
                  t[i] / t[0]);
      out.push_back({{"model", m.name},
                     {"config", configs[i].label},
                     {"run_ms", t[i] * 1e3},
                     {"ratio_vs_intra2_inter1", t[i] / t[0]}});
    }
  }
  return out;
}

}  // namespace
}  // namespace loom::bench

int main(int argc, char** argv) {
  std::string section = "all";
  std::string json_path;
  int reps = 9;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--section" && i + 1 < argc) {
      section = argv[++i];
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--section dispatch|branches|handoff|models|all] [--reps N] [--json FILE]\n",
          argv[0]);
      return 2;
    }
  }
  nlohmann::ordered_json results;
  results["usable_cpus"] = loom::threading::GlobalRuntime().settings().cpu.usable;
  if (section == "all" || section == "dispatch") results["dispatch"] = loom::bench::Dispatch(reps);
  if (section == "all" || section == "branches") results["branches"] = loom::bench::Branches(reps);
  if (section == "all" || section == "handoff") results["handoff"] = loom::bench::HandOff(reps);
  if (section == "all" || section == "models") results["models"] = loom::bench::Models(reps);
  if (!json_path.empty()) std::ofstream(json_path) << results.dump(1) << "\n";
  return 0;
}
