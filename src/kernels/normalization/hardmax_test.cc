// Hardmax: the ONNX example, axes, ties (the first maximum), NaN and
// infinities, dtypes, empty tensors and errors; random tensors against a
// plain first-maximum loop at every thread count.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/normalization/normalization.h"
#include "kernels/shape/shape_ops_test_util.h"
#include "loom/float16.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;

Attributes Axis(int64_t axis) { return Attributes().set("axis", axis); }

TEST(Hardmax, OnnxExampleByHand) {
  const Tensor x = Floats(Shape({4, 4}), {3, 0, 1, 2, 2, 5, 1, 0, 0, 1, 3, 2, 0, 1, 2, 3});
  ExpectEverywhere(HardmaxKernel, {}, {&x},
                   {Floats(Shape({4, 4}), {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})});
}

TEST(Hardmax, AxesAndTies) {
  // Columns [1, 3, 3] and [5, 2, 7]: the first 3 (row 1) and the 7.
  const Tensor x = Floats(Shape({3, 2}), {1, 5, 3, 2, 3, 7});
  for (int64_t axis : {0, -2}) {
    ExpectEverywhere(HardmaxKernel, Axis(axis), {&x}, {Floats(Shape({3, 2}), {0, 0, 1, 0, 0, 1})});
  }
  const Tensor ties = Floats(Shape({1, 3}), {2, 2, 1});
  ExpectEverywhere(HardmaxKernel, {}, {&ties}, {Floats(Shape({1, 3}), {1, 0, 0})});
  // A rank-3 input along the middle axis: x[0, :, c] = [1, 4], [9, 4].
  const Tensor cube = Floats(Shape({1, 2, 2}), {1, 9, 4, 4});
  ExpectEverywhere(HardmaxKernel, Axis(1), {&cube}, {Floats(Shape({1, 2, 2}), {0, 1, 1, 0})});
  // An axis of length 1 is all ones.
  ExpectEverywhere(HardmaxKernel, Axis(0), {&ties}, {Floats(Shape({1, 3}), {1, 1, 1})});
}

TEST(Hardmax, NaNAndInfinities) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = Floats(Shape({3, 4}), {1, nan, 3, nan,          //
                                          -inf, -inf, -inf, -inf,  //
                                          0, inf, 2, inf});
  ExpectEverywhere(HardmaxKernel, {}, {&x},
                   {Floats(Shape({3, 4}), {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0})});
}

TEST(Hardmax, Float16Float64AndEmpty) {
  const Float16 o(0.0f), l(1.0f);
  const Tensor half = Tensor::from_vector(
      Shape({2, 2}),
      std::vector<Float16>{Float16(-1.0f), Float16(-2.0f), Float16(0.5f), Float16(0.75f)});
  ExpectEverywhere(HardmaxKernel, {}, {&half},
                   {Tensor::from_vector(Shape({2, 2}), std::vector<Float16>{l, o, o, l})});
  const Tensor d = Tensor::from_vector(Shape({3}), std::vector<double>{0.1, 0.3, 0.2});
  ExpectEverywhere(HardmaxKernel, {}, {&d},
                   {Tensor::from_vector(Shape({3}), std::vector<double>{0, 1, 0})});
  const Tensor empty(DType::kFloat32, Shape({2, 0}));
  ExpectEverywhere(HardmaxKernel, {}, {&empty}, {empty});
  ExpectEverywhere(HardmaxKernel, Axis(0), {&empty}, {empty});
}

TEST(Hardmax, Errors) {
  const Tensor ints = Tensor::from_vector(Shape({2}), std::vector<int32_t>{1, 2});
  ExpectError(HardmaxKernel, {}, {&ints}, "Hardmax", {"'input'", "int32"});
  const Tensor scalar = Floats(Shape(), {1});
  ExpectError(HardmaxKernel, {}, {&scalar}, "Hardmax", {"rank >= 1"});
  const Tensor x = Floats(Shape({2}), {1, 2});
  ExpectError(HardmaxKernel, Axis(1), {&x}, "Hardmax", {"axis 1"});
}

TEST(Hardmax, MatchesAPlainLoopAtEveryThreadCount) {
  // Values from {0, ..., 5}: many ties. 2100 inner columns for axis 1: more
  // than one column block.
  const Shape shape({3, 50, 2100});
  std::mt19937 rng(5);
  std::vector<float> v(static_cast<size_t>(shape.num_elements()));
  for (float& e : v) e = static_cast<float>(rng() % 6);
  const Tensor x = Floats(shape, v);
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<int64_t>& d = shape.dims();
    const int64_t stride = axis == 0 ? d[1] * d[2] : (axis == 1 ? d[2] : 1);
    const int64_t n = d[axis];
    Tensor expected(DType::kFloat32, shape);
    for (int64_t e = 0; e < shape.num_elements(); ++e) {
      if (e / stride % n != 0) continue;  // e starts a line
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i) {
        if (v[e + i * stride] > v[e + best * stride]) best = i;
      }
      expected.data<float>()[e + best * stride] = 1.0f;
    }
    SCOPED_TRACE(axis);
    ExpectEverywhere(HardmaxKernel, Axis(axis), {&x}, {expected});
  }
}

}  // namespace
}  // namespace loom::kernels
