#include "threading/threading_config.h"

#include <algorithm>
#include <cctype>

#include "base/logging.h"
#include "loom/errors.h"
#include "platform/cpu_list.h"
#include "threading/env_values.h"

namespace loom::threading {
namespace {

using config::threading::kMaxSpinWaitUs;
using config::threading::kMaxThreads;

constexpr const char* kIntraVars[] = {"LOOM_NUM_INTRAOP_THREADS", "TF_NUM_INTRAOP_THREADS"};
constexpr const char* kInterVars[] = {"LOOM_NUM_INTEROP_THREADS", "TF_NUM_INTEROP_THREADS"};
// tf.data has no variable for its pool, so there is no TF_ alias here.
constexpr const char* kDataVar = "LOOM_NUM_DATA_THREADS";
constexpr const char* kBudgetVar = "LOOM_CPU_BUDGET";
constexpr const char* kOtherVars[] = {kDataVar,        "OMP_NUM_THREADS",   "LOOM_SPIN_WAIT_US",
                                      "KMP_BLOCKTIME", "LOOM_INTRAOP_CPUS", "LOOM_INTEROP_CPUS",
                                      kBudgetVar};

void ValidateThreadCount(int num_threads, const char* setting) {
  if (num_threads < 0) {
    throw InvalidArgumentError("Number of threads must be positive, got " +
                               std::to_string(num_threads) + " for " + setting +
                               " (0 means automatic)");
  }
  if (num_threads > kMaxThreads) {
    throw InvalidArgumentError("Number of threads must be at most " + std::to_string(kMaxThreads) +
                               ", got " + std::to_string(num_threads) + " for " + setting);
  }
}

// Parses every Loom (and TensorFlow alias) variable that is set, so an
// invalid one is refused even when another variable outranks it: a typo must
// never go unnoticed. Other libraries' variables (OMP_NUM_THREADS,
// KMP_BLOCKTIME) are read only where they decide a value, leniently.
void ValidateEnvironment(const std::map<std::string, std::string>& env) {
  for (const auto& [name, text] : env) {
    if (name == "OMP_NUM_THREADS" || name == "KMP_BLOCKTIME") {
      continue;
    } else if (name == "LOOM_SPIN_WAIT_US") {
      ParseSpinWaitUs(text);
    } else if (name == "LOOM_INTRAOP_CPUS" || name == "LOOM_INTEROP_CPUS") {
      ParseCpuListVariable(name, text);
    } else {
      ParseThreadCountVariable(name, text);
    }
  }
}

// How a warning names a request: the requester's words, else the API call.
std::string Call(const Requester& by, std::string api_call) {
  return by.call.empty() ? api_call : by.call;
}

}  // namespace

const std::vector<std::string>& ThreadingEnvironmentVariables() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& group : {std::begin(kIntraVars), std::begin(kInterVars)}) {
      all.insert(all.end(), group, group + 2);
    }
    all.insert(all.end(), std::begin(kOtherVars), std::end(kOtherVars));
    return all;
  }();
  return names;
}

int AutoInterOpThreads(int usable_cpus) { return std::max(usable_cpus, 1); }

ThreadingConfig::ThreadingConfig(const Environment& environment, const platform::SystemProbe& probe)
    : cpu_(platform::DetectCpuFacts(probe)) {
  auto snapshot = [&](const char* name) {
    if (auto value = environment.Get(name)) env_[name] = *value;
  };
  for (const std::string& name : ThreadingEnvironmentVariables()) snapshot(name.c_str());
}

std::optional<std::pair<std::string, std::string>> ThreadingConfig::FirstSet(
    std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    auto it = env_.find(name);
    if (it != env_.end()) return *it;
  }
  return std::nullopt;
}

