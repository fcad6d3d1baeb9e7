// The sequential transformations and argument checks, compared with orders
// and values worked out by hand (interleave's orders were also checked
// against tf.data 2.21).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using namespace std::chrono_literals;
using testing::Contains;
using testing::Drain;
using testing::Iota;

Tensor Int64s(std::vector<int64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return Tensor::from_vector<int64_t>(Shape({n}), values);
}

std::vector<int64_t> ValuesOf(const Tensor& t) {
  const int64_t* p = t.data<int64_t>();
  return std::vector<int64_t>(p, p + t.num_elements());
}

TEST(Batch, StacksConsecutiveElementsAndKeepsThePartialLastBatch) {
  Iterator it = Dataset::range(7).batch(3).make_iterator();
  for (const std::vector<int64_t>& want : {Iota(0, 3), Iota(3, 6), Iota(6, 7)}) {
    std::optional<Element> batch = it.next();
    ASSERT_TRUE(batch.has_value());
    ASSERT_EQ(batch->size(), 1u);
    EXPECT_EQ((*batch)[0].shape(), Shape({static_cast<int64_t>(want.size())}));
    EXPECT_EQ(ValuesOf((*batch)[0]), want);
  }
  EXPECT_FALSE(it.next().has_value());
}

TEST(Batch, DropRemainderDropsThePartialBatch) {
  Iterator it = Dataset::range(7).batch(3, /*drop_remainder=*/true).make_iterator();
  EXPECT_EQ(ValuesOf((*it.next())[0]), Iota(0, 3));
  EXPECT_EQ(ValuesOf((*it.next())[0]), Iota(3, 6));
  EXPECT_FALSE(it.next().has_value());
  Iterator exact = Dataset::range(6).batch(3, true).make_iterator();
  EXPECT_TRUE(exact.next().has_value());
  EXPECT_TRUE(exact.next().has_value());
  EXPECT_FALSE(exact.next().has_value());
}

TEST(Batch, StacksEveryComponentAlongANewFirstAxis) {
  Tensor pairs = Tensor::from_vector<float>(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  Tensor labels = Tensor::from_vector<int32_t>(Shape({3}), {7, 8, 9});
  Iterator it = Dataset::from_tensor_slices({pairs, labels}).batch(2).make_iterator();
  std::optional<Element> first = it.next();
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].shape(), Shape({2, 2}));
  const float* f = (*first)[0].data<float>();
  EXPECT_EQ(std::vector<float>(f, f + 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ((*first)[1].shape(), Shape({2}));
  EXPECT_EQ((*first)[1].data<int32_t>()[1], 8);
  std::optional<Element> second = it.next();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ((*second)[0].shape(), Shape({1, 2}));
  EXPECT_EQ((*second)[0].data<float>()[1], 6.0f);
  EXPECT_EQ((*second)[1].data<int32_t>()[0], 9);
}

TEST(Batch, ShapeMismatchFailsThatBatchAndTheNextOneContinues) {
  // Element 3 has 3 values, the others 2: batch 1 (elements 2 and 3) fails.
  Dataset ds = Dataset::range(6)
                   .map([](Element e) {
                     const int64_t v = testing::ScalarOf(e);
                     return Element{v == 3 ? Int64s({v, v, v}) : Int64s({v, v})};
                   })
                   .batch(2);
  Iterator it = ds.make_iterator();
  EXPECT_EQ(ValuesOf((*it.next())[0]), (std::vector<int64_t>{0, 0, 1, 1}));
  try {
    it.next();
    FAIL() << "expected a PipelineError";
  } catch (const PipelineError& e) {
    EXPECT_EQ(e.stage(), "batch#2");
    EXPECT_EQ(e.element(), 1);  // the batch's index
    EXPECT_TRUE(Contains(e.what(), "component 0 of element 1")) << e.what();
    EXPECT_TRUE(Contains(e.what(), "[3]")) << e.what();
    EXPECT_THROW(std::rethrow_exception(e.cause()), InvalidArgumentError);
  }
  std::optional<Element> next = it.next();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(ValuesOf((*next)[0]), (std::vector<int64_t>{4, 4, 5, 5}));
  EXPECT_FALSE(it.next().has_value());
}

TEST(Shuffle, IsAPermutationThatOnlyDrawsFromTheBuffer) {
  const int64_t n = 200, buffer = 10;
  const std::vector<int64_t> out = Drain(Dataset::range(n).shuffle(buffer, 7));
  ASSERT_EQ(out.size(), static_cast<size_t>(n));
  // After i outputs the buffer has seen at most elements 0 .. i + buffer - 1.
  for (size_t i = 0; i < out.size(); ++i) EXPECT_LT(out[i], static_cast<int64_t>(i) + buffer);
  EXPECT_NE(out, Iota(0, n));
  std::vector<int64_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Iota(0, n));
}

