#include <gtest/gtest.h>

#include <random>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_reference.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::RandomTensor;

Attributes Axis(int64_t axis) { return Attributes().set("axis", axis); }

Tensor Indices(Shape shape, const std::vector<int64_t>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

// Random indices in [-dim, dim).
Tensor RandomIndices(const Shape& shape, int64_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> values(static_cast<size_t>(shape.num_elements()));
  for (int64_t& v : values) v = static_cast<int64_t>(rng() % static_cast<uint32_t>(2 * dim)) - dim;
  return Indices(shape, values);
}

TEST(Gather, RowsAndColumnsByHand) {
  const Tensor x = Floats(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  const Tensor rows = Indices(Shape({2, 2}), {0, 2, -1, 1});
  ExpectEverywhere(GatherKernel, {}, {&x, &rows},
                   {Floats(Shape({2, 2, 2}), {1, 2, 5, 6, 5, 6, 3, 4})});
  const Tensor col = Tensor::from_vector(Shape(), std::vector<int32_t>{-1});
  ExpectEverywhere(GatherKernel, Axis(1), {&x, &col}, {Floats(Shape({3}), {2, 4, 6})});
}

TEST(Gather, MatchesReference) {
  uint32_t seed = 20;
  const std::vector<Shape> shapes = {Shape({7}), Shape({5, 3}), Shape({4, 6, 9}),
                                     Shape({2, 300, 33})};
  const std::vector<Shape> index_shapes = {Shape(), Shape({0}), Shape({5}), Shape({3, 4})};
  for (const Shape& shape : shapes) {
    for (int axis = 0; axis < shape.rank(); ++axis) {
      for (const Shape& index_shape : index_shapes) {
        for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kBool,
                            DType::kUInt16, DType::kUInt64, DType::kBFloat16}) {
          const Tensor x = RandomTensor(dtype, shape, ++seed, -50, 50);
          const Tensor idx = RandomIndices(index_shape, shape.dims()[axis], ++seed);
          SCOPED_TRACE(shape.to_string() + " axis " + std::to_string(axis) + " " +
                       index_shape.to_string());
          ExpectEverywhere(GatherKernel, Axis(axis), {&x, &idx}, {GatherReference(x, idx, axis)});
        }
      }
    }
  }
}

TEST(Gather, OutOfRangeIndexIsAnError) {
  const Tensor x(DType::kFloat32, Shape({5, 2}));
  const Tensor idx = Indices(Shape({2}), {1, 5});
  ExpectError(GatherKernel, {}, {&x, &idx}, "Gather",
              {"index 5 at position 1", "[-5, 5)", "axis 0", "[5, 2]"});
  const Tensor low = Indices(Shape({1}), {-6});
  ExpectError(GatherKernel, {}, {&x, &low}, "Gather", {"index -6"});
  const Tensor f = Floats(Shape({1}), {0});
  ExpectError(GatherKernel, {}, {&x, &f}, "Gather", {"'indices'", "got float32"});
  ExpectError(GatherKernel, Axis(2), {&x, &idx}, "Gather", {"axis 2 is out of range"});
}

TEST(GatherElements, OnnxExampleByHand) {
  const Tensor x = Floats(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor idx = Indices(Shape({2, 2}), {0, 0, 1, 0});
  ExpectEverywhere(GatherElementsKernel, Axis(1), {&x, &idx},
                   {Floats(Shape({2, 2}), {1, 1, 4, 3})});
  const Tensor y = Floats(Shape({3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor idy = Indices(Shape({2, 3}), {1, 2, 0, 2, 0, -3});
  ExpectEverywhere(GatherElementsKernel, {}, {&y, &idy},
                   {Floats(Shape({2, 3}), {4, 8, 3, 7, 2, 3})});
}

TEST(GatherElements, MatchesReference) {
  uint32_t seed = 40;
  for (int axis = 0; axis < 3; ++axis) {
    for (DType dtype :
         {DType::kFloat64, DType::kUInt8, DType::kInt32, DType::kInt16, DType::kUInt32}) {
      const Tensor x = RandomTensor(dtype, Shape({6, 7, 130}), ++seed, 0, 100);
      const Tensor idx = RandomIndices(Shape({4, 7, 129}), x.shape().dims()[axis], ++seed);
      ExpectEverywhere(GatherElementsKernel, Axis(axis), {&x, &idx},
                       {GatherElementsReference(x, idx, axis)});
    }
  }
}

TEST(GatherElements, RejectsBadIndices) {
  const Tensor x(DType::kFloat32, Shape({2, 3}));
  const Tensor big = Indices(Shape({1, 2}), {0, 3});
  ExpectError(GatherElementsKernel, Axis(1), {&x, &big}, "GatherElements",
              {"index 3 at position 1"});
  const Tensor wide = Indices(Shape({1, 4}), {0, 0, 0, 0});
  ExpectError(GatherElementsKernel, {}, {&x, &wide}, "GatherElements", {"exceeds", "axis 1"});
  const Tensor rank1 = Indices(Shape({2}), {0, 0});
  ExpectError(GatherElementsKernel, {}, {&x, &rank1}, "GatherElements",
              {"'indices' must have rank 2"});
}

}  // namespace
}  // namespace loom::kernels
