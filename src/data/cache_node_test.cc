// cache(): a complete pass is remembered, a partial one is not, and
// iterators running at once share it safely.
#include <gtest/gtest.h>

#include <thread>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using testing::Drain;
using testing::Iota;

Dataset Counted(std::atomic<int>* calls, int64_t n) {
  return Dataset::range(n).map([calls](Element e) {
    calls->fetch_add(1);
    return e;
  });
}

TEST(Cache, TheSecondPassReadsTheFirstOnesElements) {
  std::atomic<int> calls{0};
  Dataset ds = Counted(&calls, 5).cache();
  EXPECT_EQ(Drain(ds), Iota(0, 5));
  EXPECT_EQ(Drain(ds), Iota(0, 5));
  EXPECT_EQ(Drain(ds.batch(2).unbatch()), Iota(0, 5));  // shared downstream
  EXPECT_EQ(calls.load(), 5);
}

TEST(Cache, APartialPassCachesNothing) {
  std::atomic<int> calls{0};
  Dataset ds = Counted(&calls, 5).cache();
  EXPECT_EQ(Drain(ds.take(2)), Iota(0, 2));
  EXPECT_EQ(Drain(ds), Iota(0, 5));
  EXPECT_EQ(calls.load(), 7);
  EXPECT_EQ(Drain(ds), Iota(0, 5));
  EXPECT_EQ(calls.load(), 7);
}

TEST(Cache, ConcurrentPassesEachSeeEverything) {
  std::atomic<int> calls{0};
  Dataset ds = Counted(&calls, 200).cache().prefetch(4);
  std::vector<std::vector<int64_t>> seen(4);
  std::vector<std::thread> threads;
  for (auto& out : seen) threads.emplace_back([&ds, &out] { out = Drain(ds); });
  for (auto& t : threads) t.join();
  for (const auto& out : seen) EXPECT_EQ(out, Iota(0, 200));
  EXPECT_EQ(Drain(ds), Iota(0, 200));
}

}  // namespace
}  // namespace loom::data
