// GatherND, ScatterND, ScatterElements, NonZero, Compress, OneHot, Trilu,
// EyeLike, DepthToSpace and SpaceToDepth rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::Ints;
using testing::kBool;
using testing::kF32;
using testing::kI32;
using testing::kI64;
using testing::OutputType;

TEST(GatherNDRule, TuplesSelectSlices) {
  GraphBuilder b;
  const std::string data = b.input("data", kF32, {"N", 4, 5, 6});
  const std::string pairs = b.input("pairs", kI64, {"M", 2});
  const std::string batched = b.input("batched", kI64, {"N", 3, 1});
  EXPECT_EQ(
      testing::OutputTypes(b, {b.op("GatherND", {data, pairs}),
                               b.op("GatherND", {data, batched}, {{"batch_dims", int64_t{1}}})}),
      (std::vector<std::string>{"float32[M, 5, 6]", "float32[N, 3, 5, 6]"}));
}

TEST(GatherNDRule, UnknownTupleLengthAndErrors) {
  GraphBuilder b;
  const std::string data = b.input("data", kF32, {2, 3});
  const std::string any = b.input("any", kI64, {4, "K"});
  EXPECT_EQ(OutputType(b, b.op("GatherND", {data, any})), "float32 unranked");
  GraphBuilder c("g");
  const std::string d = c.input("d", kF32, {2, 3});
  const std::string triples = c.input("t", kI64, {4, 3});
  EXPECT_EQ(BuildErrorOf(c, c.op("GatherND", {d, triples}, {}, "gnd")),
            "graph 'g': node 'gnd' (GatherND): input 't' int64[4, 3] has tuples of 3 indices, "
            "more than the 2 axes of 'd' float32[2, 3] after batch_dims");
  GraphBuilder e("g");
  const std::string d2 = e.input("d", kF32, {2, 3});
  const std::string i2 = e.input("i", kI64, {5, 1});
  EXPECT_EQ(BuildErrorOf(e, e.op("GatherND", {d2, i2}, {{"batch_dims", int64_t{1}}}, "gnd")),
            "graph 'g': node 'gnd' (GatherND): batch dim 0 of 'data' and 'indices' differs (2 vs "
            "5)");
}

TEST(ScatterRule, DataTypeAndShapeChecks) {
  GraphBuilder b;
  const std::string data = b.input("data", kI32, {"N", 4});
  const std::string rows = b.input("rows", kI64, {3, 1});
  const std::string updates = b.input("updates", kI32, {3, 4});
  const std::string cols = b.input("cols", kI32, {"N", 2});
  const std::string values = b.input("values", kI32, {"N", 2});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("ScatterND", {data, rows, updates}, {{"reduction", std::string("add")}}),
                    b.op("ScatterElements", {data, cols, values}, {{"axis", int64_t{1}}})}),
            (std::vector<std::string>{"int32[N, 4]", "int32[N, 4]"}));
  GraphBuilder c("g");
  const std::string d = c.input("d", kF32, {5, 4});
  const std::string i = c.input("i", kI64, {3, 1});
  const std::string u = c.input("u", kF32, {3, 5});
  EXPECT_EQ(BuildErrorOf(c, c.op("ScatterND", {d, i, u}, {}, "s")),
            "graph 'g': node 's' (ScatterND): input 'u' float32[3, 5] must have shape [3, 4] "
            "(indices.shape[:-1] + data.shape[k:]) (4 vs 5)");
  GraphBuilder e("g");
  const std::string d2 = e.input("d", kF32, {5, 4});
  const std::string i2 = e.input("i", kI64, {3, 1});
  const std::string u2 = e.input("u", kF32, {3, 4});
  EXPECT_EQ(
      BuildErrorOf(e, e.op("ScatterND", {d2, i2, u2}, {{"reduction", std::string("or")}}, "s")),
      "graph 'g': node 's' (ScatterND): attribute 'reduction' must be none, add, mul, max or "
      "min (got 'or')");
  GraphBuilder f("g");
  const std::string d3 = f.input("d", kF32, {5, 4});
  const std::string i3 = f.input("i", kI64, {5});
  EXPECT_EQ(BuildErrorOf(f, f.op("ScatterElements", {d3, i3, i3}, {}, "s")),
            "graph 'g': node 's' (ScatterElements): inputs 'd' float32[5, 4] and 'i' int64[5] "
            "must have the same dtype");
}

TEST(NonZeroRule, RankRowsAndAnUnknownCount) {
  GraphBuilder b;
  const std::string x = b.input("x", kBool, {"N", 3, 2});
  EXPECT_EQ(OutputType(b, b.op("NonZero", {x})), "int64[3, ?]");
}

