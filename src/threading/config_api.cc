// loom::config::threading: the public face of GlobalThreadingConfig.
#include <nlohmann/json.hpp>

#include "loom/config.h"
#include "threading/pipeline_registry.h"
#include "threading/runtime.h"
#include "threading/threading_config.h"

namespace loom::config::threading {

using loom::threading::GlobalThreadingConfig;

void set_intra_op_parallelism_threads(int num_threads) {
  GlobalThreadingConfig().SetIntraOpThreads(num_threads);
}
int get_intra_op_parallelism_threads() {
  return GlobalThreadingConfig().Resolve().intra_op_threads.value;
}

void set_inter_op_parallelism_threads(int num_threads) {
  GlobalThreadingConfig().SetInterOpThreads(num_threads);
}
int get_inter_op_parallelism_threads() {
  return GlobalThreadingConfig().Resolve().inter_op_threads.value;
}

void set_data_pipeline_threads(int num_threads) {
  GlobalThreadingConfig().SetDataPipelineThreads(num_threads);
}
int get_data_pipeline_threads() {
  return GlobalThreadingConfig().Resolve().data_pipeline_threads.value;
}

void set_spin_wait_us(int microseconds) { GlobalThreadingConfig().SetSpinWaitUs(microseconds); }
int get_spin_wait_us() { return GlobalThreadingConfig().Resolve().spin_wait_us.value; }

void set_cpu_budget(int tokens) { GlobalThreadingConfig().SetCpuBudget(tokens); }
int get_cpu_budget() { return GlobalThreadingConfig().Resolve().cpu_budget.value; }

void set_cpu_allotment(int cpus, const std::string& granted_by) {
  GlobalThreadingConfig().SetCpuAllotment(cpus, granted_by);
}
int get_cpu_allotment() { return GlobalThreadingConfig().Resolve().cpu.allotment; }

void set_intra_op_cpu_affinity(const std::vector<int>& cpus) {
  GlobalThreadingConfig().SetIntraOpCpus(cpus);
}
std::vector<int> get_intra_op_cpu_affinity() {
  return GlobalThreadingConfig().Resolve().intra_op_cpus.cpus;
}
void set_inter_op_cpu_affinity(const std::vector<int>& cpus) {
  GlobalThreadingConfig().SetInterOpCpus(cpus);
}
std::vector<int> get_inter_op_cpu_affinity() {
  return GlobalThreadingConfig().Resolve().inter_op_cpus.cpus;
}

Description describe() {
  const loom::threading::ResolvedThreading r = GlobalThreadingConfig().Resolve();
  Description d;
  d.intra_op_parallelism_threads = r.intra_op_threads;
  d.inter_op_parallelism_threads = r.inter_op_threads;
  d.data_pipeline_threads = r.data_pipeline_threads;
  d.spin_wait_us = r.spin_wait_us;
  d.cpu_budget = r.cpu_budget;
  d.intra_op_cpu_affinity = r.intra_op_cpus;
  d.inter_op_cpu_affinity = r.inter_op_cpus;
  d.cpu = {.logical = r.cpu.logical,
           .affinity = static_cast<int>(r.cpu.affinity_cpus.size()),
           .affinity_cpus = r.cpu.affinity_cpus,
           .cgroup_quota = r.cpu.cgroup_quota_cpus,
           .physical_cores = r.cpu.physical_cores,
           .usable = r.cpu.usable,
           .allotment = r.cpu.allotment,
           .allotment_granted_by = r.cpu.allotment_granted_by,
           .notes = r.cpu.notes};
  d.runtime_started = loom::threading::GlobalRuntimeIfStarted() != nullptr;
  if (const auto* budget = loom::threading::ProcessCpuBudgetIfBuilt()) {
    d.cpu_budget_in_use = budget->in_use();
    d.cpu_budget_waiting = budget->waiting();
  }
  d.threads = loom::threading::DescribeLiveThreads();
  d.data_pipelines = loom::threading::DescribeLivePipelines();
  return d;
}

std::string Description::to_json() const {
  using json = nlohmann::ordered_json;
  auto setting = [](const Setting& s) { return json{{"value", s.value}, {"source", s.source}}; };
  auto affinity = [](const CpuAffinitySetting& s) {
    return json{{"cpus", s.cpus}, {"source", s.source}};
  };
  json threads_json = json::array();
  for (const ThreadDescription& t : threads) {
    threads_json.push_back(
        {{"name", t.name}, {"pool", t.pool}, {"owner", t.owner}, {"tid", t.tid}});
  }
  json pipelines_json = json::array();
  for (const PipelineDescription& p : data_pipelines) {
    json stages = json::array();
    for (const PipelineStageDescription& s : p.stages) {
      stages.push_back({{"name", s.name},
                        {"parallelism", s.parallelism},
                        {"autotuned", s.autotuned},
                        {"max_parallelism", s.max_parallelism},
                        {"buffer_size", s.buffer_size},
                        {"produced", s.produced},
                        {"buffered", s.buffered},
                        {"in_progress", s.in_progress}});
    }
    pipelines_json.push_back({{"id", p.id},
                              {"cpu_budget", p.cpu_budget},
                              {"max_intra_op_parallelism", p.max_intra_op_parallelism},
                              {"stages", stages}});
  }
  json j = {
      {"intra_op_parallelism_threads", setting(intra_op_parallelism_threads)},
      {"inter_op_parallelism_threads", setting(inter_op_parallelism_threads)},
      {"data_pipeline_threads", setting(data_pipeline_threads)},
      {"spin_wait_us", setting(spin_wait_us)},
      {"cpu_budget",
       {{"value", cpu_budget.value},
        {"source", cpu_budget.source},
        {"in_use", cpu_budget_in_use},
        {"waiting", cpu_budget_waiting}}},
      {"intra_op_cpu_affinity", affinity(intra_op_cpu_affinity)},
      {"inter_op_cpu_affinity", affinity(inter_op_cpu_affinity)},
      {"cpu",
       {{"logical", cpu.logical},
        {"affinity", cpu.affinity},
        {"affinity_cpus", cpu.affinity_cpus},
        {"cgroup_quota", cpu.cgroup_quota ? json(*cpu.cgroup_quota) : json(nullptr)},
        {"physical_cores", cpu.physical_cores},
        {"usable", cpu.usable},
        {"allotment", cpu.allotment == 0 ? json(nullptr)
                                         : json{{"cpus", cpu.allotment},
                                                {"granted_by", cpu.allotment_granted_by}}},
        {"notes", cpu.notes}}},
      {"runtime_started", runtime_started},
      {"threads", threads_json},
      {"data_pipelines", pipelines_json},
  };
  return j.dump(2);
}

}  // namespace loom::config::threading