ResolvedThreading ThreadingConfig::ResolveLocked(const ApiValues& api) const {
  ValidateEnvironment(env_);
  ResolvedThreading r;
  r.cpu = cpu_;
  // Automatic values live within the allotment, and say so in their source.
  std::string auto_source = "auto";
  if (const int allotment = api.cpu_allotment.value.value_or(0); allotment > 0) {
    r.cpu.allotment = allotment;
    r.cpu.allotment_granted_by = api.cpu_allotment.source;
    r.cpu.usable = std::min(cpu_.usable, allotment);
    auto_source = "auto:" + api.cpu_allotment.source;
  }
  const int usable = r.cpu.usable;

  if (auto var = FirstSet({kIntraVars[0], kIntraVars[1]})) {
    const int n = ParseThreadCountVariable(var->first, var->second);
    r.intra_op_threads = {n == 0 ? usable : n, "env:" + var->first};
  } else if (api.intra_op_threads.value.value_or(0) > 0) {
    r.intra_op_threads = {*api.intra_op_threads.value, api.intra_op_threads.source};
  } else {
    r.intra_op_threads = {usable, auto_source};
    if (auto omp = FirstSet({"OMP_NUM_THREADS"})) {
      const OtherLibraryValue read = ReadOmpNumThreads(omp->second);
      if (r.cpu.allotment > 0) {
        // The scheduler's own number is the better witness (Ray sets
        // OMP_NUM_THREADS from it anyway, when nobody else did).
        if (read.value && *read.value != usable) {
          r.ignored_variables.push_back(
              "OMP_NUM_THREADS=" + omp->second + " is ignored: the CPU allotment of " +
              std::to_string(r.cpu.allotment) + " granted by " + r.cpu.allotment_granted_by +
              " decides the automatic intra-op value (" + std::to_string(usable) + ")");
        }
      } else {
        if (read.value) r.intra_op_threads = {*read.value, "env:OMP_NUM_THREADS"};
        if (!read.problem.empty()) r.ignored_variables.push_back(read.problem);
      }
    }
  }

  if (auto var = FirstSet({kInterVars[0], kInterVars[1]})) {
    const int n = ParseThreadCountVariable(var->first, var->second);
    r.inter_op_threads = {n == 0 ? AutoInterOpThreads(usable) : n, "env:" + var->first};
  } else if (api.inter_op_threads.value.value_or(0) > 0) {
    r.inter_op_threads = {*api.inter_op_threads.value, api.inter_op_threads.source};
  } else {
    r.inter_op_threads = {AutoInterOpThreads(usable), auto_source};
  }

  if (auto var = FirstSet({kDataVar})) {
    const int n = ParseThreadCountVariable(var->first, var->second);
    r.data_pipeline_threads = {n == 0 ? std::max(usable, 1) : n, "env:" + var->first};
  } else if (api.data_pipeline_threads.value.value_or(0) > 0) {
    r.data_pipeline_threads = {*api.data_pipeline_threads.value, api.data_pipeline_threads.source};
  } else {
    r.data_pipeline_threads = {std::max(usable, 1), auto_source};
  }

  if (auto var = FirstSet({kBudgetVar})) {
    const int n = ParseThreadCountVariable(var->first, var->second);
    r.cpu_budget = {n == 0 ? std::max(usable, 1) : n, "env:" + var->first};
  } else if (const std::optional<int>& tokens = api.cpu_budget.value) {
    r.cpu_budget = {*tokens == 0 ? std::max(usable, 1) : *tokens, api.cpu_budget.source};
  } else if (r.cpu.allotment > 0) {
    // A scheduler's share is a promise to its neighbours: keep it.
    r.cpu_budget = {usable, auto_source};
  } else {
    // Not bounded unless asked for (kMaxThreads tokens never run out): a
    // budget still costs Python workloads (see kNoCpuBudget in config.h).
    r.cpu_budget = {config::threading::kNoCpuBudget, "auto"};
  }

  if (auto var = FirstSet({"LOOM_SPIN_WAIT_US"})) {
    r.spin_wait_us = {ParseSpinWaitUs(var->second), "env:LOOM_SPIN_WAIT_US"};
  } else {
    std::optional<int> kmp_us;
    if (auto kmp = FirstSet({"KMP_BLOCKTIME"})) {
      const OtherLibraryValue read = ReadKmpBlocktime(kmp->second);
      kmp_us = read.value;
      if (!read.problem.empty()) r.ignored_variables.push_back(read.problem);
    }
    if (kmp_us) {
      r.spin_wait_us = {*kmp_us, "env:KMP_BLOCKTIME"};
    } else if (api.spin_wait_us.value) {
      r.spin_wait_us = {*api.spin_wait_us.value, api.spin_wait_us.source};
    } else {
      r.spin_wait_us = {kDefaultSpinWaitUs, "auto"};
    }
  }

  auto resolve_cpus = [&](const char* var_name,
                          const Requested<std::vector<int>>& from_api) -> CpuAffinitySetting {
    if (auto var = FirstSet({var_name})) {
      std::vector<int> cpus = ParseCpuListVariable(var->first, var->second);
      ValidateCpus(cpus, std::string("environment variable ") + var_name);
      return {cpus, "env:" + var->first};
    }
    if (from_api.value && !from_api.value->empty()) return {*from_api.value, from_api.source};
    return {{}, "auto"};
  };
  r.intra_op_cpus = resolve_cpus("LOOM_INTRAOP_CPUS", api.intra_op_cpus);
  r.inter_op_cpus = resolve_cpus("LOOM_INTEROP_CPUS", api.inter_op_cpus);
  return r;
}

