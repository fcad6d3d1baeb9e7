// CpuBudget: how many threads of the process may run Loom work at the same
// moment (the cpu_budget setting), as a counting semaphore of tokens.
//
// Who takes a token, and how:
//   - a thread that enters Loom from outside (Session::Run, an eager op, a
//     loom::data consumer computing an element) waits for one (Acquire):
//     first come, first served, so no caller starves;
//   - a pool thread offered work (a ParallelFor helper, an inter-op runner,
//     a data-pipeline task) only tries (TryAcquire) and, without a token,
//     leaves the work to the thread that offered it, which holds a token and
//     can finish everything alone. TryAcquire fails while anyone waits, so
//     helpers never take the token a waiting caller is next in line for.
// A thread holding a token that enters Loom again (a session run inside a
// data map function, ParallelFor inside an inter-op runner) uses the token
// it has. A holder that blocks for a long wait (the executor's caller
// waiting for runners, a data consumer waiting for an element) gives its
// token back for the wait. Only a thread holding no token
// ever waits for one, and every holder is computing or finishing a bounded
// wait for another holder (a ParallelFor join waits for helpers that hold
// tokens of their own), so waits cannot form a cycle. A holder may also wait
// for Python's GIL (a loom.data map function); no thread waits for a token
// while holding the GIL (the bindings release it before entering Loom), so
// that wait ends too. A thread taking a
// token back after such a wait must not hold a lock a token holder needs.
//
// The serial loop this replaces: none. With tokens >= the threads that
// want one, nothing waits and results are unchanged; tokens only decide
// which thread computes a piece of work, never what it computes.
//
// Thread-safe.
#pragma once

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace loom::threading {

class CpuBudget {
 public:
  // tokens >= 1 (smaller values are raised to 1).
  explicit CpuBudget(int tokens);
  CpuBudget(const CpuBudget&) = delete;
  CpuBudget& operator=(const CpuBudget&) = delete;

  int tokens() const { return tokens_; }
  // Tokens held right now (a snapshot).
  int in_use() const { return tokens_ - free_.load(std::memory_order_relaxed); }
  // Threads waiting for a token right now (a snapshot).
  int waiting() const { return waiters_.load(std::memory_order_relaxed); }

  // Whether the calling thread holds a token of this budget.
  bool HeldByThisThread() const;
  // Whether a token is free and nobody waits for one (a hint: it may be
  // gone at once). Lets a thread skip waking a helper that would find none.
  bool HelperCouldRun() const;

  // Takes a token without waiting; fails when none is free or someone waits.
  bool TryAcquire();
  // Waits (blocked, no spinning) for a token, in arrival order.
  void Acquire();
  void Release();

 private:
  // A thread waiting in Acquire; the releaser hands it the token directly
  // (no thundering herd, no thread overtaking the queue) and steers it onto
  // the releaser's CPU, which the releaser is about to leave to it. Without
  // the steering the kernel often queued the woken waiter behind the other
  // token holder while the releaser's CPU went idle (`perf sched`: 1.5 ms
  // average wake-up delay; 3 threads on a budget of 2 kept 1.74 of 2 CPUs
  // busy, 1.97 with it; bench/results/cpu-budget-2026-12-02.md).
  struct Waiter {
    std::condition_variable granted_cv;
    bool granted = false;
    int tid = 0;
    bool steered = false;  // the releaser narrowed its mask to `before`'s CPU
    cpu_set_t before;      // its affinity mask before the steering
  };

  bool TakeFree();
  // Under mutex_: gives the front waiter a token if one is free, steering it
  // to the calling thread's CPU when `steer` (a releaser calls it).
  void GrantFrontLocked(bool steer);

  const int tokens_;
  // seq_cst on free_ and waiters_: a releaser that increments free_ and then
  // reads waiters_ == 0, and a waiter that increments waiters_ and then reads
  // free_, cannot both miss each other (so no lost wake-up).
  std::atomic<int> free_;
  std::atomic<int> waiters_{0};
  std::mutex mutex_;
  std::deque<Waiter*> queue_;  // guarded: waiting threads, in arrival order
};

// Holds a token of `budget` (if not null) for the scope, unless the thread
// already holds one. kWait waits for it; kTry does not, and held() says
// whether the scope may compute.
class CpuBudgetScope {
 public:
  enum class Mode { kWait, kTry };
  CpuBudgetScope(CpuBudget* budget, Mode mode);
  ~CpuBudgetScope();
  CpuBudgetScope(const CpuBudgetScope&) = delete;
  CpuBudgetScope& operator=(const CpuBudgetScope&) = delete;

  bool held() const { return held_; }
  // Gives a token this scope took back now (before the scope ends).
  void ReleaseNow();

 private:
  CpuBudget* budget_;
  bool owns_ = false;  // this scope took the token and gives it back
  bool held_ = true;
};

}  // namespace loom::threading
