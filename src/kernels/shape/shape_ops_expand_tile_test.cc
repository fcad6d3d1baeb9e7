#include <gtest/gtest.h>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_reference.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::Int64s;
using testing::RandomTensor;

TEST(Expand, BroadcastsBothWaysByHand) {
  const Tensor x = Floats(Shape({3, 1}), {1, 2, 3});
  const Tensor shape = Int64s({2, 1, 2});
  ExpectEverywhere(ExpandKernel, {}, {&x, &shape},
                   {Floats(Shape({2, 3, 2}), {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})});
  const Tensor smaller = Int64s({1});
  ExpectEverywhere(ExpandKernel, {}, {&x, &smaller}, {Floats(Shape({3, 1}), {1, 2, 3})});
}

TEST(Expand, MatchesReference) {
  uint32_t seed = 60;
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {Shape({1}), {7}},          {Shape({3, 1, 5}), {2, 3, 4, 5}}, {Shape({1, 1}), {0, 4}},
      {Shape({4, 1}), {4, 3000}}, {Shape({1, 33}), {129, 33}},      {Shape(), {2, 3}}};
  for (const auto& [shape, target] : cases) {
    for (DType dtype : testing::kAllDTypes) {
      const Tensor x = RandomTensor(dtype, shape, ++seed, -50, 50);
      const Tensor t = Int64s(target);
      ExpectEverywhere(ExpandKernel, {}, {&x, &t},
                       {ExpandReference(x, broadcast_shapes(shape, Shape(target)))});
    }
  }
}

TEST(Expand, RejectsIncompatibleShapes) {
  const Tensor x(DType::kFloat32, Shape({3, 2}));
  const Tensor bad = Int64s({4, 2});
  ExpectError(ExpandKernel, {}, {&x, &bad}, "Expand", {"cannot be broadcast", "[3, 2]", "[4, 2]"});
  const Tensor negative = Int64s({-1, 2});
  ExpectError(ExpandKernel, {}, {&x, &negative}, "Expand", {"negative dimension -1"});
}

TEST(Tile, RepeatsByHand) {
  const Tensor x = Floats(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor repeats = Int64s({1, 2});
  ExpectEverywhere(TileKernel, {}, {&x, &repeats},
                   {Floats(Shape({2, 4}), {1, 2, 1, 2, 3, 4, 3, 4})});
  const Tensor twice_rows = Int64s({2, 1});
  ExpectEverywhere(TileKernel, {}, {&x, &twice_rows},
                   {Floats(Shape({4, 2}), {1, 2, 3, 4, 1, 2, 3, 4})});
  const Tensor zero = Int64s({0, 3});
  ExpectEverywhere(TileKernel, {}, {&x, &zero}, {Floats(Shape({0, 6}), {})});
}

TEST(Tile, MatchesReference) {
  uint32_t seed = 80;
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {{Shape({5}), {3}},
                                                                     {Shape({2, 1, 3}), {2, 5, 1}},
                                                                     {Shape({7, 9}), {3, 2}},
                                                                     {Shape({1, 300}), {40, 3}},
                                                                     {Shape(), {}}};
  for (const auto& [shape, repeats] : cases) {
    for (DType dtype : testing::kAllDTypes) {
      const Tensor x = RandomTensor(dtype, shape, ++seed, -50, 50);
      const Tensor r = Int64s(repeats);
      ExpectEverywhere(TileKernel, {}, {&x, &r}, {TileReference(x, repeats)});
    }
  }
}

TEST(Tile, RejectsBadRepeats) {
  const Tensor x(DType::kFloat32, Shape({2, 3}));
  const Tensor short_repeats = Int64s({2});
  ExpectError(TileKernel, {}, {&x, &short_repeats}, "Tile", {"1 entries, expected 2"});
  const Tensor negative = Int64s({1, -1});
  ExpectError(TileKernel, {}, {&x, &negative}, "Tile", {"entry 1 is -1"});
  const Tensor huge = Int64s({int64_t{1} << 62, 1});
  ExpectError(TileKernel, {}, {&x, &huge}, "Tile", {"overflows"});
}

}  // namespace
}  // namespace loom::kernels
