// Unique by hand (the ONNX examples: sorted, unsorted, with and without
// axis) and against the quadratic reference on random tensors of every
// dtype with many repeats; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "kernels/reference/element_access.h"
#include "kernels/shape/shape_ops_data.h"
#include "kernels/shape/shape_ops_data_reference.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::Int64s;
using testing::Of;

TEST(Unique, SortedAndUnsortedWithoutAxis) {
  const Tensor x = Floats(Shape({6}), {2, 1, 1, 3, 4, 3});
  ExpectEverywhere(UniqueKernel, {}, {&x},
                   {Floats(Shape({4}), {1, 2, 3, 4}), Int64s({1, 0, 3, 4}),
                    Int64s({1, 0, 0, 2, 3, 2}), Int64s({2, 1, 2, 1})});
  ExpectEverywhere(UniqueKernel, Attributes().set("sorted", int64_t{0}), {&x},
                   {Floats(Shape({4}), {2, 1, 3, 4}), Int64s({0, 1, 3, 4}),
                    Int64s({0, 1, 1, 2, 3, 2}), Int64s({1, 2, 2, 1})});
}

TEST(Unique, SlicesAlongAxis) {
  const Tensor x = Of<int32_t>(Shape({3, 3}), {1, 0, 0, 1, 0, 0, 2, 3, 4});
  ExpectEverywhere(UniqueKernel, Attributes().set("axis", int64_t{0}), {&x},
                   {Of<int32_t>(Shape({2, 3}), {1, 0, 0, 2, 3, 4}), Int64s({0, 2}),
                    Int64s({0, 0, 1}), Int64s({2, 1})});
  // Columns [1,1,2], [0,0,3], [0,0,4]: sorted lexicographically; axis -1.
  ExpectEverywhere(UniqueKernel, Attributes().set("axis", int64_t{-1}), {&x},
                   {Of<int32_t>(Shape({3, 3}), {0, 0, 1, 0, 0, 1, 3, 4, 2}), Int64s({1, 2, 0}),
                    Int64s({2, 0, 1}), Int64s({1, 1, 1})});
}

TEST(Unique, ScalarEmptyAndSpecialFloats) {
  const Tensor scalar = Of<int64_t>(Shape(), {7});
  ExpectEverywhere(UniqueKernel, {}, {&scalar},
                   {Int64s({7}), Int64s({0}), Int64s({0}), Int64s({1})});
  const Tensor empty(DType::kFloat32, Shape({0, 3}));
  ExpectEverywhere(UniqueKernel, {}, {&empty},
                   {Tensor(DType::kFloat32, Shape({0})), Int64s({}), Int64s({}), Int64s({})});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Floats(Shape({5}), {nan, -0.0f, 0.0f, nan, -1.0f});
  const std::vector<Tensor> out = CallKernel(UniqueKernel, {}, {}, {&x});
  ASSERT_EQ(out[0].num_elements(), 3);
  EXPECT_EQ(out[0].data<float>()[0], -1.0f);
  EXPECT_EQ(out[0].data<float>()[1], 0.0f);
  EXPECT_TRUE(std::isnan(out[0].data<float>()[2]));
  EXPECT_EQ(testing::TensorValues<int64_t>(out[3]), (std::vector<int64_t>{1, 2, 2}));
}

// Random tensors with values in [-2, 2] (many repeats), rounded for floats.
Tensor SmallValues(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = testing::RandomTensor(dtype, shape, seed, -2.0, 2.0);
  if (dtype_is_float(dtype)) {
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      WriteElementFromDouble(t, i, std::round(ReadElementAsDouble(t, i)));
    }
  }
  return t;
}

// Unique runs serially, so every thread count and ISA is checked on float32
// only (ExpectEverywhere) and the other dtypes once.
void ExpectSame(const Attributes& attrs, const Tensor& x, const std::vector<Tensor>& expected) {
  if (x.dtype() == DType::kFloat32) {
    ExpectEverywhere(UniqueKernel, attrs, {&x}, expected);
    return;
  }
  const std::vector<Tensor> actual = CallKernel(UniqueKernel, {}, attrs, {&x});
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(testing::BitwiseEqual(actual[i], expected[i]))
        << dtype_name(x.dtype()) << " " << x.shape().to_string() << " output " << i;
  }
}

TEST(Unique, MatchesReferenceForEveryDType) {
  uint32_t seed = 1;
  const std::vector<Shape> shapes = {Shape({1}), Shape({13}), Shape({2, 3, 5}), Shape({7, 2}),
                                     Shape({3, 0, 2})};
  for (DType dtype : testing::kAllDTypes) {
    for (const Shape& shape : shapes) {
      const Tensor x = SmallValues(dtype, shape, seed++);
      for (int sorted = 0; sorted <= 1; ++sorted) {
        Attributes attrs = Attributes().set("sorted", int64_t{sorted});
        ExpectSame(attrs, x, UniqueReference(x, std::nullopt, sorted));
        for (int axis = 0; axis < shape.rank(); ++axis) {
          Attributes with_axis = Attributes(attrs).set("axis", int64_t{axis});
          ExpectSame(with_axis, x, UniqueReference(x, axis, sorted));
        }
      }
    }
  }
}

TEST(Unique, Errors) {
  const Tensor x = Floats(Shape({2, 2}), {1, 2, 3, 4});
  ExpectError(UniqueKernel, Attributes().set("axis", int64_t{2}), {&x}, "Unique", {"axis"});
  const Tensor scalar = Of<float>(Shape(), {1});
  ExpectError(UniqueKernel, Attributes().set("axis", int64_t{0}), {&scalar}, "Unique",
              {"axis", "scalar"});
  ExpectError(UniqueKernel, {}, {&x, &x}, "Unique", {});
}

}  // namespace
}  // namespace loom::kernels
