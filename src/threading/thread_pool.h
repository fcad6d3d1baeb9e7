// ThreadPool: a fixed set of named worker threads with one run queue each.
//
// Overview of src/threading:
//   ThreadPool      the only thing in Loom that creates threads (this file)
//   ParallelFor     splits a loop over a pool; the caller takes part
//   ThreadingConfig settings + their sources, frozen when the runtime starts
//   Runtime         owns the global intra-op and inter-op pools
//
// Workers take tasks from their own queue first, then steal from the others.
// When there is nothing to do a worker spins for `spin_wait_us` microseconds
// (so back-to-back work avoids a ~10-50 µs kernel wake-up), then blocks on a
// futex. A blocked pool uses no CPU. spin_wait_us = 0 blocks at once.
//
// Thread safety: Schedule and ScheduleHelpers may be called from any thread,
// including the pool's own workers. The destructor must not race with calls
// from threads outside the pool.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "threading/cpu_budget.h"
#include "threading/task_queue.h"

namespace loom::threading {

struct ThreadPoolOptions {
  // Pool name; worker i is named WorkerThreadName(owner, name, i)
  // (e.g. loom-intra-0).
  std::string name = "pool";
  // Whose pool: "" for the global runtime's, "s1" for session 1's.
  std::string owner;
  // Number of worker threads created; 0 is allowed (every task then runs
  // only through callers that take part, such as ParallelFor).
  int num_threads = 1;
  // How long an idle worker spins before blocking, in microseconds.
  int spin_wait_us = 0;
  // When non-empty, worker i is pinned to cpus[i % cpus.size()]. Validate
  // against the affinity mask before getting here (ThreadingConfig does).
  std::vector<int> cpus;
  // The process's CPU budget (cpu_budget.h), or null. Idle workers stop
  // spinning while no token is free for them: a worker that could not take
  // part would only burn a CPU the budget gives to someone else.
  CpuBudget* cpu_budget = nullptr;
};

struct WorkerInfo {
  std::string name;  // "loom-intra-0"
  int tid = 0;       // kernel thread id, as in /proc/self/task
};

// The name of worker `index` of pool `pool` owned by `owner`, at most 15
// characters (the kernel's limit, what top -H and ps -T show):
// "loom-intra-0" for the global pools, "loom-s1-intra-0" for session 1's.
// When that is too long the pool name shortens ("loom-s12-ia-0"; "ie" for
// inter, "d" for data); past that the name is cut at 15 characters.
std::string WorkerThreadName(const std::string& owner, const std::string& pool, int index);

// The calling thread's WorkerInfo if it is a worker of some ThreadPool,
// else null.
const WorkerInfo* CurrentWorkerInfo();

// Where a sleeping worker should wake up.
enum class WakePlacement {
  kAnyCpu,         // wherever the kernel puts it (cheapest for the waker)
  kAwayFromWaker,  // not on the waker's CPU; costs the waker ~35 µs on the
                   // KVM development machines (a cross-CPU wake-up), so
                   // worth it only for work much larger than that
};

// How long idle workers keep polling after the last SpinScope ends, in
// units of spin_wait_us (see SpinScope).
inline constexpr int kScopeLingerSpinWaits = 4;

class ThreadPool {
 public:
  // Starts every worker and returns once each has named (and pinned) itself,
  // so the threads are visible as soon as the constructor returns. Throws
  // loom::RuntimeError if a thread cannot be created or pinned; no thread
  // of the pool is left running then.
  explicit ThreadPool(ThreadPoolOptions options);

  // Semantics with queued work: the destructor drains the queues. Every task
  // already queued, and every task those tasks schedule, runs to completion
  // before the workers exit and join.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task` on an idle worker if there is one, else round-robin. A task
  // that throws is caught, counted and logged; the worker lives on.
  void Schedule(Task task);

  // Queues `task` once on each of `count` distinct workers (at most
  // num_threads(), never the calling worker), preferring idle ones. Used by
  // ParallelFor to recruit helpers. Returns how many copies were queued.
  int ScheduleHelpers(int count, const Task& task,
                      WakePlacement placement = WakePlacement::kAnyCpu);

