// Reliability of parallel map and prefetch on private pools of 1, 2, 4 and
// 8 threads: every element exactly once and in order, no deadlock when one
// thread serves nested stages, errors delivered in their element's place,
// prompt teardown, and the memory bound of async_stage.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using namespace std::chrono_literals;
using internal::MakeIteratorOnPool;
using testing::Drain;
using testing::Iota;
using testing::ScalarOf;
using threading::ThreadPool;

// Identity, sleeping a seeded random 0-200 µs per element and counting calls.
Dataset::MapFn SleepyIdentity(int64_t n, uint64_t seed, std::atomic<int64_t>* calls) {
  auto sleeps = std::make_shared<std::vector<int>>();
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> micros(0, 200);
  for (int64_t i = 0; i < n; ++i) sleeps->push_back(micros(random));
  return [sleeps, calls](Element e) {
    calls->fetch_add(1);
    const int us = (*sleeps)[static_cast<size_t>(ScalarOf(e)) % sleeps->size()];
    if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
    return e;
  };
}

class AsyncStageOnPool : public ::testing::TestWithParam<int> {
 protected:
  ThreadPool pool_{testing::PoolOptions(GetParam())};
};

std::string PoolName(const ::testing::TestParamInfo<int>& pool) {
  return "Threads" + std::to_string(pool.param);
}

INSTANTIATE_TEST_SUITE_P(Pools, AsyncStageOnPool, ::testing::Values(1, 2, 4, 8), PoolName);

// (pool threads, num_parallel_calls); an autotuned map gets an autotuned
// prefetch.
class DeterministicMapOnPool : public ::testing::TestWithParam<std::tuple<int, int>> {
 protected:
  ThreadPool pool_{testing::PoolOptions(std::get<0>(GetParam()))};
};

std::string PoolAndParallelismName(const ::testing::TestParamInfo<std::tuple<int, int>>& p) {
  const int parallelism = std::get<1>(p.param);
  return "Threads" + std::to_string(std::get<0>(p.param)) + "Parallel" +
         (parallelism == kAutotune ? std::string("Autotune") : std::to_string(parallelism));
}

INSTANTIATE_TEST_SUITE_P(Pools, DeterministicMapOnPool,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8),
                                            ::testing::Values(1, 4, kAutotune)),
                         PoolAndParallelismName);

TEST_P(DeterministicMapOnPool, DeliversEveryElementOnceInOrder) {
  constexpr int64_t kN = 3000;
  const int parallelism = std::get<1>(GetParam());
  std::atomic<int64_t> calls{0};
  Dataset ds = Dataset::range(kN)
                   .map(SleepyIdentity(kN, 11, &calls), parallelism)
                   .prefetch(parallelism == kAutotune ? kAutotune : 3);
  testing::Watchdog watchdog("deterministic map", 60s);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  EXPECT_EQ(Drain(it), Iota(0, kN));
  EXPECT_EQ(calls.load(), kN);
}

TEST_P(AsyncStageOnPool, NonDeterministicMapDeliversEveryElementOnce) {
  constexpr int64_t kN = 3000;
  std::atomic<int64_t> calls{0};
  Dataset ds = Dataset::range(kN)
                   .map(SleepyIdentity(kN, 12, &calls), 4, /*deterministic=*/false)
                   .prefetch(2);
  testing::Watchdog watchdog("non-deterministic map", 60s);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  std::vector<int64_t> out = Drain(it);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, Iota(0, kN));
  EXPECT_EQ(calls.load(), kN);
}

TEST_P(AsyncStageOnPool, NestedAsyncStagesDeliverEverythingInOrder) {
  constexpr int64_t kN = 300;
  std::atomic<int64_t> outer_calls{0}, inner_calls{0};
  auto plus = [](int64_t k, std::atomic<int64_t>* calls) {
    return [k, calls](Element e) {
      calls->fetch_add(1);
      return testing::Scalar(ScalarOf(e) + k);
    };
  };
  Dataset ds = Dataset::range(kN)
                   .map(plus(1000, &inner_calls), 4)
                   .map(plus(-1000, &outer_calls), 2)
                   .prefetch(3);
  // A pool of one thread shared by three stages must not deadlock.
  testing::Watchdog watchdog("nested stages", 30s);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  EXPECT_EQ(Drain(it), Iota(0, kN));
  EXPECT_EQ(inner_calls.load(), kN);
  EXPECT_EQ(outer_calls.load(), kN);
}

