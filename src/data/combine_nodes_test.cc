// zip and concatenate, against orders worked out by hand (and checked
// against tf.data 2.21: bench/compare/data_semantics_vs_tf.py).
#include <gtest/gtest.h>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

using testing::Contains;
using testing::Iota;
using testing::MessageOf;
using testing::ScalarOf;

TEST(Zip, PairsElementsAndStopsAtTheShortest) {
  Iterator it = Dataset::zip({Dataset::range(5), Dataset::range(10, 13)}).make_iterator();
  for (int64_t i = 0; i < 3; ++i) {
    std::optional<Element> e = it.next();
    ASSERT_TRUE(e.has_value());
    ASSERT_EQ(e->size(), 2u);
    EXPECT_EQ(ScalarOf({(*e)[0]}), i);
    EXPECT_EQ(ScalarOf({(*e)[1]}), 10 + i);
  }
  EXPECT_FALSE(it.next().has_value());
  EXPECT_FALSE(it.next().has_value());
}

TEST(Zip, ConcatenatesComponentsInOrder) {
  Tensor a = Tensor::from_vector<float>(Shape({2, 2}), {1, 2, 3, 4});
  Tensor b = Tensor::from_vector<int32_t>(Shape({2}), {7, 8});
  Iterator it =
      Dataset::zip({Dataset::from_tensor_slices({a, b}), Dataset::range(2)}).make_iterator();
  std::optional<Element> e = it.next();
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].dtype(), DType::kFloat32);
  EXPECT_EQ((*e)[1].dtype(), DType::kInt32);
  EXPECT_EQ((*e)[2].dtype(), DType::kInt64);
}

TEST(Zip, OfNothingIsRefused) {
  EXPECT_TRUE(Contains(MessageOf([] { Dataset::zip({}); }), "at least one"));
}

TEST(Concatenate, YieldsTheFirstThenTheSecond) {
  std::vector<int64_t> want = Iota(0, 3);
  for (int64_t v : Iota(10, 12)) want.push_back(v);
  EXPECT_EQ(testing::Drain(Dataset::range(3).concatenate(Dataset::range(10, 12))), want);
  EXPECT_EQ(testing::Drain(Dataset::range(0).concatenate(Dataset::range(2))), Iota(0, 2));
}

TEST(Concatenate, AnElementOfAnotherDtypeFails) {
  Tensor floats = Tensor::from_vector<float>(Shape({1}), {1});
  Iterator it =
      Dataset::range(1).concatenate(Dataset::from_tensor_slices({floats})).make_iterator();
  EXPECT_TRUE(it.next().has_value());
  const std::string message = MessageOf([&] { it.next(); });
  EXPECT_TRUE(Contains(message, "concatenate#1 failed on element 0")) << message;
  EXPECT_TRUE(Contains(message, "float32")) << message;
}

}  // namespace
}  // namespace loom::data
