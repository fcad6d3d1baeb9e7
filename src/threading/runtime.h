// Runtime: the intra-op, inter-op and data pools sized by a resolved
// threading configuration, and who owns them.
//
// The global runtime (GlobalRuntime) is created on first use, which freezes
// the global configuration. A session with private pools builds its own
// Runtime from explicit settings; it shares the process's CPU budget
// (ProcessCpuBudget) but neither starts nor freezes the global pools.
//
// Each pool is created by the first call of its accessor, so a process
// only ever has the pools something used (a program with only data
// pipelines has no intra-op or inter-op threads).
//
// Thread counts (the rule documented in loom/config.h): the thread that
// calls in is one of the N, so a pool of N threads creates N - 1 workers:
//   intra_op_threads = N → N-1 workers "loom-intra-*"; the thread calling
//                          ParallelFor is the N-th.
//   inter_op_threads = M → M-1 workers "loom-inter-*"; the thread calling
//                          Session::run is the M-th runner.
//   data_pipeline_threads = D → D workers "loom-data-*" (the consumer
//                          only takes finished elements; it is not one).
// A private runtime's workers carry its owner tag: "loom-s1-intra-0" for
// session 1 (thread_pool.h: WorkerThreadName).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "loom/config.h"
#include "threading/cpu_budget.h"
#include "threading/thread_pool.h"
#include "threading/threading_config.h"

namespace loom::threading {

class Runtime {
 public:
  // `budget`: the process's CPU budget (ProcessCpuBudget()), or null for
  // none. `owner_tag` goes into thread names ("" for the global runtime,
  // "s1" for session 1); `owner` is what describe() calls it ("global",
  // "session 1"). Registers the runtime so describe() lists its threads.
  Runtime(const ResolvedThreading& settings, CpuBudget* budget, std::string owner_tag = "",
          std::string owner = "global");
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The process's CPU budget, which every pool of this runtime takes part
  // in; null when there is none.
  CpuBudget* cpu_budget() { return budget_; }
  // Each creates its pool on the first call. Thread-safe. Throws
  // loom::RuntimeError if a worker cannot be created or pinned (the pool
  // then stays uncreated, so a later call retries).
  ThreadPool* intra_op_pool() { return Pool(Kind::kIntra); }
  ThreadPool* inter_op_pool() { return Pool(Kind::kInter); }
  ThreadPool* data_pool() { return Pool(Kind::kData); }
  const ResolvedThreading& settings() const { return settings_; }
  const std::string& owner() const { return owner_; }

  // Every thread this runtime created so far: intra-op, inter-op, data.
  std::vector<config::threading::ThreadDescription> threads() const;

 private:
  enum class Kind { kIntra = 0, kInter = 1, kData = 2 };
  ThreadPool* Pool(Kind kind) {
    // Acquire pairs with the release in CreatePool: a thread that sees the
    // pointer sees the pool fully started.
    if (ThreadPool* pool = pools_[static_cast<int>(kind)].load(std::memory_order_acquire)) {
      return pool;
    }
    return CreatePool(kind);
  }
  ThreadPool* CreatePool(Kind kind);

  ResolvedThreading settings_;
  CpuBudget* budget_;
  std::string owner_tag_;
  std::string owner_;
  mutable std::mutex mutex_;  // serializes pool creation
  std::unique_ptr<ThreadPool> owned_[3];
  std::atomic<ThreadPool*> pools_[3] = {nullptr, nullptr, nullptr};
};

// The process's CPU budget: built on the first call from the configured
// value (ThreadingConfig::FreezeCpuBudget fixes it then); null when no
// budget is configured. Shared by the global runtime and every private one.
CpuBudget* ProcessCpuBudget();
// The same without building it: null until ProcessCpuBudget() has run.
CpuBudget* ProcessCpuBudgetIfBuilt();

// The global runtime, started on the first call from GlobalThreadingConfig().
// Throws (and stays unstarted, so a later call retries) if the configuration
// is invalid. Thread-safe. Lives until process exit.
Runtime& GlobalRuntime();

// The global runtime if it has started, else nullptr. Never starts it.
Runtime* GlobalRuntimeIfStarted();

// The threads of every live runtime (the global one first, then private
// ones in creation order), each with its owner.
std::vector<config::threading::ThreadDescription> DescribeLiveThreads();

}  // namespace loom::threading
