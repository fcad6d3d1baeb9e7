#include "threading/cpu_budget.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "platform/thread_identity.h"

namespace loom::threading {
namespace {

// The budgets whose token this thread holds (tests build several budgets;
// the process has one).
thread_local std::vector<const CpuBudget*> held_budgets;

void MarkHeld(const CpuBudget* budget) { held_budgets.push_back(budget); }

void MarkReleased(const CpuBudget* budget) {
  auto it = std::find(held_budgets.begin(), held_budgets.end(), budget);
  if (it != held_budgets.end()) held_budgets.erase(it);
}

}  // namespace

CpuBudget::CpuBudget(int tokens) : tokens_(std::max(tokens, 1)), free_(tokens_) {}

bool CpuBudget::HeldByThisThread() const {
  return std::find(held_budgets.begin(), held_budgets.end(), this) != held_budgets.end();
}

bool CpuBudget::HelperCouldRun() const {
  return waiters_.load(std::memory_order_seq_cst) == 0 && free_.load(std::memory_order_relaxed) > 0;
}

bool CpuBudget::TakeFree() {
  int free = free_.load(std::memory_order_seq_cst);
  while (free > 0) {
    if (free_.compare_exchange_weak(free, free - 1, std::memory_order_seq_cst)) return true;
  }
  return false;
}

bool CpuBudget::TryAcquire() {
  if (waiters_.load(std::memory_order_seq_cst) > 0 || !TakeFree()) return false;
  MarkHeld(this);
  return true;
}

void CpuBudget::GrantFrontLocked(bool steer) {
  if (queue_.empty() || !TakeFree()) return;
  Waiter* front = queue_.front();
  queue_.pop_front();
  waiters_.fetch_sub(1, std::memory_order_seq_cst);
  front->steered = steer && platform::SteerThreadToCpu(front->tid, sched_getcpu(), &front->before);
  front->granted = true;
  front->granted_cv.notify_one();
}

void CpuBudget::Acquire() {
  if (waiters_.load(std::memory_order_seq_cst) == 0 && TakeFree()) {
    MarkHeld(this);
    return;
  }
  Waiter self;
  self.tid = static_cast<int>(gettid());
  std::unique_lock lock(mutex_);
  queue_.push_back(&self);
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  // A token released before we were counted is still free: take it now if
  // we are first in line.
  GrantFrontLocked(/*steer=*/false);
  self.granted_cv.wait(lock, [&] { return self.granted; });
  lock.unlock();
  if (self.steered) platform::RestoreCurrentThreadAffinity(self.before);
  MarkHeld(this);
}

void CpuBudget::Release() {
  MarkReleased(this);
  free_.fetch_add(1, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard lock(mutex_);
    GrantFrontLocked(/*steer=*/true);
  }
}

CpuBudgetScope::CpuBudgetScope(CpuBudget* budget, Mode mode) : budget_(budget) {
  if (budget_ == nullptr || budget_->HeldByThisThread()) return;
  if (mode == Mode::kWait) {
    budget_->Acquire();
    owns_ = true;
  } else {
    owns_ = budget_->TryAcquire();
    held_ = owns_;
  }
}

CpuBudgetScope::~CpuBudgetScope() { ReleaseNow(); }

void CpuBudgetScope::ReleaseNow() {
  if (owns_) budget_->Release();
  owns_ = false;
}

}  // namespace loom::threading
