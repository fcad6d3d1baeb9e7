#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_reference.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::RandomTensor;

Attributes Perm(std::vector<int64_t> perm) { return Attributes().set("perm", std::move(perm)); }

TEST(Transpose, SwapsAMatrixByHand) {
  const Tensor x = Floats(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectEverywhere(TransposeKernel, {}, {&x}, {Floats(Shape({3, 2}), {1, 4, 2, 5, 3, 6})});
}

TEST(Transpose, ExplicitPermByHand) {
  // x[i][j][k] = 100 i + 10 j + k, shape [2, 2, 3]; perm [1, 2, 0].
  std::vector<float> values;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) values.push_back(static_cast<float>(100 * i + 10 * j + k));
  const Tensor x = Floats(Shape({2, 2, 3}), values);
  ExpectEverywhere(TransposeKernel, Perm({1, 2, 0}), {&x},
                   {Floats(Shape({2, 3, 2}), {0, 100, 1, 101, 2, 102, 10, 110, 11, 111, 12, 112})});
}

// Every permutation of several shapes (edge sizes, primes, zero dims) and
// every element size against the reference, at every thread count and ISA.
TEST(Transpose, MatchesReferenceForAllPermutations) {
  const std::vector<Shape> shapes = {Shape({7}),       Shape({1, 1}),         Shape({5, 0, 3}),
                                     Shape({3, 1, 5}), Shape({2, 3, 17, 33}), Shape({1, 64, 7, 7}),
                                     Shape({37, 41}),  Shape({2, 1, 3, 1, 2})};
  uint32_t seed = 10;
  for (const Shape& shape : shapes) {
    std::vector<int> perm(static_cast<size_t>(shape.rank()));
    std::iota(perm.begin(), perm.end(), 0);
    do {
      for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt8,
                          DType::kBFloat16, DType::kInt16, DType::kUInt32, DType::kUInt64}) {
        const Tensor x = RandomTensor(dtype, shape, ++seed, -100, 100);
        std::vector<int64_t> perm64(perm.begin(), perm.end());
        SCOPED_TRACE(shape.to_string() + " " + std::string(dtype_name(dtype)));
        ExpectEverywhere(TransposeKernel, Perm(perm64), {&x}, {TransposeReference(x, perm)});
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

// Sizes that span several tiles with ragged edges, and enough work to shard.
TEST(Transpose, LargeNchwToNhwcMatchesReference) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({2, 67, 45, 71}), 3);
  ExpectEverywhere(TransposeKernel, Perm({0, 2, 3, 1}), {&x},
                   {TransposeReference(x, {0, 2, 3, 1})});
  const Tensor y = RandomTensor(DType::kInt32, Shape({3, 129, 257}), 4, -1000, 1000);
  ExpectEverywhere(TransposeKernel, Perm({0, 2, 1}), {&y}, {TransposeReference(y, {0, 2, 1})});
  const Tensor z = RandomTensor(DType::kInt64, Shape({1000, 3}), 5, -1000, 1000);
  ExpectEverywhere(TransposeKernel, {}, {&z}, {TransposeReference(z, {1, 0})});
}

TEST(Transpose, ScalarIsCopied) {
  const Tensor x = Floats(Shape(), {2.5f});
  ExpectEverywhere(TransposeKernel, {}, {&x}, {Floats(Shape(), {2.5f})});
}

TEST(Transpose, RejectsBadPerm) {
  const Tensor x(DType::kFloat32, Shape({2, 3}));
  ExpectError(TransposeKernel, Perm({0}), {&x}, "Transpose", {"'perm' has 1 entries, expected 2"});
  ExpectError(TransposeKernel, Perm({1, 1}), {&x}, "Transpose", {"repeated"});
  ExpectError(TransposeKernel, Perm({0, 2}), {&x}, "Transpose", {"axis 2 is out of range"});
}

}  // namespace
}  // namespace loom::kernels
