#include "threading/parallel_for.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "threading/thread_pool.h"

namespace loom::threading {
namespace {

using namespace std::chrono_literals;

// Large enough that the cost model always shards.
constexpr double kExpensive = 1e6;

ThreadPoolOptions Options(int threads, int spin_us = 20) {
  ThreadPoolOptions options;
  options.name = "pftest";
  options.num_threads = threads;
  options.spin_wait_us = spin_us;
  return options;
}

TEST(ParallelFor, EachIndexVisitedOnce) {
  for (int workers : {0, 1, 3}) {
    ThreadPool pool(Options(workers));
    for (int64_t n : {1, 2, 3, 7, 64, 1000, 100003}) {
      for (double cost : {0.0, 1.0, 100.0, kExpensive}) {
        std::vector<std::atomic<int>> visits(n);
        ParallelFor(&pool, n, cost, [&](int64_t begin, int64_t end) {
          ASSERT_LE(0, begin);
          ASSERT_LT(begin, end);
          ASSERT_LE(end, n);
          for (int64_t i = begin; i < end; ++i) visits[i].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(visits[i].load(), 1) << "i=" << i << " n=" << n << " workers=" << workers;
        }
      }
    }
  }
}

TEST(ParallelFor, MatchesTheSerialLoop) {
  ThreadPool pool(Options(2));
  const int64_t n = 1 << 20;
  std::vector<double> parallel(n), serial(n);
  auto body = [](int64_t i) { return std::sqrt(static_cast<double>(i)) * 0.5 + i % 7; };
  ParallelFor(&pool, n, 10.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) parallel[i] = body(i);
  });
  for (int64_t i = 0; i < n; ++i) serial[i] = body(i);
  EXPECT_EQ(parallel, serial);
}

TEST(ParallelFor, HugeRangesSplitWithoutOverflow) {
  ThreadPool pool(Options(2));
  const int64_t n = int64_t{1} << 62;
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  ParallelFor(&pool, n, kExpensive, [&](int64_t begin, int64_t end) {
    std::lock_guard lock(mutex);
    ranges.emplace_back(begin, end);
  });
  std::sort(ranges.begin(), ranges.end());
  ASSERT_FALSE(ranges.empty());
  EXPECT_EQ(ranges.front().first, 0);
  EXPECT_EQ(ranges.back().second, n);
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_EQ(ranges[i].first, ranges[i - 1].second);
}

TEST(ParallelFor, NegativeOrNanCostRunsInline) {
  ThreadPool pool(Options(2));
  EXPECT_EQ(ParallelForThreadCount(&pool, 1000, -5.0), 1);
  EXPECT_EQ(ParallelForThreadCount(&pool, 1000, std::nan("")), 1);
  int calls = 0;
  ParallelFor(&pool, 1000, std::nan(""), [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(ParallelFor, EmptyRangeCallsNothing) {
  ThreadPool pool(Options(1));
  int calls = 0;
  ParallelFor(&pool, 0, kExpensive, [&](int64_t, int64_t) { ++calls; });
  ParallelFor(&pool, -5, kExpensive, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// Records the (begin, end, thread) of every call.
struct CallLog {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::set<std::thread::id> threads;
  void Record(int64_t begin, int64_t end) {
    std::lock_guard lock(mutex);
    ranges.emplace_back(begin, end);
    threads.insert(std::this_thread::get_id());
  }
};

TEST(ParallelFor, SmallWorkRunsInlineAsOneCall) {
  ThreadPool pool(Options(3));
  CallLog log;
  // 100 units of 1 ns: far below one shard's minimum cost.
  ParallelFor(&pool, 100, 1.0, [&](int64_t b, int64_t e) { log.Record(b, e); });
  ASSERT_EQ(log.ranges.size(), 1u);
  EXPECT_EQ(log.ranges[0], std::make_pair(int64_t{0}, int64_t{100}));
  EXPECT_EQ(*log.threads.begin(), std::this_thread::get_id());
  EXPECT_EQ(ParallelForThreadCount(&pool, 100, 1.0), 1);
}

// Keeps a pool's only worker busy while it lives: the caller then claims
// every part of a loop itself, in an order that depends on nothing else.
class BlockedWorker {
 public:
  explicit BlockedWorker(ThreadPool& pool) {
    pool.Schedule([this] {
      blocked_.store(true);
      while (!release_.load()) std::this_thread::sleep_for(1ms);
    });
    while (!blocked_.load()) std::this_thread::sleep_for(1ms);
  }
  ~BlockedWorker() { release_.store(true); }

 private:
  std::atomic<bool> blocked_{false};
  std::atomic<bool> release_{false};
};

// A loop is cut into grains (4 a thread, more for long loops, each then
// near 10 us, at most 64 a thread); each claim takes a quarter of what is
// left at 2 threads (1 / (2 x threads)), at least one grain. Claims shrink
// toward the end, so the threads of a loop end about a grain apart.
TEST(ParallelFor, ClaimsShrinkToOneGrainTowardTheEnd) {
  ThreadPool pool(Options(1));
  const BlockedWorker blocked(pool);
  struct Case {
    int64_t n;
    double cost_ns;
    int64_t grain;        // units in a grain
    int64_t first_claim;  // units in the first claim
  };
  // 2 threads. 1000 units of 1 us: 1 ms, 50 grains a thread of 10 units,
  // the first claim 25 of the 100 grains. 100 ms: capped at 64 grains a
  // thread (1000 / 128 units: 7 or 8), the first claim 32 grains of 8 (the
  // first 104 grains have 8 units). 40 us: the minimum of 4 grains a
  // thread, of 125 units; the first claim 2 of 8 grains. 10 units of 1 ms:
  // a grain each, the first claim 10 / 4 -> 2.
  for (const Case& c : {Case{1000, 1000.0, 10, 250}, Case{1000, 100'000.0, 8, 256},
                        Case{1000, 40.0, 125, 250}, Case{10, 1'000'000.0, 1, 2}}) {
    CallLog log;
    ParallelFor(&pool, c.n, c.cost_ns, [&](int64_t b, int64_t e) { log.Record(b, e); });
    ASSERT_EQ(log.threads.size(), 1u);
    ASSERT_GE(log.ranges.size(), 2u);
    std::sort(log.ranges.begin(), log.ranges.end());
    EXPECT_EQ(log.ranges.front(), std::make_pair(int64_t{0}, c.first_claim)) << "n=" << c.n;
    int64_t next = 0;
    for (size_t i = 0; i < log.ranges.size(); ++i) {
      const auto [b, e] = log.ranges[i];
      EXPECT_EQ(b, next) << "ranges must tile [0, n): n=" << c.n;
      if (i > 0) {
        const int64_t previous = log.ranges[i - 1].second - log.ranges[i - 1].first;
        EXPECT_LE(e - b, previous + 1) << "claims only shrink (by the grain's rounding): n=" << c.n;
      }
      next = e;
    }
    EXPECT_EQ(next, c.n);
    // The last claims are single grains (7 or 8 units for the rounded case).
    const int64_t last = log.ranges.back().second - log.ranges.back().first;
    EXPECT_GE(last, c.grain == 8 ? 7 : c.grain) << "n=" << c.n;
    EXPECT_LE(last, c.grain) << "n=" << c.n;
  }
}

TEST(ParallelFor, NullOrWorkerlessPoolRunsInline) {
  ThreadPool empty(Options(0));
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &empty}) {
    CallLog log;
    ParallelFor(pool, 1000, kExpensive, [&](int64_t b, int64_t e) { log.Record(b, e); });
    ASSERT_EQ(log.ranges.size(), 1u);
    EXPECT_EQ(*log.threads.begin(), std::this_thread::get_id());
  }
}

TEST(ParallelFor, CostModelScalesThreadsWithWork) {
  ThreadPool pool(Options(3));
  EXPECT_EQ(ParallelForThreadCount(&pool, 10, kMinShardCostNs), 4);  // capped by 3 workers + caller
  EXPECT_EQ(ParallelForThreadCount(&pool, 2, kMinShardCostNs), 2);   // capped by n
  EXPECT_EQ(ParallelForThreadCount(&pool, 1000, 2.5 * kMinShardCostNs / 1000), 2);
  EXPECT_EQ(ParallelForThreadCount(&pool, 1000, 0.0), 1);
}

TEST(ParallelFor, UsesAtMostWorkersPlusCallerAndTheCallerTakesPart) {
  ThreadPool pool(Options(2));
  for (int round = 0; round < 20; ++round) {
    CallLog log;
    ParallelFor(&pool, 64, kExpensive, [&](int64_t b, int64_t e) {
      log.Record(b, e);
      std::this_thread::sleep_for(200us);
    });
    EXPECT_LE(log.threads.size(), 3u);
    // The caller claims shards itself rather than waiting for helpers.
    EXPECT_EQ(log.threads.count(std::this_thread::get_id()), 1u);
  }
}

TEST(ParallelFor, WorkersReallyShareTheWork) {
  ThreadPool pool(Options(1));
  CallLog log;
  // Each shard sleeps, so the caller cannot finish all of them before the
  // worker wakes: both threads must take part.
  ParallelFor(&pool, 8, kExpensive, [&](int64_t b, int64_t e) {
    log.Record(b, e);
    std::this_thread::sleep_for(5ms);
  });
  EXPECT_EQ(log.threads.size(), 2u);
}

// The caller claims shards from the front of the range and helpers from the
// back, so whatever the timing the caller's indices are a prefix: every index
// it ran lies below every index a helper ran (parallel_for.cc, ClaimFront).
TEST(ParallelFor, CallerRunsAPrefixAndHelpersTheRest) {
  for (int workers : {1, 3}) {
    ThreadPool pool(Options(workers));
    bool helped = false;
    for (int round = 0; round < 20; ++round) {
      const int64_t n = 64 + round;
      const std::thread::id caller = std::this_thread::get_id();
      std::mutex mutex;
      int64_t caller_max = -1, helper_min = n;
      std::vector<std::atomic<int>> visits(n);
      ParallelFor(&pool, n, kExpensive, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) visits[i].fetch_add(1);
        {
          std::lock_guard lock(mutex);
          if (std::this_thread::get_id() == caller) {
            caller_max = std::max(caller_max, e - 1);
          } else {
            helper_min = std::min(helper_min, b);
          }
        }
        // Long enough that the helpers wake before the caller is done.
        std::this_thread::sleep_for(200us);
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << i;
      EXPECT_GE(caller_max, 0) << "the caller runs shards itself";
      EXPECT_LT(caller_max, helper_min) << "workers=" << workers << " n=" << n;
      helped = helped || helper_min < n;
    }
    EXPECT_TRUE(helped) << "no helper ran a shard in 20 loops, workers=" << workers;
  }
}

TEST(ParallelFor, SmallLoopsRunInlineWhileHelpersGetNoCpuAndShardAgainOnceOneHelps) {
  ThreadPool pool(Options(1));
  // The only worker is kept busy: a helper that never gets to run.
  std::atomic<bool> release{false};
  std::atomic<bool> blocked{false};
  pool.Schedule([&] {
    blocked.store(true);
    while (!release.load()) std::this_thread::sleep_for(1ms);
  });
  while (!blocked.load()) std::this_thread::sleep_for(1ms);
  // 8 units of a declared 20 µs: two threads, below kWakeAwayMinCostNs.
  constexpr int64_t kUnits = 8;
  constexpr double kCost = 20'000;
  ASSERT_EQ(ParallelForThreadCount(&pool, kUnits, kCost), 2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> helper_ran{false};
  auto calls_of_one_loop = [&](std::chrono::milliseconds per_unit) {
    std::atomic<int> calls{0};
    ParallelFor(&pool, kUnits, kCost, [&](int64_t begin, int64_t end) {
      calls.fetch_add(1);
      if (std::this_thread::get_id() != caller) helper_ran.store(true);
      std::this_thread::sleep_for(per_unit * (end - begin));
    });
    return calls.load();
  };
  // The first four loops are sharded, and the caller runs every shard.
  for (int i = 0; i < 4; ++i) EXPECT_GT(calls_of_one_loop(0ms), 1) << "loop " << i;
  EXPECT_FALSE(helper_ran.load());
  // From then on a small loop is one inline call, except every eighth, which
  // asks the helper again.
  int inline_loops = 0;
  for (int i = 0; i < 16; ++i) inline_loops += calls_of_one_loop(0ms) == 1 ? 1 : 0;
  EXPECT_EQ(inline_loops, 14);
  // A free helper takes a shard of the next probe (slow units give it time)...
  release.store(true);
  for (int i = 0; i < 40 && !helper_ran.load(); ++i) calls_of_one_loop(2ms);
  ASSERT_TRUE(helper_ran.load());
  // ...which ends the streak: small loops are sharded again.
  EXPECT_GT(calls_of_one_loop(0ms), 1);
}

TEST(ParallelFor, NestedDoesNotDeadlock) {
  ThreadPool pool(Options(2));
  std::atomic<int64_t> total{0};
  ParallelFor(&pool, 8, kExpensive, [&](int64_t b1, int64_t e1) {
    for (int64_t i = b1; i < e1; ++i) {
      ParallelFor(&pool, 8, kExpensive, [&](int64_t b2, int64_t e2) {
        for (int64_t j = b2; j < e2; ++j) {
          ParallelFor(&pool, 8, kExpensive, [&](int64_t b3, int64_t e3) { total += e3 - b3; });
        }
      });
    }
  });
  EXPECT_EQ(total.load(), 8 * 8 * 8);
}

TEST(ParallelFor, NestedFromInsideWorkersOfBothPoolsDoesNotDeadlock) {
  ThreadPool intra(Options(1));
  ThreadPool inter(Options(2));
  constexpr int kTasks = 200;
  std::atomic<int> done{0};
  std::atomic<int64_t> total{0};
  for (int t = 0; t < kTasks; ++t) {
    // An inter-op thread calls into the intra pool, and a task of the intra
    // pool calls ParallelFor on its own pool while it is busy.
    inter.Schedule([&] {
      ParallelFor(&intra, 16, kExpensive, [&](int64_t b, int64_t e) { total += e - b; });
      done.fetch_add(1);
    });
    intra.Schedule([&] {
      ParallelFor(&intra, 16, kExpensive, [&](int64_t b, int64_t e) { total += e - b; });
      done.fetch_add(1);
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (done.load() < 2 * kTasks && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(done.load(), 2 * kTasks) << "nested ParallelFor did not finish: deadlock";
  EXPECT_EQ(total.load(), 2 * kTasks * 16);
}

TEST(ParallelFor, FirstExceptionRethrownAfterEveryRunningShardFinished) {
  ThreadPool pool(Options(2));
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> running{0};
    std::atomic<int> ran{0};
    try {
      ParallelFor(&pool, 64, kExpensive, [&](int64_t begin, int64_t) {
        running.fetch_add(1);
        std::this_thread::sleep_for(100us);
        ran.fetch_add(1);
        running.fetch_sub(1);
        if (begin % 3 == 0) throw std::out_of_range("shard " + std::to_string(begin));
      });
      FAIL() << "no exception";
    } catch (const std::out_of_range& e) {
      EXPECT_EQ(running.load(), 0) << "a shard was still running when the error surfaced";
      EXPECT_NE(std::string(e.what()).find("shard "), std::string::npos);
    }
    EXPECT_GE(ran.load(), 1);
  }
}

TEST(ParallelFor, ExceptionLeavesThePoolUsable) {
  ThreadPool pool(Options(1));
  EXPECT_THROW(
      ParallelFor(&pool, 4, kExpensive, [](int64_t, int64_t) { throw std::runtime_error("x"); }),
      std::runtime_error);
  std::atomic<int64_t> sum{0};
  ParallelFor(&pool, 100, kExpensive, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 100);
}

TEST(ParallelFor, ManyConcurrentCallersOnOnePool) {
  ThreadPool pool(Options(2, 0));
  std::vector<std::thread> callers;
  std::atomic<int64_t> total{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        ParallelFor(&pool, 32, kExpensive, [&](int64_t b, int64_t e) { total += e - b; });
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 300 * 32);
}

TEST(ScopedParallelismLimit, LimitOfOneRunsInlineOnTheCaller) {
  ThreadPool pool(Options(3));
  ScopedParallelismLimit limit(1);
  EXPECT_EQ(MaxParallelism(&pool), 1);
  EXPECT_EQ(ParallelForThreadCount(&pool, 1000, kExpensive), 1);
  CallLog log;
  ParallelFor(&pool, 1000, kExpensive, [&](int64_t b, int64_t e) { log.Record(b, e); });
  ASSERT_EQ(log.ranges.size(), 1u);
  EXPECT_EQ(log.ranges[0], std::make_pair(int64_t{0}, int64_t{1000}));
  EXPECT_EQ(*log.threads.begin(), std::this_thread::get_id());
}

TEST(ScopedParallelismLimit, LimitsTheThreadsAParallelForUses) {
  ThreadPool pool(Options(3));
  ScopedParallelismLimit limit(2);
  EXPECT_EQ(ParallelForThreadCount(&pool, 1000, kExpensive), 2);
  for (int round = 0; round < 10; ++round) {
    CallLog log;
    ParallelFor(&pool, 64, kExpensive, [&](int64_t b, int64_t e) {
      log.Record(b, e);
      std::this_thread::sleep_for(100us);
    });
    EXPECT_LE(log.threads.size(), 2u);
  }
}

TEST(ScopedParallelismLimit, NestedLimitsTakeTheSmallerAndAreRestored) {
  ThreadPool pool(Options(7));
  EXPECT_EQ(MaxParallelism(&pool), 8);
  {
    ScopedParallelismLimit outer(3);
    EXPECT_EQ(MaxParallelism(&pool), 3);
    {
      ScopedParallelismLimit looser(5);
      EXPECT_EQ(MaxParallelism(&pool), 3);
      {
        ScopedParallelismLimit tighter(2);
        EXPECT_EQ(MaxParallelism(&pool), 2);
        ScopedParallelismLimit no_change(0);
        EXPECT_EQ(MaxParallelism(&pool), 2);
      }
      EXPECT_EQ(MaxParallelism(&pool), 3);
    }
    EXPECT_EQ(MaxParallelism(&pool), 3);
  }
  EXPECT_EQ(MaxParallelism(&pool), 8);
}

TEST(ScopedParallelismLimit, MaxParallelismIsWorkersPlusCallerWithinTheLimit) {
  ThreadPool pool(Options(3));
  ThreadPool empty(Options(0));
  EXPECT_EQ(MaxParallelism(nullptr), 1);
  EXPECT_EQ(MaxParallelism(&empty), 1);
  EXPECT_EQ(MaxParallelism(&pool), 4);
  ScopedParallelismLimit limit(10);  // above the pool: the pool decides
  EXPECT_EQ(MaxParallelism(&pool), 4);
  ScopedParallelismLimit negative(-3);  // leaves the current limit
  EXPECT_EQ(MaxParallelism(&pool), 4);
}

TEST(ScopedParallelismLimit, IsPerThread) {
  ThreadPool pool(Options(3));
  ScopedParallelismLimit limit(1);
  int elsewhere = 0;
  std::thread([&] { elsewhere = MaxParallelism(&pool); }).join();
  EXPECT_EQ(elsewhere, 4);
  EXPECT_EQ(MaxParallelism(&pool), 1);
}

}  // namespace
}  // namespace loom::threading
