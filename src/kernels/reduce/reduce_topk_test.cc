// TopK: largest and smallest by hand, ties (lower index first), NaN and
// signed zeros, k = 0 and k = n, every dtype, errors; random lines with
// many ties against a stable sort at every thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/reduce/reduce.h"
#include "kernels/shape/shape_ops_test_util.h"
#include "loom/float16.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::Of;

Tensor K(int64_t k) { return Of<int64_t>(Shape({1}), {k}); }
Tensor Idx(Shape shape, const std::vector<int64_t>& values) { return Of(std::move(shape), values); }

Attributes Smallest() { return Attributes().set("largest", int64_t{0}); }

TEST(TopK, LargestAndSmallestByHand) {
  const Tensor x = Floats(Shape({3, 4}), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor k3 = K(3);
  ExpectEverywhere(TopKKernel, {}, {&x, &k3},
                   {Floats(Shape({3, 3}), {3, 2, 1, 7, 6, 5, 11, 10, 9}),
                    Idx(Shape({3, 3}), {3, 2, 1, 3, 2, 1, 3, 2, 1})});
  ExpectEverywhere(TopKKernel, Smallest(), {&x, &k3},
                   {Floats(Shape({3, 3}), {0, 1, 2, 4, 5, 6, 8, 9, 10}),
                    Idx(Shape({3, 3}), {0, 1, 2, 0, 1, 2, 0, 1, 2})});
  // axis 0 (and its negative form), columns [1, 3, 2] and [5, 2, 7].
  const Tensor y = Floats(Shape({3, 2}), {1, 5, 3, 2, 2, 7});
  const Tensor k2 = K(2);
  for (int64_t axis : {0, -2}) {
    ExpectEverywhere(TopKKernel, Attributes().set("axis", axis), {&y, &k2},
                     {Floats(Shape({2, 2}), {3, 7, 2, 5}), Idx(Shape({2, 2}), {1, 2, 2, 0})});
  }
}

TEST(TopK, TiesKeepTheLowerIndexFirst) {
  const Tensor x = Of<int32_t>(Shape({1, 5}), {5, 1, 5, 3, 5});
  const Tensor k4 = K(4);
  ExpectEverywhere(TopKKernel, {}, {&x, &k4},
                   {Of<int32_t>(Shape({1, 4}), {5, 5, 5, 3}), Idx(Shape({1, 4}), {0, 2, 4, 3})});
  const Tensor k3 = K(3);
  ExpectEverywhere(TopKKernel, Smallest(), {&x, &k3},
                   {Of<int32_t>(Shape({1, 3}), {1, 3, 5}), Idx(Shape({1, 3}), {1, 3, 0})});
  // "sorted" = 0 leaves the order open; Loom returns the sorted one.
  ExpectEverywhere(TopKKernel, Attributes().set("sorted", int64_t{0}), {&x, &k4},
                   {Of<int32_t>(Shape({1, 4}), {5, 5, 5, 3}), Idx(Shape({1, 4}), {0, 2, 4, 3})});
  // +0 and -0 are equal: index order.
  const Tensor zeros = Floats(Shape({2}), {0.0f, -0.0f});
  const Tensor k2 = K(2);
  for (const Attributes& attrs : {Attributes(), Smallest()}) {
    ExpectEverywhere(TopKKernel, attrs, {&zeros, &k2},
                     {Floats(Shape({2}), {0.0f, -0.0f}), Idx(Shape({2}), {0, 1})});
  }
}

TEST(TopK, NaNRanksAboveEveryNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = Floats(Shape({5}), {1, nan, 3, nan, -inf});
  const Tensor k5 = K(5);
  ExpectEverywhere(TopKKernel, {}, {&x, &k5},
                   {Floats(Shape({5}), {nan, nan, 3, 1, -inf}), Idx(Shape({5}), {1, 3, 2, 0, 4})});
  ExpectEverywhere(TopKKernel, Smallest(), {&x, &k5},
                   {Floats(Shape({5}), {-inf, 1, 3, nan, nan}), Idx(Shape({5}), {4, 0, 2, 1, 3})});
}

TEST(TopK, EveryDType) {
  const Tensor k2 = K(2);
  const Tensor i8 = Of<int8_t>(Shape({4}), {-128, 127, 0, 127});
  ExpectEverywhere(TopKKernel, {}, {&i8, &k2},
                   {Of<int8_t>(Shape({2}), {127, 127}), Idx(Shape({2}), {1, 3})});
  const Tensor u8 = Of<uint8_t>(Shape({4}), {200, 3, 255, 0});
  ExpectEverywhere(TopKKernel, Smallest(), {&u8, &k2},
                   {Of<uint8_t>(Shape({2}), {0, 3}), Idx(Shape({2}), {3, 1})});
  const int64_t big = std::numeric_limits<int64_t>::max();
  const Tensor i64 = Of<int64_t>(Shape({3}), {big - 1, big, -big});
  ExpectEverywhere(TopKKernel, {}, {&i64, &k2},
                   {Of<int64_t>(Shape({2}), {big, big - 1}), Idx(Shape({2}), {1, 0})});
  const Tensor f16 = Of<Float16>(Shape({3}), {Float16(0.5f), Float16(-2.0f), Float16(1.5f)});
  ExpectEverywhere(
      TopKKernel, {}, {&f16, &k2},
      {Of<Float16>(Shape({2}), {Float16(1.5f), Float16(0.5f)}), Idx(Shape({2}), {2, 0})});
  const Tensor f64 = Of<double>(Shape({3}), {0.1, 0.3, 0.2});
  ExpectEverywhere(TopKKernel, Smallest(), {&f64, &k2},
                   {Of<double>(Shape({2}), {0.1, 0.2}), Idx(Shape({2}), {0, 2})});
}

TEST(TopK, KZeroKAllAndEmpty) {
  const Tensor x = Floats(Shape({2, 3}), {3, 1, 2, 6, 4, 5});
  const Tensor k0 = K(0);
  ExpectEverywhere(TopKKernel, {}, {&x, &k0},
                   {Tensor(DType::kFloat32, Shape({2, 0})), Tensor(DType::kInt64, Shape({2, 0}))});
  const Tensor k3 = Of<int64_t>(Shape(), {3});  // a scalar K is read too
  ExpectEverywhere(
      TopKKernel, Smallest(), {&x, &k3},
      {Floats(Shape({2, 3}), {1, 2, 3, 4, 5, 6}), Idx(Shape({2, 3}), {1, 2, 0, 1, 2, 0})});
  const Tensor empty(DType::kFloat32, Shape({0, 3}));
  const Tensor k1 = K(1);
  ExpectEverywhere(TopKKernel, {}, {&empty, &k1},
                   {Tensor(DType::kFloat32, Shape({0, 1})), Tensor(DType::kInt64, Shape({0, 1}))});
}

TEST(TopK, Errors) {
  const Tensor x = Floats(Shape({2, 4}), {0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor k5 = K(5);
  ExpectError(TopKKernel, {}, {&x, &k5}, "TopK", {"K = 5 is outside [0, 4]", "axis 1"});
  const Tensor neg = K(-1);
  ExpectError(TopKKernel, {}, {&x, &neg}, "TopK", {"K = -1"});
  const Tensor two = Of<int64_t>(Shape({2}), {1, 1});
  ExpectError(TopKKernel, {}, {&x, &two}, "TopK", {"'K' must hold one value"});
  const Tensor k32 = Of<int32_t>(Shape({1}), {1});
  ExpectError(TopKKernel, {}, {&x, &k32}, "TopK", {"'K'", "int32"});
  const Tensor flags = Of<bool>(Shape({2}), {true, false});
  const Tensor k1 = K(1);
  ExpectError(TopKKernel, {}, {&flags, &k1}, "TopK", {"'X'", "bool"});
  ExpectError(TopKKernel, Attributes().set("axis", int64_t{2}), {&x, &k1}, "TopK", {"axis 2"});
  const Tensor scalar = Floats(Shape(), {1});
  ExpectError(TopKKernel, {}, {&scalar, &k1}, "TopK", {"rank >= 1"});
}

// Every line sorted by a stable sort on the value alone (ties keep their
// position order), the first k kept.
std::vector<Tensor> StableSortTopK(const Tensor& x, int axis, int64_t k, bool largest) {
  const std::vector<int64_t>& dims = x.shape().dims();
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (int d = axis + 1; d < x.shape().rank(); ++d) inner *= dims[d];
  const int64_t n = dims[axis];
  std::vector<int64_t> out_dims = dims;
  out_dims[axis] = k;
  Tensor values(DType::kFloat32, Shape(out_dims));
  Tensor indices(DType::kInt64, Shape(out_dims));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) order[j] = j;
      const float* line = x.data<float>() + o * n * inner + i;
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? line[a * inner] > line[b * inner] : line[a * inner] < line[b * inner];
      });
      for (int64_t j = 0; j < k; ++j) {
        values.data<float>()[(o * k + j) * inner + i] = line[order[j] * inner];
        indices.data<int64_t>()[(o * k + j) * inner + i] = order[j];
      }
    }
  }
  return {values, indices};
}

TEST(TopK, MatchesAStableSortAtEveryThreadCount) {
  // Values from {-4, ..., 4}: lines of 300 are full of ties.
  const Shape shape({7, 300, 13});
  std::mt19937 rng(11);
  std::vector<float> v(static_cast<size_t>(shape.num_elements()));
  for (float& e : v) e = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  const Tensor x = Floats(shape, v);
  for (int axis : {1, 2}) {
    for (int64_t k : {int64_t{1}, int64_t{7}, int64_t{13}}) {
      for (bool largest : {true, false}) {
        const Tensor kt = K(axis == 1 ? k * 20 : k);
        SCOPED_TRACE("axis " + std::to_string(axis) + " k " + std::to_string(k));
        ExpectEverywhere(TopKKernel,
                         Attributes().set("axis", int64_t{axis}).set("largest", int64_t{largest}),
                         {&x, &kt}, StableSortTopK(x, axis, kt.data<int64_t>()[0], largest));
      }
    }
  }
}

}  // namespace
}  // namespace loom::kernels
