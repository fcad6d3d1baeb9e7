// Conv and pooling rules: output sizes hand-computed from the ONNX formulas
//   floor((in + pad_begin + pad_end - ((k - 1) * dilation + 1)) / stride) + 1
// (ceil with ceil_mode; ceil(in / stride) with auto_pad SAME_*).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::kF32;
using testing::OutputType;
using testing::OutputTypes;

using Ints64 = std::vector<int64_t>;

// Conv(x, w constant[, b constant]) with the given attributes.
std::string ConvType(const SymbolicShape& x_shape, const Shape& w_shape, Attributes attrs,
                     bool with_bias = false) {
  GraphBuilder b;
  std::vector<std::string> inputs = {b.input("x", kF32, x_shape),
                                     b.constant(Tensor(kF32, w_shape), "w")};
  if (with_bias) inputs.push_back(b.constant(Tensor(kF32, Shape({w_shape.dim(0)})), "b"));
  return OutputType(b, b.op("Conv", inputs, std::move(attrs)));
}

TEST(ConvRule, NoPadding) {
  // (32 - 3) / 1 + 1 = 30.
  EXPECT_EQ(ConvType({1, 3, 32, 32}, {8, 3, 3, 3}, {}), "float32[1, 8, 30, 30]");
}

TEST(ConvRule, StridesAndPads) {
  // (32 + 1 + 1 - 3) / 2 + 1 = 31 / 2 + 1 = 16.
  EXPECT_EQ(ConvType({1, 3, 32, 32}, {8, 3, 3, 3},
                     {{"strides", Ints64{2, 2}}, {"pads", Ints64{1, 1, 1, 1}}}),
            "float32[1, 8, 16, 16]");
  // Asymmetric pads: height (10 + 0 + 2 - 3) + 1 = 10, width (10 + 1 + 0 - 3) + 1 = 9.
  EXPECT_EQ(ConvType({1, 3, 10, 10}, {4, 3, 3, 3}, {{"pads", Ints64{0, 1, 2, 0}}}),
            "float32[1, 4, 10, 9]");
}

TEST(ConvRule, Dilations) {
  // Extent (3 - 1) * 2 + 1 = 5: (32 - 5) + 1 = 28.
  EXPECT_EQ(ConvType({1, 3, 32, 32}, {8, 3, 3, 3}, {{"dilations", Ints64{2, 2}}}),
            "float32[1, 8, 28, 28]");
}

TEST(ConvRule, Groups) {
  // C = 4 = W.shape[1] (2) * group (2); M = 6.
  EXPECT_EQ(ConvType({1, 4, 10, 10}, {6, 2, 3, 3}, {{"group", int64_t{2}}}), "float32[1, 6, 8, 8]");
}

TEST(ConvRule, DepthwiseWithSymbolicSizes) {
  EXPECT_EQ(ConvType({"N", 8, "H", "W"}, {8, 1, 3, 3},
                     {{"group", int64_t{8}}, {"pads", Ints64{1, 1, 1, 1}}}),
            "float32[N, 8, ?, ?]");
}

TEST(ConvRule, AutoPad) {
  // SAME: ceil(32 / 2) = 16, ceil(31 / 2) = 16, whatever the kernel.
  EXPECT_EQ(ConvType({1, 3, 32, 31}, {8, 3, 5, 5},
                     {{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints64{2, 2}}}),
            "float32[1, 8, 16, 16]");
  EXPECT_EQ(ConvType({1, 3, 7, 7}, {8, 3, 3, 3}, {{"auto_pad", std::string("SAME_LOWER")}}),
            "float32[1, 8, 7, 7]");
  // VALID ignores pads: (32 - 3) / 2 + 1 = 15.
  EXPECT_EQ(ConvType({1, 3, 32, 32}, {8, 3, 3, 3},
                     {{"auto_pad", std::string("VALID")}, {"strides", Ints64{2, 2}}}),
            "float32[1, 8, 15, 15]");
}

TEST(ConvRule, OneDimensionalWithBias) {
  // (10 - 3) + 1 = 8.
  EXPECT_EQ(ConvType({2, 4, 10}, {5, 4, 3}, {}, true), "float32[2, 5, 8]");
}

TEST(ConvRule, NonConstantWeightsStillGiveShape) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 9, 9});
  const std::string w = b.input("w", kF32, {"M", 3, 3, 3});
  EXPECT_EQ(OutputType(b, b.op("Conv", {x, w}, {{"strides", Ints64{3, 3}}})),
            "float32[N, M, 3, 3]");  // (9 - 3) / 3 + 1 = 3
}

TEST(ConvRule, ChannelMismatchThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {1, 3, 8, 8});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 4, 3, 3})), "w");
  EXPECT_EQ(BuildErrorOf(b, b.op("Conv", {x, w}, {}, "conv_1")),
            "graph 'g': node 'conv_1' (Conv): input 'x' float32[1, 3, 8, 8] has 3 channels but "
            "'w' float32[8, 4, 3, 3] with group 1 expects 4 (W.shape[1] * group)");
}

TEST(ConvRule, RankMismatchThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {1, 3, 8});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 3, 3, 3})), "w");
  const std::string message = BuildErrorOf(b, b.op("Conv", {x, w}, {}, "conv"));
  EXPECT_EQ(message.rfind("graph 'g': node 'conv' (Conv): inputs 'x' float32[1, 3, 8] and 'w' "
                          "float32[8, 3, 3, 3] must have the same rank",
                          0),
            0u)
      << message;
}

