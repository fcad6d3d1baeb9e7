#include "loom/value.h"

#include <gtest/gtest.h>

#include "loom/errors.h"

namespace loom {
namespace {

TEST(Value, ATensorIsTheDefaultKind) {
  const Value value = Tensor::from_vector<float>(Shape({2}), {1, 2});
  EXPECT_TRUE(value.is_tensor());
  EXPECT_EQ(value.describe(), "float32[2]");
  EXPECT_EQ(value.nbytes(), 8u);
  EXPECT_NE(value.tensor_if(), nullptr);
  EXPECT_THROW(value.elements(), InvalidArgumentError);
}

TEST(Value, SequencesKeepTheirDTypeWhenEmptyAndShareElementStorage) {
  const Value empty = Value::Sequence(DType::kInt64, {});
  EXPECT_TRUE(empty.is_sequence());
  EXPECT_EQ(empty.element_dtype(), DType::kInt64);
  EXPECT_EQ(empty.describe(), "seq(int64, 0 elements)");
  EXPECT_EQ(empty.tensor_if(), nullptr);
  EXPECT_THROW(empty.tensor(), InvalidArgumentError);

  const Tensor a = Tensor::from_vector<float>(Shape({3}), {1, 2, 3});
  const Value one = Value::Sequence(DType::kFloat32, {a});
  const Value copy = one;  // copies handles, not data
  EXPECT_TRUE(copy.elements()[0].shares_storage_with(a));
  EXPECT_EQ(copy.nbytes(), 12u);
  EXPECT_THROW(Value::Sequence(DType::kInt64, {a}), InvalidArgumentError);
}

TEST(Value, NoneIsAnEmptyOptional) {
  const Value none = Value::None();
  EXPECT_TRUE(none.is_none());
  EXPECT_EQ(none.describe(), "none");
  EXPECT_EQ(none.nbytes(), 0u);
  EXPECT_THROW(none.tensor(), InvalidArgumentError);
}

}  // namespace
}  // namespace loom