void ThreadingConfig::ValidateCpus(const std::vector<int>& cpus, const std::string& what) const {
  for (int cpu : cpus) {
    if (!std::binary_search(cpu_.affinity_cpus.begin(), cpu_.affinity_cpus.end(), cpu)) {
      throw InvalidArgumentError("CPU " + std::to_string(cpu) + " in " + what +
                                 " is not in this process's affinity mask (allowed CPUs: " +
                                 platform::FormatCpuList(cpu_.affinity_cpus) + ")");
    }
  }
}

void ThreadingConfig::WarnIfOverridden(std::initializer_list<const char*> names,
                                       const std::string& call) const {
  std::optional<std::pair<std::string, std::string>> var;
  {
    std::lock_guard lock(mutex_);
    var = FirstSet(names);
  }
  if (var) {
    base::LogWarning(call + " has no effect: environment variable " + var->first + "=" +
                     var->second + " takes precedence");
  }
}

template <typename Change, typename Field>
void ThreadingConfig::Update(Change change, Field field, const char* frozen_message) {
  std::lock_guard lock(mutex_);
  ApiValues next = api_;
  change(next);
  if (frozen_) {
    if (!(field(ResolveLocked(next)) == field(*frozen_))) throw RuntimeError(frozen_message);
    return;
  }
  api_ = std::move(next);
}

void ThreadingConfig::SetIntraOpThreads(int num_threads, const Requester& by) {
  ValidateThreadCount(num_threads, "intra_op_parallelism_threads");
  WarnIfOverridden({kIntraVars[0], kIntraVars[1]}, Call(by, "set_intra_op_parallelism_threads(" +
                                                                std::to_string(num_threads) + ")"));
  Update(
      [&](ApiValues& api) {
        api.intra_op_threads = {num_threads, by.source};
      },
      [](const ResolvedThreading& r) { return r.intra_op_threads.value; },
      "Intra op parallelism cannot be modified after initialization.");
}

void ThreadingConfig::SetInterOpThreads(int num_threads, const Requester& by) {
  ValidateThreadCount(num_threads, "inter_op_parallelism_threads");
  WarnIfOverridden({kInterVars[0], kInterVars[1]}, Call(by, "set_inter_op_parallelism_threads(" +
                                                                std::to_string(num_threads) + ")"));
  Update(
      [&](ApiValues& api) {
        api.inter_op_threads = {num_threads, by.source};
      },
      [](const ResolvedThreading& r) { return r.inter_op_threads.value; },
      "Inter op parallelism cannot be modified after initialization.");
}

