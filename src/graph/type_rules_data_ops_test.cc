// Unique, CenterCropPad, Col2Im, TensorScatter, ReverseSequence, MaxUnpool
// and Det rules.
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

TEST(UniqueRule, CountIsDataDependent) {
  GraphBuilder b;
  const std::string x = b.input("x", kI32, {2, 3, 5});
  EXPECT_EQ(testing::OutputTypes(b, b.op_multi("Unique", {x}, 4)),
            (std::vector<std::string>{"int32[?]", "int64[?]", "int64[30]", "int64[?]"}));
  GraphBuilder c;
  const std::string y = c.input("y", kF32, {"N", 4});
  EXPECT_EQ(testing::OutputTypes(c, c.op_multi("Unique", {y}, 3, {{"axis", int64_t{-1}}})),
            (std::vector<std::string>{"float32[N, ?]", "int64[?]", "int64[4]"}));
  GraphBuilder e("g");
  const std::string s = e.input("s", kF32, {});
  EXPECT_EQ(BuildErrorOf(e, e.op("Unique", {s}, {{"axis", int64_t{0}}}, "u")),
            "graph 'g': node 'u' (Unique): attribute 'axis' needs an input of rank >= 1, got 's' "
            "float32[]");
}

TEST(CenterCropPadRule, ConstantSizesOrUnknown) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 10, 7, 3});
  const std::string hw = b.constant(Ints({5, 9}), "hw");
  const std::string runtime = b.input("r", kI64, {2});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("CenterCropPad", {x, hw}, {{"axes", std::vector<int64_t>{1, -2}}}),
                    b.op("CenterCropPad", {x, runtime}, {{"axes", std::vector<int64_t>{1, 2}}})}),
            (std::vector<std::string>{"float32[N, 5, 9, 3]", "float32[N, ?, ?, 3]"}));
  GraphBuilder e("g");
  const std::string y = e.input("y", kF32, {2, 2});
  const std::string three = e.constant(Ints({1, 1, 1}), "three");
  EXPECT_EQ(BuildErrorOf(e, e.op("CenterCropPad", {y, three}, {}, "c")),
            "graph 'g': node 'c' (CenterCropPad): input 'three' int64[3] must hold one size per "
            "axis (2)");
}

TEST(Col2ImRule, ImageFromConstants) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 12, 16});
  const std::string image = b.constant(Ints({5, 6}), "image");
  const std::string block = b.constant(Ints({2, 3}), "block");
  const std::string runtime = b.input("r", kI64, {2});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("Col2Im", {x, image, block}), b.op("Col2Im", {x, runtime, runtime})}),
            (std::vector<std::string>{"float32[N, 2, 5, 6]", "float32[N, ?, ?, ?]"}));
  GraphBuilder e("g");
  const std::string y = e.input("y", kF32, {1, 7, 4});
  const std::string img = e.constant(Ints({4}), "img");
  const std::string blk = e.constant(Ints({2}), "blk");
  EXPECT_EQ(BuildErrorOf(e, e.op("Col2Im", {y, img, blk}, {}, "c")),
            "graph 'g': node 'c' (Col2Im): input 'y' float32[1, 7, 4] dim 1 must be a multiple of "
            "the block size 2");
}

TEST(TensorScatterAndReverseSequenceRules, KeepTheInputType) {
  GraphBuilder b;
  const std::string cache = b.input("cache", kF32, {"B", 4, 16, 8});
  const std::string update = b.input("update", kF32, {"B", 4, 1, 8});
  const std::string write = b.input("write", kI64, {"B"});
  const std::string seq = b.input("seq", kI32, {5, "B", 3});
  const std::string lens = b.input("lens", kI64, {"B"});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("TensorScatter", {cache, update, write}),
                                     b.op("ReverseSequence", {seq, lens})}),
            (std::vector<std::string>{"float32[B, 4, 16, 8]", "int32[5, B, 3]"}));
  GraphBuilder e("g");
  const std::string c = e.input("c", kF32, {2, 4});
  const std::string u = e.input("u", kF32, {2, 1});
  EXPECT_EQ(BuildErrorOf(e, e.op("TensorScatter", {c, u}, {{"axis", int64_t{-2}}}, "t")),
            "graph 'g': node 't' (TensorScatter): attribute 'axis' must not be the batch axis 0");
}

TEST(MaxUnpoolRule, InferredOrGivenShape) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 2, 4});
  const std::string i = b.input("i", kI64, {"N", 3, 2, 4});
  const std::string shape = b.constant(Ints({1, 3, 5, 9}), "shape");
  const Attributes attrs = {{"kernel_shape", std::vector<int64_t>{2, 3}},
                            {"strides", std::vector<int64_t>{2, 2}},
                            {"pads", std::vector<int64_t>{0, 1, 0, 0}}};
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("MaxUnpool", {x, i}, attrs), b.op("MaxUnpool", {x, i, shape}, attrs)}),
            (std::vector<std::string>{"float32[N, 3, 4, 8]", "float32[1, 3, 5, 9]"}));
  GraphBuilder e("g");
  const std::string y = e.input("y", kF32, {1, 1, 4});
  const std::string j = e.input("j", kI64, {1, 1, 4});
  EXPECT_EQ(BuildErrorOf(e, e.op("MaxUnpool", {y, j}, {}, "m")),
            "graph 'g': node 'm' (MaxUnpool): attribute 'kernel_shape' is required");
}

TEST(DetRule, DropsTheMatrixDims) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 2, 3, 3});
  const std::string m = b.input("m", kF32, {"M", "M"});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("Det", {x}), b.op("Det", {m})}),
            (std::vector<std::string>{"float32[N, 2]", "float32[]"}));
  GraphBuilder e("g");
  const std::string y = e.input("y", kF32, {2, 3});
  EXPECT_EQ(BuildErrorOf(e, e.op("Det", {y}, {}, "d")),
            "graph 'g': node 'd' (Det): input 'y' float32[2, 3] must hold square matrices (2 vs "
            "3)");
}

}  // namespace
}  // namespace loom::graph
