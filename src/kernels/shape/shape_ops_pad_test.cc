#include <gtest/gtest.h>

#include <iterator>
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

Attributes Mode(const std::string& mode) { return Attributes().set("mode", mode); }

TEST(Pad, ModesByHand) {
  const Tensor x = Floats(Shape({3}), {1, 2, 3});
  const Tensor pads = Int64s({2, 3});
  const Tensor value = Floats(Shape(), {9});
  ExpectEverywhere(PadKernel, {}, {&x, &pads, &value},
                   {Floats(Shape({8}), {9, 9, 1, 2, 3, 9, 9, 9})});
  ExpectEverywhere(PadKernel, Mode("reflect"), {&x, &pads},
                   {Floats(Shape({8}), {3, 2, 1, 2, 3, 2, 1, 2})});
  ExpectEverywhere(PadKernel, Mode("edge"), {&x, &pads},
                   {Floats(Shape({8}), {1, 1, 1, 2, 3, 3, 3, 3})});
  ExpectEverywhere(PadKernel, Mode("wrap"), {&x, &pads},
                   {Floats(Shape({8}), {2, 3, 1, 2, 3, 1, 2, 3})});
  const Tensor crop = Int64s({-1, 1});
  ExpectEverywhere(PadKernel, {}, {&x, &crop}, {Floats(Shape({3}), {2, 3, 0})});
}

TEST(Pad, OnnxReflectExampleAndOldAttributes) {
  const Tensor x = Floats(Shape({3, 2}), {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  const Tensor pads = Int64s({0, 2, 0, 0});
  ExpectEverywhere(PadKernel, Mode("reflect"), {&x, &pads},
                   {Floats(Shape({3, 4}), {1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f,
                                           5.7f, 4.5f, 5.7f})});
  const Attributes old =
      Attributes().set("pads", std::vector<int64_t>{1, 0, 0, 0}).set("value", 7.0f);
  ExpectEverywhere(PadKernel, old, {&x},
                   {Floats(Shape({4, 2}), {7, 7, 1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f})});
  // The axes input pads only axis 1; the constant defaults to 0.
  const Tensor axes = Int64s({-1});
  const Tensor one_each = Int64s({1, 1});
  ExpectEverywhere(PadKernel, {}, {&x, &one_each, nullptr, &axes},
                   {Floats(Shape({3, 4}), {0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f, 0})});
}

TEST(Pad, MatchesReference) {
  std::mt19937 rng(5);
  const std::vector<Shape> shapes = {Shape({1}),       Shape({5}),
                                     Shape({2, 3, 4}), Shape({1, 3, 31, 29}),
                                     Shape({0, 3}),    Shape({2, 70})};
  for (const Shape& shape : shapes) {
    for (const std::string mode : {"constant", "reflect", "edge", "wrap"}) {
      for (int trial = 0; trial < 4; ++trial) {
        const int rank = shape.rank();
        std::vector<int64_t> pads(static_cast<size_t>(2 * rank));
        bool empty_axis_padded = false;
        for (int k = 0; k < 2 * rank; ++k) {
          const int64_t dim = shape.dims()[k % rank];
          // Pads from -dim (crop everything) to 2 * dim + 2 (wider than the axis).
          pads[k] = static_cast<int64_t>(rng() % static_cast<uint32_t>(3 * dim + 3)) - dim;
          if (pads[k] + pads[(k + rank) % (2 * rank)] + dim < 0) pads[k] = 0;
          empty_axis_padded = empty_axis_padded || (dim == 0 && pads[k] > 0);
        }
        if (mode != "constant" && empty_axis_padded) continue;
        const DType dtype = testing::kAllDTypes[rng() % std::size(testing::kAllDTypes)];
        const Tensor x = RandomTensor(dtype, shape, rng(), 0, 50);
        const Tensor value = RandomTensor(dtype, Shape(), rng(), 51, 60);
        const Tensor p = Int64s(pads);
        SCOPED_TRACE(shape.to_string() + " " + mode + " trial " + std::to_string(trial));
        ExpectEverywhere(PadKernel, Mode(mode), {&x, &p, &value},
                         {PadReference(x, pads, mode, value)});
      }
    }
  }
}

TEST(Pad, RejectsBadArguments) {
  const Tensor x(DType::kFloat32, Shape({2, 3}));
  const Tensor short_pads = Int64s({1, 1});
  ExpectError(PadKernel, {}, {&x, &short_pads}, "Pad", {"'pads' has 2 entries, expected 4"});
  const Tensor pads = Int64s({0, 0, 0, 0});
  ExpectError(PadKernel, Mode("mirror"), {&x, &pads}, "Pad", {"'mode'", "mirror"});
  const Tensor too_negative = Int64s({-2, 0, -1, 0});
  ExpectError(PadKernel, {}, {&x, &too_negative}, "Pad", {"axis 0", "invalid size"});
  const Tensor empty(DType::kFloat32, Shape({0, 3}));
  const Tensor grow = Int64s({1, 0, 0, 0});
  ExpectError(PadKernel, Mode("reflect"), {&empty, &grow}, "Pad", {"empty axis 0"});
  const Tensor int_value = Tensor::from_vector(Shape(), std::vector<int32_t>{1});
  ExpectError(PadKernel, {}, {&x, &pads, &int_value}, "Pad", {"'constant_value'", "got int32"});
  ExpectError(PadKernel, {}, {&x}, "Pad", {"'pads' is required"});
}

}  // namespace
}  // namespace loom::kernels
