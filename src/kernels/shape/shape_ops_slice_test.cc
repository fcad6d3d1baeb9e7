#include <gtest/gtest.h>

#include <iterator>
#include <limits>
#include <random>

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

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Tensor Iota(int64_t n) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return Floats(Shape({n}), v);
}

TEST(Slice, StepsAndClampingByHand) {
  const Tensor x = Iota(10);
  const Tensor starts = Int64s({1}), ends = Int64s({8}), axes = Int64s({0}), steps = Int64s({3});
  ExpectEverywhere(SliceKernel, {}, {&x, &starts, &ends, &axes, &steps},
                   {Floats(Shape({3}), {1, 4, 7})});
  // Negative step from the last element to "before the start".
  const Tensor last = Int64s({-1}), very_low = Int64s({kMin}), back2 = Int64s({-2});
  ExpectEverywhere(SliceKernel, {}, {&x, &last, &very_low, &axes, &back2},
                   {Floats(Shape({5}), {9, 7, 5, 3, 1})});
  // INT64_MAX end, start beyond the end clamps to an empty result.
  const Tensor seven = Int64s({7}), very_high = Int64s({kMax}), twenty = Int64s({20});
  ExpectEverywhere(SliceKernel, {}, {&x, &seven, &very_high}, {Floats(Shape({3}), {7, 8, 9})});
  ExpectEverywhere(SliceKernel, {}, {&x, &twenty, &very_high}, {Floats(Shape({0}), {})});
  // A step of INT64_MIN picks just the start.
  const Tensor min_step = Int64s({kMin});
  ExpectEverywhere(SliceKernel, {}, {&x, &seven, &very_low, &axes, &min_step},
                   {Floats(Shape({1}), {7})});
}

TEST(Slice, AxesInt32InputsAndOldAttributes) {
  const Tensor x = Floats(Shape({3, 4}), {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  const auto i32 = [](std::vector<int32_t> v) {
    return Tensor::from_vector(Shape({static_cast<int64_t>(v.size())}), v);
  };
  const Tensor starts = i32({1, 3}), ends = i32({-1, 0}), axes = i32({-1, 0}), steps = i32({2, -2});
  // Axis 1: columns 1 (then 3 is the end); axis 0: rows 3 -> clamped 2, then 0 excluded.
  ExpectEverywhere(SliceKernel, {}, {&x, &starts, &ends, &axes, &steps},
                   {Floats(Shape({1, 1}), {21})});
  const Attributes old = Attributes()
                             .set("starts", std::vector<int64_t>{0, 2})
                             .set("ends", std::vector<int64_t>{2, 4})
                             .set("axes", std::vector<int64_t>{0, 1});
  ExpectEverywhere(SliceKernel, old, {&x}, {Floats(Shape({2, 2}), {2, 3, 12, 13})});
}

TEST(Slice, MatchesReferenceOnRandomSlices) {
  std::mt19937 rng(7);
  const std::vector<Shape> shapes = {Shape({13}), Shape({4, 0, 3}), Shape({5, 7, 11}),
                                     Shape({2, 3, 64, 65}), Shape({1, 1, 1})};
  for (const Shape& shape : shapes) {
    for (int trial = 0; trial < 12; ++trial) {
      const int rank = shape.rank();
      std::vector<int64_t> starts, ends, axes, steps;
      std::vector<int> axes_int;
      for (int d = 0; d < rank; ++d) {
        if (rng() % 3 == 0) continue;
        const int64_t dim = shape.dims()[d];
        auto pick = [&]() -> int64_t {
          switch (rng() % 6) {
            case 0:
              return kMax;
            case 1:
              return kMin;
            default:
              return static_cast<int64_t>(rng() % (2 * dim + 7)) - dim - 3;
          }
        };
        int64_t step = static_cast<int64_t>(rng() % 4) + 1;
        if (rng() % 2) step = -step;
        starts.push_back(pick());
        ends.push_back(pick());
        axes.push_back(rng() % 2 ? d : d - rank);
        axes_int.push_back(d);
        steps.push_back(step);
      }
      const DType dtype = testing::kAllDTypes[rng() % std::size(testing::kAllDTypes)];
      const Tensor x = RandomTensor(dtype, shape, rng(), -50, 50);
      const Tensor s = Int64s(starts), e = Int64s(ends), a = Int64s(axes), st = Int64s(steps);
      SCOPED_TRACE(shape.to_string() + " trial " + std::to_string(trial));
      ExpectEverywhere(SliceKernel, {}, {&x, &s, &e, &a, &st},
                       {SliceReference(x, starts, ends, axes_int, steps)});
    }
  }
}

TEST(Slice, RejectsBadArguments) {
  const Tensor x(DType::kFloat32, Shape({4, 4}));
  const Tensor one = Int64s({1}), two = Int64s({1, 2}), zero = Int64s({0}), axes = Int64s({0, 0});
  ExpectError(SliceKernel, {}, {&x, &one, &two}, "Slice", {"same length", "1, 2"});
  ExpectError(SliceKernel, {}, {&x, &one, &one, &zero, &zero}, "Slice",
              {"'steps' entry 0", "must not be 0"});
  ExpectError(SliceKernel, {}, {&x, &two, &two, &axes}, "Slice", {"repeated"});
  const Tensor f = Floats(Shape({1}), {1});
  ExpectError(SliceKernel, {}, {&x, &f, &one}, "Slice", {"'starts'", "got float32"});
  ExpectError(SliceKernel, {}, {&x}, "Slice", {"'starts' and 'ends' are required"});
}

}  // namespace
}  // namespace loom::kernels
