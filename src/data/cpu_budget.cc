#include "data/cpu_budget.h"

#include <algorithm>
#include <vector>

namespace loom::data::internal {
namespace {

// The budgets whose token this thread holds (a map function may iterate a
// nested pipeline, so there can be more than one), each with whether taking
// it also took a token of the process's budget.
struct Held {
  const CpuBudget* budget;
  bool process_token;
};
thread_local std::vector<Held> held_budgets;

std::vector<Held>::iterator FindHeld(const CpuBudget* budget) {
  return std::find_if(held_budgets.begin(), held_budgets.end(),
                      [&](const Held& h) { return h.budget == budget; });
}

}  // namespace

CpuBudget::CpuBudget(int tokens, threading::CpuBudget* process)
    : tokens_(std::max(tokens, 1)), process_(process), free_(tokens_) {}

bool CpuBudget::HeldByThisThread() const { return FindHeld(this) != held_budgets.end(); }

void CpuBudget::MarkHeld(bool took_process_token) {
  held_budgets.push_back({this, took_process_token});
}

void CpuBudget::GiveBack() {
  {
    std::lock_guard lock(mutex_);
    ++free_;
  }
  available_.notify_one();
}

bool CpuBudget::TryAcquire() {
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || free_ == 0 || waiters_ > 0) return false;
    --free_;
  }
  bool took_process_token = false;
  if (process_ != nullptr && !process_->HeldByThisThread()) {
    if (!process_->TryAcquire()) {
      GiveBack();
      return false;
    }
    took_process_token = true;
  }
  MarkHeld(took_process_token);
  return true;
}

bool CpuBudget::Acquire() {
  {
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
  }
  // Waited for without this pipeline's lock: the process's holders may be
  // other pipelines' threads, never waiting for this one.
  const bool took_process_token = process_ != nullptr && !process_->HeldByThisThread();
  if (took_process_token) process_->Acquire();
  MarkHeld(took_process_token);
  return true;
}

void CpuBudget::Release() {
  auto it = FindHeld(this);
  bool took_process_token = false;
  if (it != held_budgets.end()) {
    took_process_token = it->process_token;
    held_budgets.erase(it);
  }
  if (took_process_token) process_->Release();
  GiveBack();
}

bool CpuBudget::HasFreeToken() {
  {
    std::lock_guard lock(mutex_);
    if (free_ == 0) return false;
  }
  return process_ == nullptr || process_->HeldByThisThread() || process_->HelperCouldRun();
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
