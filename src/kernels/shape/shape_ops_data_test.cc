// CenterCropPad, Col2Im, TensorScatter, ReverseSequence, MaxUnpool and Det:
// hand-worked cases (the ONNX examples among them), the kernels against
// their references (shape_ops_data_reference.h) on random shapes at every
// thread count, and error cases.
#include "kernels/shape/shape_ops_data.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "kernels/shape/shape_ops_data_reference.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::Int64s;
using testing::Of;
using testing::RandomTensor;

Attributes Ints(const char* name, std::vector<int64_t> values) {
  return Attributes().set(name, std::move(values));
}

// ---- CenterCropPad ----

TEST(CenterCropPad, CropAndPadByHand) {
  // [3, 4] -> [2, 7]: rows 0..1 (odd crop: the extra row dropped at the
  // end), columns padded 1 before and 2 after.
  const Tensor x = Floats(Shape({3, 4}), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor shape = Int64s({2, 7});
  ExpectEverywhere(CenterCropPadKernel, {}, {&x, &shape},
                   {Floats(Shape({2, 7}), {0, 1, 2, 3, 4, 0, 0, 0, 5, 6, 7, 8, 0, 0})});
  const Tensor one = Int64s({2});
  ExpectEverywhere(CenterCropPadKernel, Ints("axes", {-1}), {&x, &one},
                   {Floats(Shape({3, 2}), {2, 3, 6, 7, 10, 11})});
}

TEST(CenterCropPad, MatchesReference) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kInt8, DType::kFloat16, DType::kInt64}) {
    for (const std::vector<int64_t>& sizes :
         std::vector<std::vector<int64_t>>{{1, 5, 7}, {4, 0, 2}, {9, 3, 11}, {2, 6, 1}}) {
      const Tensor x = RandomTensor(dtype, Shape({4, 5, 7}), seed++, -9, 9);
      const Tensor shape = Int64s(sizes);
      ExpectEverywhere(CenterCropPadKernel, {}, {&x, &shape},
                       {CenterCropPadReference(x, sizes, {0, 1, 2})});
      const Tensor two = Int64s({sizes[0], sizes[2]});
      ExpectEverywhere(CenterCropPadKernel, Ints("axes", {2, 0}), {&x, &two},
                       {CenterCropPadReference(x, {sizes[0], sizes[2]}, {2, 0})});
    }
  }
}

TEST(CenterCropPad, Errors) {
  const Tensor x = Floats(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor one = Int64s({3});
  ExpectError(CenterCropPadKernel, {}, {&x, &one}, "CenterCropPad", {"'shape'", "2 axes"});
  const Tensor negative = Int64s({-1, 2});
  ExpectError(CenterCropPadKernel, {}, {&x, &negative}, "CenterCropPad", {"negative"});
  const Tensor two = Int64s({1, 1});
  ExpectError(CenterCropPadKernel, Ints("axes", {0, 0}), {&x, &two}, "CenterCropPad", {});
}

// ---- Col2Im ----

TEST(Col2Im, OnnxExample) {
  // image 5x5, block 1x5: each of the 5 block positions writes one row.
  std::vector<float> values(25);
  for (int i = 0; i < 25; ++i) values[i] = static_cast<float>(i + 1);
  const Tensor x = Floats(Shape({1, 5, 5}), values);
  const Tensor image = Int64s({5, 5});
  const Tensor block = Int64s({1, 5});
  // out[0, 0, r, c] = x[0, c, r]: the transpose.
  std::vector<float> expected(25);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 5; ++c) expected[r * 5 + c] = values[c * 5 + r];
  }
  ExpectEverywhere(Col2ImKernel, {}, {&x, &image, &block}, {Floats(Shape({1, 1, 5, 5}), expected)});
}

TEST(Col2Im, OverlapsSumByHand) {
  // 1-D image of 3, block 2, stride 1: positions 0 and 1 overlap at pixel 1.
  const Tensor x = Floats(Shape({1, 2, 2}), {1, 2, 10, 20});
  const Tensor image = Int64s({3});
  const Tensor block = Int64s({2});
  ExpectEverywhere(Col2ImKernel, {}, {&x, &image, &block}, {Floats(Shape({1, 1, 3}), {1, 12, 20})});
}

