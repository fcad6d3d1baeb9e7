#include "threading/runtime.h"

#include <atomic>

#include "loom/runtime.h"

namespace loom::threading {
namespace {

ThreadPoolOptions PoolOptions(const char* name, int workers, const ResolvedThreading& settings,
                              const std::vector<int>& cpus, CpuBudget* budget) {
  ThreadPoolOptions options;
  options.cpu_budget = budget;
  options.name = name;
  options.num_threads = workers;
  options.spin_wait_us = settings.spin_wait_us.value;
  options.cpus = cpus;
  return options;
}

std::mutex& GlobalMutex() {
  static std::mutex mutex;
  return mutex;
}

// Release/acquire: a thread that sees the pointer also sees the runtime
// fully built.
std::atomic<Runtime*> global_runtime{nullptr};

}  // namespace

Runtime::Runtime(const ResolvedThreading& settings, CpuBudget* shared_budget)
    : settings_(settings),
      // No budget asked for: no CpuBudget at all, so fork-joins and idle
      // workers skip the token bookkeeping.
      own_budget_(shared_budget == nullptr &&
                          settings.cpu_budget.value < config::threading::kNoCpuBudget
                      ? std::make_unique<CpuBudget>(settings.cpu_budget.value)
                      : nullptr),
      budget_(shared_budget != nullptr ? shared_budget : own_budget_.get()),
      intra_(std::make_unique<ThreadPool>(PoolOptions("intra", settings.intra_op_threads.value - 1,
                                                      settings, settings.intra_op_cpus.cpus,
                                                      budget_))),
      inter_(std::make_unique<ThreadPool>(PoolOptions("inter", settings.inter_op_threads.value,
                                                      settings, settings.inter_op_cpus.cpus,
                                                      budget_))) {}

ThreadPool* Runtime::data_pool() {
  std::lock_guard lock(data_mutex_);
  if (!data_) {
    // Not pinned: the data pool has no CPU-list setting (yet).
    data_ = std::make_unique<ThreadPool>(
        PoolOptions("data", settings_.data_pipeline_threads.value, settings_, {}, budget_));
  }
  return data_.get();
}

std::vector<config::threading::ThreadDescription> Runtime::threads() const {
  std::vector<config::threading::ThreadDescription> threads;
  ThreadPool* data = nullptr;
  {
    std::lock_guard lock(data_mutex_);
    data = data_.get();
  }
  for (const auto& [pool, label] : {std::pair{intra_.get(), "intra_op"},
                                    std::pair{inter_.get(), "inter_op"}, std::pair{data, "data"}}) {
    if (pool == nullptr) continue;
    for (const WorkerInfo& worker : pool->workers()) {
      threads.push_back({worker.name, label, worker.tid});
    }
  }
  return threads;
}

Runtime& GlobalRuntime() {
  if (Runtime* runtime = global_runtime.load(std::memory_order_acquire)) return *runtime;
  std::lock_guard lock(GlobalMutex());
  if (Runtime* runtime = global_runtime.load(std::memory_order_relaxed)) return *runtime;
  // Intentionally leaked: pools must outlive every static that might still
  // run work during exit, and joining threads from a static destructor is
  // a classic exit-time deadlock.
  auto* runtime = new Runtime(GlobalThreadingConfig().Freeze());
  global_runtime.store(runtime, std::memory_order_release);
  return *runtime;
}

Runtime* GlobalRuntimeIfStarted() { return global_runtime.load(std::memory_order_acquire); }

}  // namespace loom::threading

namespace loom {

void start_runtime() { threading::GlobalRuntime(); }

bool runtime_started() { return threading::GlobalRuntimeIfStarted() != nullptr; }

}  // namespace loom
