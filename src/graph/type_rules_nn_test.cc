// MatMul, Gemm, normalization and softmax rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::kF32;
using testing::kF64;
using testing::OutputType;
using testing::OutputTypes;

std::string MatMulType(const SymbolicShape& a, const SymbolicShape& b) {
  GraphBuilder builder;
  const std::string x = builder.input("a", kF32, a);
  const std::string y = builder.input("b", kF32, b);
  return OutputType(builder, builder.op("MatMul", {x, y}));
}

std::string MatMulError(const SymbolicShape& a, const SymbolicShape& b) {
  GraphBuilder builder("g");
  const std::string x = builder.input("a", kF32, a);
  const std::string y = builder.input("b", kF32, b);
  return BuildErrorOf(builder, builder.op("MatMul", {x, y}, {}, "mm"));
}

TEST(MatMulRule, Matrices) {
  EXPECT_EQ(MatMulType({2, 3}, {3, 4}), "float32[2, 4]");
  EXPECT_EQ(MatMulType({"M", "K"}, {"K", 4}), "float32[M, 4]");
  EXPECT_EQ(MatMulType({"M", 3}, {"K", 4}), "float32[M, 4]");  // K checked at run time
}

TEST(MatMulRule, VectorsDropTheirUnitDim) {
  EXPECT_EQ(MatMulType({3}, {3, 4}), "float32[4]");
  EXPECT_EQ(MatMulType({2, 3}, {3}), "float32[2]");
  EXPECT_EQ(MatMulType({3}, {3}), "float32[]");
  EXPECT_EQ(MatMulType({3}, {5, 3, 4}), "float32[5, 4]");
}

TEST(MatMulRule, BatchDimsBroadcast) {
  EXPECT_EQ(MatMulType({5, 1, 2, 3}, {4, 3, 6}), "float32[5, 4, 2, 6]");
  EXPECT_EQ(MatMulType({"N", "S", 64}, {64, 128}), "float32[N, S, 128]");
  EXPECT_EQ(MatMulType({"B", 2, 3}, {"C", 3, 4}), "float32[?, 2, 4]");
  EXPECT_EQ(MatMulType({"B", 2, 3}, {7, 3, 4}), "float32[7, 2, 4]");
}

TEST(MatMulRule, InnerDimMismatchThrows) {
  EXPECT_EQ(MatMulError({2, 3}, {4, 5}),
            "graph 'g': node 'mm' (MatMul): inner dimensions differ: 'a' float32[2, 3] has K = "
            "3, 'b' float32[4, 5] has K = 4");
  EXPECT_EQ(MatMulError({3}, {2}),
            "graph 'g': node 'mm' (MatMul): inner dimensions differ: 'a' float32[3] has K = 3, "
            "'b' float32[2] has K = 2");
}

TEST(MatMulRule, BatchMismatchAndScalarsThrow) {
  EXPECT_EQ(MatMulError({2, 2, 3}, {3, 3, 4}),
            "graph 'g': node 'mm' (MatMul): batch dimensions of 'a' float32[2, 2, 3] and 'b' "
            "float32[3, 3, 4] do not broadcast (2 vs 3)");
  EXPECT_EQ(MatMulError({}, {3}),
            "graph 'g': node 'mm' (MatMul): input 'a' float32[] must have rank >= 1");
}

TEST(FusedMatMulRule, MatMulShapeWithABiasPerColumn) {
  for (bool with_bias : {true, false}) {
    GraphBuilder b;
    std::vector<std::string> inputs = {b.input("a", kF32, {"S", 64, 128}),
                                       b.input("w", kF32, {128, 32})};
    if (with_bias) inputs.push_back(b.input("bias", kF32, {32}));
    EXPECT_EQ(OutputType(b, b.op("FusedMatMul", inputs)), "float32[S, 64, 32]");
  }

  GraphBuilder wrong_bias("g");
  EXPECT_EQ(BuildErrorOf(wrong_bias, wrong_bias.op("FusedMatMul",
                                                   {wrong_bias.input("a", kF32, {4, 128}),
                                                    wrong_bias.input("w", kF32, {128, 32}),
                                                    wrong_bias.input("bias", kF32, {31})},
                                                   {}, "fmm")),
            "graph 'g': node 'fmm' (FusedMatMul): bias 'bias' float32[31] must have one value "
            "per column of 'w' float32[128, 32]");
  GraphBuilder batched_b("g");
  EXPECT_NE(BuildErrorOf(batched_b, batched_b.op("FusedMatMul",
                                                 {batched_b.input("a", kF32, {4, 128}),
                                                  batched_b.input("w", kF32, {2, 128, 32})},
                                                 {}, "fmm"))
                .find("rank"),
            std::string::npos);
}

