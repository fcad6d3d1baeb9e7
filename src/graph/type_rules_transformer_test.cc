// RMSNormalization, RotaryEmbedding and Attention rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::kF32;
using testing::kF64;
using testing::kI64;
using testing::OutputType;

TEST(RMSNormalizationRule, XShapeScaleDtype) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 4, 8});
  const std::string s = b.input("s", kF64, {8});
  const std::string s2 = b.input("s2", kF32, {4, 1});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("RMSNormalization", {x, s}),
                                     b.op("RMSNormalization", {x, s2}, {{"axis", int64_t{1}}})}),
            (std::vector<std::string>{"float64[N, 4, 8]", "float32[N, 4, 8]"}));
}

TEST(RMSNormalizationRule, Errors) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {2, 4});
  const std::string s = b.input("s", kF32, {3});
  EXPECT_NE(BuildErrorOf(b, b.op("RMSNormalization", {x, s}, {}, "rms"))
                .find("node 'rms' (RMSNormalization): input 's' float32[3] must broadcast"),
            std::string::npos);
  GraphBuilder c("g");
  const std::string cx = c.input("x", kF32, {2, 4});
  const std::string cs = c.input("s", kF32, {4});
  EXPECT_NE(
      BuildErrorOf(c, c.op("RMSNormalization", {cx, cs}, {{"axis", int64_t{2}}})).find("axis"),
      std::string::npos);
}

TEST(RotaryEmbeddingRule, XTypeAndChecks) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"B", 2, "S", 8});
  const std::string c = b.input("c", kF32, {"B", "S", 4});
  EXPECT_EQ(OutputType(b, b.op("RotaryEmbedding", {x, c, c})), "float32[B, 2, S, 8]");
  GraphBuilder e("g");
  const std::string x3 = e.input("x", kF32, {1, 3, 8});
  const std::string ec = e.input("c", kF32, {1, 3, 4});
  EXPECT_NE(BuildErrorOf(e, e.op("RotaryEmbedding", {x3, ec, ec})).find("num_heads"),
            std::string::npos);
  GraphBuilder f("g");
  const std::string fx = f.input("x", kF32, {1, 2, 3, 8});
  const std::string fc = f.input("c", kF32, {1, 3, 4});
  const std::string ids = f.input("ids", kF32, {1, 3});
  EXPECT_NE(BuildErrorOf(f, f.op("RotaryEmbedding", {fx, fc, fc, ids})), "no error");
}

TEST(AttentionRule, FourDimensionalWithPast) {
  GraphBuilder b;
  const std::string q = b.input("q", kF32, {"B", 8, "S", 16});
  const std::string k = b.input("k", kF32, {"B", 2, "L", 16});
  const std::string v = b.input("v", kF32, {"B", 2, "L", 24});
  const std::string pk = b.input("pk", kF32, {"B", 2, 5, 16});
  const std::string pv = b.input("pv", kF32, {"B", 2, 5, 24});
  const std::vector<std::string> out = b.op_multi("Attention", {q, k, v, "", pk, pv}, 4, {}, "att");
  EXPECT_EQ(testing::OutputTypes(b, out),
            (std::vector<std::string>{"float32[B, 8, S, 24]", "float32[B, 2, ?, 16]",
                                      "float32[B, 2, ?, 24]", "float32[B, 8, S, ?]"}));
}

TEST(AttentionRule, ThreeDimensional) {
  GraphBuilder b;
  const std::string q = b.input("q", kF32, {2, 3, 32});
  const std::string k = b.input("k", kF32, {2, 6, 16});
  const std::string v = b.input("v", kF32, {2, 6, 8});
  const std::vector<std::string> out = b.op_multi(
      "Attention", {q, k, v}, 4, {{"q_num_heads", int64_t{4}}, {"kv_num_heads", int64_t{2}}});
  EXPECT_EQ(testing::OutputTypes(b, out),
            (std::vector<std::string>{"float32[2, 3, 16]", "float32[2, 2, 6, 8]",
                                      "float32[2, 2, 6, 4]", "float32[2, 4, 3, 6]"}));
}

TEST(AttentionRule, Errors) {
  GraphBuilder b("g");
  const std::string q = b.input("q", kF32, {2, 3, 32});
  EXPECT_NE(BuildErrorOf(b, b.op("Attention", {q, q, q}, {}, "att")).find("q_num_heads"),
            std::string::npos);
  GraphBuilder c("g");
  const std::string q4 = c.input("q", kF32, {1, 2, 3, 8});
  const std::string k4 = c.input("k", kF32, {1, 2, 3, 7});
  EXPECT_NE(BuildErrorOf(c, c.op("Attention", {q4, k4, k4})).find("head size"), std::string::npos);
  GraphBuilder d("g");
  const std::string dq = d.input("q", kF32, {1, 2, 3, 8});
  const std::string di = d.input("i", kI64, {1, 2, 3, 8});
  EXPECT_NE(BuildErrorOf(d, d.op("Attention", {dq, di, dq})), "no error");
}

}  // namespace
}  // namespace loom::graph