TEST(ConvRule, WindowLargerThanInputThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {1, 3, 2, 8});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 3, 3, 3})), "w");
  EXPECT_EQ(BuildErrorOf(b, b.op("Conv", {x, w}, {}, "conv")),
            "graph 'g': node 'conv' (Conv): window extent 3 on spatial axis 0 exceeds the padded "
            "input size 2 (input spatial shape [2, 8])");
}

TEST(ConvRule, BiasOfTheWrongLengthThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {1, 3, 8, 8});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 3, 3, 3})), "w");
  const std::string bias = b.constant(Tensor(kF32, Shape({4})), "bias");
  EXPECT_EQ(BuildErrorOf(b, b.op("Conv", {x, w, bias}, {}, "conv")),
            "graph 'g': node 'conv' (Conv): input 'bias' float32[4] must have one value per "
            "output channel of 'w' float32[8, 3, 3, 3] (4 vs 8)");
}

TEST(ConvRule, BadAttributesThrow) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {1, 3, 8, 8});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 3, 3, 3})), "w");
  EXPECT_EQ(BuildErrorOf(b, b.op("Conv", {x, w}, {{"strides", Ints64{1, 0}}}, "conv")),
            "graph 'g': node 'conv' (Conv): attribute 'strides' [1, 0] must be positive");
}

std::string PoolType(const std::string& op, const SymbolicShape& x_shape, Attributes attrs) {
  GraphBuilder b;
  return OutputType(b, b.op(op, {b.input("x", kF32, x_shape)}, std::move(attrs)));
}

TEST(PoolRule, MaxPoolGivesValuesAndInt64Indices) {
  GraphBuilder b;
  const std::vector<std::string> outs =
      b.op_multi("MaxPool", {b.input("x", kF32, {"N", 3, 8, 8})}, 2,
                 {{"kernel_shape", Ints64{2, 2}}, {"strides", Ints64{2, 2}}});
  EXPECT_EQ(OutputTypes(b, outs),
            (std::vector<std::string>{"float32[N, 3, 4, 4]", "int64[N, 3, 4, 4]"}));
}

TEST(PoolRule, CeilMode) {
  const Attributes floor = {{"kernel_shape", Ints64{3, 3}}, {"strides", Ints64{2, 2}}};
  Attributes ceil = floor;
  ceil["ceil_mode"] = int64_t{1};
  // floor((8 - 3) / 2) + 1 = 3; ceil(5 / 2) + 1 = 4.
  EXPECT_EQ(PoolType("MaxPool", {1, 1, 8, 8}, floor), "float32[1, 1, 3, 3]");
  EXPECT_EQ(PoolType("AveragePool", {1, 1, 8, 8}, ceil), "float32[1, 1, 4, 4]");
}

TEST(PoolRule, CeilModeDropsAWindowStartingInTheEndPadding) {
  // Size 4, kernel 1, stride 2, pads 0 / 1: ceil((4 + 1 - 1) / 2) + 1 = 3,
  // but the third window would start at 4, past the input: 2 windows.
  EXPECT_EQ(PoolType("MaxPool", {1, 1, 4},
                     {{"kernel_shape", Ints64{1}},
                      {"strides", Ints64{2}},
                      {"pads", Ints64{0, 1}},
                      {"ceil_mode", int64_t{1}}}),
            "float32[1, 1, 2]");
}

TEST(PoolRule, SymbolicSpatialSizes) {
  EXPECT_EQ(PoolType("AveragePool", {"N", "C", "H", 9}, {{"kernel_shape", Ints64{3, 3}}}),
            "float32[N, C, ?, 7]");
}

TEST(PoolRule, MissingKernelShapeOrWrongRankThrows) {
  {
    GraphBuilder b("g");
    EXPECT_EQ(BuildErrorOf(b, b.op("MaxPool", {b.input("x", kF32, {1, 1, 4, 4})}, {}, "pool")),
              "graph 'g': node 'pool' (MaxPool): required attribute 'kernel_shape' is missing");
  }
  GraphBuilder b("g");
  EXPECT_EQ(BuildErrorOf(b, b.op("MaxPool", {b.input("x", kF32, {1, 4, 4})},
                                 {{"kernel_shape", Ints64{2, 2}}}, "pool")),
            "graph 'g': node 'pool' (MaxPool): input 'x' float32[1, 4, 4] must have rank 4");
}

TEST(PoolRule, GlobalPools) {
  EXPECT_EQ(PoolType("GlobalAveragePool", {"N", 512, 7, 7}, {}), "float32[N, 512, 1, 1]");
  EXPECT_EQ(PoolType("GlobalMaxPool", {2, 3, "D", 5, 5}, {}), "float32[2, 3, 1, 1, 1]");
}

TEST(PoolRule, IndicesDTypeIsInt64EvenForUInt8) {
  GraphBuilder b;
  const std::vector<std::string> outs = b.op_multi(
      "MaxPool", {b.input("x", DType::kUInt8, {1, 1, 4, 4})}, 2, {{"kernel_shape", Ints64{2, 2}}});
  EXPECT_EQ(OutputTypes(b, outs),
            (std::vector<std::string>{"uint8[1, 1, 3, 3]", "int64[1, 1, 3, 3]"}));
}

}  // namespace
}  // namespace loom::graph
