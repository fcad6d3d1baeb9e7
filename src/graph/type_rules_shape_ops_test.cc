// Reshape, Flatten, Squeeze, Unsqueeze, Transpose and Concat rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::Ints;
using testing::kF32;
using testing::kI32;
using testing::kI64;
using testing::OutputType;

std::string ReshapeType(const SymbolicShape& x, const std::vector<int64_t>& shape,
                        Attributes attrs = {}) {
  GraphBuilder b("g");
  const std::string data = b.input("x", kF32, x);
  const std::string s = b.constant(Ints(shape), "shape");
  const std::string y = b.op("Reshape", {data, s}, std::move(attrs), "reshape");
  b.output(y);
  try {
    Graph g = b.build();
    InferTypes(g);
    return testing::Render(g.value_types.at(y));
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
}

TEST(ReshapeRule, KnownShapes) {
  EXPECT_EQ(ReshapeType({2, 3, 4}, {4, -1}), "float32[4, 6]");
  EXPECT_EQ(ReshapeType({2, 3, 4}, {0, 0, -1}), "float32[2, 3, 4]");
  EXPECT_EQ(ReshapeType({2, 3, 4}, {24}), "float32[24]");
  EXPECT_EQ(ReshapeType({2, 0, 3}, {0, 3}, {{"allowzero", int64_t{1}}}), "float32[0, 3]");
  EXPECT_EQ(ReshapeType({2, 0, 3}, {5, -1}), "float32[5, 0]");
}

TEST(ReshapeRule, SymbolsCancel) {
  EXPECT_EQ(ReshapeType({"N", 3, 4}, {0, -1}), "float32[N, 12]");  // 0 copies N
  EXPECT_EQ(ReshapeType({"N", 3, 4}, {-1, 12}), "float32[N, 12]");
  EXPECT_EQ(ReshapeType({"N", 3, 4}, {0, 4, 3}), "float32[N, 4, 3]");
}

TEST(ReshapeRule, UnresolvableMinusOneIsUnknown) {
  EXPECT_EQ(ReshapeType({"N", 3, 4}, {-1, 6}), "float32[?, 6]");  // 2 * N
  EXPECT_EQ(ReshapeType({"N", 3, 4}, {-1, 5}), "float32[?, 5]");  // fine if 5 divides N
  EXPECT_EQ(ReshapeType({"N", "M"}, {0, -1}), "float32[N, M]");   // N cancels, M remains
  EXPECT_EQ(ReshapeType({"N", "M"}, {-1}), "float32[?]");         // N * M
}

TEST(ReshapeRule, ImpossibleElementCountThrows) {
  EXPECT_EQ(ReshapeType({2, 3, 4}, {5, 5}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [5, 5] for 'x' float32[2, 3, 4] "
            "asks for 25 elements, the input has 24");
  EXPECT_EQ(ReshapeType({2, 3, 4}, {5, -1}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [5, -1] for 'x' float32[2, 3, 4]: "
            "24 elements are not divisible by 5");
  EXPECT_EQ(ReshapeType({"N", 3}, {0, 4}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [0, 4] for 'x' float32[N, 3] asks "
            "for N*4 elements, the input has N*3");
}

TEST(ReshapeRule, MalformedShapesThrow) {
  EXPECT_EQ(ReshapeType({2, 3}, {-1, -1}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [-1, -1] for 'x' float32[2, 3] has "
            "more than one -1");
  EXPECT_EQ(ReshapeType({6}, {0, 0}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [0, 0] for 'x' float32[6] copies "
            "dimension 1 (0)");
  EXPECT_EQ(ReshapeType({2, 3}, {0, -1}, {{"allowzero", int64_t{1}}}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [0, -1] for 'x' float32[2, 3] has "
            "both 0 and -1 with allowzero = 1");
}

TEST(ReshapeRule, ElementCountOverflowThrowsInsteadOfWrapping) {
  // 2^62 * 4 does not fit int64: a hostile model, not undefined behaviour.
  EXPECT_EQ(ReshapeType({2, 3}, {int64_t{1} << 62, 4}),
            "graph 'g': node 'reshape' (Reshape): input 'shape' [4611686018427387904, 4] for 'x' "
            "float32[2, 3]: the element count overflows int64");
}

TEST(ReshapeRule, ShapeOfWrongDTypeThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {6});
  const std::string s = b.input("s", kI32, {2});
  EXPECT_EQ(BuildErrorOf(b, b.op("Reshape", {x, s}, {}, "r")),
            "graph 'g': node 'r' (Reshape): input 's' int32[2] must have dtype int64");
}

std::string UnaryType(const std::string& op, const SymbolicShape& x, Attributes attrs) {
  GraphBuilder b("g");
  const std::string y = b.op(op, {b.input("x", kF32, x)}, std::move(attrs), "op");
  b.output(y);
  try {
    Graph g = b.build();
    InferTypes(g);
    return testing::Render(g.value_types.at(y));
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
}

TEST(FlattenRule, ProductsOfKnownDims) {
  EXPECT_EQ(UnaryType("Flatten", {"N", 3, 4, 5}, {}), "float32[N, 60]");
  EXPECT_EQ(UnaryType("Flatten", {2, 3, 4}, {{"axis", int64_t{-1}}}), "float32[6, 4]");
  EXPECT_EQ(UnaryType("Flatten", {2, 3, 4}, {{"axis", int64_t{3}}}), "float32[24, 1]");
  EXPECT_EQ(UnaryType("Flatten", {"N", 3, 4}, {{"axis", int64_t{0}}}), "float32[1, ?]");
  EXPECT_EQ(UnaryType("Flatten", {"N", 3, 4}, {{"axis", int64_t{2}}}), "float32[?, 4]");
  EXPECT_EQ(UnaryType("Flatten", {"N", "C", 4}, {}), "float32[N, ?]");
  EXPECT_EQ(UnaryType("Flatten", {"N", 3, 0}, {}), "float32[N, 0]");
  EXPECT_EQ(UnaryType("Flatten", {2, 3}, {{"axis", int64_t{3}}}),
            "graph 'g': node 'op' (Flatten): attribute 'axis' 3 is outside [-2, 2] for input 'x' "
            "float32[2, 3]");
}

TEST(TransposeRule, PermutesDims) {
  EXPECT_EQ(UnaryType("Transpose", {"N", 3, 4}, {{"perm", std::vector<int64_t>{0, 2, 1}}}),
            "float32[N, 4, 3]");
  EXPECT_EQ(UnaryType("Transpose", {"N", 3, 4}, {}), "float32[4, 3, N]");
  EXPECT_EQ(UnaryType("Transpose", {2, 3}, {{"perm", std::vector<int64_t>{0, 0}}}),
            "graph 'g': node 'op' (Transpose): attribute 'perm' [0, 0] is not a permutation of "
            "the 2 axes of input 'x' float32[2, 3]");
}

TEST(SqueezeRule, GivenAxesOrEveryOne) {
  EXPECT_EQ(UnaryType("Squeeze", {1, 3, 1, 5}, {}), "float32[3, 5]");
  EXPECT_EQ(UnaryType("Squeeze", {1, 3, 1, 5}, {{"axes", std::vector<int64_t>{-2}}}),
            "float32[1, 3, 5]");
  EXPECT_EQ(UnaryType("Squeeze", {"N", 1, 3}, {{"axes", std::vector<int64_t>{1}}}),
            "float32[N, 3]");
  // Without axes, whether N is 1 decides the rank.
  EXPECT_EQ(UnaryType("Squeeze", {"N", 1, 3}, {}), "float32 unranked");
  EXPECT_EQ(UnaryType("Squeeze", {2, 3}, {{"axes", std::vector<int64_t>{1}}}),
            "graph 'g': node 'op' (Squeeze): cannot squeeze axis 1 of input 'x' float32[2, 3]: "
            "its size is 3, expected 1");
}

TEST(SqueezeRule, AxesFromAConstantInput) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 1, 1});
  const std::string axes = b.constant(Ints({1, 2}), "axes");
  EXPECT_EQ(OutputType(b, b.op("Squeeze", {x, axes})), "float32[N]");
}

TEST(UnsqueezeRule, InsertsOnesAtOutputAxes) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {3, "N"});
  const std::string axes = b.constant(Ints({0, -1}), "axes");
  EXPECT_EQ(OutputType(b, b.op("Unsqueeze", {x, axes})), "float32[1, 3, N, 1]");
  EXPECT_EQ(UnaryType("Unsqueeze", {"N"}, {{"axes", std::vector<int64_t>{1}}}), "float32[N, 1]");
  EXPECT_EQ(UnaryType("Unsqueeze", {4}, {}),
            "graph 'g': node 'op' (Unsqueeze): 'axes' is required (input 1 or attribute)");
  EXPECT_EQ(UnaryType("Unsqueeze", {4}, {{"axes", std::vector<int64_t>{0, -3}}}),
            "graph 'g': node 'op' (Unsqueeze): axes [0, -3] name axis 0 twice");
}

TEST(UnsqueezeRule, NonConstantAxesKeepTheRank) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {3});
  const std::string axes = b.input("axes", kI64, {2});
  EXPECT_EQ(OutputType(b, b.op("Unsqueeze", {x, axes})), "float32[?, ?, ?]");
}

