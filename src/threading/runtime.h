// Runtime: owns an intra-op and an inter-op pool sized by a resolved
// threading configuration.
//
// The global runtime (GlobalRuntime) is created on first use, which freezes
// the global configuration. A Runtime can also be built from explicit
// settings, which is how a session will own private pools.
//
// Thread counts (the rule documented in loom/config.h):
//   intra_op_threads = N → N-1 workers "loom-intra-*"; the thread calling
//                          ParallelFor is the N-th.
//   inter_op_threads = M → M workers "loom-inter-*".
//   data_pipeline_threads = D → D workers "loom-data-*", created by the
//                          first data_pool() call (the first loom::data
//                          iterator), so programs without pipelines have
//                          none.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "loom/config.h"
#include "threading/cpu_budget.h"
#include "threading/thread_pool.h"
#include "threading/threading_config.h"

namespace loom::threading {

class Runtime {
 public:
  // Creates both pools. Throws loom::RuntimeError if pinning fails. The
  // pools take part in `shared_budget` when given (a session's private
  // runtime shares the process's), else in a budget of their own of
  // settings.cpu_budget tokens unless that is kNoCpuBudget.
  explicit Runtime(const ResolvedThreading& settings, CpuBudget* shared_budget = nullptr);

  // The process's CPU budget (settings().cpu_budget tokens), which every
  // pool of this runtime takes part in; null when there is none.
  CpuBudget* cpu_budget() { return budget_; }
  ThreadPool* intra_op_pool() { return intra_.get(); }
  ThreadPool* inter_op_pool() { return inter_.get(); }
  // Creates the data pool on the first call. Thread-safe.
  ThreadPool* data_pool();
  const ResolvedThreading& settings() const { return settings_; }

  // Every thread this runtime created, intra-op pool first.
  std::vector<config::threading::ThreadDescription> threads() const;

 private:
  ResolvedThreading settings_;
  std::unique_ptr<CpuBudget> own_budget_;  // before the pools, which use it
  CpuBudget* budget_;
  std::unique_ptr<ThreadPool> intra_;
  std::unique_ptr<ThreadPool> inter_;
  mutable std::mutex data_mutex_;
  std::unique_ptr<ThreadPool> data_;
};

// The global runtime, started on the first call from GlobalThreadingConfig().
// Throws (and stays unstarted, so a later call retries) if the configuration
// is invalid. Thread-safe. Lives until process exit.
Runtime& GlobalRuntime();

// The global runtime if it has started, else nullptr. Never starts it.
Runtime* GlobalRuntimeIfStarted();

}  // namespace loom::threading