// Reads every element, sorting failures into `errors` (by element index).
struct Outcome {
  std::vector<int64_t> values;
  std::vector<int64_t> errors;
};

Outcome DrainWithErrors(Iterator& it, const std::string& failing_stage) {
  Outcome outcome;
  while (true) {
    try {
      std::optional<Element> e = it.next();
      if (!e) break;
      outcome.values.push_back(ScalarOf(*e));
    } catch (const PipelineError& e) {
      EXPECT_EQ(e.stage(), failing_stage);
      EXPECT_THROW(std::rethrow_exception(e.cause()), std::domain_error);
      outcome.errors.push_back(e.element());
    }
  }
  return outcome;
}

TEST_P(AsyncStageOnPool, MapErrorsArriveInPlaceAndIterationContinues) {
  constexpr int64_t kN = 1000;
  const std::set<int64_t> failing = {0, 7, 500, 501, 999};
  auto fn = [&failing](Element e) {
    if (failing.count(ScalarOf(e)) != 0) throw std::domain_error("no");
    return e;
  };
  for (const Dataset& ds :
       {Dataset::range(kN).map(fn, 4), Dataset::range(kN).map(fn, 4).prefetch(2),
        Dataset::range(kN).map(fn, kAutotune).prefetch(kAutotune)}) {
    testing::Watchdog watchdog("map errors", 30s);
    Iterator it = MakeIteratorOnPool(ds, &pool_);
    Outcome outcome = DrainWithErrors(it, "map#1");
    EXPECT_EQ(outcome.errors, std::vector<int64_t>(failing.begin(), failing.end()));
    std::vector<int64_t> want;
    for (int64_t i = 0; i < kN; ++i) {
      if (failing.count(i) == 0) want.push_back(i);
    }
    EXPECT_EQ(outcome.values, want);
  }
}

TEST_P(AsyncStageOnPool, AbandonedInfinitePipelineStopsPromptly) {
  std::atomic<int64_t> calls{0};
  Dataset ds = Dataset::range(1000)
                   .repeat()
                   .map(
                       [&calls](Element e) {
                         calls.fetch_add(1);
                         std::this_thread::sleep_for(1ms);
                         return e;
                       },
                       4)
                   .prefetch(8);
  {
    auto it = std::make_unique<Iterator>(MakeIteratorOnPool(ds, &pool_));
    for (int64_t i = 0; i < 5; ++i) ASSERT_EQ(ScalarOf(*it->next()), i);
    const auto start = std::chrono::steady_clock::now();
    it.reset();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  }
  const int64_t after_destruction = calls.load();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(calls.load(), after_destruction);
  // A pool task still queued for the dead iterator must find it gone.
  EXPECT_EQ(pool_.failed_task_count(), 0u);
}

TEST_P(AsyncStageOnPool, CloseStopsWorkAndNextThenThrowsCancelled) {
  std::atomic<int64_t> calls{0};
  Dataset ds = Dataset::range(0, std::numeric_limits<int64_t>::max())
                   .map(SleepyIdentity(64, 3, &calls), 4)
                   .prefetch(4);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  EXPECT_EQ(ScalarOf(*it.next()), 0);
  EXPECT_EQ(ScalarOf(*it.next()), 1);
  it.close();
  const int64_t after_close = calls.load();
  EXPECT_THROW(it.next(), CancelledError);
  EXPECT_THROW(it.next(), CancelledError);
  EXPECT_NO_THROW(it.close());  // idempotent
  EXPECT_TRUE(it.stats().stages.empty());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(calls.load(), after_close);
}

TEST_P(AsyncStageOnPool, CloseFromAnotherThreadEndsABlockedNext) {
  Dataset ds = Dataset::range(0, std::numeric_limits<int64_t>::max())
                   .map(
                       [](Element e) {
                         std::this_thread::sleep_for(20ms);
                         return e;
                       },
                       2)
                   .prefetch(2);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  std::atomic<int64_t> received{0};
  std::atomic<bool> cancelled{false};
  testing::Watchdog watchdog("close during next", 30s);
  std::thread consumer([&] {
    try {
      while (it.next()) ++received;
    } catch (const CancelledError&) {
      cancelled = true;
    }
  });
  while (received.load() < 3) std::this_thread::sleep_for(1ms);
  const auto start = std::chrono::steady_clock::now();
  it.close();
  consumer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(cancelled.load());
  EXPECT_THROW(it.next(), CancelledError);
}

