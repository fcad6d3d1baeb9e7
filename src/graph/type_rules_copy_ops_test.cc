// Split, Slice, Pad, Expand, Tile, Gather and GatherElements rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::Ints;
using testing::kF32;
using testing::kI32;
using testing::kI64;
using testing::OutputTypes;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

using List = std::vector<int64_t>;

// The types of op(x, constants...) (an absent constant is an absent input),
// or the message of the error building the graph throws.
std::vector<std::string> Types(const std::string& op, const SymbolicShape& x,
                               const std::vector<std::optional<List>>& constants,
                               Attributes attrs = {}, int num_outputs = 1) {
  GraphBuilder b("g");
  std::vector<std::string> inputs = {b.input("x", kF32, x)};
  for (size_t i = 0; i < constants.size(); ++i) {
    inputs.push_back(constants[i] ? b.constant(Ints(*constants[i]), "c" + std::to_string(i + 1))
                                  : "");
  }
  const std::vector<std::string> outs = b.op_multi(op, inputs, num_outputs, std::move(attrs), "op");
  try {
    return OutputTypes(b, outs);
  } catch (const InvalidArgumentError& e) {
    return {e.what()};
  }
}

std::string Type(const std::string& op, const SymbolicShape& x,
                 const std::vector<std::optional<List>>& constants, Attributes attrs = {},
                 int num_outputs = 1) {
  return Types(op, x, constants, std::move(attrs), num_outputs)[0];
}

TEST(SplitRule, SizesFromAConstantInput) {
  EXPECT_EQ(Types("Split", {6, "N"}, {List{2, 4}}, {}, 2),
            (std::vector<std::string>{"float32[2, N]", "float32[4, N]"}));
  EXPECT_EQ(Types("Split", {"N", 6}, {List{1, 5}}, {{"axis", int64_t{-1}}}, 2),
            (std::vector<std::string>{"float32[N, 1]", "float32[N, 5]"}));
}

TEST(SplitRule, SizesFromAttributes) {
  EXPECT_EQ(Types("Split", {2}, {}, {{"split", List{1, 1}}}, 2),
            (std::vector<std::string>{"float32[1]", "float32[1]"}));
  // ceil(7 / 3) = 3 each, the last 7 - 6 = 1.
  EXPECT_EQ(Types("Split", {7}, {}, {{"num_outputs", int64_t{3}}}, 3),
            (std::vector<std::string>{"float32[3]", "float32[3]", "float32[1]"}));
  EXPECT_EQ(Types("Split", {"N", 4}, {}, {{"num_outputs", int64_t{2}}}, 2),
            (std::vector<std::string>{"float32[?, 4]", "float32[?, 4]"}));
}

TEST(SplitRule, InconsistentSizesThrow) {
  EXPECT_EQ(Type("Split", {6}, {List{2, 3}}, {}, 2),
            "graph 'g': node 'op' (Split): 'split' [2, 3] sums to 5, expected 6 (axis 0 of input "
            "'x' float32[6])");
  EXPECT_EQ(Type("Split", {6}, {List{2, 4}}, {}, 3),
            "graph 'g': node 'op' (Split): 'split' [2, 4] has 2 entries but the node has 3 "
            "outputs");
  EXPECT_EQ(Type("Split", {6}, {}, {}, 2),
            "graph 'g': node 'op' (Split): split sizes are missing: give input 'split', "
            "attribute 'split' or attribute 'num_outputs'");
}

TEST(SliceRule, KnownDims) {
  EXPECT_EQ(Type("Slice", {10, 20}, {List{1}, List{8}, List{0}}), "float32[7, 20]");
  // Axis 1: 0, 2, 4, 6, 8.
  EXPECT_EQ(Type("Slice", {10, 20}, {List{0}, List{10}, List{1}, List{2}}), "float32[10, 5]");
  // Clamped: [5, 100) of 10 is [5, 10).
  EXPECT_EQ(Type("Slice", {10}, {List{5}, List{100}}), "float32[5]");
  // The last three: [-3, end).
  EXPECT_EQ(Type("Slice", {5}, {List{-3}, List{kMax}}), "float32[3]");
  // Reversed: 4, 3, 2, 1, 0.
  EXPECT_EQ(Type("Slice", {5}, {List{-1}, List{kMin}, List{0}, List{-1}}), "float32[5]");
  // 4, 2 (stops before index 1).
  EXPECT_EQ(Type("Slice", {5}, {List{4}, List{1}, std::nullopt, List{-2}}), "float32[2]");
  EXPECT_EQ(Type("Slice", {5}, {List{3}, List{1}}), "float32[0]");
}

