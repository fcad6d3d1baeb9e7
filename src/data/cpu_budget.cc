#include "data/cpu_budget.h"

#include <algorithm>
#include <vector>

namespace loom::data::internal {
namespace {

// The budgets whose token this thread holds (a map function may iterate a
// nested pipeline, so there can be more than one).
thread_local std::vector<const CpuBudget*> held_budgets;

}  // namespace

CpuBudget::CpuBudget(int tokens) : tokens_(std::max(tokens, 1)), free_(tokens_) {}

bool CpuBudget::HeldByThisThread() const {
  return std::find(held_budgets.begin(), held_budgets.end(), this) != held_budgets.end();
}

void CpuBudget::MarkHeld() { held_budgets.push_back(this); }

bool CpuBudget::TryAcquire() {
  std::lock_guard lock(mutex_);
  if (cancelled_ || free_ == 0 || waiters_ > 0) return false;
  --free_;
  MarkHeld();
  return true;
}

bool CpuBudget::Acquire() {
  std::unique_lock lock(mutex_);
  ++waiters_;
  available_.wait(lock, [&] { return cancelled_ || free_ > 0; });
  --waiters_;
  if (cancelled_) {
    // Another waiter may be next in line for a token released meanwhile.
    available_.notify_all();
    return false;
  }
  --free_;
  MarkHeld();
  return true;
}

void CpuBudget::Release() {
  auto it = std::find(held_budgets.begin(), held_budgets.end(), this);
  if (it != held_budgets.end()) held_budgets.erase(it);
  {
    std::lock_guard lock(mutex_);
    ++free_;
  }
  available_.notify_one();
}

bool CpuBudget::HasFreeToken() {
  std::lock_guard lock(mutex_);
  return free_ > 0;
}

void CpuBudget::Cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  available_.notify_all();
}

BudgetHold::BudgetHold(CpuBudget& budget, Mode mode) : budget_(budget) {
  if (budget.HeldByThisThread()) {
    held_ = true;
    return;
  }
  owns_ = mode == Mode::kWait ? budget.Acquire() : budget.TryAcquire();
  held_ = owns_;
}

BudgetHold::~BudgetHold() {
  // A wait inside the scope may have given the token back and failed to
  // get it again (cancellation): then there is nothing to return.
  if (owns_ && budget_.HeldByThisThread()) budget_.Release();
}

}  // namespace loom::data::internal