TEST(Shuffle, SameSeedSameOrderOtherSeedOtherOrder) {
  auto order = [](uint64_t seed) { return Drain(Dataset::range(100).shuffle(100, seed)); };
  EXPECT_EQ(order(42), order(42));
  EXPECT_NE(order(42), order(43));
}

TEST(Shuffle, ReshufflingEpochKUsesSeedPlusK) {
  Dataset ds = Dataset::range(50).shuffle(50, 9, /*reshuffle_each_iteration=*/true);
  const std::vector<int64_t> epoch0 = Drain(ds);
  const std::vector<int64_t> epoch1 = Drain(ds);
  EXPECT_NE(epoch0, epoch1);
  EXPECT_EQ(epoch0, Drain(Dataset::range(50).shuffle(50, 9)));
  EXPECT_EQ(epoch1, Drain(Dataset::range(50).shuffle(50, 10)));
  // Without reshuffling every epoch repeats the first order.
  Dataset fixed = Dataset::range(50).shuffle(50, 9, /*reshuffle_each_iteration=*/false);
  EXPECT_EQ(Drain(fixed), epoch0);
  EXPECT_EQ(Drain(fixed), epoch0);
}

TEST(Shuffle, RepeatReshufflesEachEpoch) {
  const std::vector<int64_t> out = Drain(Dataset::range(30).shuffle(30, 1).repeat(2));
  ASSERT_EQ(out.size(), 60u);
  std::vector<int64_t> first(out.begin(), out.begin() + 30), second(out.begin() + 30, out.end());
  EXPECT_EQ(first, Drain(Dataset::range(30).shuffle(30, 1)));
  EXPECT_EQ(second, Drain(Dataset::range(30).shuffle(30, 2)));
}

TEST(Shuffle, BufferOfOneIsTheIdentity) {
  EXPECT_EQ(Drain(Dataset::range(20).shuffle(1, 5)), Iota(0, 20));
  EXPECT_EQ(Drain(Dataset::range(20).shuffle(1)), Iota(0, 20));
}

TEST(TakeSkip, CountsAndNegativeMeansEverything) {
  Dataset ds = Dataset::range(10);
  EXPECT_EQ(Drain(ds.take(3)), Iota(0, 3));
  EXPECT_TRUE(Drain(ds.take(0)).empty());
  EXPECT_EQ(Drain(ds.take(-1)), Iota(0, 10));
  EXPECT_EQ(Drain(ds.take(25)), Iota(0, 10));
  EXPECT_EQ(Drain(ds.skip(7)), Iota(7, 10));
  EXPECT_EQ(Drain(ds.skip(0)), Iota(0, 10));
  EXPECT_TRUE(Drain(ds.skip(-1)).empty());
  EXPECT_TRUE(Drain(ds.skip(25)).empty());
  EXPECT_EQ(Drain(ds.skip(2).take(3)), Iota(2, 5));
}

