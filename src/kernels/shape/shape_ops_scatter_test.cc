// ScatterND and ScatterElements: the ONNX examples and every reduction by
// hand, duplicate indices, wrap-around, bool, float16 and NaN; random
// cases against the serial loop of the spec at every thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
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

Attributes Reduce(const std::string& reduction) { return Attributes().set("reduction", reduction); }

Tensor Idx(Shape shape, const std::vector<int64_t>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

TEST(ScatterND, OnnxExamplesByHand) {
  const Tensor data = Floats(Shape({8}), {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor indices = Idx(Shape({4, 1}), {4, 3, 1, 7});
  const Tensor updates = Floats(Shape({4}), {9, 10, 11, 12});
  ExpectEverywhere(ScatterNDKernel, {}, {&data, &indices, &updates},
                   {Floats(Shape({8}), {1, 11, 3, 10, 9, 6, 7, 12})});

  const std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};
  const std::vector<float> b = {8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> cube;
  for (const auto* block : {&a, &a, &b, &b}) cube.insert(cube.end(), block->begin(), block->end());
  std::vector<float> slices;
  for (float v : {5, 6, 7, 8, 1, 2, 3, 4}) slices.insert(slices.end(), 4, v);
  const Tensor data3 = Floats(Shape({4, 4, 4}), cube);
  const Tensor rows = Idx(Shape({2, 1}), {0, 2});
  const Tensor updates3 = Floats(Shape({2, 4, 4}), slices);
  std::vector<float> expected(slices.begin(), slices.begin() + 16);
  expected.insert(expected.end(), a.begin(), a.end());
  expected.insert(expected.end(), slices.begin() + 16, slices.end());
  expected.insert(expected.end(), b.begin(), b.end());
  ExpectEverywhere(ScatterNDKernel, {}, {&data3, &rows, &updates3},
                   {Floats(Shape({4, 4, 4}), expected)});
}

TEST(ScatterND, EveryReductionWithDuplicateAndNegativeIndices) {
  // Position 1 gets 20 then 10; position 3 gets 5; -4 is position 0.
  const Tensor data = Floats(Shape({4}), {1, 2, 3, 4});
  const Tensor indices = Idx(Shape({4, 1}), {1, 1, 3, -4});
  const Tensor updates = Floats(Shape({4}), {20, 10, 5, 7});
  const auto expect = [&](const std::string& reduction, const std::vector<float>& values) {
    SCOPED_TRACE(reduction);
    ExpectEverywhere(ScatterNDKernel, Reduce(reduction), {&data, &indices, &updates},
                     {Floats(Shape({4}), values)});
  };
  expect("none", {7, 10, 3, 5});  // the later duplicate wins
  expect("add", {8, 32, 3, 9});
  expect("mul", {7, 400, 3, 20});
  expect("max", {7, 20, 3, 5});
  expect("min", {1, 2, 3, 4});
}

TEST(ScatterND, SliceUpdatesAccumulate) {
  const Tensor data = Of<int32_t>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor indices = Idx(Shape({2, 1}), {1, 1});
  const Tensor updates = Of<int32_t>(Shape({2, 3}), {1, 1, 1, 2, 2, 2});
  ExpectEverywhere(ScatterNDKernel, Reduce("add"), {&data, &indices, &updates},
                   {Of<int32_t>(Shape({2, 3}), {1, 2, 3, 7, 8, 9})});
}

TEST(ScatterND, IntegersWrapAround) {
  const Tensor data = Of<int8_t>(Shape({3}), {127, -128, 100});
  const Tensor indices = Idx(Shape({3, 1}), {0, 1, 2});
  const Tensor add = Of<int8_t>(Shape({3}), {1, -1, 0});
  ExpectEverywhere(ScatterNDKernel, Reduce("add"), {&data, &indices, &add},
                   {Of<int8_t>(Shape({3}), {-128, 127, 100})});
  const Tensor mul = Of<int8_t>(Shape({3}), {1, 1, 3});  // 300 = 256 + 44
  ExpectEverywhere(ScatterNDKernel, Reduce("mul"), {&data, &indices, &mul},
                   {Of<int8_t>(Shape({3}), {127, -128, 44})});
  const Tensor big = Of<int64_t>(Shape({1}), {std::numeric_limits<int64_t>::max()});
  const Tensor one = Of<int64_t>(Shape({1}), {1});
  const Tensor zero = Idx(Shape({1, 1}), {0});
  ExpectEverywhere(ScatterNDKernel, Reduce("add"), {&big, &zero, &one},
                   {Of<int64_t>(Shape({1}), {std::numeric_limits<int64_t>::min()})});
}

TEST(ScatterND, BoolReductionsAreLogical) {
  const Tensor data = Of<bool>(Shape({4}), {false, true, true, false});
  const Tensor indices = Idx(Shape({4, 1}), {0, 1, 2, 3});
  const Tensor updates = Of<bool>(Shape({4}), {true, false, true, false});
  for (const char* r : {"add", "max"}) {
    ExpectEverywhere(ScatterNDKernel, Reduce(r), {&data, &indices, &updates},
                     {Of<bool>(Shape({4}), {true, true, true, false})});
  }
  for (const char* r : {"mul", "min"}) {
    ExpectEverywhere(ScatterNDKernel, Reduce(r), {&data, &indices, &updates},
                     {Of<bool>(Shape({4}), {false, false, true, false})});
  }
}

TEST(ScatterND, Float16AndNaN) {
  const Tensor half = Of<Float16>(Shape({2}), {Float16(1.0f), Float16(2.0f)});
  const Tensor twice = Idx(Shape({2, 1}), {0, 0});
  const Tensor parts = Of<Float16>(Shape({2}), {Float16(0.5f), Float16(0.25f)});
  ExpectEverywhere(ScatterNDKernel, Reduce("add"), {&half, &twice, &parts},
                   {Of<Float16>(Shape({2}), {Float16(1.75f), Float16(2.0f)})});

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor data = Floats(Shape({3}), {1, nan, 3});
  const Tensor indices = Idx(Shape({3, 1}), {0, 2, 1});
  const Tensor updates = Floats(Shape({3}), {nan, 2, 5});
  ExpectEverywhere(ScatterNDKernel, Reduce("max"), {&data, &indices, &updates},
                   {Floats(Shape({3}), {nan, nan, 3})});
  ExpectEverywhere(ScatterNDKernel, Reduce("min"), {&data, &indices, &updates},
                   {Floats(Shape({3}), {nan, nan, 2})});
}

TEST(ScatterND, EmptyUpdatesCopyData) {
  const Tensor data = Floats(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor indices = Idx(Shape({0, 1}), {});
  const Tensor updates(DType::kFloat32, Shape({0, 2}));
  ExpectEverywhere(ScatterNDKernel, Reduce("mul"), {&data, &indices, &updates}, {data});
}

TEST(ScatterND, Errors) {
  const Tensor data = Floats(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor indices = Idx(Shape({1, 2}), {1, 3});
  const Tensor one = Floats(Shape({1}), {0});
  ExpectError(ScatterNDKernel, {}, {&data, &indices, &one}, "ScatterND",
              {"index 3 at position 1", "[-3, 3)", "axis 1"});
  const Tensor row = Idx(Shape({1, 1}), {0});
  ExpectError(ScatterNDKernel, {}, {&data, &row, &one}, "ScatterND",
              {"'updates' has shape [1]", "expected [1, 3]"});
  const Tensor ints = Of<int32_t>(Shape({1, 3}), {1, 2, 3});
  ExpectError(ScatterNDKernel, {}, {&data, &row, &ints}, "ScatterND",
              {"'updates' has dtype int32", "expected float32"});
  const Tensor update_row = Floats(Shape({1, 3}), {1, 2, 3});
  ExpectError(ScatterNDKernel, Reduce("sum"), {&data, &row, &update_row}, "ScatterND",
              {"'reduction'", "'sum'"});
  const Tensor long_tuple = Idx(Shape({1, 3}), {0, 0, 0});
  ExpectError(ScatterNDKernel, {}, {&data, &long_tuple, &one}, "ScatterND",
              {"tuples of 3 indices"});
}

TEST(ScatterElements, OnnxExamplesByHand) {
  const Tensor zeros(DType::kFloat32, Shape({3, 3}));
  const Tensor indices = Idx(Shape({2, 3}), {1, 0, 2, 0, 2, 1});
  const Tensor updates = Floats(Shape({2, 3}), {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f});
  ExpectEverywhere(ScatterElementsKernel, {}, {&zeros, &indices, &updates},
                   {Floats(Shape({3, 3}), {2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f})});

  const Tensor row = Floats(Shape({1, 5}), {1, 2, 3, 4, 5});
  const Tensor cols = Idx(Shape({1, 2}), {1, 3});
  const Tensor values = Floats(Shape({1, 2}), {1.1f, 2.1f});
  const Attributes axis1 = Attributes().set("axis", int64_t{1});
  ExpectEverywhere(ScatterElementsKernel, axis1, {&row, &cols, &values},
                   {Floats(Shape({1, 5}), {1, 1.1f, 3, 2.1f, 5})});
  // Negative index and negative axis.
  const Tensor negative = Idx(Shape({1, 2}), {1, -3});
  ExpectEverywhere(ScatterElementsKernel, Attributes().set("axis", int64_t{-1}),
                   {&row, &negative, &values}, {Floats(Shape({1, 5}), {1, 1.1f, 2.1f, 4, 5})});
}

TEST(ScatterElements, ReductionsOnDuplicates) {
  const Tensor row = Floats(Shape({1, 5}), {1, 2, 3, 4, 5});
  const Tensor twice = Idx(Shape({1, 2}), {1, 1});
  const Tensor values = Floats(Shape({1, 2}), {2.1f, 1.1f});
  const auto run = [&](const std::string& reduction, float expected) {
    SCOPED_TRACE(reduction);
    ExpectEverywhere(ScatterElementsKernel, Reduce(reduction).set("axis", int64_t{1}),
                     {&row, &twice, &values}, {Floats(Shape({1, 5}), {1, expected, 3, 4, 5})});
  };
  run("none", 1.1f);  // the later update wins
  run("add", (2.0f + 2.1f) + 1.1f);
  run("mul", (2.0f * 2.1f) * 1.1f);
  run("max", 2.1f);
  run("min", 1.1f);

  const Tensor ints = Of<int32_t>(Shape({1, 5}), {1, 2, 3, 4, 5});
  const Tensor where = Idx(Shape({1, 3}), {1, 1, 4});
  const Tensor factors = Of<int32_t>(Shape({1, 3}), {3, 4, 2});
  ExpectEverywhere(ScatterElementsKernel, Reduce("mul").set("axis", int64_t{1}),
                   {&ints, &where, &factors}, {Of<int32_t>(Shape({1, 5}), {1, 24, 3, 4, 10})});
}

TEST(ScatterElements, IndicesSmallerThanData) {
  const Tensor zeros(DType::kInt64, Shape({3, 3}));
  const Tensor indices = Tensor::from_vector(Shape({2, 1}), std::vector<int32_t>{2, 0});
  const Tensor updates = Of<int64_t>(Shape({2, 1}), {5, 6});
  ExpectEverywhere(ScatterElementsKernel, {}, {&zeros, &indices, &updates},
                   {Of<int64_t>(Shape({3, 3}), {6, 0, 0, 0, 0, 0, 5, 0, 0})});
  const Tensor none = Idx(Shape({0, 3}), {});
  const Tensor no_updates(DType::kInt64, Shape({0, 3}));
  ExpectEverywhere(ScatterElementsKernel, {}, {&zeros, &none, &no_updates}, {zeros});
}

TEST(ScatterElements, Errors) {
  const Tensor data = Floats(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor bad = Idx(Shape({1, 1}), {2});
  const Tensor one = Floats(Shape({1, 1}), {0});
  ExpectError(ScatterElementsKernel, {}, {&data, &bad, &one}, "ScatterElements",
              {"index 2 at position 0", "[-2, 2)", "axis 0"});
  const Tensor two = Floats(Shape({1, 2}), {0, 0});
  const Tensor ok = Idx(Shape({1, 1}), {0});
  ExpectError(ScatterElementsKernel, {}, {&data, &ok, &two}, "ScatterElements",
              {"must have the same shape"});
  const Tensor wide = Idx(Shape({1, 4}), {0, 0, 0, 0});
  const Tensor wide_updates = Floats(Shape({1, 4}), {0, 0, 0, 0});
  ExpectError(ScatterElementsKernel, {}, {&data, &wide, &wide_updates}, "ScatterElements",
              {"exceeds 'data' shape [2, 3] on axis 1"});
  const Tensor flat = Idx(Shape({1}), {0});
  const Tensor flat_updates = Floats(Shape({1}), {0});
  ExpectError(ScatterElementsKernel, {}, {&data, &flat, &flat_updates}, "ScatterElements",
              {"'indices'", "rank 2"});
  ExpectError(ScatterElementsKernel, Attributes().set("axis", int64_t{2}), {&data, &ok, &one},
              "ScatterElements", {"axis 2"});
  ExpectError(ScatterElementsKernel, Reduce("avg"), {&data, &ok, &one}, "ScatterElements",
              {"'reduction'", "'avg'"});
}

// The spec's serial loops, for random cases with many duplicates.
Tensor PlainScatterND(const Tensor& data, const Tensor& indices, const Tensor& updates) {
  Tensor out = data.clone();
  const int64_t slice = updates.num_elements() / (indices.num_elements());  // k = 1
  const int64_t dim0 = data.shape().dims()[0];
  for (int64_t t = 0; t < indices.num_elements(); ++t) {
    int64_t row = indices.data<int64_t>()[t];
    if (row < 0) row += dim0;
    for (int64_t c = 0; c < slice; ++c) {
      out.data<float>()[row * slice + c] += updates.data<float>()[t * slice + c];
    }
  }
  return out;
}

TEST(ScatterND, AddMatchesTheSerialLoopAtEveryThreadCount) {
  // Slices of 5000 floats (more than one column block) hit by 40 tuples
  // over 6 rows: float addition order matters and must be the serial one.
  const Tensor data = RandomTensor(DType::kFloat32, Shape({6, 5000}), 1);
  std::mt19937 rng(2);
  std::vector<int64_t> rows(40);
  for (int64_t& r : rows) r = static_cast<int64_t>(rng() % 12) - 6;
  const Tensor indices = Idx(Shape({40, 1}), rows);
  const Tensor updates = RandomTensor(DType::kFloat32, Shape({40, 5000}), 3, -1e3, 1e3);
  ExpectEverywhere(ScatterNDKernel, Reduce("add"), {&data, &indices, &updates},
                   {PlainScatterND(data, indices, updates)});
}

TEST(ScatterElements, AddMatchesTheSerialLoopAtEveryThreadCount) {
  const Shape data_shape({9, 7, 300});
  const Shape update_shape({8, 5, 300});
  for (int axis = 0; axis < 3; ++axis) {
    const Tensor data = RandomTensor(DType::kFloat32, data_shape, 10 + axis);
    const Tensor updates = RandomTensor(DType::kFloat32, update_shape, 20 + axis, -1e3, 1e3);
    const int64_t dim = data_shape.dims()[axis];
    std::mt19937 rng(30 + axis);
    std::vector<int64_t> values(static_cast<size_t>(update_shape.num_elements()));
    for (int64_t& v : values) v = static_cast<int64_t>(rng() % (2 * dim)) - dim;
    const Tensor indices = Idx(update_shape, values);
    Tensor expected = data.clone();
    for (int64_t u = 0; u < update_shape.num_elements(); ++u) {  // row-major, as the spec
      int64_t coord[3] = {u / (5 * 300), u / 300 % 5, u % 300};
      coord[axis] = values[u] < 0 ? values[u] + dim : values[u];
      expected.data<float>()[(coord[0] * 7 + coord[1]) * 300 + coord[2]] +=
          updates.data<float>()[u];
    }
    SCOPED_TRACE(axis);
    ExpectEverywhere(ScatterElementsKernel, Reduce("add").set("axis", int64_t{axis}),
                     {&data, &indices, &updates}, {expected});
  }
}

}  // namespace
}  // namespace loom::kernels