  // While at least one SpinScope on this pool lives, an idle worker keeps
  // spinning past spin_wait_us (still yielding its CPU between polls) instead
  // of blocking, so the fork-joins of one session run find the workers
  // awake: a blocked worker costs the next ParallelFor a futex wake and a
  // wake-up on whichever CPU the kernel picks. Session::run holds one on the
  // intra-op pool for the length of the run, when its thread may use the
  // pool (MaxParallelism > 1). Workers keep polling for
  // kScopeLingerSpinWaits x spin_wait_us after the last scope ends, so
  // back-to-back runs with some work between them (a Python loop) find them
  // awake. Without the linger, a worker idle through the run's serial tail
  // blocked as the run ended, and the next run's first fork-join paid a
  // futex wake plus a steered wake-up (two affinity calls, ~50 us). From a
  // Python loop running the shared MLP at intra 2, 900 of ~4000 runs a second found the worker
  // blocked with a 50 us linger, 59 with 100, 14 with 200. ONNX Runtime's workers spin a similar
  // while after their work. With spin_wait_us = 0 workers still block at once. Thread-safe; scopes
  // may nest and overlap.
  class SpinScope {
   public:
    explicit SpinScope(ThreadPool* pool);  // null: no effect
    ~SpinScope();
    SpinScope(const SpinScope&) = delete;
    SpinScope& operator=(const SpinScope&) = delete;

   private:
    ThreadPool* pool_;
  };

  // ParallelFor's record of whether this pool's helpers get a CPU when asked
  // (see kUnhelpedJobsBeforeInline in parallel_for.cc): how many fork-joins
  // in a row ended with every shard run by the caller, and a count of the
  // small ones since then, to space out probes. Relaxed; only a hint.
  struct HelpRecord {
    std::atomic<int> unhelped_in_a_row{0};
    std::atomic<uint32_t> skipped{0};
  };
  HelpRecord& help_record() { return help_record_; }

  // Whether the workers of all pools in the process that are not blocked,
  // plus one calling thread, outnumber the CPUs in the affinity mask.
  static bool CpusOversubscribed();

  // Whether a thread spinning for this pool's work (an idle worker, a
  // ParallelFor caller waiting for its last shards) should yield between
  // polls. Outside a session run (no SpinScope, past its linger): yes, so
  // the application's own threads get the CPU at once. Inside one: only
  // when CpusOversubscribed(), where the thread it lets run may be a Loom
  // thread with work; otherwise a yield mostly hands the CPU for a whole
  // scheduler tick to whatever else is runnable, such as another runtime's
  // spinning worker (ONNX Runtime's spins ~40 ms after each run; a Loom
  // helper that yielded to it got almost none of the CPU while it lasted:
  // bench/results/threading-colocation-2026-12-04.md).
  bool SpinnersShouldYield() const;

  int num_threads() const { return static_cast<int>(workers_.size()); }
  int spin_wait_us() const { return options_.spin_wait_us; }
  CpuBudget* cpu_budget() const { return options_.cpu_budget; }
  const std::string& name() const { return options_.name; }

  // Index of the calling thread among this pool's workers, or -1.
  int CurrentWorkerIndex() const;

  std::vector<WorkerInfo> workers() const;

  // Tasks that ended by throwing (caught by the worker).
  uint64_t failed_task_count() const { return failed_tasks_.load(std::memory_order_relaxed); }

 private:
  struct Worker;

  void StartWorker(int index, std::latch& started);
  void Shutdown();
  void WorkerMain(int index);
  bool TryRunOne(int index);
  void RunTask(Task& task);
  void PushTo(int index, Task task, WakePlacement placement);
  // Wakes `worker` if it is blocked; returns whether this call woke it.
  bool WakeIfSleeping(Worker& worker, WakePlacement placement);
  int PickWorker();
  // Whether a SpinScope is live or its linger has not passed at `now`.
  bool InRun(std::chrono::steady_clock::time_point now) const;
  bool SpinnersShouldYield(bool in_run) const;

  ThreadPoolOptions options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // Tasks sitting in any queue. Lets an idle worker decide in one load
  // whether scanning the queues is worth it.
  std::atomic<int64_t> queued_{0};
  std::atomic<bool> stopping_{false};
  // Live SpinScopes, and until when (steady_clock ns) the last one to end
  // keeps idle workers polling.
  std::atomic<int> spin_scopes_{0};
  std::atomic<int64_t> spin_linger_until_ns_{0};
  std::atomic<uint32_t> next_worker_{0};
  std::atomic<uint64_t> failed_tasks_{0};
  HelpRecord help_record_;
  // The CPU of the thread that last queued a task (sched_getcpu), -1 before.
  std::atomic<int> producer_cpu_{-1};
};

}  // namespace loom::threading
