#include "threading/runtime.h"

#include <algorithm>
#include <atomic>

#include "loom/runtime.h"

namespace loom::threading {
namespace {

std::mutex& GlobalMutex() {
  static std::mutex mutex;
  return mutex;
}

// Release/acquire: a thread that sees the pointer also sees the runtime
// fully built.
std::atomic<Runtime*> global_runtime{nullptr};

// Live runtimes in creation order, for DescribeLiveThreads. Leaked so that
// runtimes destroyed during exit still find it.
struct Registry {
  std::mutex mutex;
  std::vector<Runtime*> runtimes;
};
Registry& LiveRuntimes() {
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

Runtime::Runtime(const ResolvedThreading& settings, CpuBudget* budget, std::string owner_tag,
                 std::string owner)
    : settings_(settings),
      budget_(budget),
      owner_tag_(std::move(owner_tag)),
      owner_(std::move(owner)) {
  Registry& registry = LiveRuntimes();
  std::lock_guard lock(registry.mutex);
  registry.runtimes.push_back(this);
}

Runtime::~Runtime() {
  {
    Registry& registry = LiveRuntimes();
    std::lock_guard lock(registry.mutex);
    std::erase(registry.runtimes, this);
  }
  // Data workers may still hand work to the other pools while draining;
  // destroy the data pool first, the intra-op pool (which every other
  // pool's tasks may use) last.
  owned_[static_cast<int>(Kind::kData)].reset();
  owned_[static_cast<int>(Kind::kInter)].reset();
  owned_[static_cast<int>(Kind::kIntra)].reset();
}

ThreadPool* Runtime::CreatePool(Kind kind) {
  std::lock_guard lock(mutex_);
  const int k = static_cast<int>(kind);
  if (ThreadPool* pool = pools_[k].load(std::memory_order_relaxed)) return pool;
  ThreadPoolOptions options;
  options.cpu_budget = budget_;
  options.owner = owner_tag_;
  options.spin_wait_us = settings_.spin_wait_us.value;
  switch (kind) {
    case Kind::kIntra:
      options.name = "intra";
      options.num_threads = settings_.intra_op_threads.value - 1;
      options.cpus = settings_.intra_op_cpus.cpus;
      break;
    case Kind::kInter:
      options.name = "inter";
      options.num_threads = settings_.inter_op_threads.value - 1;
      options.cpus = settings_.inter_op_cpus.cpus;
      break;
    case Kind::kData:
      // Not pinned: the data pool has no CPU-list setting (yet).
      options.name = "data";
      options.num_threads = settings_.data_pipeline_threads.value;
      break;
  }
  owned_[k] = std::make_unique<ThreadPool>(std::move(options));
  pools_[k].store(owned_[k].get(), std::memory_order_release);
  return owned_[k].get();
}

std::vector<config::threading::ThreadDescription> Runtime::threads() const {
  std::vector<config::threading::ThreadDescription> threads;
  static constexpr const char* kLabels[] = {"intra_op", "inter_op", "data"};
  for (int k = 0; k < 3; ++k) {
    const ThreadPool* pool = pools_[k].load(std::memory_order_acquire);
    if (pool == nullptr) continue;
    for (const WorkerInfo& worker : pool->workers()) {
      threads.push_back({worker.name, kLabels[k], worker.tid, owner_});
    }
  }
  return threads;
}

namespace {
std::atomic<CpuBudget*> process_budget{nullptr};
// Acquire/release: whoever sees `decided` sees the budget pointer it was
// decided with.
std::atomic<bool> process_budget_decided{false};
}  // namespace

CpuBudget* ProcessCpuBudget() {
  if (process_budget_decided.load(std::memory_order_acquire)) {
    return process_budget.load(std::memory_order_relaxed);
  }
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (!process_budget_decided.load(std::memory_order_relaxed)) {
    const Setting setting = GlobalThreadingConfig().FreezeCpuBudget();
    // No budget asked for: no CpuBudget at all, so fork-joins and idle
    // workers skip the token bookkeeping. Leaked, as the global runtime.
    if (setting.value < config::threading::kNoCpuBudget) {
      process_budget.store(new CpuBudget(setting.value), std::memory_order_relaxed);
    }
    process_budget_decided.store(true, std::memory_order_release);
  }
  return process_budget.load(std::memory_order_relaxed);
}

CpuBudget* ProcessCpuBudgetIfBuilt() {
  return process_budget_decided.load(std::memory_order_acquire)
             ? process_budget.load(std::memory_order_relaxed)
             : nullptr;
}

Runtime& GlobalRuntime() {
  if (Runtime* runtime = global_runtime.load(std::memory_order_acquire)) return *runtime;
  std::lock_guard lock(GlobalMutex());
  if (Runtime* runtime = global_runtime.load(std::memory_order_relaxed)) return *runtime;
  // Intentionally leaked: pools must outlive every static that might still
  // run work during exit, and joining threads from a static destructor is
  // a classic exit-time deadlock.
  const ResolvedThreading settings = GlobalThreadingConfig().Freeze();
  auto* runtime = new Runtime(settings, ProcessCpuBudget());
  global_runtime.store(runtime, std::memory_order_release);
  return *runtime;
}

Runtime* GlobalRuntimeIfStarted() { return global_runtime.load(std::memory_order_acquire); }

std::vector<config::threading::ThreadDescription> DescribeLiveThreads() {
  Registry& registry = LiveRuntimes();
  std::lock_guard lock(registry.mutex);
  std::vector<Runtime*> runtimes = registry.runtimes;
  // The global runtime first, then private ones in creation order.
  std::stable_partition(runtimes.begin(), runtimes.end(),
                        [](const Runtime* r) { return r == GlobalRuntimeIfStarted(); });
  std::vector<config::threading::ThreadDescription> threads;
  for (const Runtime* runtime : runtimes) {
    for (auto& thread : runtime->threads()) threads.push_back(std::move(thread));
  }
  return threads;
}

}  // namespace loom::threading

namespace loom {

void start_runtime() {
  threading::Runtime& runtime = threading::GlobalRuntime();
  runtime.intra_op_pool();
  runtime.inter_op_pool();
}

bool runtime_started() { return threading::GlobalRuntimeIfStarted() != nullptr; }

}  // namespace loom
