// `loom threads`: applies its flags as requests labelled with the flag (so
// environment variables still outrank them, and the sources read "flag
// --intra"), starts the runtime, and prints what is in force.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli_flags.h"
#include "commands.h"
#include "loom/config.h"
#include "loom/data.h"
#include "loom/errors.h"
#include "loom/runtime.h"
#include "platform/cpu_list.h"
#include "platform/thread_identity.h"
#include "thread_flags.h"

namespace loom::cli {
namespace {

namespace threading = config::threading;
namespace threading_impl = loom::threading;

struct ThreadsFlags {
  bool json = false;
  bool pipeline = false;
  std::optional<int> intra, inter, data, spin_us, cpu_budget;
  std::optional<std::vector<int>> intra_cpus, inter_cpus;
};

ThreadsFlags ParseFlags(const std::vector<std::string>& args) {
  constexpr int kMax = threading::kMaxThreads;
  ThreadsFlags out;
  FlagReader flags("threads", args);
  while (flags.Next()) {
    if (flags.Is("--json")) {
      out.json = true;
    } else if (flags.Is("--pipeline")) {
      out.pipeline = true;
    } else if (flags.Is("--intra")) {
      out.intra = static_cast<int>(flags.IntValue(0, kMax));
    } else if (flags.Is("--inter")) {
      out.inter = static_cast<int>(flags.IntValue(0, kMax));
    } else if (flags.Is("--data")) {
      out.data = static_cast<int>(flags.IntValue(0, kMax));
    } else if (flags.Is("--spin-us")) {
      out.spin_us = static_cast<int>(flags.IntValue(0, threading::kMaxSpinWaitUs));
    } else if (flags.Is("--cpu-budget")) {
      out.cpu_budget = static_cast<int>(flags.IntValue(0, kMax));
    } else if (flags.Is("--intra-cpus")) {
      out.intra_cpus = flags.CpuListValue();
    } else if (flags.Is("--inter-cpus")) {
      out.inter_cpus = flags.CpuListValue();
    } else {
      flags.Unknown();
    }
  }
  return out;
}

// A CPU list naming a CPU this process may not use is a mistake in the
// command line, like any other out-of-range value.
void SetCpus(void (threading_impl::ThreadingConfig::*set)(const std::vector<int>&,
                                                          const threading_impl::Requester&),
             const std::vector<int>& cpus, const std::string& flag) {
  try {
    (threading_impl::GlobalThreadingConfig().*set)(
        cpus, FlagRequester(flag, platform::FormatCpuList(cpus)));
  } catch (const InvalidArgumentError& e) {
    throw UsageError("threads: " + flag + ": " + e.what());
  }
}

// Each flag as a request labelled with it (thread_flags.h).
void ApplyFlags(const ThreadsFlags& flags) {
  threading_impl::ThreadingConfig& config = threading_impl::GlobalThreadingConfig();
  if (flags.intra) config.SetIntraOpThreads(*flags.intra, FlagRequester("--intra", *flags.intra));
  if (flags.inter) config.SetInterOpThreads(*flags.inter, FlagRequester("--inter", *flags.inter));
  if (flags.data) {
    config.SetDataPipelineThreads(*flags.data, FlagRequester("--data", *flags.data));
  }
  if (flags.spin_us)
    config.SetSpinWaitUs(*flags.spin_us, FlagRequester("--spin-us", *flags.spin_us));
  if (flags.cpu_budget) {
    config.SetCpuBudget(*flags.cpu_budget, FlagRequester("--cpu-budget", *flags.cpu_budget));
  }
  if (flags.intra_cpus) {
    SetCpus(&threading_impl::ThreadingConfig::SetIntraOpCpus, *flags.intra_cpus, "--intra-cpus");
  }
  if (flags.inter_cpus) {
    SetCpus(&threading_impl::ThreadingConfig::SetInterOpCpus, *flags.inter_cpus, "--inter-cpus");
  }
}

// A CPU-bound map (~0.3 ms an element) under AUTOTUNE, read for about half
// a second so the tuner has windows to decide on.
data::Iterator RunDemoPipeline() {
  auto busy_map = [](data::Element element) {
    volatile double x = static_cast<double>(element[0].data<int64_t>()[0]);
    for (int i = 0; i < 100'000; ++i) x = x * 0.999999 + 1.0;
    return element;
  };
  data::Iterator it = data::Dataset::range(1'000'000)
                          .map(busy_map, data::kAutotune)
                          .batch(4)
                          .prefetch(data::kAutotune)
                          .make_iterator();
  const auto stop = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (std::chrono::steady_clock::now() < stop && it.next()) {
  }
  return it;
}

void PrintText(const threading::Description& d) {
  auto line = [](const char* name, const threading::Setting& s) {
    std::printf("%-30s %6d   (%s)\n", name, s.value, s.source.c_str());
  };
  line("intra_op_parallelism_threads", d.intra_op_parallelism_threads);
  line("inter_op_parallelism_threads", d.inter_op_parallelism_threads);
  line("data_pipeline_threads", d.data_pipeline_threads);
  line("spin_wait_us", d.spin_wait_us);
  line("cpu_budget", d.cpu_budget);
  for (const auto& [name, s] : {std::pair{"intra_op_cpu_affinity", d.intra_op_cpu_affinity},
                                std::pair{"inter_op_cpu_affinity", d.inter_op_cpu_affinity}}) {
    std::string cpus = s.cpus.empty() ? "not pinned" : platform::FormatCpuList(s.cpus);
    std::printf("%-30s %6s   (%s)\n", name, cpus.c_str(), s.source.c_str());
  }
  char quota[32] = "none";
  if (d.cpu.cgroup_quota) std::snprintf(quota, sizeof(quota), "%.2f CPUs", *d.cpu.cgroup_quota);
  std::printf(
      "cpu: %d logical, affinity %d (%s), cgroup quota %s, %d physical cores -> %d usable\n",
      d.cpu.logical, d.cpu.affinity, platform::FormatCpuList(d.cpu.affinity_cpus).c_str(), quota,
      d.cpu.physical_cores, d.cpu.usable);
  for (const std::string& note : d.cpu.notes) std::printf("  note: %s\n", note.c_str());
  std::printf("threads created by loom: %zu\n", d.threads.size());
  // Why `--intra 2` shows one loom-intra thread.
  const int intra = d.intra_op_parallelism_threads.value;
  const int inter = d.inter_op_parallelism_threads.value;
  std::printf(
      "  (the calling thread runs shard 0 itself: intra %d -> %d loom-intra worker%s, "
      "inter %d -> %d loom-inter worker%s)\n",
      intra, intra - 1, intra - 1 == 1 ? "" : "s", inter, inter - 1, inter - 1 == 1 ? "" : "s");
  for (const auto& t : d.threads) {
    std::printf("  %-16s %-9s %-10s tid %d\n", t.name.c_str(), t.pool.c_str(), t.owner.c_str(),
                t.tid);
  }
  std::printf("data pipelines alive: %zu\n", d.data_pipelines.size());
  for (const auto& p : d.data_pipelines) {
    std::printf("  pipeline %lld: cpu_budget %d, max_intra_op_parallelism %d\n",
                static_cast<long long>(p.id), p.cpu_budget, p.max_intra_op_parallelism);
    for (const auto& s : p.stages) {
      std::printf(
          "    %-14s parallelism %d%s (max %d), buffer %d (%d held, %d in progress), produced "
          "%lld\n",
          s.name.c_str(), s.parallelism, s.autotuned ? " [AUTOTUNE]" : "", s.max_parallelism,
          s.buffer_size, s.buffered, s.in_progress, static_cast<long long>(s.produced));
    }
  }
  std::printf("threads in this process: %zu (the main thread included)\n",
              platform::ListProcessThreads().size());
}

}  // namespace

int ThreadsCommand(const std::vector<std::string>& args) {
  const ThreadsFlags flags = ParseFlags(args);
  ApplyFlags(flags);
  start_runtime();
  // Kept alive until describe(): only live pipelines are listed.
  std::optional<data::Iterator> pipeline;
  if (flags.pipeline) pipeline = RunDemoPipeline();
  const threading::Description d = threading::describe();
  if (!flags.json) {
    PrintText(d);
    return 0;
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(d.to_json());
  nlohmann::ordered_json process_threads = nlohmann::ordered_json::array();
  for (const auto& t : platform::ListProcessThreads()) process_threads.push_back(t.name);
  j["process_threads"] = process_threads;
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
}

}  // namespace loom::cli