TEST(SliceRule, SymbolicDims) {
  EXPECT_EQ(Type("Slice", {"N", 4}, {List{0}, List{kMax}}), "float32[N, 4]");
  EXPECT_EQ(Type("Slice", {"N", 4}, {List{0}, List{kMin}, List{0}, List{-1}}),
            "float32[?, 4]");  // starts at index 0: one element
  EXPECT_EQ(Type("Slice", {"N", 4}, {List{-1}, List{kMin}, List{0}, List{-1}}), "float32[N, 4]");
  EXPECT_EQ(Type("Slice", {"N", 4}, {List{1}, List{kMax}}), "float32[?, 4]");
}

TEST(SliceRule, OpsetOneAttributes) {
  EXPECT_EQ(
      Type("Slice", {10, 20}, {}, {{"starts", List{2}}, {"ends", List{-2}}, {"axes", List{1}}}),
      "float32[10, 16]");
}

TEST(SliceRule, NonConstantStartsMakeTheSlicedAxesUnknown) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {10, 20, 30});
  const std::string starts = b.input("starts", kI64, {1});
  const std::string ends = b.constant(Ints({5}), "ends");
  const std::string axes = b.constant(Ints({1}), "axes");
  EXPECT_EQ(testing::OutputType(b, b.op("Slice", {x, starts, ends, axes})), "float32[10, ?, 30]");
}

TEST(SliceRule, MalformedArgumentsThrow) {
  EXPECT_EQ(Type("Slice", {10}, {List{0}, List{5}, List{0}, List{0}}),
            "graph 'g': node 'op' (Slice): 'steps' entry 0 must not be 0");
  EXPECT_EQ(Type("Slice", {10, 10}, {List{0, 0}, List{5}}),
            "graph 'g': node 'op' (Slice): 'starts', 'ends', 'axes' and 'steps' must have the "
            "same length (got 2, 1, 2, 2)");
  EXPECT_EQ(Type("Slice", {10}, {List{0}}),
            "graph 'g': node 'op' (Slice): 'starts' and 'ends' are required (inputs 1, 2 or "
            "attributes)");
}

TEST(PadRule, GrowsEachPaddedAxis) {
  EXPECT_EQ(Type("Pad", {"N", 3, 4, 4}, {List{0, 0, 1, 1, 0, 0, 1, 1}}), "float32[N, 3, 6, 6]");
  EXPECT_EQ(Type("Pad", {"N", 3, 4, 4}, {List{1, 2, 1, 2}, std::nullopt, List{2, 3}}),
            "float32[N, 3, 6, 8]");
  EXPECT_EQ(Type("Pad", {1, 3, 4, 4}, {List{0, 0, -1, -1, 0, 0, -1, -1}}), "float32[1, 3, 2, 2]");
  EXPECT_EQ(Type("Pad", {"N", 3}, {List{1, 0, 0, 0}}), "float32[?, 3]");
  EXPECT_EQ(Type("Pad", {4}, {}, {{"pads", List{1, 2}}}), "float32[7]");
}

TEST(PadRule, BadPadsThrow) {
  EXPECT_EQ(Type("Pad", {2, 2}, {List{0, -3, 0, 0}}),
            "graph 'g': node 'op' (Pad): 'pads' [0, -3, 0, 0] crop axis 1 of input 'x' "
            "float32[2, 2] below size 0");
  EXPECT_EQ(Type("Pad", {2, 2}, {List{1, 1}}),
            "graph 'g': node 'op' (Pad): 'pads' [1, 1] has 2 entries, expected 4 (2 per padded "
            "axis of 'x' float32[2, 2])");
  EXPECT_EQ(Type("Pad", {2}, {List{1, 1}}, {{"mode", std::string("circular")}}),
            "graph 'g': node 'op' (Pad): attribute 'mode' must be constant, reflect, edge or wrap "
            "(got 'circular')");
}