std::string GemmType(const SymbolicShape& a, const SymbolicShape& b, Attributes attrs,
                     const SymbolicShape* c = nullptr) {
  GraphBuilder builder("g");
  std::vector<std::string> inputs = {builder.input("a", kF32, a), builder.input("b", kF32, b)};
  if (c != nullptr) inputs.push_back(builder.input("c", kF32, *c));
  const std::string y = builder.op("Gemm", inputs, std::move(attrs), "gemm");
  builder.output(y);
  try {
    Graph g = builder.build();
    InferTypes(g);
    return testing::Render(g.value_types.at(y));
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
}

TEST(GemmRule, Transposes) {
  EXPECT_EQ(GemmType({4, 3}, {3, 5}, {}), "float32[4, 5]");
  EXPECT_EQ(GemmType({3, 4}, {3, 5}, {{"transA", int64_t{1}}}), "float32[4, 5]");
  EXPECT_EQ(GemmType({4, 3}, {5, 3}, {{"transB", int64_t{1}}}), "float32[4, 5]");
  EXPECT_EQ(GemmType({"N", 2048}, {10, 2048}, {{"transB", int64_t{1}}}), "float32[N, 10]");
}

TEST(GemmRule, BiasBroadcastsToMN) {
  const SymbolicShape row = {5};
  const SymbolicShape column = {4, 1};
  const SymbolicShape full = {4, 5};
  const SymbolicShape scalar = {};
  for (const SymbolicShape* c : {&row, &column, &full, &scalar}) {
    EXPECT_EQ(GemmType({4, 3}, {3, 5}, {}, c), "float32[4, 5]");
  }
  const SymbolicShape wrong = {3};
  EXPECT_EQ(GemmType({4, 3}, {3, 5}, {}, &wrong),
            "graph 'g': node 'gemm' (Gemm): input 'c' float32[3] does not broadcast to [M, N] = "
            "[4, 5]");
}

TEST(GemmRule, InnerDimMismatchAndRankThrow) {
  EXPECT_EQ(GemmType({4, 3}, {5, 3}, {}),
            "graph 'g': node 'gemm' (Gemm): inner dimensions differ: op(A) of 'a' float32[4, 3] "
            "has K = 3, op(B) of 'b' float32[5, 3] has K = 5 (transA 0, transB 0)");
  EXPECT_EQ(GemmType({2, 4, 3}, {3, 5}, {}),
            "graph 'g': node 'gemm' (Gemm): input 'a' float32[2, 4, 3] must have rank 2");
}

TEST(BatchNormalizationRule, KeepsXTypeAndChecksChannels) {
  GraphBuilder b;
  std::vector<std::string> inputs = {b.input("x", kF32, {"N", 16, 8, 8})};
  for (const char* name : {"scale", "bias", "mean", "var"}) {
    inputs.push_back(b.constant(Tensor(kF32, Shape({16})), name));
  }
  EXPECT_EQ(OutputType(b, b.op("BatchNormalization", inputs)), "float32[N, 16, 8, 8]");

  GraphBuilder bad("g");
  std::vector<std::string> bad_inputs = {bad.input("x", kF32, {"N", 16, 8, 8})};
  for (const char* name : {"scale", "bias", "mean"}) {
    bad_inputs.push_back(bad.constant(Tensor(kF32, Shape({16})), name));
  }
  bad_inputs.push_back(bad.constant(Tensor(kF32, Shape({8})), "var"));
  EXPECT_EQ(BuildErrorOf(bad, bad.op("BatchNormalization", bad_inputs, {}, "bn")),
            "graph 'g': node 'bn' (BatchNormalization): input 'var' float32[8] must have one "
            "value per channel of 'x' float32[N, 16, 8, 8] (8 vs 16)");
}

TEST(BatchNormalizationRule, TrainingModeThrows) {
  GraphBuilder b("g");
  std::vector<std::string> inputs = {b.input("x", kF32, {2, 3})};
  for (const char* name : {"scale", "bias", "mean", "var"}) {
    inputs.push_back(b.constant(Tensor(kF32, Shape({3})), name));
  }
  EXPECT_EQ(
      BuildErrorOf(b, b.op("BatchNormalization", inputs, {{"training_mode", int64_t{1}}}, "bn")),
      "graph 'g': node 'bn' (BatchNormalization): training_mode = 1 is not supported "
      "(inference only)");
}

TEST(InstanceNormalizationRule, KeepsXTypeAndNeedsRank3) {
  GraphBuilder b;
  const std::string x = b.input("x", kF64, {2, 3, 4, 4});
  const std::string s = b.constant(Tensor(kF64, Shape({3})), "s");
  const std::string bias = b.constant(Tensor(kF64, Shape({3})), "bias");
  EXPECT_EQ(OutputType(b, b.op("InstanceNormalization", {x, s, bias})), "float64[2, 3, 4, 4]");

  GraphBuilder bad("g");
  const std::string y = bad.input("y", kF32, {2, 3});
  const std::string s2 = bad.constant(Tensor(kF32, Shape({3})), "s");
  EXPECT_EQ(BuildErrorOf(bad, bad.op("InstanceNormalization", {y, s2, s2}, {}, "in")),
            "graph 'g': node 'in' (InstanceNormalization): input 'y' float32[2, 3] must have "
            "rank >= 3 ([N, C, spatial...])");
}

TEST(LayerNormalizationRule, StatisticsAreFloat32OverTheLeadingAxes) {
  GraphBuilder b;
  const std::string x = b.input("x", kF64, {"N", "S", 64});
  const std::string s = b.constant(Tensor(kF64, Shape({64})), "s");
  const std::string bias = b.constant(Tensor(kF64, Shape({1, 64})), "bias");
  EXPECT_EQ(
      OutputTypes(b, b.op_multi("LayerNormalization", {x, s, bias}, 3)),
      (std::vector<std::string>{"float64[N, S, 64]", "float32[N, S, 1]", "float32[N, S, 1]"}));
}

TEST(LayerNormalizationRule, AxisOneNormalizesTheTrailingAxes) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 4, 8});
  const std::string s = b.constant(Tensor(kF32, Shape({4, 8})), "s");
  EXPECT_EQ(OutputTypes(b, b.op_multi("LayerNormalization", {x, s}, 2, {{"axis", int64_t{1}}})),
            (std::vector<std::string>{"float32[N, 4, 8]", "float32[N, 1, 1]"}));
}

