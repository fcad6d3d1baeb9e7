// NonZero, Compress and OneHot by hand: every attribute and mode, empty
// tensors, negative axes and indices, errors; Compress against a plain
// loop at every thread count.
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

Tensor I64(Shape shape, const std::vector<int64_t>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

Attributes Axis(int64_t axis) { return Attributes().set("axis", axis); }

TEST(NonZero, CoordinatesInRowMajorOrder) {
  // The ONNX example: [[1, 0], [1, 1]] -> rows [0, 1, 1], cols [0, 0, 1].
  const Tensor x = Of<bool>(Shape({2, 2}), {true, false, true, true});
  ExpectEverywhere(NonZeroKernel, {}, {&x}, {I64(Shape({2, 3}), {0, 1, 1, 0, 0, 1})});
  const Tensor ints = Of<int32_t>(Shape({2, 3}), {0, 5, 0, -1, 0, 2});
  ExpectEverywhere(NonZeroKernel, {}, {&ints}, {I64(Shape({2, 3}), {0, 1, 1, 1, 0, 2})});
  const Tensor vector = Floats(Shape({4}), {0, 3, -0.0f, 1});
  ExpectEverywhere(NonZeroKernel, {}, {&vector}, {I64(Shape({1, 2}), {1, 3})});
}

TEST(NonZero, NaNIsNonZeroAndNegativeZeroIsZero) {
  const Tensor half = Of<Float16>(
      Shape({4}), {Float16(-0.0f), Float16(0.0f), Float16(std::numeric_limits<float>::quiet_NaN()),
                   Float16(1e-7f)});  // 1e-7: a subnormal
  ExpectEverywhere(NonZeroKernel, {}, {&half}, {I64(Shape({1, 2}), {2, 3})});
  const Tensor d = Of<double>(Shape({2}), {std::numeric_limits<double>::quiet_NaN(), -0.0});
  ExpectEverywhere(NonZeroKernel, {}, {&d}, {I64(Shape({1, 1}), {0})});
}

TEST(NonZero, ScalarsAndEmptyTensors) {
  const Tensor five = Of<int8_t>(Shape(), {5});
  ExpectEverywhere(NonZeroKernel, {}, {&five}, {Tensor(DType::kInt64, Shape({0, 1}))});
  const Tensor zero = Of<uint8_t>(Shape(), {0});
  ExpectEverywhere(NonZeroKernel, {}, {&zero}, {Tensor(DType::kInt64, Shape({0, 0}))});
  const Tensor empty(DType::kFloat32, Shape({3, 0}));
  ExpectEverywhere(NonZeroKernel, {}, {&empty}, {Tensor(DType::kInt64, Shape({2, 0}))});
  const Tensor zeros(DType::kFloat32, Shape({2, 2}));
  ExpectEverywhere(NonZeroKernel, {}, {&zeros}, {Tensor(DType::kInt64, Shape({2, 0}))});
}

TEST(Compress, AlongAnAxisAndFlattened) {
  const Tensor x = Floats(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  const Tensor c3 = Of<bool>(Shape({3}), {false, true, true});
  ExpectEverywhere(CompressKernel, Axis(0), {&x, &c3}, {Floats(Shape({2, 2}), {3, 4, 5, 6})});
  const Tensor c2 = Of<bool>(Shape({2}), {false, true});
  ExpectEverywhere(CompressKernel, Axis(1), {&x, &c2}, {Floats(Shape({3, 1}), {2, 4, 6})});
  ExpectEverywhere(CompressKernel, Axis(-1), {&x, &c2}, {Floats(Shape({3, 1}), {2, 4, 6})});
  // No axis: the flattened input.
  const Tensor c5 = Of<bool>(Shape({5}), {false, true, false, false, true});
  ExpectEverywhere(CompressKernel, {}, {&x, &c5}, {Floats(Shape({2}), {2, 5})});
}

TEST(Compress, ShortLongAndEmptyConditions) {
  const Tensor x = Floats(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  const Tensor short_c = Of<bool>(Shape({1}), {true});  // the rest is dropped
  ExpectEverywhere(CompressKernel, Axis(0), {&x, &short_c}, {Floats(Shape({1, 2}), {1, 2})});
  const Tensor long_c = Of<bool>(Shape({4}), {true, false, false, false});
  ExpectEverywhere(CompressKernel, Axis(1), {&x, &long_c}, {Floats(Shape({3, 1}), {1, 3, 5})});
  const Tensor none = Of<bool>(Shape({3}), {false, false, false});
  ExpectEverywhere(CompressKernel, Axis(0), {&x, &none}, {Tensor(DType::kFloat32, Shape({0, 2}))});
  const Tensor empty_c(DType::kBool, Shape({0}));
  ExpectEverywhere(CompressKernel, {}, {&x, &empty_c}, {Tensor(DType::kFloat32, Shape({0}))});
}

TEST(Compress, Errors) {
  const Tensor x = Floats(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  const Tensor beyond = Of<bool>(Shape({3}), {false, false, true});
  ExpectError(CompressKernel, Axis(1), {&x, &beyond}, "Compress",
              {"true at position 2", "beyond the 2 slices along axis 1"});
  const Tensor ints = Of<int32_t>(Shape({2}), {1, 0});
  ExpectError(CompressKernel, Axis(1), {&x, &ints}, "Compress", {"'condition'", "int32"});
  const Tensor matrix = Of<bool>(Shape({1, 1}), {true});
  ExpectError(CompressKernel, Axis(1), {&x, &matrix}, "Compress", {"'condition'", "rank 1"});
  const Tensor c = Of<bool>(Shape({1}), {true});
  ExpectError(CompressKernel, Axis(2), {&x, &c}, "Compress", {"axis 2"});
}

TEST(Compress, MatchesAPlainLoopAtEveryThreadCount) {
  const Shape shape({6, 301, 40});
  for (int axis = 0; axis < 3; ++axis) {
    const Tensor x = RandomTensor(DType::kFloat16, shape, 40 + axis);
    const int64_t dim = shape.dims()[axis];
    std::vector<bool> keep(static_cast<size_t>(dim));
    for (int64_t i = 0; i < dim; ++i) keep[i] = (i * 7 + axis) % 3 != 0;
    const Tensor condition = Tensor::from_vector(Shape({dim}), keep);
    std::vector<int64_t> out_dims = shape.dims();
    out_dims[axis] = 0;
    for (bool k : keep) out_dims[axis] += k ? 1 : 0;
    Tensor expected(DType::kFloat16, Shape(out_dims));
    int64_t next = 0;
    for (int64_t e = 0; e < x.num_elements(); ++e) {
      const int64_t coord[3] = {e / (301 * 40), e / 40 % 301, e % 40};
      if (keep[coord[axis]]) expected.data<Float16>()[next++] = x.data<Float16>()[e];
    }
    SCOPED_TRACE(axis);
    ExpectEverywhere(CompressKernel, Axis(axis), {&x, &condition}, {expected});
  }
}

TEST(OneHot, AxesByHand) {
  const Tensor indices = I64(Shape({2}), {1, -1});  // -1 is depth - 1
  const Tensor depth = I64(Shape(), {3});
  const Tensor values = Floats(Shape({2}), {0, 5});
  ExpectEverywhere(OneHotKernel, {}, {&indices, &depth, &values},
                   {Floats(Shape({2, 3}), {0, 5, 0, 0, 0, 5})});
  ExpectEverywhere(OneHotKernel, Axis(0), {&indices, &depth, &values},
                   {Floats(Shape({3, 2}), {0, 0, 5, 0, 0, 5})});
  ExpectEverywhere(OneHotKernel, Axis(-2), {&indices, &depth, &values},
                   {Floats(Shape({3, 2}), {0, 0, 5, 0, 0, 5})});
  // indices [2, 2] with the one-hot axis in the middle: output [2, 3, 2].
  const Tensor square = Of<int32_t>(Shape({2, 2}), {0, 2, 1, 0});
  const Tensor on_off = Of<int64_t>(Shape({2}), {-1, 7});
  ExpectEverywhere(OneHotKernel, Axis(1), {&square, &depth, &on_off},
                   {Of<int64_t>(Shape({2, 3, 2}), {7, -1, -1, -1, -1, 7,  //
                                                   -1, 7, 7, -1, -1, -1})});
}

TEST(OneHot, OutOfRangeIndicesGiveAnOffRow) {
  const Tensor indices = I64(Shape({4}), {3, -4, 2, std::numeric_limits<int64_t>::min()});
  const Tensor depth = Floats(Shape({1}), {3.9f});  // truncated to 3
  const Tensor values = Of<bool>(Shape({2}), {false, true});
  ExpectEverywhere(OneHotKernel, {}, {&indices, &depth, &values},
                   {Of<bool>(Shape({4, 3}), {false, false, false, false, false, false,  //
                                             false, false, true, false, false, false})});
}

TEST(OneHot, FloatIndicesTruncate) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor indices = Floats(Shape({4}), {1.7f, -0.5f, nan, 1e30f});
  const Tensor depth = Of<uint8_t>(Shape(), {2});
  const Tensor values = Of<Float16>(Shape({2}), {Float16(0.0f), Float16(1.0f)});
  const Float16 o(0.0f), l(1.0f);
  // 1.7 -> 1; -0.5 -> 0; NaN and 1e30 are out of range.
  ExpectEverywhere(OneHotKernel, {}, {&indices, &depth, &values},
                   {Of<Float16>(Shape({4, 2}), {o, l, l, o, o, o, o, o})});
}

TEST(OneHot, EmptyIndicesAndZeroDepth) {
  const Tensor none(DType::kInt64, Shape({0}));
  const Tensor depth = I64(Shape(), {4});
  const Tensor values = Floats(Shape({2}), {0, 1});
  ExpectEverywhere(OneHotKernel, {}, {&none, &depth, &values},
                   {Tensor(DType::kFloat32, Shape({0, 4}))});
  const Tensor some = I64(Shape({2}), {0, 1});
  const Tensor zero = I64(Shape(), {0});
  ExpectEverywhere(OneHotKernel, {}, {&some, &zero, &values},
                   {Tensor(DType::kFloat32, Shape({2, 0}))});
}

TEST(OneHot, Errors) {
  const Tensor indices = I64(Shape({2}), {0, 1});
  const Tensor depth = I64(Shape(), {3});
  const Tensor values = Floats(Shape({2}), {0, 1});
  const Tensor negative = I64(Shape(), {-1});
  ExpectError(OneHotKernel, {}, {&indices, &negative, &values}, "OneHot",
              {"'depth' must be a finite value >= 0"});
  const Tensor inf = Floats(Shape(), {std::numeric_limits<float>::infinity()});
  ExpectError(OneHotKernel, {}, {&indices, &inf, &values}, "OneHot", {"'depth'"});
  const Tensor two = I64(Shape({2}), {3, 3});
  ExpectError(OneHotKernel, {}, {&indices, &two, &values}, "OneHot", {"'depth' must hold one"});
  const Tensor three = Floats(Shape({3}), {0, 1, 2});
  ExpectError(OneHotKernel, {}, {&indices, &depth, &three}, "OneHot",
              {"'values' must hold [off_value, on_value]"});
  const Tensor matrix = Floats(Shape({1, 2}), {0, 1});
  ExpectError(OneHotKernel, {}, {&indices, &depth, &matrix}, "OneHot", {"got shape [1, 2]"});
  ExpectError(OneHotKernel, Axis(2), {&indices, &depth, &values}, "OneHot",
              {"'axis' = 2 is out of range [-2, 1]"});
  ExpectError(OneHotKernel, Axis(-3), {&indices, &depth, &values}, "OneHot", {"'axis' = -3"});
  // Absurd depths fail before anything is allocated.
  const Tensor huge = I64(Shape(), {int64_t{1} << 62});
  ExpectError(OneHotKernel, {}, {&indices, &huge, &values}, "OneHot", {"the output size"});
  const Tensor big = I64(Shape(), {int64_t{1} << 40});
  ExpectError(OneHotKernel, {}, {&indices, &big, &values}, "OneHot", {"more than Loom allocates"});
  const Tensor flags = Of<bool>(Shape({2}), {true, false});
  ExpectError(OneHotKernel, {}, {&flags, &depth, &values}, "OneHot", {"'indices' must be numeric"});
}

}  // namespace
}  // namespace loom::kernels