TEST_P(AsyncStageOnPool, ElementsInFlightAreBoundedByParallelismPlusBuffer) {
  // map holds at most 2P elements (P in progress plus finished ones;
  // async_stage.cc), prefetch at most B finished plus the one it computes,
  // so after the consumer took k elements at most k + 2P + B + 1 map calls
  // began.
  constexpr int kP = 3, kB = 4, kTaken = 10;
  std::atomic<int64_t> calls{0};
  Dataset ds = Dataset::range(1'000'000)
                   .map(
                       [&calls](Element e) {
                         calls.fetch_add(1);
                         return e;
                       },
                       kP)
                   .prefetch(kB);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  for (int64_t i = 0; i < kTaken; ++i) ASSERT_EQ(ScalarOf(*it.next()), i);
  // Wait for the prefetch's own report that its buffer is full and it
  // computes nothing (no guess at how long filling takes): from then on it
  // pulls nothing more from the map until the consumer takes an element.
  // (The map beneath may still compute ahead into its own buffer, when the
  // pool has a thread for it.)
  using StageDescription = config::threading::PipelineStageDescription;
  const auto prefetch_full = [&it](StageDescription* map, StageDescription* prefetch) {
    const std::vector<StageDescription> stages = it.stats().stages;
    if (stages.size() != 2) return false;
    *map = stages[0];
    *prefetch = stages[1];
    return prefetch->in_progress == 0 && prefetch->buffered > prefetch->buffer_size;
  };
  StageDescription map, prefetch;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!prefetch_full(&map, &prefetch) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(prefetch_full(&map, &prefetch))
      << "prefetch holds " << prefetch.buffered << " (" << prefetch.in_progress
      << " in progress) after 10 s; its buffer is " << prefetch.buffer_size;
  EXPECT_EQ(prefetch.buffered, kB + 1);  // its buffer plus the one it computed meanwhile
  // A second look: the first may have read the map just before the
  // prefetch's last pull.
  map = it.stats().stages[0];
  EXPECT_EQ(map.produced, kTaken + kB + 1);  // all the prefetch took from the map
  EXPECT_LE(map.buffered, map.buffer_size);
  EXPECT_GE(calls.load(), kTaken + kB + 1);  // it does run ahead
  EXPECT_LE(calls.load(), kTaken + 2 * kP + kB + 1);
  EXPECT_EQ(ScalarOf(*it.next()), kTaken);
}

}  // namespace
}  // namespace loom::data

namespace loom::data {
namespace {

// Options::deterministic and Options::autotune on a private pool of 4.
class AsyncStageOptions : public ::testing::Test {
 protected:
  threading::ThreadPool pool_{testing::PoolOptions(4)};
};

TEST_F(AsyncStageOptions, DeterministicFalseLetsLaterElementsOvertakeASlowOne) {
  auto slow_first = [](Element e) {
    if (ScalarOf(e) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return e;
  };
  Options options;
  options.deterministic = false;
  Dataset ds = Dataset::range(8).map(slow_first, 2).with_options(options);
  testing::Watchdog watchdog("options.deterministic", 60s);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  std::vector<int64_t> out = Drain(it);
  EXPECT_NE(out.front(), 0);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, Iota(0, 8));
  // An explicit argument outranks the option.
  Iterator ordered = MakeIteratorOnPool(
      Dataset::range(8).map(slow_first, 2, /*deterministic=*/true).with_options(options), &pool_);
  EXPECT_EQ(Drain(ordered), Iota(0, 8));
}

TEST_F(AsyncStageOptions, AutotuneOffFixesAutotuneToThePoolOrBudget) {
  Options options;
  options.autotune = false;
  options.cpu_budget = 3;
  Dataset ds = Dataset::range(100)
                   .map([](Element e) { return e; }, kAutotune)
                   .prefetch(kAutotune)
                   .with_options(options);
  Iterator it = MakeIteratorOnPool(ds, &pool_);
  ASSERT_TRUE(it.next().has_value());
  const auto stages = it.stats().stages;
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_FALSE(stages[0].autotuned);
  EXPECT_EQ(stages[0].parallelism, 3);
  EXPECT_FALSE(stages[1].autotuned);
  EXPECT_EQ(stages[1].buffer_size, 1);
}

}  // namespace
}  // namespace loom::data