void ThreadingConfig::SetDataPipelineThreads(int num_threads, const Requester& by) {
  ValidateThreadCount(num_threads, "data_pipeline_threads");
  WarnIfOverridden({kDataVar},
                   Call(by, "set_data_pipeline_threads(" + std::to_string(num_threads) + ")"));
  Update(
      [&](ApiValues& api) {
        api.data_pipeline_threads = {num_threads, by.source};
      },
      [](const ResolvedThreading& r) { return r.data_pipeline_threads.value; },
      "Data pipeline parallelism cannot be modified after initialization.");
}

void ThreadingConfig::SetSpinWaitUs(int microseconds, const Requester& by) {
  if (microseconds < 0 || microseconds > kMaxSpinWaitUs) {
    throw InvalidArgumentError("Spin wait must be from 0 to " + std::to_string(kMaxSpinWaitUs) +
                               " microseconds, got " + std::to_string(microseconds));
  }
  WarnIfOverridden({"LOOM_SPIN_WAIT_US", "KMP_BLOCKTIME"},
                   Call(by, "set_spin_wait_us(" + std::to_string(microseconds) + ")"));
  Update(
      [&](ApiValues& api) {
        api.spin_wait_us = {microseconds, by.source};
      },
      [](const ResolvedThreading& r) { return r.spin_wait_us.value; },
      "Spin wait cannot be modified after initialization.");
}

void ThreadingConfig::SetCpuBudget(int tokens, const Requester& by) {
  ValidateThreadCount(tokens, "cpu_budget");
  WarnIfOverridden({kBudgetVar}, Call(by, "set_cpu_budget(" + std::to_string(tokens) + ")"));
  constexpr const char* kFrozen = "The CPU budget cannot be modified after initialization.";
  {
    // Frozen alone (by a private session) before the rest: a call that
    // would change it is refused as after the full freeze.
    std::lock_guard lock(mutex_);
    if (frozen_budget_ && !frozen_) {
      ApiValues next = api_;
      next.cpu_budget = {tokens, by.source};
      if (ResolveLocked(next).cpu_budget.value != frozen_budget_->value) {
        throw RuntimeError(kFrozen);
      }
      api_ = std::move(next);
      return;
    }
  }
  Update(
      [&](ApiValues& api) {
        api.cpu_budget = {tokens, by.source};
      },
      [](const ResolvedThreading& r) { return r.cpu_budget.value; }, kFrozen);
}

