// Dataset::cardinality() and element_spec(): tf.data's rules, values
// checked against tf.data 2.21 (bench/compare/data_semantics_vs_tf.py).
#include <gtest/gtest.h>

#include "data/testing/data_test_util.h"

namespace loom::data {
namespace {

Element Identity(Element e) { return e; }
bool Always(const Element&) { return true; }

TEST(Cardinality, FollowsTfDataRules) {
  EXPECT_EQ(Dataset::range(10).cardinality(), 10);
  EXPECT_EQ(Dataset::range(0, 10, 3).cardinality(), 4);
  EXPECT_EQ(Dataset::range(10, 0, -3).cardinality(), 4);
  EXPECT_EQ(Dataset::range(5, 0).cardinality(), 0);
  EXPECT_EQ(Dataset::range(10).batch(3).cardinality(), 4);
  EXPECT_EQ(Dataset::range(10).batch(3, true).cardinality(), 3);
  EXPECT_EQ(Dataset::range(10).map(Identity).cardinality(), 10);
  EXPECT_EQ(Dataset::range(10).map(Identity, 2).prefetch(1).cardinality(), 10);
  EXPECT_EQ(Dataset::range(10).filter(Always).cardinality(), kUnknownCardinality);
  EXPECT_EQ(Dataset::range(10).repeat().cardinality(), kInfiniteCardinality);
  EXPECT_EQ(Dataset::range(0).repeat().cardinality(), 0);
  EXPECT_EQ(Dataset::range(10).repeat(3).cardinality(), 30);
  EXPECT_EQ(Dataset::range(10).filter(Always).repeat().cardinality(), kInfiniteCardinality);
  EXPECT_EQ(Dataset::range(10).repeat().take(4).cardinality(), 4);
  EXPECT_EQ(Dataset::range(10).take(40).cardinality(), 10);
  EXPECT_EQ(Dataset::range(10).skip(4).cardinality(), 6);
  EXPECT_EQ(Dataset::range(10).skip(40).cardinality(), 0);
  EXPECT_EQ(Dataset::range(10).skip(-1).cardinality(), 0);
  EXPECT_EQ(Dataset::zip({Dataset::range(3), Dataset::range(10).repeat()}).cardinality(), 3);
  EXPECT_EQ(Dataset::range(3).concatenate(Dataset::range(4)).cardinality(), 7);
  EXPECT_EQ(Dataset::range(10).window(3, 2).cardinality(), 5);
  EXPECT_EQ(Dataset::range(10).window(3, 2, 1, true).cardinality(), 4);
  EXPECT_EQ(Dataset::range(10).batch(5, true).unbatch().cardinality(), 10);
  EXPECT_EQ(Dataset::range(10).batch(5).unbatch().cardinality(), kUnknownCardinality);
  EXPECT_EQ(Dataset::range(10).cache().shuffle(4).cardinality(), 10);
}

TEST(ElementSpec, IsKnownWithoutRunningForStructuralStages) {
  Tensor images = Tensor::uninitialized(DType::kFloat32, Shape({6, 2, 3}));
  Tensor labels = Tensor::uninitialized(DType::kInt32, Shape({6}));
  Dataset ds = Dataset::from_tensor_slices({images, labels}).batch(4);
  std::optional<std::vector<ComponentSpec>> spec = ds.element_spec();
  ASSERT_TRUE(spec.has_value());
  ASSERT_EQ(spec->size(), 2u);
  EXPECT_EQ((*spec)[0].dtype, DType::kFloat32);
  EXPECT_EQ((*spec)[0].shape, (std::vector<int64_t>{-1, 2, 3}));
  EXPECT_EQ((*spec)[1].shape, (std::vector<int64_t>{-1}));
  spec = ds.unbatch().batch(2, true).element_spec();
  EXPECT_EQ((*spec)[0].shape, (std::vector<int64_t>{2, 2, 3}));
}

TEST(ElementSpec, OfAMapComesFromItsFirstElementComputedOnce) {
  std::atomic<int> calls{0};
  Dataset ds = Dataset::range(10).map([&calls](Element e) {
    calls.fetch_add(1);
    return Element{e[0], Tensor::from_vector<float>(Shape({2}), {1, 2})};
  });
  for (int i = 0; i < 2; ++i) {
    std::optional<std::vector<ComponentSpec>> spec = ds.batch(3).element_spec();
    ASSERT_TRUE(spec.has_value());
    ASSERT_EQ(spec->size(), 2u);
    EXPECT_EQ((*spec)[1].dtype, DType::kFloat32);
    EXPECT_EQ((*spec)[1].shape, (std::vector<int64_t>{-1, 2}));
  }
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(Dataset::range(0).map(Identity).element_spec().has_value());
}

}  // namespace
}  // namespace loom::data