TEST(ExpandRule, BroadcastsToTheShape) {
  EXPECT_EQ(Type("Expand", {3, 1}, {List{2, 1, 4}}), "float32[2, 3, 4]");
  EXPECT_EQ(Type("Expand", {"N", 1}, {List{1, 5}}), "float32[N, 5]");
  EXPECT_EQ(Type("Expand", {"N", 1}, {List{3, 5}}), "float32[3, 5]");
  EXPECT_EQ(Type("Expand", {3}, {List{4}}),
            "graph 'g': node 'op' (Expand): input 'x' float32[3] cannot be broadcast to shape [4] "
            "(axis 0: 3 vs 4)");
}

TEST(ExpandRule, NonConstantShapeOfKnownLength) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {1, 4});
  const std::string shape = b.input("shape", kI64, {3});
  // Axis 2 meets 4: it is 4 whatever the shape says (1 or 4).
  EXPECT_EQ(testing::OutputType(b, b.op("Expand", {x, shape})), "float32[?, ?, 4]");
}

TEST(TileRule, MultipliesDims) {
  EXPECT_EQ(Type("Tile", {2, "N"}, {List{3, 1}}), "float32[6, N]");
  EXPECT_EQ(Type("Tile", {2, "N"}, {List{2, 2}}), "float32[4, ?]");
  EXPECT_EQ(Type("Tile", {2, "N"}, {List{1, 0}}), "float32[2, 0]");
  EXPECT_EQ(Type("Tile", {2, 3}, {List{int64_t{1} << 62, 1}}),
            "graph 'g': node 'op' (Tile): the tiled size overflows int64 (2 * "
            "4611686018427387904)");
  EXPECT_EQ(Type("Tile", {2, 3}, {List{2}}),
            "graph 'g': node 'op' (Tile): input 'repeats' [2] has 1 entries, expected one per "
            "axis of input 'x' float32[2, 3]");
}

TEST(GatherRule, ReplacesTheAxisByTheIndicesShape) {
  GraphBuilder b;
  const std::string data = b.input("data", kF32, {5, 4, 3});
  const std::string indices = b.input("indices", kI64, {"K", 2});
  const std::string scalar =
      b.constant(Tensor::from_vector(Shape(), std::vector<int32_t>{-5}), "i");
  EXPECT_EQ(OutputTypes(b, {b.op("Gather", {data, indices}, {{"axis", int64_t{1}}}),
                            b.op("Gather", {data, scalar})}),
            (std::vector<std::string>{"float32[5, K, 2, 3]", "float32[4, 3]"}));
}

TEST(GatherRule, ConstantIndexOutOfRangeThrows) {
  EXPECT_EQ(Type("Gather", {5, 2}, {List{0, 5}}),
            "graph 'g': node 'op' (Gather): index 5 in 'c1' int64[2] is outside [-5, 5) (axis 0 "
            "of 'x' float32[5, 2])");
}

TEST(GatherRule, IndicesMustBeIntegers) {
  GraphBuilder b("g");
  const std::string data = b.input("data", kF32, {5});
  const std::string indices = b.input("indices", kF32, {2});
  EXPECT_EQ(testing::BuildErrorOf(b, b.op("Gather", {data, indices}, {}, "gather")),
            "graph 'g': node 'gather' (Gather): input 'indices' float32[2] must have dtype int32, "
            "int64");
}

TEST(GatherElementsRule, TakesTheIndicesShape) {
  GraphBuilder b;
  const std::string data = b.input("data", kF32, {3, 4});
  const std::string indices = b.input("indices", kI32, {3, "K"});
  EXPECT_EQ(testing::OutputType(b, b.op("GatherElements", {data, indices}, {{"axis", int64_t{1}}})),
            "float32[3, K]");
  EXPECT_EQ(Type("GatherElements", {3, 4}, {List{1}}),
            "graph 'g': node 'op' (GatherElements): input 'c1' int64[1] must have rank 2");
}

}  // namespace
}  // namespace loom::graph