TEST(Repeat, CountAndForever) {
  Dataset ds = Dataset::range(3);
  EXPECT_EQ(Drain(ds.repeat(2)), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_TRUE(Drain(ds.repeat(0)).empty());
  EXPECT_EQ(Drain(ds.repeat().take(7)), (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(Drain(ds.repeat(-1).take(4)), (std::vector<int64_t>{0, 1, 2, 0}));
}

TEST(Repeat, EmptyInputRepeatedForeverEnds) {
  testing::Watchdog watchdog("repeat of an empty input", 10s);
  EXPECT_TRUE(Drain(Dataset::range(0).repeat()).empty());
  EXPECT_TRUE(
      Drain(Dataset::range(5).filter([](const Element&) { return false; }).repeat()).empty());
}

TEST(Filter, KeepsWhatThePredicateAccepts) {
  auto even = [](const Element& e) { return testing::ScalarOf(e) % 2 == 0; };
  EXPECT_EQ(Drain(Dataset::range(10).filter(even)), (std::vector<int64_t>{0, 2, 4, 6, 8}));
}

TEST(Filter, ThrowingPredicateFailsOneElement) {
  Iterator it = Dataset::range(4)
                    .filter([](const Element& e) {
                      if (testing::ScalarOf(e) == 1) throw std::invalid_argument("bad");
                      return true;
                    })
                    .make_iterator();
  EXPECT_EQ(testing::ScalarOf(*it.next()), 0);
  try {
    it.next();
    FAIL() << "expected a PipelineError";
  } catch (const PipelineError& e) {
    EXPECT_EQ(e.stage(), "filter#1");
    EXPECT_EQ(e.element(), 1);
  }
  EXPECT_EQ(Drain(it), (std::vector<int64_t>{2, 3}));
}

TEST(Map, SequentialMapRunsInOrder) {
  auto square = [](Element e) {
    return testing::Scalar(testing::ScalarOf(e) * testing::ScalarOf(e));
  };
  EXPECT_EQ(Drain(Dataset::range(5).map(square)), (std::vector<int64_t>{0, 1, 4, 9, 16}));
}

// Input x opens range(10x, 10x + lengths[x]).
Dataset Interleaved(std::vector<int64_t> lengths, int64_t cycle, int64_t block) {
  const auto n = static_cast<int64_t>(lengths.size());
  return Dataset::range(n).interleave(
      [lengths](const Element& e) {
        const int64_t x = testing::ScalarOf(e);
        return Dataset::range(10 * x, 10 * x + lengths[static_cast<size_t>(x)]);
      },
      cycle, block);
}

TEST(Interleave, CycleTwoBlockOne) {
  EXPECT_EQ(Drain(Interleaved({3, 3, 3}, 2, 1)),
            (std::vector<int64_t>{0, 10, 1, 11, 2, 12, 20, 21, 22}));
}

TEST(Interleave, CycleTwoBlockTwo) {
  EXPECT_EQ(Drain(Interleaved({3, 3, 3}, 2, 2)),
            (std::vector<int64_t>{0, 1, 10, 11, 2, 12, 20, 21, 22}));
}

TEST(Interleave, AnInputThatEndsHandsTheTurnToTheNextPosition) {
  // As tf.data: when input 0 ends, position 1 continues before position 0
  // is refilled with input 2.
  EXPECT_EQ(Drain(Interleaved({1, 2, 3}, 2, 1)), (std::vector<int64_t>{0, 10, 11, 20, 21, 22}));
  EXPECT_EQ(Drain(Interleaved({1, 2, 3}, 2, 2)), (std::vector<int64_t>{0, 10, 11, 20, 21, 22}));
}

TEST(Interleave, TheTfDataDocumentationExample) {
  // tf.data.Dataset.interleave's docstring: range(1, 6), each x repeated 6
  // times, cycle_length=2, block_length=4.
  Dataset ds = Dataset::range(1, 6).interleave(
      [](const Element& e) { return Dataset::from_tensors(e).repeat(6); }, 2, 4);
  EXPECT_EQ(Drain(ds), (std::vector<int64_t>{1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3,
                                             3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5}));
}

TEST(Interleave, CycleOneIsFlatMap) {
  EXPECT_EQ(Drain(Interleaved({2, 0, 2}, 1, 1)), (std::vector<int64_t>{0, 1, 20, 21}));
}

TEST(Arguments, InvalidValuesAreRefused) {
  Dataset ds = Dataset::range(3);
  auto identity = [](Element e) { return e; };
  auto inner = [](const Element&) { return Dataset::range(1); };
  EXPECT_THROW(ds.batch(0), InvalidArgumentError);
  EXPECT_THROW(ds.shuffle(0), InvalidArgumentError);
  EXPECT_THROW(ds.map(identity, -2), InvalidArgumentError);
  EXPECT_THROW(ds.map(identity, config::threading::kMaxThreads + 1), InvalidArgumentError);
  EXPECT_THROW(ds.prefetch(-2), InvalidArgumentError);
  EXPECT_THROW(ds.interleave(inner, 0), InvalidArgumentError);
  EXPECT_THROW(ds.interleave(inner, 1, 0), InvalidArgumentError);
  EXPECT_THROW(ds.with_options(Options{.cpu_budget = -1}), InvalidArgumentError);
  EXPECT_THROW(ds.with_options(Options{.max_intra_op_parallelism = -1}), InvalidArgumentError);
  EXPECT_THROW(ds.map(nullptr), InvalidArgumentError);
  EXPECT_THROW(ds.filter(nullptr), InvalidArgumentError);
  // The boundaries themselves are fine.
  EXPECT_NO_THROW(ds.map(identity, kAutotune));
  EXPECT_NO_THROW(ds.prefetch(0));
  EXPECT_NO_THROW(ds.with_options(Options{.cpu_budget = 0, .max_intra_op_parallelism = 0}));
}

}  // namespace
}  // namespace loom::data
