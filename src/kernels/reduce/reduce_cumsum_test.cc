// CumSum: the ONNX examples for exclusive and reverse, axes, dtypes,
// wrap-around, empty tensors and errors; random tensors against the serial
// running sum at every thread count.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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
using testing::RandomTensor;

Tensor Axis(int64_t axis) { return Of<int64_t>(Shape(), {axis}); }

Attributes Modes(bool exclusive, bool reverse) {
  return Attributes().set("exclusive", int64_t{exclusive}).set("reverse", int64_t{reverse});
}

TEST(CumSum, OnnxExamplesByHand) {
  const Tensor x = Floats(Shape({5}), {1, 2, 3, 4, 5});
  const Tensor axis = Axis(0);
  ExpectEverywhere(CumSumKernel, {}, {&x, &axis}, {Floats(Shape({5}), {1, 3, 6, 10, 15})});
  ExpectEverywhere(CumSumKernel, Modes(true, false), {&x, &axis},
                   {Floats(Shape({5}), {0, 1, 3, 6, 10})});
  ExpectEverywhere(CumSumKernel, Modes(false, true), {&x, &axis},
                   {Floats(Shape({5}), {15, 14, 12, 9, 5})});
  ExpectEverywhere(CumSumKernel, Modes(true, true), {&x, &axis},
                   {Floats(Shape({5}), {14, 12, 9, 5, 0})});
}

TEST(CumSum, AxesOfAMatrix) {
  const Tensor x = Of<double>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor a0 = Axis(0);
  ExpectEverywhere(CumSumKernel, {}, {&x, &a0}, {Of<double>(Shape({2, 3}), {1, 2, 3, 5, 7, 9})});
  const Tensor a1 = Of<int32_t>(Shape({1}), {1});  // int32, one-element 1-D
  ExpectEverywhere(CumSumKernel, {}, {&x, &a1}, {Of<double>(Shape({2, 3}), {1, 3, 6, 4, 9, 15})});
  const Tensor am1 = Axis(-1);
  ExpectEverywhere(CumSumKernel, Modes(true, true), {&x, &am1},
                   {Of<double>(Shape({2, 3}), {5, 3, 0, 11, 6, 0})});
}

TEST(CumSum, IntegersWrapAndFloat16SumsInFloat) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  const Tensor ints = Of<int32_t>(Shape({3}), {max, 1, 1});
  const Tensor axis = Axis(0);
  ExpectEverywhere(CumSumKernel, {}, {&ints, &axis},
                   {Of<int32_t>(Shape({3}), {max, std::numeric_limits<int32_t>::min(),
                                             std::numeric_limits<int32_t>::min() + 1})});
  const Tensor longs = Of<int64_t>(Shape({3}), {-5, 7, 100});
  ExpectEverywhere(CumSumKernel, Modes(false, true), {&longs, &axis},
                   {Of<int64_t>(Shape({3}), {102, 107, 100})});
  // 2048 + 1 is not a float16, but the float32 running sum keeps the 1:
  // outputs 2048, 2048 (2049 rounds to even), 2050.
  const Tensor half = Of<Float16>(Shape({3}), {Float16(2048.0f), Float16(1.0f), Float16(1.0f)});
  ExpectEverywhere(
      CumSumKernel, {}, {&half, &axis},
      {Of<Float16>(Shape({3}), {Float16(2048.0f), Float16(2048.0f), Float16(2050.0f)})});
}

TEST(CumSum, EmptyTensors) {
  const Tensor empty(DType::kFloat32, Shape({0, 3}));
  const Tensor a1 = Axis(1);
  ExpectEverywhere(CumSumKernel, {}, {&empty, &a1}, {empty});
  const Tensor no_axis(DType::kInt64, Shape({2, 0}));
  ExpectEverywhere(CumSumKernel, Modes(true, false), {&no_axis, &a1}, {no_axis});
}

TEST(CumSum, Errors) {
  const Tensor x = Floats(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor a2 = Axis(2);
  ExpectError(CumSumKernel, {}, {&x, &a2}, "CumSum", {"axis 2 is out of range"});
  const Tensor two = Of<int64_t>(Shape({2}), {0, 1});
  ExpectError(CumSumKernel, {}, {&x, &two}, "CumSum", {"'axis' must hold one value"});
  const Tensor f = Floats(Shape(), {0});
  ExpectError(CumSumKernel, {}, {&x, &f}, "CumSum", {"'axis'", "float32"});
  const Tensor bytes = Of<int8_t>(Shape({2}), {1, 2});
  const Tensor a0 = Axis(0);
  ExpectError(CumSumKernel, {}, {&bytes, &a0}, "CumSum", {"'x'", "int8"});
  const Tensor scalar = Floats(Shape(), {1});
  ExpectError(CumSumKernel, {}, {&scalar, &a0}, "CumSum", {"rank >= 1"});
}

TEST(CumSum, MatchesTheSerialSumAtEveryThreadCount) {
  // 2100 inner columns: more than one column block per line.
  const Shape shape({5, 37, 2100});
  const Tensor x = RandomTensor(DType::kFloat32, shape, 21, -1e3, 1e3);
  const float* in = x.data<float>();
  for (int axis = 0; axis < 3; ++axis) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        const std::vector<int64_t>& d = shape.dims();
        const int64_t stride = axis == 0 ? d[1] * d[2] : (axis == 1 ? d[2] : 1);
        const int64_t n = d[axis];
        Tensor expected(DType::kFloat32, shape);
        float* out = expected.data<float>();
        for (int64_t e = 0; e < shape.num_elements(); ++e) {
          const int64_t i = e / stride % n;  // e's position along the axis
          if (i != 0) continue;              // e starts a line: sum it
          float sum = 0.0f;
          for (int64_t s = 0; s < n; ++s) {
            const int64_t at = e + (reverse ? n - 1 - s : s) * stride;
            if (exclusive) {
              out[at] = sum;
              sum += in[at];
            } else {
              sum += in[at];
              out[at] = sum;
            }
          }
        }
        const Tensor axis_t = Axis(axis);
        SCOPED_TRACE("axis " + std::to_string(axis) + " exclusive " + std::to_string(exclusive) +
                     " reverse " + std::to_string(reverse));
        ExpectEverywhere(CumSumKernel, Modes(exclusive, reverse), {&x, &axis_t}, {expected});
      }
    }
  }
}

}  // namespace
}  // namespace loom::kernels
