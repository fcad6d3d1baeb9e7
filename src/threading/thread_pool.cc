#include "threading/thread_pool.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <latch>
#include <mutex>
#include <system_error>

#include "base/logging.h"
#include "loom/errors.h"
#include "platform/futex.h"
#include "platform/thread_identity.h"

namespace loom::threading {
namespace {

// Worker states, also the futex word a sleeping worker blocks on.
constexpr uint32_t kBusy = 0;      // running a task or looking for one
constexpr uint32_t kSpinning = 1;  // idle, polling for work
constexpr uint32_t kSleeping = 2;  // idle, blocked in FutexWait
constexpr uint32_t kWaking = 3;    // a waker is steering it (see WakeIfSleeping)

thread_local const ThreadPool* tls_pool = nullptr;
thread_local int tls_worker_index = -1;
thread_local const WorkerInfo* tls_worker_info = nullptr;

constexpr size_t kMaxThreadNameLength = 15;

// Workers of every pool in the process that are not blocked (running a
// task, looking for one or spinning). Relaxed: only steers SpinnersShouldYield.
std::atomic<int> g_unblocked_workers{0};

// CPUs this process may run on, read once (the affinity mask at first use).
int AffinityCpuCount() {
  static const int count = [] {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return 1;
    return std::max(1, CPU_COUNT(&mask));
  }();
  return count;
}

}  // namespace

std::string WorkerThreadName(const std::string& owner, const std::string& pool, int index) {
  const std::string prefix = owner.empty() ? "loom-" : "loom-" + owner + "-";
  const std::string suffix = "-" + std::to_string(index);
  std::string name = prefix + pool + suffix;
  if (name.size() > kMaxThreadNameLength) {
    const std::string short_pool = pool == "intra"   ? "ia"
                                   : pool == "inter" ? "ie"
                                   : pool == "data"  ? "d"
                                                     : pool;
    name = prefix + short_pool + suffix;
  }
  if (name.size() > kMaxThreadNameLength) name.resize(kMaxThreadNameLength);
  return name;
}

const WorkerInfo* CurrentWorkerInfo() { return tls_worker_info; }

// Padded to 128 bytes: x86 prefetches cache-line pairs, and each worker's
// state word is written by its owner and read by every scheduler.
struct alignas(128) ThreadPool::Worker {
  TaskQueue queue;
  std::atomic<uint32_t> state{kBusy};
  // Set by the waker while the state is kWaking, read by the worker after.
  bool steered = false;
  cpu_set_t mask_before_steering;
  // The CPU the worker last slept on, written before it blocks; -1 unknown.
  // Relaxed: a stale value only picks the other wake-up.
  std::atomic<int> sleep_cpu{-1};
  std::thread thread;
  WorkerInfo info;
  std::string start_error;  // written by the worker before the start latch
};

ThreadPool::ThreadPool(ThreadPoolOptions options) : options_(std::move(options)) {
  const int n = options_.num_threads;
  workers_.reserve(n);
  for (int i = 0; i < n; ++i) workers_.push_back(std::make_unique<Worker>());
  std::latch started(n);
  std::string create_error;
  for (int i = 0; i < n; ++i) {
    try {
      workers_[i]->thread = std::thread([this, i, &started] { StartWorker(i, started); });
    } catch (const std::system_error& e) {
      // Out of threads (ulimit -u, cgroup pids.max, memory): the workers
      // never started must not be waited for.
      create_error = "cannot create thread " + std::to_string(i + 1) + " of " + std::to_string(n) +
                     ": " + e.what();
      started.count_down(n - i);
      break;
    }
  }
  started.wait();
  std::string error = create_error;
  for (const auto& worker : workers_) {
    if (error.empty() && !worker->start_error.empty()) error = worker->start_error;
  }
  if (!error.empty()) {
    Shutdown();  // joins the workers already running
    throw RuntimeError("thread pool '" + options_.name + "': " + error);
  }
}

void ThreadPool::StartWorker(int index, std::latch& started) {
  Worker& self = *workers_[index];
  self.info.name = WorkerThreadName(options_.owner, options_.name, index);
  self.info.tid = static_cast<int>(gettid());
  tls_worker_info = &self.info;
  platform::SetCurrentThreadName(self.info.name);
  if (!options_.cpus.empty()) {
    try {
      platform::PinCurrentThread({options_.cpus[index % options_.cpus.size()]});
    } catch (const std::exception& e) {
      self.start_error = e.what();
    }
  }
  started.count_down();
  WorkerMain(index);
}

ThreadPool::~ThreadPool() { Shutdown(); }

void ThreadPool::Shutdown() {
  if (stopping_.exchange(true, std::memory_order_seq_cst)) return;  // already stopped
  for (auto& worker : workers_) {
    uint32_t expected = kSleeping;
    if (worker->state.compare_exchange_strong(expected, kBusy)) {
      platform::FutexWake(worker->state, 1);
    }
  }
  for (auto& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

int ThreadPool::CurrentWorkerIndex() const { return tls_pool == this ? tls_worker_index : -1; }

std::vector<WorkerInfo> ThreadPool::workers() const {
  std::vector<WorkerInfo> infos;
  for (const auto& worker : workers_) infos.push_back(worker->info);
  return infos;
}

void ThreadPool::Schedule(Task task) {
  if (workers_.empty()) {
    // Nobody could ever run it; running it here keeps "scheduled work runs"
    // true for a zero-thread pool.
    RunTask(task);
    return;
  }
  PushTo(PickWorker(), std::move(task), WakePlacement::kAnyCpu);
}

int ThreadPool::ScheduleHelpers(int count, const Task& task, WakePlacement placement) {
  const int n = num_threads();
  const int self = CurrentWorkerIndex();
  const uint32_t start = next_worker_.fetch_add(1, std::memory_order_relaxed);
  std::vector<int> chosen;
  // First pass takes idle workers, second pass any other one: an idle
  // worker starts at once, a busy one only helps if it frees up in time.
  // (The second pass does not re-read the state: a worker that went idle
  // between the passes was skipped by both, and the count came up short.)
  for (int pass = 0; pass < 2 && static_cast<int>(chosen.size()) < count; ++pass) {
    for (int k = 0; k < n && static_cast<int>(chosen.size()) < count; ++k) {
      int i = static_cast<int>((start + k) % n);
      if (i == self || std::find(chosen.begin(), chosen.end(), i) != chosen.end()) continue;
      if (pass == 1 || workers_[i]->state.load(std::memory_order_relaxed) != kBusy) {
        chosen.push_back(i);
      }
    }
  }
  for (int i : chosen) PushTo(i, task, placement);
  return static_cast<int>(chosen.size());
}

int ThreadPool::PickWorker() {
  const int n = num_threads();
  const uint32_t start = next_worker_.fetch_add(1, std::memory_order_relaxed);
  for (int k = 0; k < n; ++k) {
    int i = static_cast<int>((start + k) % n);
    if (workers_[i]->state.load(std::memory_order_relaxed) != kBusy) return i;
  }
  return static_cast<int>(start % n);
}

bool ThreadPool::WakeIfSleeping(Worker& worker, WakePlacement placement) {
  if (worker.state.load(std::memory_order_relaxed) != kSleeping) return false;
  uint32_t expected = kSleeping;
  if (!worker.state.compare_exchange_strong(expected, kWaking)) return false;
  // kAwayFromWaker: the kernel tends to queue a woken worker on the waker's
  // CPU, behind the waker, while another CPU idles (measured on the 2-vCPU
  // KVM development machines: the first ParallelFor after an idle gap ran at
  // serial speed; bench/results/threading-2026-11-29.md, section 5). Taking
  // this CPU out of the worker's mask for the wake-up sends it elsewhere; the
  // worker restores its mask as soon as it runs. Pinned pools are left alone.
  // Inside a SpinScope (a session run), and for a worker that slept on the
  // waker's CPU, it is steered whatever the job's size: the kernel wakes it
  // beside the waker, and once both spin through a run nothing moves them
  // apart (a fresh session at intra 2 ran its first 20-80 ms at serial
  // speed, and relapsed for ~7 ms at a time later;
  // bench/results/threading-colocation-2026-12-04.md).
  const int waker_cpu = sched_getcpu();
  // Relaxed: both are hints for where to wake it.
  const bool away = placement == WakePlacement::kAwayFromWaker ||
                    spin_scopes_.load(std::memory_order_relaxed) > 0 ||
                    worker.sleep_cpu.load(std::memory_order_relaxed) == waker_cpu;
  worker.steered =
      away && options_.cpus.empty() &&
      platform::ExcludeCpuFromThread(worker.info.tid, waker_cpu, &worker.mask_before_steering);
  // Release: the worker reads `steered` and the mask after acquiring kBusy.
  worker.state.store(kBusy, std::memory_order_release);
  platform::FutexWake(worker.state, 1);
  return true;
}

void ThreadPool::PushTo(int index, Task task, WakePlacement placement) {
  Worker& target = *workers_[index];
  // Relaxed: a hint for the spin loop's yield.
  producer_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
  target.queue.Push(std::move(task));
  // Seq_cst pairs with the worker's "state = kSleeping; load queued_" below:
  // either the worker sees this task, or we see it sleeping and wake it.
  queued_.fetch_add(1, std::memory_order_seq_cst);
  const uint32_t state = target.state.load(std::memory_order_seq_cst);
  if (state == kSleeping) {
    WakeIfSleeping(target, placement);
  } else if (state == kBusy) {
    // The target is busy; wake a sleeper so the task can be stolen instead
    // of waiting behind a long task.
    for (auto& worker : workers_) {
      if (WakeIfSleeping(*worker, placement)) return;
    }
  }
}

bool ThreadPool::TryRunOne(int index) {
  std::optional<Task> task = workers_[index]->queue.PopFront();
  const int n = num_threads();
  for (int k = 1; !task && k < n; ++k) {
    task = workers_[(index + k) % n]->queue.StealBack();
  }
  if (!task) return false;
  queued_.fetch_sub(1, std::memory_order_seq_cst);
  workers_[index]->state.store(kBusy, std::memory_order_relaxed);
  RunTask(*task);
  return true;
}

void ThreadPool::RunTask(Task& task) {
  try {
    task();
  } catch (const std::exception& e) {
    if (failed_tasks_.fetch_add(1, std::memory_order_relaxed) == 0) {
      base::LogWarning("a task in thread pool '" + options_.name + "' threw: " + e.what() +
                       " (the worker continues; later failures are only counted)");
    }
  } catch (...) {
    if (failed_tasks_.fetch_add(1, std::memory_order_relaxed) == 0) {
      base::LogWarning("a task in thread pool '" + options_.name +
                       "' threw a non-std exception (the worker continues)");
    }
  }
}

ThreadPool::SpinScope::SpinScope(ThreadPool* pool) : pool_(pool) {
  // Relaxed: the count only steers how long idle workers poll.
  if (pool_ != nullptr) pool_->spin_scopes_.fetch_add(1, std::memory_order_relaxed);
}

ThreadPool::SpinScope::~SpinScope() {
  if (pool_ == nullptr) return;
  // Relaxed, as above: the linger is a hint. Stored before the count drops,
  // so a worker that sees no scope also sees this scope's linger.
  const auto linger =
      std::chrono::steady_clock::now().time_since_epoch() +
      std::chrono::microseconds(int64_t{kScopeLingerSpinWaits} * pool_->options_.spin_wait_us);
  pool_->spin_linger_until_ns_.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(linger).count(),
      std::memory_order_relaxed);
  pool_->spin_scopes_.fetch_sub(1, std::memory_order_relaxed);
}

bool ThreadPool::CpusOversubscribed() {
  return g_unblocked_workers.load(std::memory_order_relaxed) + 1 > AffinityCpuCount();
}

bool ThreadPool::InRun(std::chrono::steady_clock::time_point now) const {
  // Relaxed: hints for how long and how politely to spin.
  return spin_scopes_.load(std::memory_order_relaxed) > 0 ||
         std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() <
             spin_linger_until_ns_.load(std::memory_order_relaxed);
}

bool ThreadPool::SpinnersShouldYield(bool in_run) const { return !in_run || CpusOversubscribed(); }

bool ThreadPool::SpinnersShouldYield() const {
  return SpinnersShouldYield(InRun(std::chrono::steady_clock::now()));
}

void ThreadPool::WorkerMain(int index) {
  tls_pool = this;
  tls_worker_index = index;
  Worker& self = *workers_[index];
  g_unblocked_workers.fetch_add(1, std::memory_order_relaxed);
  struct Exit {
    ~Exit() { g_unblocked_workers.fetch_sub(1, std::memory_order_relaxed); }
  } exit;
  const auto spin = std::chrono::microseconds(options_.spin_wait_us);
  while (true) {
    if (TryRunOne(index)) continue;

    bool found = false;
    if (spin.count() > 0) {
      self.state.store(kSpinning, std::memory_order_relaxed);
      const auto deadline = std::chrono::steady_clock::now() + spin;
      while (!found && !stopping_.load(std::memory_order_relaxed)) {
        // Poll the shared counter, not the queues: a load of a line that
        // stays in cache costs nothing until a producer writes it.
        for (int k = 0; k < 64 && queued_.load(std::memory_order_relaxed) == 0; ++k) {
          platform::CpuRelax();
        }
        if (queued_.load(std::memory_order_relaxed) > 0) found = TryRunOne(index);
        // Relaxed: a scope that ends a poll late only delays the block.
        const auto now = std::chrono::steady_clock::now();
        const bool in_run = InRun(now);
        if (now >= deadline && !in_run) break;
        // No token for this worker: spinning would take a CPU the budget
        // gives to a token holder. Work offered later wakes it (ParallelFor
        // and the executor offer work only while a token is free).
        if (!found && options_.cpu_budget != nullptr && !options_.cpu_budget->HelperCouldRun()) {
          break;
        }
        // A spinning worker may hold the CPU a working thread is waiting
        // for; yielding (~0.3 µs when nobody waits) hands it over. Without
        // it, bench/threading/inter_op_bench ran 3 threads' small ops 4x
        // slower than serial on 2 cores. Inside a session run a yield is
        // limited to when it can help a Loom thread (SpinnersShouldYield).
        if (!found && (SpinnersShouldYield(in_run) ||
                       sched_getcpu() == producer_cpu_.load(std::memory_order_relaxed))) {
          std::this_thread::yield();
        }
      }
    }
    if (found) continue;

    self.sleep_cpu.store(sched_getcpu(), std::memory_order_relaxed);
    self.state.store(kSleeping, std::memory_order_seq_cst);
    const bool work = queued_.load(std::memory_order_seq_cst) > 0;
    const bool stop = !work && stopping_.load(std::memory_order_seq_cst);
    if (work || stop) {
      // Take our state back with a CAS, not a store: a waker may already
      // own it (kWaking) and be steering us; then finish its handshake below.
      // Exiting as kBusy also keeps wakers from touching a thread that is gone.
      uint32_t expected = kSleeping;
      if (self.state.compare_exchange_strong(expected, kBusy)) {
        if (stop) return;
        continue;
      }
    }
    g_unblocked_workers.fetch_sub(1, std::memory_order_relaxed);
    for (uint32_t state = self.state.load(std::memory_order_acquire);
         state == kSleeping || state == kWaking;
         state = self.state.load(std::memory_order_acquire)) {
      platform::FutexWait(self.state, state);
    }
    g_unblocked_workers.fetch_add(1, std::memory_order_relaxed);
    if (self.steered) {
      platform::RestoreCurrentThreadAffinity(self.mask_before_steering);
      self.steered = false;
    }
  }
}

}  // namespace loom::threading