TEST(LayerNormalizationRule, ScaleOfTheWrongShapeThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {"N", 64});
  const std::string s = b.constant(Tensor(kF32, Shape({32})), "s");
  EXPECT_EQ(BuildErrorOf(b, b.op("LayerNormalization", {x, s}, {}, "ln")),
            "graph 'g': node 'ln' (LayerNormalization): input 's' float32[32] must have shape "
            "[64] (X.shape[axis:] of 'x' float32[N, 64]) (32 vs 64)");
}

TEST(SoftmaxRule, KeepsTypeAndChecksAxis) {
  GraphBuilder b;
  const std::string x = b.input("x", kF64, {"N", 10});
  EXPECT_EQ(OutputTypes(b, {b.op("Softmax", {x}, {{"axis", int64_t{1}}}), b.op("LogSoftmax", {x})}),
            (std::vector<std::string>{"float64[N, 10]", "float64[N, 10]"}));

  GraphBuilder bad("g");
  const std::string y = bad.input("y", kF32, {"N", 10});
  EXPECT_EQ(BuildErrorOf(bad, bad.op("Softmax", {y}, {{"axis", int64_t{2}}}, "sm")),
            "graph 'g': node 'sm' (Softmax): attribute 'axis' 2 is outside [-2, 1] for rank 2");
}

TEST(LoomAttentionRule, OutputTakesQueryRowsAndValueDepthInItsLayout) {
  GraphBuilder b;
  const std::string q = b.input("q", kF32, {"B", "S", 12, 32});  // bshd
  const std::string k = b.input("k", kF32, {"B", 12, "T", 32});  // bhsd
  const std::string v = b.input("v", kF32, {"B", 12, "T", 16});
  const std::string mask = b.input("mask", testing::kBool, {"S", "T"});
  EXPECT_EQ(
      OutputTypes(
          b, {b.op("LoomAttention", {q, k, v, mask},
                   {{"q_layout", std::string("bshd")}, {"scale", 0.125f}}),
              b.op("LoomAttention", {q, k, v},
                   {{"q_layout", std::string("bshd")}, {"output_layout", std::string("bshd")}})}),
      (std::vector<std::string>{"float32[B, 12, S, 16]", "float32[B, S, 12, 16]"}));

  GraphBuilder bad("g");
  const std::string x = bad.input("x", kF32, {1, 2, 3, 4});
  EXPECT_EQ(BuildErrorOf(bad, bad.op("LoomAttention", {x, x, x},
                                     {{"v_layout", std::string("bhds")}}, "att")),
            "graph 'g': node 'att' (LoomAttention): attribute 'v_layout' must be \"bhsd\" or "
            "\"bshd\" (got \"bhds\")");
}

}  // namespace
}  // namespace loom::graph