void ThreadingConfig::SetCpuAllotment(int cpus, const std::string& granted_by) {
  ValidateThreadCount(cpus, "cpu_allotment");
  const bool word =
      !granted_by.empty() && granted_by.size() <= 32 &&
      std::all_of(granted_by.begin(), granted_by.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
  if (cpus > 0 && !word) {
    throw InvalidArgumentError(
        "set_cpu_allotment: granted_by must name the scheduler in one word of letters, digits, "
        "'-', '_' or '.' (at most 32 characters), got '" +
        granted_by + "'");
  }
  constexpr const char* kFrozen = "The CPU allotment cannot be modified after initialization.";
  std::lock_guard lock(mutex_);
  ApiValues next = api_;
  next.cpu_allotment = {cpus, cpus > 0 ? granted_by : "api"};
  // The allotment moves every automatic value and the budget: once any of
  // them is fixed, only the allotment in force may be set again.
  const auto same = [&](const ResolvedThreading& fixed) {
    const ResolvedThreading r = ResolveLocked(next);
    return r.cpu.allotment == fixed.cpu.allotment &&
           r.cpu.allotment_granted_by == fixed.cpu.allotment_granted_by;
  };
  if (frozen_ || frozen_budget_) {
    if (!same(frozen_ ? *frozen_ : ResolveLocked(api_))) throw RuntimeError(kFrozen);
    return;
  }
  api_ = std::move(next);
}

void ThreadingConfig::SetIntraOpCpus(const std::vector<int>& cpus, const Requester& by) {
  ValidateCpus(cpus, "intra_op_cpu_affinity");
  WarnIfOverridden({"LOOM_INTRAOP_CPUS"},
                   Call(by, "set_intra_op_cpu_affinity(" + platform::FormatCpuList(cpus) + ")"));
  Update(
      [&](ApiValues& api) {
        api.intra_op_cpus = {cpus, by.source};
      },
      [](const ResolvedThreading& r) { return r.intra_op_cpus.cpus; },
      "Intra op CPU affinity cannot be modified after initialization.");
}

void ThreadingConfig::SetInterOpCpus(const std::vector<int>& cpus, const Requester& by) {
  ValidateCpus(cpus, "inter_op_cpu_affinity");
  WarnIfOverridden({"LOOM_INTEROP_CPUS"},
                   Call(by, "set_inter_op_cpu_affinity(" + platform::FormatCpuList(cpus) + ")"));
  Update(
      [&](ApiValues& api) {
        api.inter_op_cpus = {cpus, by.source};
      },
      [](const ResolvedThreading& r) { return r.inter_op_cpus.cpus; },
      "Inter op CPU affinity cannot be modified after initialization.");
}

ResolvedThreading ThreadingConfig::Resolve() const {
  std::lock_guard lock(mutex_);
  if (frozen_) return *frozen_;
  ResolvedThreading r = ResolveLocked(api_);
  if (frozen_budget_) r.cpu_budget = *frozen_budget_;
  return r;
}

ResolvedThreading ThreadingConfig::Freeze() {
  std::lock_guard lock(mutex_);
  if (frozen_) return *frozen_;
  frozen_ = ResolveLocked(api_);
  if (frozen_budget_) {
    frozen_->cpu_budget = *frozen_budget_;
  } else {
    frozen_budget_ = frozen_->cpu_budget;
  }
  WarnIgnoredOnceLocked(*frozen_);
  const int usable = frozen_->cpu.usable;
  for (const auto& [name, setting] :
       {std::pair{"intra_op_parallelism_threads", frozen_->intra_op_threads},
        std::pair{"inter_op_parallelism_threads", frozen_->inter_op_threads},
        std::pair{"data_pipeline_threads", frozen_->data_pipeline_threads}}) {
    if (setting.value > usable) {
      const std::string limit = frozen_->cpu.allotment > 0
                                    ? std::to_string(usable) +
                                          " CPU(s) of the allotment granted by " +
                                          frozen_->cpu.allotment_granted_by + " (" +
                                          std::to_string(frozen_->cpu.allotment) + " assigned, " +
                                          std::to_string(cpu_.usable) + " usable on this host)"
                                    : std::to_string(usable) + " usable CPUs";
      base::LogWarning(std::string(name) + "=" + std::to_string(setting.value) + " (" +
                       setting.source + ") exceeds the " + limit +
                       ": threads will compete for CPUs (oversubscription)");
    }
  }
  return *frozen_;
}

Setting ThreadingConfig::FreezeCpuBudget() {
  std::lock_guard lock(mutex_);
  if (frozen_budget_) return *frozen_budget_;
  const ResolvedThreading r = ResolveLocked(api_);
  frozen_budget_ = r.cpu_budget;
  WarnIgnoredOnceLocked(r);
  return *frozen_budget_;
}

void ThreadingConfig::WarnIgnoredOnceLocked(const ResolvedThreading& r) {
  if (warned_ignored_) return;
  warned_ignored_ = true;
  for (const std::string& problem : r.ignored_variables) base::LogWarning(problem);
}

bool ThreadingConfig::frozen() const {
  std::lock_guard lock(mutex_);
  return frozen_.has_value();
}

ThreadingConfig& GlobalThreadingConfig() {
  static ThreadingConfig config(ProcessEnvironment(), platform::RealSystemProbe());
  return config;
}

}  // namespace loom::threading