TEST(Col2Im, MatchesReference) {
  struct Case {
    std::vector<int64_t> image, block, dilations, pads, strides;
  };
  const std::vector<Case> cases = {
      {{5, 5}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
      {{7, 6}, {3, 2}, {2, 1}, {1, 0, 2, 1}, {2, 3}},
      {{4, 3, 5}, {2, 1, 3}, {1, 1, 2}, {0, 1, 1, 1, 0, 1}, {1, 2, 1}},
      {{11}, {3}, {3}, {2, 2}, {2}},
      {{1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    int64_t block_size = 1, positions = 1;
    for (size_t d = 0; d < c.image.size(); ++d) {
      block_size *= c.block[d];
      positions *= (c.image[d] + c.pads[d] + c.pads[d + c.image.size()] -
                    (c.dilations[d] * (c.block[d] - 1) + 1)) /
                       c.strides[d] +
                   1;
    }
    const Attributes attrs =
        Attributes().set("dilations", c.dilations).set("pads", c.pads).set("strides", c.strides);
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (int64_t n : {1, 2}) {
        for (int64_t channels : {1, 3}) {
          const Tensor x =
              RandomTensor(dtype, Shape({n, channels * block_size, positions}), seed++);
          const Tensor image = Int64s(c.image);
          const Tensor block = Int64s(c.block);
          ExpectEverywhere(Col2ImKernel, attrs, {&x, &image, &block},
                           {Col2ImReference(x, c.image, c.block, c.dilations, c.pads, c.strides)});
        }
      }
    }
  }
}

TEST(Col2Im, Errors) {
  const Tensor x = Floats(Shape({1, 4, 2}), std::vector<float>(8, 1.0f));
  const Tensor image = Int64s({4});
  const Tensor block = Int64s({2});
  ExpectError(Col2ImKernel, {}, {&x, &image, &block}, "Col2Im",
              {"dim 2 (2) must be the number of blocks 3"});
  const Tensor block3 = Int64s({3});
  ExpectError(Col2ImKernel, {}, {&x, &image, &block3}, "Col2Im",
              {"dim 1 (4) must be a multiple of the block size 3"});
  const Tensor image2 = Int64s({4, 4});
  ExpectError(Col2ImKernel, {}, {&x, &image2, &block}, "Col2Im", {"same length"});
  const Tensor ints = Of<int32_t>(Shape({1, 2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectError(Col2ImKernel, {}, {&ints, &image, &block}, "Col2Im", {"'input'"});
}

// ---- TensorScatter ----

TEST(TensorScatter, LinearAndCircularByHand) {
  // cache [2, 4, 1] (axis 1), update [2, 2, 1].
  const Tensor cache = Floats(Shape({2, 4, 1}), {0, 0, 0, 0, 0, 0, 0, 0});
  const Tensor update = Floats(Shape({2, 2, 1}), {1, 2, 3, 4});
  const Tensor write = Int64s({1, 2});
  const Attributes axis1 = Attributes().set("axis", int64_t{1});
  ExpectEverywhere(TensorScatterKernel, axis1, {&cache, &update, &write},
                   {Floats(Shape({2, 4, 1}), {0, 1, 2, 0, 0, 0, 3, 4})});
  ExpectEverywhere(TensorScatterKernel, axis1, {&cache, &update},
                   {Floats(Shape({2, 4, 1}), {1, 2, 0, 0, 3, 4, 0, 0})});
  const Tensor wrap = Int64s({3, -1});
  ExpectEverywhere(TensorScatterKernel, Attributes(axis1).set("mode", std::string("circular")),
                   {&cache, &update, &wrap}, {Floats(Shape({2, 4, 1}), {2, 0, 0, 1, 4, 0, 0, 3})});
}

TEST(TensorScatter, MatchesReference) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kUInt8, DType::kFloat64}) {
    for (int axis : {1, 2, -2}) {
      const std::vector<int64_t> dims = {3, 2, 7, 5};
      const int a = axis < 0 ? axis + 4 : axis;
      std::vector<int64_t> update_dims = dims;
      update_dims[a] = 2;
      const Tensor cache = RandomTensor(dtype, Shape(dims), seed++, 0, 9);
      const Tensor update = RandomTensor(dtype, Shape(update_dims), seed++, 0, 9);
      const std::vector<int64_t> linear = {0, dims[a] - 2, (dims[a] - 2) / 2};
      const std::vector<int64_t> circular = {dims[a] - 1, 5, -3};
      const Tensor w1 = Int64s(linear), w2 = Int64s(circular);
      const Attributes attrs = Attributes().set("axis", int64_t{axis});
      ExpectEverywhere(TensorScatterKernel, attrs, {&cache, &update, &w1},
                       {TensorScatterReference(cache, update, linear, a, false)});
      ExpectEverywhere(TensorScatterKernel, Attributes(attrs).set("mode", std::string("circular")),
                       {&cache, &update, &w2},
                       {TensorScatterReference(cache, update, circular, a, true)});
    }
  }
}

TEST(TensorScatter, Errors) {
  const Tensor cache = Floats(Shape({1, 3, 2}), std::vector<float>(6, 0.0f));
  const Tensor update = Floats(Shape({1, 2, 2}), std::vector<float>(4, 1.0f));
  const Tensor beyond = Int64s({2});
  ExpectError(TensorScatterKernel, {}, {&cache, &update, &beyond}, "TensorScatter",
              {"'write_indices' value 2", "linear"});
  const Tensor two = Int64s({0, 0});
  ExpectError(TensorScatterKernel, {}, {&cache, &update, &two}, "TensorScatter",
              {"'write_indices' must have shape [1]"});
  const Tensor wide = Floats(Shape({1, 2, 3}), std::vector<float>(6, 1.0f));
  ExpectError(TensorScatterKernel, {}, {&cache, &wide}, "TensorScatter", {"'update' [1, 2, 3]"});
  ExpectError(TensorScatterKernel, Attributes().set("axis", int64_t{0}), {&cache, &update},
              "TensorScatter", {"batch axis"});
  ExpectError(TensorScatterKernel, Attributes().set("mode", std::string("ring")), {&cache, &update},
              "TensorScatter", {"'mode'"});
}

// ---- ReverseSequence ----

TEST(ReverseSequence, OnnxExamples) {
  // time_axis 0, batch_axis 1 (x[t, b] = 4t + b), lens [4, 3, 2, 1].
  const Tensor x = Floats(Shape({4, 4}), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  const Tensor lens = Int64s({4, 3, 2, 1});
  ExpectEverywhere(ReverseSequenceKernel, {}, {&x, &lens},
                   {Floats(Shape({4, 4}), {12, 9, 6, 3, 8, 5, 2, 7, 4, 1, 10, 11, 0, 13, 14, 15})});
  const Tensor lens2 = Int64s({1, 2, 3, 4});
  const Attributes batch_first =
      Attributes().set("time_axis", int64_t{1}).set("batch_axis", int64_t{0});
  ExpectEverywhere(ReverseSequenceKernel, batch_first, {&x, &lens2},
                   {Floats(Shape({4, 4}), {0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12})});
}

TEST(ReverseSequence, MatchesReference) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kBool, DType::kInt16}) {
    const Tensor x = RandomTensor(dtype, Shape({5, 3, 2, 3}), seed++, -9, 9);
    const std::vector<int64_t> lens = {5, 0, 3};
    const Tensor l = Int64s(lens);
    ExpectEverywhere(ReverseSequenceKernel, {}, {&x, &l}, {ReverseSequenceReference(x, lens, 0)});
    const Tensor y = RandomTensor(dtype, Shape({3, 5, 7}), seed++, -9, 9);
    ExpectEverywhere(ReverseSequenceKernel,
                     Attributes().set("time_axis", int64_t{1}).set("batch_axis", int64_t{0}),
                     {&y, &l}, {ReverseSequenceReference(y, lens, 1)});
  }
}