std::string ConcatType(const std::vector<SymbolicShape>& shapes, int64_t axis) {
  GraphBuilder b("g");
  std::vector<std::string> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    inputs.push_back(b.input(std::string(1, static_cast<char>('a' + i)), kF32, shapes[i]));
  }
  const std::string y = b.op("Concat", inputs, {{"axis", axis}}, "cat");
  b.output(y);
  try {
    Graph g = b.build();
    InferTypes(g);
    return testing::Render(g.value_types.at(y));
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
}

TEST(ConcatRule, AddsUpTheAxis) {
  EXPECT_EQ(ConcatType({{2, 3}, {4, 3}}, 0), "float32[6, 3]");
  EXPECT_EQ(ConcatType({{"N", 3}, {"N", 5}, {"N", 1}}, -1), "float32[N, 9]");
  EXPECT_EQ(ConcatType({{"N", 3}, {4, 3}}, 0), "float32[?, 3]");
  EXPECT_EQ(ConcatType({{"N", 3}, {0, 3}}, 0), "float32[N, 3]");
  EXPECT_EQ(ConcatType({{"M", 3}, {2, 3}}, 1), "float32[2, 6]");  // M must be 2
}

TEST(ConcatRule, OtherAxesMustAgree) {
  EXPECT_EQ(ConcatType({{2, 3}, {2, 4}}, 0),
            "graph 'g': node 'cat' (Concat): inputs 'a' float32[2, 3] and 'b' float32[2, 4] "
            "differ on axis 1 (only axis 0 may differ) (3 vs 4)");
  EXPECT_EQ(ConcatType({{2, 3}, {2, 3, 1}}, 0),
            "graph 'g': node 'cat' (Concat): inputs 'a' float32[2, 3] and 'b' float32[2, 3, 1] "
            "must have the same rank");
}

TEST(ConcatRule, AxisIsRequired) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {2});
  EXPECT_EQ(BuildErrorOf(b, b.op("Concat", {x, x}, {}, "cat")),
            "graph 'g': node 'cat' (Concat): required attribute 'axis' is missing");
}

}  // namespace
}  // namespace loom::graph
