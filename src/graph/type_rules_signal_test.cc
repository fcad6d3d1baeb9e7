// DFT, STFT, window and MelWeightMatrix rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::Ints;
using testing::kF32;
using testing::kF64;
using testing::kI64;
using testing::OutputType;

TEST(DftRule, AxisLengthAndOnesided) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 10, 12, 1});
  const std::string axis1 = b.constant(Ints({1}), "axis1");
  const std::string len16 = b.constant(Ints({16}), "len16");
  EXPECT_EQ(testing::OutputTypes(b, {b.op("DFT", {x}), b.op("DFT", {x, "", axis1}),
                                     b.op("DFT", {x, len16, axis1}, {{"onesided", int64_t{1}}})}),
            (std::vector<std::string>{"float32[N, 10, 12, 2]", "float32[N, 10, 12, 2]",
                                      "float32[N, 9, 12, 2]"}));
  GraphBuilder e("g");
  const std::string ex = e.input("x", kF32, {4, 3});
  EXPECT_EQ(BuildErrorOf(e, e.op("DFT", {ex}, {}, "dft")),
            "graph 'g': node 'dft' (DFT): input 'x' float32[4, 3] must end in 1 (real) or 2 "
            "(complex)");
}

TEST(StftRule, FramesAndBins) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {1, 128, 1});
  const std::string step = b.constant(Ints({8}), "step");
  const std::string length = b.constant(Ints({16}), "length");
  EXPECT_EQ(OutputType(b, b.op("STFT", {x, step, "", length})), "float32[1, 15, 9, 2]");
}

TEST(WindowRules, SizeAndDType) {
  GraphBuilder b;
  const std::string size = b.constant(Ints({10}), "size");
  const std::string n = b.input("n", kI64, {});
  EXPECT_EQ(
      testing::OutputTypes(b, {b.op("HannWindow", {size}),
                               b.op("BlackmanWindow", {n}, {{"output_datatype", int64_t{11}}}),
                               b.op("HammingWindow", {size})}),
      (std::vector<std::string>{"float32[10]", "float64[?]", "float32[10]"}));
  GraphBuilder m;
  const std::string bins = m.constant(Ints({8}), "bins");
  const std::string dft = m.constant(Ints({16}), "dft");
  const std::string rate = m.constant(Ints({8000}), "rate");
  const std::string lo = m.input("lo", kF32, {});
  const std::string hi = m.input("hi", kF32, {});
  EXPECT_EQ(OutputType(m, m.op("MelWeightMatrix", {bins, dft, rate, lo, hi})), "float32[9, 8]");
  GraphBuilder e("g");
  const std::string s = e.constant(Ints({4}), "s");
  EXPECT_NE(BuildErrorOf(e, e.op("HannWindow", {s}, {{"output_datatype", int64_t{9}}}, "w"))
                .find("output_datatype"),
            std::string::npos);
  (void)kF64;
}

}  // namespace
}  // namespace loom::graph