TEST(ReverseSequence, Errors) {
  const Tensor x = Floats(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor long_lens = Int64s({3, 1});
  ExpectError(ReverseSequenceKernel, {}, {&x, &long_lens}, "ReverseSequence",
              {"'sequence_lens' value 3", "[0, 2]"});
  const Tensor three = Int64s({1, 1, 1});
  ExpectError(ReverseSequenceKernel, {}, {&x, &three}, "ReverseSequence", {"shape [2]"});
  ExpectError(ReverseSequenceKernel, Attributes().set("time_axis", int64_t{2}), {&x, &three},
              "ReverseSequence", {"'time_axis'"});
}

// ---- MaxUnpool ----

TEST(MaxUnpool, OnnxExamples) {
  const Tensor x = Floats(Shape({1, 1, 2, 2}), {1, 2, 3, 4});
  const Tensor i = Int64s({5, 7, 13, 15});
  const Tensor idx = i.reshape(Shape({1, 1, 2, 2}));
  const Attributes attrs = Ints("kernel_shape", {2, 2}).set("strides", std::vector<int64_t>{2, 2});
  ExpectEverywhere(MaxUnpoolKernel, attrs, {&x, &idx},
                   {Floats(Shape({1, 1, 4, 4}), {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4})});
  const Tensor shape = Int64s({1, 1, 5, 5});
  std::vector<float> expected(25, 0.0f);
  // The 4x4 unpooled result at the origin of 5x5: (1,1) (1,3) (3,1) (3,3).
  expected[6] = 1, expected[8] = 2, expected[16] = 3, expected[18] = 4;
  ExpectEverywhere(MaxUnpoolKernel, attrs, {&x, &idx, &shape},
                   {Floats(Shape({1, 1, 5, 5}), expected)});
}

TEST(MaxUnpool, MatchesReference) {
  const Tensor x = RandomTensor(DType::kFloat64, Shape({2, 3, 3}), 5);
  const Tensor idx = Of<int64_t>(Shape({2, 3, 3}),
                                 {0, 2, 4, 7, 9, 11, 12, 14, 16, 19, 21, 23, 24, 26, 28, 4, 2, 0});
  // kernel 3, stride 2, pads 1 + 0: (3 - 1) * 2 + 3 - 1 = 6 per row.
  ExpectEverywhere(MaxUnpoolKernel,
                   Ints("kernel_shape", {3})
                       .set("strides", std::vector<int64_t>{2})
                       .set("pads", std::vector<int64_t>{1, 0}),
                   {&x, &idx}, {MaxUnpoolReference(x, idx, {2, 3, 6}, {2, 3, 6})});
  const Tensor shape = Int64s({2, 3, 11});
  ExpectEverywhere(MaxUnpoolKernel,
                   Ints("kernel_shape", {3})
                       .set("strides", std::vector<int64_t>{2})
                       .set("pads", std::vector<int64_t>{1, 0}),
                   {&x, &idx, &shape}, {MaxUnpoolReference(x, idx, {2, 3, 6}, {2, 3, 11})});
}

TEST(MaxUnpool, Errors) {
  const Tensor x = Floats(Shape({1, 1, 2}), {1, 2});
  const Tensor idx = Of<int64_t>(Shape({1, 1, 2}), {0, 9});
  ExpectError(MaxUnpoolKernel, Ints("kernel_shape", {2}), {&x, &idx}, "MaxUnpool",
              {"'I' value 9", "3 elements"});
  ExpectError(MaxUnpoolKernel,
              Ints("kernel_shape", {std::numeric_limits<int64_t>::max()})
                  .set("strides", std::vector<int64_t>{std::numeric_limits<int64_t>::max()}),
              {&x, &idx}, "MaxUnpool", {"overflows"});
  const Tensor small = Int64s({1, 1, 2});
  ExpectError(MaxUnpoolKernel, Ints("kernel_shape", {2}), {&x, &idx, &small}, "MaxUnpool",
              {"'output_shape' [1, 1, 2]", "unpooled shape [1, 1, 3]"});
  ExpectError(MaxUnpoolKernel, {}, {&x, &idx}, "MaxUnpool", {"'kernel_shape'"});
  const Tensor flat = Int64s({0, 1});
  ExpectError(MaxUnpoolKernel, Ints("kernel_shape", {2}), {&x, &flat}, "MaxUnpool",
              {"'I' must have the shape"});
}

// ---- Det ----

TEST(Det, ByHand) {
  const Tensor x = Floats(Shape({2, 2, 2}), {1, 2, 3, 4, 0, 1, 1, 0});
  ExpectEverywhere(DetKernel, {}, {&x}, {Floats(Shape({2}), {-2, -1})});
  const Tensor singular = Floats(Shape({3, 3}), {1, 2, 3, 2, 4, 6, 0, 1, 1});
  ExpectEverywhere(DetKernel, {}, {&singular}, {Floats(Shape(), {0})});
  const Tensor empty(DType::kFloat32, Shape({2, 0, 0}));
  ExpectEverywhere(DetKernel, {}, {&empty}, {Floats(Shape({2}), {1, 1})});
}

TEST(Det, MatchesCofactorExpansion) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (int64_t m : {1, 2, 3, 5, 7}) {
      const Tensor x = RandomTensor(dtype, Shape({3, 2, m, m}), seed++);
      const Tensor expected = DetReference(x);
      const Tensor once = testing::CallSingleOutput(DetKernel, {&x});
      EXPECT_TENSORS_NEAR(once, expected, 1e-4, 1e-5);
      ExpectEverywhere(DetKernel, {}, {&x}, {once});
    }
  }
}

TEST(Det, HalfFloatsThroughFloat) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    const Tensor x = RandomTensor(dtype, Shape({4, 3, 3}), 3);
    EXPECT_TENSORS_NEAR(testing::CallSingleOutput(DetKernel, {&x}), DetReference(x), 1e-2, 1e-2);
  }
}

TEST(Det, Errors) {
  const Tensor x = Floats(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectError(DetKernel, {}, {&x}, "Det", {"[..., M, M]", "[2, 3]"});
  const Tensor ints = Of<int32_t>(Shape({1, 1}), {1});
  ExpectError(DetKernel, {}, {&ints}, "Det", {"'X'"});
}

}  // namespace
}  // namespace loom::kernels
