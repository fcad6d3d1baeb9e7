// CpuBudget as a semaphore, then Options::cpu_budget in whole pipelines:
// the most map calls running at the same moment never exceeds the budget.
#include "data/cpu_budget.h"

#include <gtest/gtest.h>

#include <latch>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using namespace std::chrono_literals;
using internal::BudgetHold;
using internal::CpuBudget;

TEST(CpuBudget, CountsTokensAndHasAtLeastOne) {
  CpuBudget budget(2);
  EXPECT_EQ(budget.tokens(), 2);
  EXPECT_TRUE(budget.TryAcquire());
  EXPECT_TRUE(budget.TryAcquire());
  EXPECT_FALSE(budget.TryAcquire());
  budget.Release();
  EXPECT_TRUE(budget.TryAcquire());
  budget.Release();
  budget.Release();
  EXPECT_EQ(CpuBudget(0).tokens(), 1);
  EXPECT_EQ(CpuBudget(-3).tokens(), 1);
}

TEST(CpuBudget, KnowsWhichThreadHoldsAToken) {
  CpuBudget budget(2), other(1);
  EXPECT_FALSE(budget.HeldByThisThread());
  ASSERT_TRUE(budget.TryAcquire());
  EXPECT_TRUE(budget.HeldByThisThread());
  EXPECT_FALSE(other.HeldByThisThread());
  bool held_elsewhere = true;
  std::thread([&] { held_elsewhere = budget.HeldByThisThread(); }).join();
  EXPECT_FALSE(held_elsewhere);
  budget.Release();
  EXPECT_FALSE(budget.HeldByThisThread());
}

TEST(CpuBudget, AcquireWaitsForARelease) {
  CpuBudget budget(1);
  ASSERT_TRUE(budget.TryAcquire());
  std::atomic<bool> acquired{false};
  std::thread waiter([&] {
    EXPECT_TRUE(budget.Acquire());
    acquired = true;
    budget.Release();
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(acquired.load());
  budget.Release();
  waiter.join();
  EXPECT_TRUE(acquired.load());
}

TEST(CpuBudget, TryAcquireYieldsToAWaiter) {
  CpuBudget budget(1);
  ASSERT_TRUE(budget.TryAcquire());
  std::atomic<bool> about_to_wait{false};
  std::thread waiter([&] {
    about_to_wait = true;
    EXPECT_TRUE(budget.Acquire());
    std::this_thread::sleep_for(50ms);
    budget.Release();
  });
  while (!about_to_wait.load()) std::this_thread::yield();
  std::this_thread::sleep_for(30ms);  // let it block inside Acquire
  budget.Release();
  // Either the waiter already took the token or it is still counted as
  // waiting: a pool task must not jump the queue either way.
  EXPECT_FALSE(budget.TryAcquire());
  waiter.join();
  EXPECT_TRUE(budget.TryAcquire());
  budget.Release();
}

TEST(CpuBudget, CancelWakesEveryWaiterWithoutAToken) {
  CpuBudget budget(1);
  ASSERT_TRUE(budget.TryAcquire());
  std::atomic<int> refused{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] {
      if (!budget.Acquire()) ++refused;
    });
  }
  std::this_thread::sleep_for(20ms);
  budget.Cancel();
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(refused.load(), 3);
  budget.Release();
  EXPECT_FALSE(budget.TryAcquire());
  EXPECT_FALSE(budget.Acquire());
}

TEST(BudgetHold, NestedHoldsOnOneThreadShareOneToken) {
  CpuBudget budget(1);
  auto free_elsewhere = [&] {
    bool got = false;
    std::thread([&] {
      got = budget.TryAcquire();
      if (got) budget.Release();
    }).join();
    return got;
  };
  {
    BudgetHold outer(budget, BudgetHold::Mode::kWait);
    EXPECT_TRUE(outer.held());
    {
      BudgetHold inner(budget, BudgetHold::Mode::kTry);
      EXPECT_TRUE(inner.held());  // no second token needed, none taken
    }
    EXPECT_TRUE(budget.HeldByThisThread());
    EXPECT_FALSE(free_elsewhere());  // the inner scope gave nothing back
  }
  EXPECT_TRUE(free_elsewhere());
}

TEST(BudgetHold, TryFailsWhileAnotherThreadHoldsTheOnlyToken) {
  CpuBudget budget(1);
  std::latch taken(1), done(1);
  std::thread holder([&] {
    BudgetHold hold(budget, BudgetHold::Mode::kWait);
    taken.count_down();
    done.wait();
  });
  taken.wait();
  {
    BudgetHold attempt(budget, BudgetHold::Mode::kTry);
    EXPECT_FALSE(attempt.held());
  }
  done.count_down();
  holder.join();
  BudgetHold later(budget, BudgetHold::Mode::kTry);
  EXPECT_TRUE(later.held());
}

// ---- Options::cpu_budget in whole pipelines ----

// The most map calls (of every map stage in `build`'s dataset) that ran at
// the same moment, each call sleeping `work`.
int MaxConcurrentMapCalls(int pool_threads, int64_t n, std::chrono::microseconds work,
                          const std::function<Dataset(Dataset::MapFn)>& build) {
  testing::ConcurrencyProbe probe;
  Dataset::MapFn fn = [&probe, work](Element e) {
    probe.Enter();
    std::this_thread::sleep_for(work);
    probe.Leave();
    return e;
  };
  threading::ThreadPool pool(testing::PoolOptions(pool_threads));
  testing::Watchdog watchdog("cpu budget pipeline", 60s);
  Iterator it = internal::MakeIteratorOnPool(build(fn), &pool);
  EXPECT_EQ(testing::Drain(it), testing::Iota(0, n));
  return probe.max();
}

TEST(CpuBudgetPipeline, BudgetOfOneRunsOneMapCallAtATime) {
  const int most = MaxConcurrentMapCalls(4, 300, 200us, [](Dataset::MapFn fn) {
    return Dataset::range(300).map(fn, 4).prefetch(3).with_options({.cpu_budget = 1});
  });
  EXPECT_EQ(most, 1);
}

TEST(CpuBudgetPipeline, BudgetOfOneCoversEveryStage) {
  // Two parallel maps and a prefetch: still one call at a time in total.
  const int most = MaxConcurrentMapCalls(4, 200, 200us, [](Dataset::MapFn fn) {
    return Dataset::range(200).map(fn, 4).map(fn, 4).prefetch(2).with_options({.cpu_budget = 1});
  });
  EXPECT_EQ(most, 1);
}

TEST(CpuBudgetPipeline, BudgetOfTwoCapsAtTwoAndIsReached) {
  const int most = MaxConcurrentMapCalls(4, 400, 200us, [](Dataset::MapFn fn) {
    return Dataset::range(400).map(fn, 4).prefetch(2).with_options({.cpu_budget = 2});
  });
  EXPECT_EQ(most, 2);
}

TEST(CpuBudgetPipeline, DefaultBudgetIsThePoolSize) {
  threading::ThreadPool pool(testing::PoolOptions(3));
  Iterator it =
      internal::MakeIteratorOnPool(Dataset::range(10).map([](Element e) { return e; }, 8), &pool);
  EXPECT_EQ(it.stats().cpu_budget, 3);
  // Parallelism 8 on 3 threads: the consumer computes too, yet at most 3
  // calls run at once.
  const int most = MaxConcurrentMapCalls(
      3, 300, 200us, [](Dataset::MapFn fn) { return Dataset::range(300).map(fn, 8); });
  EXPECT_LE(most, 3);
  EXPECT_GE(most, 2);
}

}  // namespace
}  // namespace loom::data
