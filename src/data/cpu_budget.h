// CpuBudget: how many threads may compute one iterator's pipeline work at
// the same moment (Options::cpu_budget), as a counting semaphore.
//
// A thread takes a token before it computes an element and gives it back
// after. Work a token holder does for stages further upstream (pulling
// inputs, computing them inline) runs under the same token, so a pipeline
// of any depth never uses more than `tokens` threads at once. A holder that
// has to wait for another thread's element gives its token back for the
// wait (a waiting thread uses no CPU, and its token lets the thread it
// waits for run) and takes one again afterwards; so every token is held by
// a thread that is computing, and waits cannot form a cycle (see
// async_stage.h).
//
// A pipeline token also carries a token of the process's CPU budget
// (threading/cpu_budget.h) when the thread holds none yet: taken after the
// pipeline's, given back with it. Its waits follow the same rule (given back
// for waits, taken only by threads holding none), so the argument above
// covers both.
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>

#include "threading/cpu_budget.h"

namespace loom::data::internal {

class CpuBudget {
 public:
  // `process`: the process's budget, or null.
  explicit CpuBudget(int tokens, threading::CpuBudget* process = nullptr);

  int tokens() const { return tokens_; }

  // Whether the calling thread holds a token of this budget.
  bool HeldByThisThread() const;

  // Takes a token without waiting; fails while others are waiting for one,
  // so a stream of pool tasks cannot starve a waiting consumer.
  bool TryAcquire();
  // Waits for a token. Returns false (without one) once Cancel() was called.
  bool Acquire();
  void Release();

  // Whether a token is free right now (a hint: it may be gone at once).
  bool HasFreeToken();

  // Wakes every waiter; Acquire then fails.
  void Cancel();

 private:
  void MarkHeld(bool took_process_token);
  void GiveBack();

  const int tokens_;
  threading::CpuBudget* const process_;
  std::mutex mutex_;
  std::condition_variable available_;
  int free_;
  int waiters_ = 0;
  bool cancelled_ = false;
};

// Holds a token of `budget` for the current scope unless the thread already
// holds one. held() says whether this scope may compute.
class BudgetHold {
 public:
  enum class Mode { kWait, kTry };
  BudgetHold(CpuBudget& budget, Mode mode);
  ~BudgetHold();
  BudgetHold(const BudgetHold&) = delete;
  BudgetHold& operator=(const BudgetHold&) = delete;

  bool held() const { return held_; }

 private:
  CpuBudget& budget_;
  bool owns_ = false;  // this scope took the token (and must give it back)
  bool held_ = false;
};

}  // namespace loom::data::internal
