// RNN, GRU and LSTM rules: output shapes in both layouts and directions,
// symbolic dims carried through, and the attribute errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::kF32;
using testing::kI32;

std::vector<std::string> Types(GraphBuilder& b, const std::vector<std::string>& outputs) {
  return testing::OutputTypes(b, outputs);
}

TEST(RecurrentRule, LstmBidirectionalLayout0) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"T", "N", 5});
  const std::string w = b.input("w", kF32, {2, 28, 5});
  const std::string r = b.input("r", kF32, {2, 28, 7});
  const std::string lens = b.input("lens", kI32, {"N"});
  const auto outs =
      b.op_multi("LSTM", {x, w, r, "", lens}, 3, {{"direction", std::string("bidirectional")}});
  EXPECT_EQ(Types(b, outs), (std::vector<std::string>{"float32[T, 2, N, 7]", "float32[2, N, 7]",
                                                      "float32[2, N, 7]"}));
}

TEST(RecurrentRule, GruLayout1AndHiddenFromAttribute) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", "T", 3});
  const std::string w = b.input("w", kF32, {1, 12, 3});
  const std::string r = b.input("r", kF32, {1, "G", "H"});
  const auto outs =
      b.op_multi("GRU", {x, w, r}, 2, {{"layout", int64_t{1}}, {"hidden_size", int64_t{4}}});
  EXPECT_EQ(Types(b, outs), (std::vector<std::string>{"float32[N, T, 1, 4]", "float32[N, 1, 4]"}));
}

TEST(RecurrentRule, RnnHiddenFromR) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {6, 2, 3});
  const std::string w = b.input("w", kF32, {1, "H", 3});
  const std::string r = b.input("r", kF32, {1, "H", "H"});
  const auto outs = b.op_multi("RNN", {x, w, r}, 2, {{"direction", std::string("reverse")}});
  EXPECT_EQ(Types(b, outs), (std::vector<std::string>{"float32[6, 1, 2, H]", "float32[1, 2, H]"}));
}

TEST(RecurrentRule, Errors) {
  {
    GraphBuilder b("g");
    const std::string x = b.input("x", kF32, {6, 2, 3});
    const std::string w = b.input("w", kF32, {1, 4, 3});
    const std::string r = b.input("r", kF32, {1, 4, 4});
    EXPECT_EQ(BuildErrorOf(b, b.op("RNN", {x, w, r}, {{"direction", std::string("up")}}, "n")),
              "graph 'g': node 'n' (RNN): attribute 'direction' must be forward, reverse or "
              "bidirectional (got 'up')");
  }
  {
    GraphBuilder b("g");
    const std::string x = b.input("x", kF32, {6, 2, 3});
    const std::string w = b.input("w", kF32, {1, 4, 3});
    const std::string r = b.input("r", kF32, {1, 4, 4});
    EXPECT_EQ(BuildErrorOf(b, b.op("RNN", {x, w, r}, {{"layout", int64_t{2}}}, "n")),
              "graph 'g': node 'n' (RNN): attribute 'layout' must be 0 or 1 (got 2)");
  }
  {
    GraphBuilder b("g");
    const std::string x = b.input("x", kF32, {6, 2, 3});
    const std::string w = b.input("w", kF32, {1, 4, 3});
    const std::string r = b.input("r", kF32, {1, 4, 4});
    EXPECT_EQ(
        BuildErrorOf(b, b.op("RNN", {x, w, r}, {{"direction", std::string("bidirectional")}}, "n")),
        "graph 'g': node 'n' (RNN): input 'w' float32[1, 4, 3] must have 2 directions for "
        "direction 'bidirectional'");
  }
  {
    GraphBuilder b("g");
    const std::string x = b.input("x", kF32, {6, 2});
    const std::string w = b.input("w", kF32, {1, 4, 3});
    const std::string r = b.input("r", kF32, {1, 4, 4});
    EXPECT_NE(BuildErrorOf(b, b.op("RNN", {x, w, r}, {}, "n")).find("rank 3"), std::string::npos);
  }
}

}  // namespace
}  // namespace loom::graph
