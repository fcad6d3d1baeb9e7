// Trilu and EyeLike by hand (every k sign, upper and lower, non-square,
// batches, empty, dtypes, errors), and Trilu against its definition at
// every thread count.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_test_util.h"
#include "loom/float16.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::Of;
using testing::RandomTensor;

Attributes Upper(bool upper) { return Attributes().set("upper", int64_t{upper}); }
Tensor K(int64_t k) { return Of<int64_t>(Shape(), {k}); }

// x = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]].
const Tensor& X34() {
  static const Tensor x = Floats(Shape({3, 4}), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  return x;
}

TEST(Trilu, UpperByHand) {
  const Tensor& x = X34();
  ExpectEverywhere(TriluKernel, {}, {&x},
                   {Floats(Shape({3, 4}), {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12})});
  const Tensor k1 = K(1);
  ExpectEverywhere(TriluKernel, {}, {&x, &k1},
                   {Floats(Shape({3, 4}), {0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12})});
  const Tensor km1 = K(-1);
  ExpectEverywhere(TriluKernel, {}, {&x, &km1},
                   {Floats(Shape({3, 4}), {1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12})});
  const Tensor k9 = K(9);  // beyond the last column: all zero
  ExpectEverywhere(TriluKernel, {}, {&x, &k9}, {Tensor(DType::kFloat32, Shape({3, 4}))});
  const Tensor kmin = K(std::numeric_limits<int64_t>::min());  // everything kept
  ExpectEverywhere(TriluKernel, {}, {&x, &kmin}, {x});
}

TEST(Trilu, LowerByHand) {
  const Tensor& x = X34();
  ExpectEverywhere(TriluKernel, Upper(false), {&x},
                   {Floats(Shape({3, 4}), {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0})});
  const Tensor k2 = K(2);
  ExpectEverywhere(TriluKernel, Upper(false), {&x, &k2},
                   {Floats(Shape({3, 4}), {1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12})});
  const Tensor km2 = K(-2);
  ExpectEverywhere(TriluKernel, Upper(false), {&x, &km2},
                   {Floats(Shape({3, 4}), {0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0})});
  const Tensor kmax = K(std::numeric_limits<int64_t>::max());
  ExpectEverywhere(TriluKernel, Upper(false), {&x, &kmax}, {x});
  const Tensor km7 = K(-7);
  ExpectEverywhere(TriluKernel, Upper(false), {&x, &km7}, {Tensor(DType::kFloat32, Shape({3, 4}))});
}

TEST(Trilu, BatchesDTypesAndEmpty) {
  // Two 2x2 matrices of bool, lower.
  const Tensor b = Of<bool>(Shape({2, 2, 2}), {true, true, true, true, false, true, true, true});
  ExpectEverywhere(
      TriluKernel, Upper(false), {&b},
      {Of<bool>(Shape({2, 2, 2}), {true, false, true, true, false, false, true, true})});
  const Tensor i = Of<int8_t>(Shape({1, 3, 1}), {1, 2, 3});
  const Tensor k0 = K(0);
  ExpectEverywhere(TriluKernel, {}, {&i, &k0}, {Of<int8_t>(Shape({1, 3, 1}), {1, 0, 0})});
  const Tensor empty(DType::kFloat16, Shape({0, 3, 3}));
  ExpectEverywhere(TriluKernel, {}, {&empty}, {empty});
  const Tensor no_cols(DType::kInt64, Shape({3, 0}));
  ExpectEverywhere(TriluKernel, Upper(false), {&no_cols}, {no_cols});
}

TEST(Trilu, Errors) {
  const Tensor v = Floats(Shape({3}), {1, 2, 3});
  ExpectError(TriluKernel, {}, {&v}, "Trilu", {"rank >= 2", "[3]"});
  const Tensor two = Of<int64_t>(Shape({2}), {1, 2});
  ExpectError(TriluKernel, {}, {&X34(), &two}, "Trilu", {"'k' must be a scalar"});
  const Tensor k32 = Of<int32_t>(Shape(), {1});
  ExpectError(TriluKernel, {}, {&X34(), &k32}, "Trilu", {"'k'", "int32"});
}

TEST(Trilu, MatchesItsDefinitionAtEveryThreadCount) {
  const Shape shape({5, 130, 97});
  const Tensor x = RandomTensor(DType::kFloat64, shape, 3);
  for (bool upper : {true, false}) {
    for (int64_t k : {int64_t{-40}, int64_t{0}, int64_t{3}, int64_t{90}}) {
      Tensor expected(DType::kFloat64, shape);
      for (int64_t e = 0; e < shape.num_elements(); ++e) {
        const int64_t i = e / 97 % 130, j = e % 97;
        const bool keep = upper ? j - i >= k : j - i <= k;
        expected.data<double>()[e] = keep ? x.data<double>()[e] : 0.0;
      }
      const Tensor kt = K(k);
      SCOPED_TRACE(std::to_string(upper) + " k " + std::to_string(k));
      ExpectEverywhere(TriluKernel, Upper(upper), {&x, &kt}, {expected});
    }
  }
}

TEST(EyeLike, DiagonalsByHand) {
  const Tensor x(DType::kInt32, Shape({3, 4}));
  ExpectEverywhere(EyeLikeKernel, {}, {&x},
                   {Of<int32_t>(Shape({3, 4}), {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0})});
  ExpectEverywhere(EyeLikeKernel, Attributes().set("k", int64_t{2}), {&x},
                   {Of<int32_t>(Shape({3, 4}), {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0})});
  ExpectEverywhere(EyeLikeKernel, Attributes().set("k", int64_t{-1}), {&x},
                   {Of<int32_t>(Shape({3, 4}), {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0})});
  ExpectEverywhere(EyeLikeKernel, Attributes().set("k", int64_t{4}), {&x}, {x});
  ExpectEverywhere(EyeLikeKernel, Attributes().set("k", int64_t{-3}), {&x}, {x});
  ExpectEverywhere(EyeLikeKernel, Attributes().set("k", std::numeric_limits<int64_t>::min()), {&x},
                   {x});
}

TEST(EyeLike, DTypeAttribute) {
  const Tensor x(DType::kFloat32, Shape({2, 2}));
  // 10 = FLOAT16, 9 = BOOL, 7 = INT64.
  const Float16 o(0.0f), l(1.0f);
  ExpectEverywhere(EyeLikeKernel, Attributes().set("dtype", int64_t{10}), {&x},
                   {Of<Float16>(Shape({2, 2}), {l, o, o, l})});
  ExpectEverywhere(EyeLikeKernel, Attributes().set("dtype", int64_t{9}), {&x},
                   {Of<bool>(Shape({2, 2}), {true, false, false, true})});
  const Tensor b(DType::kBool, Shape({1, 3}));
  ExpectEverywhere(EyeLikeKernel, Attributes().set("dtype", int64_t{7}).set("k", int64_t{1}), {&b},
                   {Of<int64_t>(Shape({1, 3}), {0, 1, 0})});
  const Tensor empty(DType::kFloat64, Shape({0, 3}));
  ExpectEverywhere(EyeLikeKernel, {}, {&empty}, {empty});
}

TEST(EyeLike, Errors) {
  const Tensor v(DType::kFloat32, Shape({3}));
  ExpectError(EyeLikeKernel, {}, {&v}, "EyeLike", {"'input'", "rank 2"});
  const Tensor x(DType::kFloat32, Shape({2, 2}));
  ExpectError(EyeLikeKernel, Attributes().set("dtype", int64_t{8}), {&x}, "EyeLike",
              {"'dtype' = 8"});
}

}  // namespace
}  // namespace loom::kernels
