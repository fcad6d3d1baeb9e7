// PRelu and GroupNormalization rules, and the generic rules the other new
// ops reuse (bitwise ops as arithmetic, LpPool as AveragePool, LRN etc. as
// unary, ReduceLogSum as a reduction).
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
using testing::OutputType;

TEST(PReluRule, KeepsXTypeAndChecksSlope) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 5});
  const std::string slope = b.input("slope", kF32, {5});
  const std::string channel = b.input("channel", kF32, {3, 1});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("PRelu", {x, slope}), b.op("PRelu", {x, channel})}),
            (std::vector<std::string>{"float32[N, 3, 5]", "float32[N, 3, 5]"}));

  GraphBuilder bad("g");
  const std::string y = bad.input("y", kF32, {3, 1});
  const std::string wide = bad.input("wide", kF32, {3, 4});
  EXPECT_NE(BuildErrorOf(bad, bad.op("PRelu", {y, wide}, {}, "p")).find("does not broadcast to"),
            std::string::npos);
  GraphBuilder deep("g");
  const std::string z = deep.input("z", kF32, {3});
  const std::string high = deep.input("high", kF32, {2, 3});
  EXPECT_NE(BuildErrorOf(deep, deep.op("PRelu", {z, high}, {}, "p")).find("higher rank"),
            std::string::npos);
  GraphBuilder mixed("g");
  const std::string f = mixed.input("f", kF32, {3});
  const std::string i = mixed.input("i", kI32, {3});
  EXPECT_NE(BuildErrorOf(mixed, mixed.op("PRelu", {f, i}, {}, "p")), "no error");
}

TEST(GroupNormalizationRule, KeepsXTypeAndChecksGroupsAndChannels) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 4, 2, 2});
  const std::string s = b.constant(Tensor(kF32, Shape({4})), "s");
  EXPECT_EQ(OutputType(b, b.op("GroupNormalization", {x, s, s}, {{"num_groups", int64_t{2}}})),
            "float32[N, 4, 2, 2]");

  GraphBuilder bad("g");
  const std::string y = bad.input("y", kF32, {2, 4, 3});
  const std::string s3 = bad.constant(Tensor(kF32, Shape({3})), "s3");
  const std::string s4 = bad.constant(Tensor(kF32, Shape({4})), "s4");
  EXPECT_NE(BuildErrorOf(
                bad, bad.op("GroupNormalization", {y, s4, s4}, {{"num_groups", int64_t{3}}}, "gn"))
                .find("must divide the channels"),
            std::string::npos);
  GraphBuilder per_group("g");
  const std::string z = per_group.input("z", kF32, {2, 4, 3});
  const std::string g2 = per_group.constant(Tensor(kF32, Shape({2})), "g2");
  EXPECT_NE(BuildErrorOf(per_group, per_group.op("GroupNormalization", {z, g2, g2},
                                                 {{"num_groups", int64_t{2}}}, "gn"))
                .find("one value per channel"),
            std::string::npos);
  GraphBuilder missing("g");
  const std::string w = missing.input("w", kF32, {2, 4});
  const std::string c4 = missing.constant(Tensor(kF32, Shape({4})), "c4");
  EXPECT_NE(BuildErrorOf(missing, missing.op("GroupNormalization", {w, c4, c4}, {}, "gn")),
            "no error");
}

TEST(AddedOpRules, ReuseTheGenericRules) {
  GraphBuilder b;
  const std::string a = b.input("a", kI32, {"N", 4});
  const std::string row = b.input("row", kI32, {4});
  const std::string x = b.input("x", kF32, {1, 3, 8, 8});
  const std::string axes = b.constant(Ints({1}), "axes");
  EXPECT_EQ(
      testing::OutputTypes(b, {b.op("BitwiseAnd", {a, row}), b.op("BitwiseNot", {a}),
                               b.op("LpPool", {x},
                                    {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                     {"strides", std::vector<int64_t>{2, 2}}}),
                               b.op("LRN", {x}, {{"size", int64_t{3}}}),
                               b.op("LpNormalization", {x}), b.op("MeanVarianceNormalization", {x}),
                               b.op("ReduceLogSum", {x, axes}, {{"keepdims", int64_t{0}}})}),
      (std::vector<std::string>{"int32[N, 4]", "int32[N, 4]", "float32[1, 3, 4, 4]",
                                "float32[1, 3, 8, 8]", "float32[1, 3, 8, 8]", "float32[1, 3, 8, 8]",
                                "float32[1, 8, 8]"}));
}

TEST(LoomDropoutRule, DataTypeAndBoolMask) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3});
  const std::string r = b.input("r", kF32, {});
  const std::string t = b.input("t", testing::kBool, {});
  EXPECT_EQ(testing::OutputTypes(b, {b.op_multi("LoomDropout", {x, r, t}, 2)[1]}),
            (std::vector<std::string>{"bool[N, 3]"}));
}

}  // namespace
}  // namespace loom::graph
