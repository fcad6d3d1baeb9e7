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

Attributes Axis(int64_t axis) { return Attributes().set("axis", axis); }

TEST(Concat, JoinsAlongAxisByHand) {
  const Tensor a = Floats(Shape({2, 2}), {1, 2, 3, 4});
  const Tensor b = Floats(Shape({2, 1}), {5, 6});
  const Tensor empty(DType::kFloat32, Shape({2, 0}));
  ExpectEverywhere(ConcatKernel, Axis(1), {&a, &empty, &b},
                   {Floats(Shape({2, 3}), {1, 2, 5, 3, 4, 6})});
  ExpectEverywhere(ConcatKernel, Axis(-2), {&a, &a},
                   {Floats(Shape({4, 2}), {1, 2, 3, 4, 1, 2, 3, 4})});
}

TEST(Concat, MatchesReference) {
  struct Case {
    std::vector<Shape> shapes;
    int axis;
  };
  const std::vector<Case> cases = {
      {{Shape({3, 5}), Shape({3, 1}), Shape({3, 0}), Shape({3, 7})}, 1},
      {{Shape({1, 4, 3}), Shape({2, 4, 3})}, 0},
      {{Shape({2, 3, 5, 7}), Shape({2, 1, 5, 7}), Shape({2, 13, 5, 7})}, 1},
      {{Shape({0, 3}), Shape({0, 2})}, 1},
      {{Shape({300, 7}), Shape({300, 9})}, -1},
      // Rows of >= 64 KiB take the per-tensor Copy2D path; axis 0 the outer == 1 one.
      {{Shape({3, 20000}), Shape({3, 1})}, 1},
      {{Shape({40000}), Shape({50001})}, 0},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (DType dtype : testing::kAllDTypes) {
      std::vector<Tensor> inputs;
      std::vector<const Tensor*> pointers;
      for (const Shape& shape : c.shapes)
        inputs.push_back(RandomTensor(dtype, shape, ++seed, -50, 50));
      const Tensor expected =
          ConcatReference(inputs, c.axis < 0 ? c.axis + c.shapes[0].rank() : c.axis);
      for (int threads : testing::kThreadCounts) {
        auto pool = testing::PoolWithThreads(threads);
        std::vector<const Tensor*> list;
        for (const Tensor& t : inputs) list.push_back(&t);
        const std::vector<Tensor> out = ConcatKernel({pool.get(), Isa::kPortable}, Axis(c.axis),
                                                     KernelInputs(list.data(), list.size()));
        EXPECT_TRUE(testing::BitwiseEqual(out.at(0), expected))
            << c.shapes[0].to_string() << " " << dtype_name(dtype) << " threads " << threads;
      }
    }
  }
}

TEST(Concat, RejectsMismatches) {
  const Tensor a(DType::kFloat32, Shape({2, 3}));
  const Tensor b(DType::kFloat32, Shape({3, 3}));
  const Tensor c(DType::kInt32, Shape({2, 3}));
  const Tensor scalar(DType::kFloat32, Shape());
  ExpectError(ConcatKernel, Axis(1), {&a, &b}, "Concat",
              {"'inputs[1]'", "[3, 3]", "[2, 3]", "axis 1"});
  ExpectError(ConcatKernel, Axis(0), {&a, &c}, "Concat", {"'inputs[1]'", "float32", "got int32"});
  ExpectError(ConcatKernel, {}, {&a}, "Concat", {"'axis' is required"});
  ExpectError(ConcatKernel, Axis(2), {&a}, "Concat", {"axis 2 is out of range"});
  ExpectError(ConcatKernel, Axis(0), {&scalar}, "Concat", {"rank >= 1"});
}

TEST(Split, SizesFromInputAttributeOrNumOutputs) {
  const Tensor x = Floats(Shape({2, 5}), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor sizes = Int64s({1, 4});
  const std::vector<Tensor> expected = {Floats(Shape({2, 1}), {0, 5}),
                                        Floats(Shape({2, 4}), {1, 2, 3, 4, 6, 7, 8, 9})};
  ExpectEverywhere(SplitKernel, Axis(1), {&x, &sizes}, expected);
  ExpectEverywhere(SplitKernel, Axis(-1).set("split", std::vector<int64_t>{1, 4}), {&x}, expected);
  // 5 into 3 outputs: ceil(5 / 3) = 2 each, the last one smaller.
  ExpectEverywhere(SplitKernel, Axis(1).set("num_outputs", int64_t{3}), {&x},
                   {Floats(Shape({2, 2}), {0, 1, 5, 6}), Floats(Shape({2, 2}), {2, 3, 7, 8}),
                    Floats(Shape({2, 1}), {4, 9})});
}

TEST(Split, MatchesReference) {
  uint32_t seed = 100;
  for (DType dtype : testing::kAllDTypes) {
    const Tensor x = RandomTensor(dtype, Shape({3, 17, 5}), ++seed, -50, 50);
    const Tensor sizes = Int64s({0, 7, 1, 9});
    ExpectEverywhere(SplitKernel, Axis(1), {&x, &sizes}, SplitReference(x, 1, {0, 7, 1, 9}));
    const Tensor big = RandomTensor(dtype, Shape({2, 70001}), ++seed, -50, 50);
    const Tensor big_sizes = Int64s({70000, 1});
    ExpectEverywhere(SplitKernel, Axis(1), {&big, &big_sizes}, SplitReference(big, 1, {70000, 1}));
    const Tensor empty(dtype, Shape({0, 4}));
    const Tensor two = Int64s({2, 2});
    ExpectEverywhere(SplitKernel, Axis(1), {&empty, &two}, SplitReference(empty, 1, {2, 2}));
  }
}

TEST(Split, RejectsBadSizes) {
  const Tensor x(DType::kFloat32, Shape({2, 5}));
  const Tensor wrong_sum = Int64s({2, 2});
  ExpectError(SplitKernel, Axis(1), {&x, &wrong_sum}, "Split", {"sum to 4, expected 5"});
  const Tensor negative = Int64s({-1, 6});
  ExpectError(SplitKernel, Axis(1), {&x, &negative}, "Split", {"entry -1"});
  ExpectError(SplitKernel, Axis(1), {&x}, "Split", {"num_outputs"});
  ExpectError(SplitKernel, Axis(0).set("num_outputs", int64_t{4}), {&x}, "Split",
              {"cannot split axis 0 of size 2 into 4"});
  ExpectError(SplitKernel, Axis(1).set("num_outputs", int64_t{0}), {&x}, "Split", {">= 1"});
}

}  // namespace
}  // namespace loom::kernels
