// GridSample, NonMaxSuppression and Einsum rules.
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

TEST(GridSampleRule, OutputTakesGridSpatialSizes) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 10, 12});
  const std::string grid = b.input("grid", kF32, {"N", "H", 7, 2});
  const std::string x3 = b.input("x3", kF64, {1, 2, 4, 5, 6});
  const std::string g3 = b.input("g3", kF32, {1, 2, 3, 4, 3});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("GridSample", {x, grid}), b.op("GridSample", {x3, g3})}),
            (std::vector<std::string>{"float32[N, 3, H, 7]", "float64[1, 2, 2, 3, 4]"}));
  GraphBuilder e("g");
  const std::string ex = e.input("x", kF32, {1, 3, 10, 12});
  const std::string eg = e.input("grid", kF32, {1, 5, 5, 3});
  EXPECT_EQ(BuildErrorOf(e, e.op("GridSample", {ex, eg}, {}, "gs")),
            "graph 'g': node 'gs' (GridSample): input 'grid' float32[1, 5, 5, 3] must end in its "
            "number of spatial axes (2)");
}

TEST(NonMaxSuppressionRule, Int64Triples) {
  GraphBuilder b;
  const std::string boxes = b.input("boxes", kF32, {"B", "N", 4});
  const std::string scores = b.input("scores", kF32, {"B", 3, "N"});
  EXPECT_EQ(OutputType(b, b.op("NonMaxSuppression", {boxes, scores})), "int64[?, 3]");
  GraphBuilder e("g");
  const std::string eb = e.input("boxes", kF32, {6, 4});
  const std::string es = e.input("scores", kF32, {1, 1, 6});
  EXPECT_NE(BuildErrorOf(e, e.op("NonMaxSuppression", {eb, es}, {}, "nms")).find("rank"),
            std::string::npos);
}

TEST(EinsumRule, LabelsGiveOutputSizes) {
  GraphBuilder b;
  const std::string x = b.input("x", kF64, {"B", 2, 3});
  const std::string y = b.input("y", kF64, {"B", 3, 4});
  const std::string d = b.input("d", kF64, {7, 5, 5});
  const std::string s = b.input("s", kF64, {});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("Einsum", {x, y}, {{"equation", std::string("bij, bjk -> bik")}}),
                    b.op("Einsum", {d}, {{"equation", std::string("...ii ->...i")}}),
                    b.op("Einsum", {x, y}, {{"equation", std::string("bij,bjk")}}),
                    b.op("Einsum", {s}, {{"equation", std::string("->")}})}),
            (std::vector<std::string>{"float64[B, 2, 4]", "float64[7, 5]", "float64[2, 4]",
                                      "float64[]"}));
  GraphBuilder e("g");
  const std::string ex = e.input("x", kF32, {2, 3});
  EXPECT_EQ(BuildErrorOf(e, e.op("Einsum", {ex}, {{"equation", std::string("ijk->i")}}, "es")),
            "graph 'g': node 'es' (Einsum): Einsum: equation term 'ijk' does not fit input 0 of "
            "rank 2");
}

}  // namespace
}  // namespace loom::graph

namespace loom::graph {
namespace {

TEST(AffineGridAndRoiAlignRules, Shapes) {
  GraphBuilder b;
  const std::string theta = b.input("theta", testing::kF32, {"N", 2, 3});
  const std::string size = b.constant(testing::Ints({2, 3, 5, 6}), "size");
  const std::string x = b.input("x", testing::kF32, {1, 8, 10, 10});
  const std::string rois = b.input("rois", testing::kF32, {"R", 4});
  const std::string batch = b.input("batch", testing::kI64, {"R"});
  EXPECT_EQ(testing::OutputTypes(
                b, {b.op("AffineGrid", {theta, size}),
                    b.op("RoiAlign", {x, rois, batch},
                         {{"output_height", int64_t{5}}, {"output_width", int64_t{4}}})}),
            (std::vector<std::string>{"float32[2, 5, 6, 2]", "float32[R, 8, 5, 4]"}));
}

}  // namespace
}  // namespace loom::graph

namespace loom::graph {
namespace {

TEST(DeformConvRule, OutputFromOffsetSizes) {
  GraphBuilder b;
  const std::string x = b.input("x", testing::kF32, {"N", 4, 9, 9});
  const std::string w = b.input("w", testing::kF32, {8, 2, 3, 3});
  const std::string offset = b.input("offset", testing::kF32, {"N", 18, 7, 7});
  EXPECT_EQ(OutputType(b, b.op("DeformConv", {x, w, offset}, {{"group", int64_t{2}}})),
            "float32[N, 8, 7, 7]");
}

}  // namespace
}  // namespace loom::graph