TEST(CompressRule, TheAxisOrTheFlatInputBecomesUnknown) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 2});
  const std::string c = b.input("c", kBool, {"K"});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("Compress", {x, c}, {{"axis", int64_t{-2}}}), b.op("Compress", {x, c})}),
            (std::vector<std::string>{"float32[N, ?, 2]", "float32[?]"}));
  GraphBuilder g("g");
  const std::string y = g.input("y", kF32, {3});
  const std::string ints = g.input("i", kI32, {3});
  EXPECT_EQ(BuildErrorOf(g, g.op("Compress", {y, ints}, {}, "cp")),
            "graph 'g': node 'cp' (Compress): input 'i' int32[3] must have dtype bool");
}

TEST(OneHotRule, DepthInsertedAtTheAxis) {
  GraphBuilder b;
  const std::string indices = b.input("indices", kI64, {"N", 4});
  const std::string depth = b.constant(Ints({10}), "depth");
  const std::string values = b.input("values", kBool, {2});
  const std::string runtime_depth = b.input("d", kF32, {});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("OneHot", {indices, depth, values}),
                    b.op("OneHot", {indices, depth, values}, {{"axis", int64_t{0}}}),
                    b.op("OneHot", {indices, runtime_depth, values}, {{"axis", int64_t{-2}}})}),
            (std::vector<std::string>{"bool[N, 4, 10]", "bool[10, N, 4]", "bool[N, ?, 4]"}));
  GraphBuilder g("g");
  const std::string i = g.input("i", kI64, {4});
  const std::string d = g.constant(Ints({3}), "depth");
  const std::string v = g.input("v", kF32, {2});
  EXPECT_EQ(BuildErrorOf(g, g.op("OneHot", {i, d, v}, {{"axis", int64_t{2}}}, "oh")),
            "graph 'g': node 'oh' (OneHot): attribute 'axis' = 2 is out of range [-2, 1] for "
            "input 'i' int64[4]");
}

TEST(TriluAndEyeLikeRules, ShapesAndDTypes) {
  GraphBuilder b;
  const std::string x = b.input("x", kI32, {"B", 3, 4});
  const std::string k = b.constant(Ints({1}), "k");
  EXPECT_EQ(testing::OutputTypes(b, {b.op("Trilu", {x, k}), b.op("Trilu", {x})}),
            (std::vector<std::string>{"int32[B, 3, 4]", "int32[B, 3, 4]"}));
  GraphBuilder e;
  const std::string m = e.input("m", kF32, {"N", 5});
  EXPECT_EQ(testing::OutputTypes(
                e, {e.op("EyeLike", {m}), e.op("EyeLike", {m}, {{"dtype", int64_t{7}}})}),
            (std::vector<std::string>{"float32[N, 5]", "int64[N, 5]"}));
  GraphBuilder g("g");
  const std::string v = g.input("v", kF32, {5});
  EXPECT_EQ(BuildErrorOf(g, g.op("Trilu", {v}, {}, "t")),
            "graph 'g': node 't' (Trilu): input 'v' float32[5] must have rank >= 2");
  GraphBuilder h("g");
  const std::string w = h.input("w", kF32, {5, 5});
  EXPECT_EQ(BuildErrorOf(h, h.op("EyeLike", {w}, {{"dtype", int64_t{8}}}, "eye")),
            "graph 'g': node 'eye' (EyeLike): attribute 'dtype' = 8 is not a dtype Loom supports "
            "(1 FLOAT, 2 UINT8, 3 INT8, 6 INT32, 7 INT64, 9 BOOL, 10 FLOAT16, 11 DOUBLE)");
}

TEST(DepthSpaceRules, BlocksMoveBetweenChannelsAndSpace) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 8, 3, "W"});
  const std::string y = b.input("y", kF32, {"N", 2, 6, 4});
  EXPECT_EQ(
      testing::OutputTypes(
          b, {b.op("DepthToSpace", {x}, {{"blocksize", int64_t{2}}}),
              b.op("DepthToSpace", {x}, {{"blocksize", int64_t{1}}, {"mode", std::string("CRD")}}),
              b.op("SpaceToDepth", {y}, {{"blocksize", int64_t{2}}})}),
      (std::vector<std::string>{"float32[N, 2, 6, ?]", "float32[N, 8, 3, W]",
                                "float32[N, 8, 3, 2]"}));
  GraphBuilder g("g");
  const std::string z = g.input("z", kF32, {1, 6, 2, 2});
  EXPECT_EQ(BuildErrorOf(g, g.op("DepthToSpace", {z}, {{"blocksize", int64_t{2}}}, "d2s")),
            "graph 'g': node 'd2s' (DepthToSpace): the channels (6) of input 'z' float32[1, 6, 2, "
            "2] is not a multiple of 4");
  GraphBuilder h("g");
  const std::string u = h.input("u", kF32, {1, 6, 2, 2});
  EXPECT_EQ(BuildErrorOf(h, h.op("SpaceToDepth", {u}, {}, "s2d")),
            "graph 'g': node 's2d' (SpaceToDepth): attribute 'blocksize' is required");
}

}  // namespace
}  // namespace loom::graph
