// AUTOTUNE: the hill climber driven by a fake clock, then whole pipelines
// whose bottleneck is either the map (it should climb) or the consumer (it
// should stay small).
#include "data/autotuner.h"

#include <gtest/gtest.h>

#include <functional>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using namespace std::chrono_literals;
using internal::Autotuner;

constexpr int64_t kMs = 1'000'000;

// Feeds `tuner` elements spaced by gap_ns(value) on a fake clock until it
// settles (or `limit` elements passed). Returns the fake time used.
int64_t Drive(Autotuner& tuner, const std::function<int64_t(int)>& gap_ns, int limit = 10'000) {
  int64_t now = 0;
  for (int i = 0; i < limit && !tuner.settled(); ++i) {
    now += gap_ns(tuner.value());
    tuner.RecordElement(now);
  }
  return now;
}

TEST(Autotuner, ClimbsWhileTheRateImprovesUpToTheMaximum) {
  Autotuner tuner(4);
  EXPECT_EQ(tuner.value(), 1);
  EXPECT_FALSE(tuner.settled());
  Drive(tuner, [](int value) { return 12 * kMs / value; });  // rate ∝ value
  EXPECT_TRUE(tuner.settled());
  EXPECT_EQ(tuner.value(), 4);
  ASSERT_EQ(tuner.history().size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(tuner.history()[i].value, i + 1);
    EXPECT_NEAR(tuner.history()[i].elements_per_second, 1000.0 / 12 * (i + 1), 1e-6);
  }
}

TEST(Autotuner, ReturnsToTheBestValueWhenAStepDoesNotPay) {
  // 1 → 2 doubles the rate; 3 is no better than 2 and 4 would be worse.
  const auto gap = [](int value) { return value == 1 ? 2 * kMs : value == 2 ? kMs : 2 * kMs; };
  Autotuner tuner(8);
  Drive(tuner, gap);
  EXPECT_TRUE(tuner.settled());
  EXPECT_EQ(tuner.value(), 2);
  ASSERT_EQ(tuner.history().size(), 3u);
  EXPECT_EQ(tuner.history()[2].value, 3);
  // Settled: nothing changes any more.
  for (int64_t t = 1; t < 1000; ++t) EXPECT_FALSE(tuner.RecordElement(1'000 * kMs + t * kMs));
  EXPECT_EQ(tuner.value(), 2);
}

TEST(Autotuner, AGainBelowFivePercentIsNotAnImprovement) {
  // Value 2 is 4% faster than value 1: the climber keeps 1.
  Autotuner tuner(4);
  Drive(tuner, [](int value) { return value == 1 ? 1'040'000 : 1'000'000; });
  EXPECT_EQ(tuner.value(), 1);
  ASSERT_EQ(tuner.history().size(), 2u);
  EXPECT_EQ(tuner.history()[1].value, 2);
}

TEST(Autotuner, NeverExceedsItsMaximum) {
  Autotuner tuner(3);
  int64_t now = 0;
  for (int i = 0; i < 5'000; ++i) {
    now += kMs / tuner.value();
    tuner.RecordElement(now);
    ASSERT_LE(tuner.value(), 3);
  }
  EXPECT_EQ(tuner.value(), 3);
  EXPECT_TRUE(tuner.settled());
}

TEST(Autotuner, MaximumOfOneIsSettledAtOnce) {
  for (int max : {1, 0, -5}) {
    Autotuner tuner(max);
    EXPECT_EQ(tuner.max(), 1);
    EXPECT_TRUE(tuner.settled());
    for (int64_t t = 0; t < 100; ++t) EXPECT_FALSE(tuner.RecordElement(t * 10 * kMs));
    EXPECT_EQ(tuner.value(), 1);
    EXPECT_TRUE(tuner.history().empty());
  }
}

TEST(Autotuner, AWindowNeedsEnoughElementsAndEnoughTime) {
  // 10 ms apart: time is plentiful, so the window closes on the 8th element
  // after the one that opened it.
  Autotuner slow(4);
  for (int i = 0; i < 8; ++i) EXPECT_FALSE(slow.RecordElement(i * 10 * kMs)) << i;
  EXPECT_TRUE(slow.RecordElement(8 * 10 * kMs));
  ASSERT_EQ(slow.history().size(), 1u);
  EXPECT_NEAR(slow.history()[0].elements_per_second, 100.0, 1e-9);
  // 1 ms apart: elements are plentiful, so it closes once 20 ms passed.
  Autotuner fast(4);
  int calls = 0;
  while (!fast.RecordElement(calls * kMs)) ++calls;
  EXPECT_EQ(calls, 20);
  EXPECT_NEAR(fast.history()[0].elements_per_second, 1000.0, 1e-9);
}

TEST(Autotuner, HigherValuesNeedLongerWindows) {
  // At value 3 a window needs 4 * 3 = 12 elements, not 8.
  Autotuner tuner(8);
  Drive(
      tuner, [](int) { return 10 * kMs; }, /*limit=*/9);  // first window, at value 1
  ASSERT_FALSE(tuner.settled());
  // The first window gave 100/s; make value 2 twice as fast.
  int64_t now = 1'000 * kMs;
  for (int i = 0; i < 9; ++i) tuner.RecordElement(now += 5 * kMs);
  ASSERT_EQ(tuner.value(), 3);
  now += 10 * kMs;
  EXPECT_FALSE(tuner.RecordElement(now));  // opens the window
  for (int i = 1; i < 12; ++i) EXPECT_FALSE(tuner.RecordElement(now + i * 10 * kMs)) << i;
  EXPECT_TRUE(tuner.RecordElement(now + 12 * 10 * kMs));
  EXPECT_EQ(tuner.history().size(), 3u);
}

// ---- whole pipelines on a private pool of 4 threads ----

int FinalMapParallelism(const Dataset& ds, int64_t n, std::chrono::microseconds consumer_sleep) {
  threading::ThreadPool pool(testing::PoolOptions(4));
  Iterator it = internal::MakeIteratorOnPool(ds, &pool);
  for (int64_t i = 0; i < n; ++i) {
    std::optional<Element> e = it.next();
    if (!e) ADD_FAILURE() << "ended early at " << i;
    if (consumer_sleep.count() > 0) std::this_thread::sleep_for(consumer_sleep);
  }
  const auto stats = it.stats();
  EXPECT_EQ(stats.stages.size(), 1u);
  if (stats.stages.empty()) return -1;
  EXPECT_TRUE(stats.stages[0].autotuned);
  EXPECT_EQ(stats.stages[0].max_parallelism, 4);
  return stats.stages[0].parallelism;
}

TEST(AutotunePipeline, ASlowMapClimbsAboveOne) {
  Dataset ds = Dataset::range(400).map(
      [](Element e) {
        std::this_thread::sleep_for(2ms);
        return e;
      },
      kAutotune);
  const int parallelism = FinalMapParallelism(ds, 400, 0us);
  EXPECT_GT(parallelism, 1);
  EXPECT_LE(parallelism, 4);
}

TEST(AutotunePipeline, ASlowConsumerKeepsItSmall) {
  Dataset ds = Dataset::range(60).map(
      [](Element e) {
        std::this_thread::sleep_for(100us);
        return e;
      },
      kAutotune);
  EXPECT_LE(FinalMapParallelism(ds, 60, 5ms), 2);
}

}  // namespace
}  // namespace loom::data
