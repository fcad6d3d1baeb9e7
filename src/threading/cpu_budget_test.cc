#include "threading/cpu_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "threading/parallel_for.h"
#include "threading/thread_pool.h"

namespace loom::threading {
namespace {

using namespace std::chrono_literals;

TEST(CpuBudget, TokensAreCountedAndHeldPerThread) {
  CpuBudget budget(2);
  EXPECT_EQ(budget.tokens(), 2);
  EXPECT_TRUE(budget.TryAcquire());
  EXPECT_TRUE(budget.HeldByThisThread());
  EXPECT_EQ(budget.in_use(), 1);
  std::thread other([&] {
    EXPECT_FALSE(budget.HeldByThisThread());
    EXPECT_TRUE(budget.TryAcquire());
    EXPECT_FALSE(budget.TryAcquire() && (budget.Release(), true)) << "no third token";
    budget.Release();
  });
  other.join();
  EXPECT_EQ(budget.in_use(), 1);
  budget.Release();
  EXPECT_FALSE(budget.HeldByThisThread());
  EXPECT_EQ(budget.in_use(), 0);
  EXPECT_EQ(CpuBudget(0).tokens(), 1);
}

TEST(CpuBudget, ScopesNestAndTryScopesDoNotWait) {
  CpuBudget budget(1);
  {
    CpuBudgetScope outer(&budget, CpuBudgetScope::Mode::kWait);
    EXPECT_TRUE(outer.held());
    CpuBudgetScope inner(&budget, CpuBudgetScope::Mode::kWait);  // uses the outer token
    EXPECT_TRUE(inner.held());
    EXPECT_EQ(budget.in_use(), 1);
    std::thread other([&] {
      CpuBudgetScope attempt(&budget, CpuBudgetScope::Mode::kTry);
      EXPECT_FALSE(attempt.held());
    });
    other.join();
  }
  EXPECT_EQ(budget.in_use(), 0);
  CpuBudgetScope none(nullptr, CpuBudgetScope::Mode::kTry);
  EXPECT_TRUE(none.held());
}

TEST(CpuBudget, WaitersAreServedInArrivalOrderAndHelpersStandBack) {
  CpuBudget budget(1);
  budget.Acquire();
  std::vector<int> order;
  std::mutex order_mutex;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      budget.Acquire();
      {
        std::lock_guard lock(order_mutex);
        order.push_back(i);
      }
      budget.Release();
    });
    // Each waiter queued before the next starts.
    while (budget.waiting() < i + 1) std::this_thread::sleep_for(1ms);
  }
  EXPECT_FALSE(budget.HelperCouldRun());
  budget.Release();
  // A helper may not jump the queue of waiting callers.
  EXPECT_FALSE(budget.TryAcquire() && budget.waiting() > 0);
  if (budget.HeldByThisThread()) budget.Release();
  for (auto& t : waiters) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(budget.in_use(), 0);
}

// The budget bounds how many threads compute at once, whoever they are:
// 6 application threads, each running ParallelFor on a 3-thread pool that
// takes part in a budget of 2, never have more than 2 bodies running.
TEST(CpuBudget, BoundsConcurrentParallelForBodiesAcrossCallers) {
  for (int tokens : {1, 2}) {
    CpuBudget budget(tokens);
    ThreadPoolOptions options;
    options.name = "budget";
    options.num_threads = 3;
    options.spin_wait_us = 20;
    options.cpu_budget = &budget;
    ThreadPool pool(options);
    std::atomic<int> running{0}, most{0};
    std::atomic<int64_t> sum{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 6; ++c) {
      callers.emplace_back([&] {
        for (int rep = 0; rep < 20; ++rep) {
          ParallelFor(&pool, 16, 1e6, [&](int64_t begin, int64_t end) {
            const int now = running.fetch_add(1) + 1;
            int seen = most.load();
            while (now > seen && !most.compare_exchange_weak(seen, now)) {
            }
            const auto until = std::chrono::steady_clock::now() + 50us;
            while (std::chrono::steady_clock::now() < until) {
            }
            sum.fetch_add(end - begin);
            running.fetch_sub(1);
          });
        }
      });
    }
    for (auto& t : callers) t.join();
    EXPECT_EQ(sum.load(), 6 * 20 * 16);
    EXPECT_LE(most.load(), tokens) << "tokens " << tokens;
    EXPECT_EQ(budget.in_use(), 0);
  }
}

}  // namespace
}  // namespace loom::threading
