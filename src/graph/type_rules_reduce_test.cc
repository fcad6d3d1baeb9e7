// Reduce*, ArgMax/ArgMin, TopK and CumSum rules.
#include <gtest/gtest.h>

#include <optional>
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

// ReduceSum over x [N, 3, 4] with axes as a constant input (nullopt: none).
std::string ReduceSumType(std::optional<std::vector<int64_t>> axes, Attributes attrs = {}) {
  GraphBuilder b;
  std::vector<std::string> inputs = {b.input("x", kF32, {"N", 3, 4})};
  if (axes) inputs.push_back(b.constant(Ints(*axes), "axes"));
  return OutputType(b, b.op("ReduceSum", inputs, std::move(attrs)));
}

TEST(ReduceRule, AxesFromAConstantInput) {
  EXPECT_EQ(ReduceSumType(std::vector<int64_t>{1}), "float32[N, 1, 4]");
  EXPECT_EQ(ReduceSumType(std::vector<int64_t>{1}, {{"keepdims", int64_t{0}}}), "float32[N, 4]");
  EXPECT_EQ(ReduceSumType(std::vector<int64_t>{-1, 0}, {{"keepdims", int64_t{0}}}), "float32[3]");
}

TEST(ReduceRule, NoAxesReducesEverythingUnlessNoop) {
  EXPECT_EQ(ReduceSumType(std::nullopt), "float32[1, 1, 1]");
  EXPECT_EQ(ReduceSumType(std::nullopt, {{"keepdims", int64_t{0}}}), "float32[]");
  EXPECT_EQ(ReduceSumType(std::vector<int64_t>{}, {{"keepdims", int64_t{0}}}), "float32[]");
  EXPECT_EQ(ReduceSumType(std::nullopt, {{"noop_with_empty_axes", int64_t{1}}}),
            "float32[N, 3, 4]");
}

TEST(ReduceRule, AxesFromTheOldAttribute) {
  GraphBuilder b;
  const std::string x = b.input("x", kI32, {"N", 3, 4});
  EXPECT_EQ(OutputType(b, b.op("ReduceMean", {x}, {{"axes", std::vector<int64_t>{2}}})),
            "int32[N, 3, 1]");
}

TEST(ReduceRule, AxesKnownOnlyAtRunTime) {
  {
    // keepdims: the rank stays; each dim is kept or becomes 1.
    GraphBuilder b;
    const std::string x = b.input("x", kF32, {"N", 1, 4});
    const std::string axes = b.input("axes", kI64, {1});
    EXPECT_EQ(OutputType(b, b.op("ReduceMax", {x, axes})), "float32[?, 1, ?]");
  }
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 1, 4});
  const std::string axes = b.input("axes", kI64, {1});
  EXPECT_EQ(OutputType(b, b.op("ReduceMax", {x, axes}, {{"keepdims", int64_t{0}}})),
            "float32 unranked");
}

TEST(ReduceRule, RepeatedOrOutOfRangeAxesThrow) {
  {
    GraphBuilder b("g");
    const std::string x = b.input("x", kF32, {2, 3});
    const std::string axes = b.constant(Ints({1, -1}), "axes");
    EXPECT_EQ(BuildErrorOf(b, b.op("ReduceSum", {x, axes}, {}, "sum")),
              "graph 'g': node 'sum' (ReduceSum): axes [1, -1] name axis 1 more than once (input "
              "'x' float32[2, 3])");
  }
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {2, 3});
  const std::string axes = b.constant(Ints({2}), "axes");
  EXPECT_EQ(BuildErrorOf(b, b.op("ReduceSum", {x, axes}, {}, "sum")),
            "graph 'g': node 'sum' (ReduceSum): axis 2 is outside [-2, 1] for rank 2");
}

