// unbatch, padded_batch and window against values worked out by hand (and
// checked against tf.data 2.21: bench/compare/data_semantics_vs_tf.py).
#include <gtest/gtest.h>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using testing::Contains;
using testing::Drain;
using testing::Iota;
using testing::MessageOf;

std::vector<int64_t> ValuesOf(const Tensor& t) {
  const int64_t* p = t.data<int64_t>();
  return std::vector<int64_t>(p, p + t.num_elements());
}

// Elements 0..n-1 as 1-D int64 tensors of length 0, 1, ..., n-1 filled
// with their index.
Dataset Ragged(int64_t n) {
  return Dataset::range(n).map([](Element e) {
    const int64_t v = *e[0].data<int64_t>();
    return Element{Tensor::from_vector<int64_t>(Shape({v}), std::vector<int64_t>(v, v))};
  });
}

Dataset::PaddingFn PadTo(std::vector<int64_t> shape, std::optional<int64_t> value = {}) {
  return [shape, value](const Element&) {
    Padding p;
    p.shape = shape;
    if (value) p.value = Tensor::from_vector<int64_t>(Shape(), {*value});
    return std::vector<Padding>{p};
  };
}

TEST(Unbatch, SplitsEveryElementAlongItsFirstAxis) {
  EXPECT_EQ(Drain(Dataset::range(7).batch(3).unbatch()), Iota(0, 7));
  EXPECT_EQ(Drain(Dataset::range(0).batch(3).unbatch()), Iota(0, 0));
}

TEST(Unbatch, ComponentsWithDifferentBatchSizesFail) {
  Tensor a = Tensor::from_vector<int64_t>(Shape({2}), {1, 2});
  Tensor b = Tensor::from_vector<int64_t>(Shape({3}), {1, 2, 3});
  Iterator it = Dataset::from_tensors({a, b}).unbatch().make_iterator();
  const std::string message = MessageOf([&] { it.next(); });
  EXPECT_TRUE(Contains(message, "unbatch#1 failed on element 0")) << message;
  EXPECT_FALSE(it.next().has_value());
}

TEST(PaddedBatch, PadsToTheLongestInEachBatch) {
  Iterator it = Ragged(5).padded_batch(2, PadTo({-1})).make_iterator();
  std::optional<Element> first = it.next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ((*first)[0].shape(), Shape({2, 1}));
  EXPECT_EQ(ValuesOf((*first)[0]), (std::vector<int64_t>{0, 1}));
  std::optional<Element> second = it.next();
  EXPECT_EQ((*second)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(ValuesOf((*second)[0]), (std::vector<int64_t>{2, 2, 0, 3, 3, 3}));
  std::optional<Element> last = it.next();  // the partial last batch
  EXPECT_EQ((*last)[0].shape(), Shape({1, 4}));
  EXPECT_FALSE(it.next().has_value());
}

TEST(PaddedBatch, FixedSizeAndPaddingValueAndDropRemainder) {
  Iterator it = Ragged(5).padded_batch(2, PadTo({4}, -1), true).make_iterator();
  std::optional<Element> first = it.next();
  EXPECT_EQ((*first)[0].shape(), Shape({2, 4}));
  EXPECT_EQ(ValuesOf((*first)[0]), (std::vector<int64_t>{-1, -1, -1, -1, 1, -1, -1, -1}));
  EXPECT_TRUE(it.next().has_value());
  EXPECT_FALSE(it.next().has_value());  // element 4 dropped
}

TEST(PaddedBatch, AnElementLargerThanTheFixedSizeFails) {
  Iterator it = Ragged(4).padded_batch(4, PadTo({2})).make_iterator();
  const std::string message = MessageOf([&] { it.next(); });
  EXPECT_TRUE(Contains(message, "larger than the padded size 2")) << message;
}

TEST(Window, ShiftStrideAndDropRemainder) {
  auto windows = [](Dataset ds) {
    std::vector<std::vector<int64_t>> out;
    Iterator it = ds.make_iterator();
    while (std::optional<Element> w = it.next()) out.push_back(ValuesOf((*w)[0]));
    return out;
  };
  using W = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(windows(Dataset::range(7).window(3, 2)), (W{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}, {6}}));
  EXPECT_EQ(windows(Dataset::range(7).window(3, 2, 1, true)), (W{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}}));
  EXPECT_EQ(windows(Dataset::range(7).window(2, 1, 2)),
            (W{{0, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5}, {6}}));
  EXPECT_EQ(windows(Dataset::range(7).window(2, 4)), (W{{0, 1}, {4, 5}}));
  EXPECT_EQ(windows(Dataset::range(0).window(2, 1)), W{});
}

}  // namespace
}  // namespace loom::data