TEST(ReduceRule, UnsupportedDTypeThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kI32, {2});
  EXPECT_EQ(BuildErrorOf(b, b.op("ReduceLogSumExp", {x}, {}, "lse")),
            "graph 'g': node 'lse' (ReduceLogSumExp): input 'x' int32[2] has dtype int32, which "
            "the kernel does not support (supported: float32, float64, bfloat16)");
  // ONNX's reductions take no 16-bit integers; ArgMax does.
  GraphBuilder c("g");
  const std::string u = c.input("u", DType::kUInt16, {2});
  EXPECT_EQ(BuildErrorOf(c, c.op("ReduceMax", {u}, {}, "max")),
            "graph 'g': node 'max' (ReduceMax): input 'u' uint16[2] has dtype uint16, which the "
            "kernel does not support (supported: float32, float64, int8, uint8, int32, int64, "
            "uint32, uint64, bfloat16)");
  GraphBuilder d;
  const std::string v = d.input("v", DType::kUInt16, {2, 3});
  const std::string w = d.input("w", DType::kUInt64, {2, 3});
  EXPECT_EQ(testing::OutputTypes(d, {d.op("ArgMax", {v}), d.op("ReduceSum", {w})}),
            (std::vector<std::string>{"int64[1, 3]", "uint64[1, 1]"}));
}

TEST(ArgReduceRule, GivesInt64) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 5});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("ArgMax", {x}, {{"axis", int64_t{1}}}),
                    b.op("ArgMin", {x}, {{"keepdims", int64_t{0}}}),
                    b.op("ArgMax", {x}, {{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}})}),
            (std::vector<std::string>{"int64[N, 1]", "int64[5]", "int64[N]"}));
}

TEST(ArgReduceRule, EmptyAxisThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {3, 0});
  EXPECT_EQ(BuildErrorOf(b, b.op("ArgMax", {x}, {{"axis", int64_t{1}}}, "am")),
            "graph 'g': node 'am' (ArgMax): cannot reduce the empty axis 1 of input 'x' "
            "float32[3, 0]");
}

TEST(TopKRule, ValuesAndIndicesTakeKAlongTheAxis) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 5});
  const std::string k = b.constant(Ints({3}), "k");
  EXPECT_EQ(testing::OutputTypes(b, b.op_multi("TopK", {x, k}, 2)),
            (std::vector<std::string>{"float32[N, 3]", "int64[N, 3]"}));
  GraphBuilder c;
  const std::string y = c.input("y", kI32, {4, "M"});
  const std::string runtime_k = c.input("k", kI64, {1});
  EXPECT_EQ(testing::OutputTypes(c, c.op_multi("TopK", {y, runtime_k}, 2, {{"axis", int64_t{0}}})),
            (std::vector<std::string>{"int32[?, M]", "int64[?, M]"}));
}

TEST(TopKRule, KBeyondTheAxisThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {2, 5});
  const std::string k = b.constant(Ints({6}), "k");
  EXPECT_EQ(BuildErrorOf(b, b.op_multi("TopK", {x, k}, 2, {}, "top")[0]),
            "graph 'g': node 'top' (TopK): input 'k' int64[1] = [6] must be one value in [0, 5] "
            "(axis 1 of 'x' float32[2, 5])");
}

TEST(CumSumRule, KeepsTheInputTypeAndChecksTheAxis) {
  GraphBuilder b;
  const std::string x = b.input("x", kI64, {"N", 3});
  const std::string axis = b.constant(Tensor::from_vector(Shape(), std::vector<int32_t>{-1}));
  EXPECT_EQ(OutputType(b, b.op("CumSum", {x, axis})), "int64[N, 3]");
  GraphBuilder c("g");
  const std::string y = c.input("y", kF32, {2});
  const std::string bad = c.constant(Ints({1}), "axis");
  EXPECT_EQ(BuildErrorOf(c, c.op("CumSum", {y, bad}, {}, "cs")),
            "graph 'g': node 'cs' (CumSum): input 'axis' 1 is outside [-1, 0] for rank 1");
}

}  // namespace
}  // namespace loom::graph
