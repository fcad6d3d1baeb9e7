#include "heatmap_svg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "loom/errors.h"

namespace loom::cli {
namespace {

Heatmap TwoByTwo(bool higher_is_better) {
  Heatmap h;
  h.title = "tune <demo> & co";
  h.x_label = "intra-op threads";
  h.y_label = "inter-op threads";
  h.x_values = {1, 2};
  h.y_values = {1, 2};
  // values[y][x]: the best is intra 2 / inter 1 for latency (0.5 ms), and
  // intra 1 / inter 2 for throughput (4.0).
  h.values = {{2.0, 0.5}, {4.0, 1.0}};
  h.unit = higher_is_better ? "items/s" : "ms";
  h.higher_is_better = higher_is_better;
  return h;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The x and y attributes of the outlined cell.
std::pair<int, int> BestCellPosition(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("class=\"best\" x=\"(\\d+)\" y=\"(\\d+)\"")));
  return {std::stoi(m[1]), std::stoi(m[2])};
}

TEST(HeatmapSvg, IsOneSvgDocumentWithEveryValueAndLabel) {
  const std::string svg = RenderHeatmapSvg(TwoByTwo(false));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(Count(svg, "<svg "), 1);
  EXPECT_EQ(Count(svg, "</svg>"), 1);
  EXPECT_EQ(Count(svg, "<text"), Count(svg, "</text>"));
  for (const char* text : {">2.00<", ">0.500<", ">4.00<", ">1.00<", "intra-op threads",
                           "inter-op threads", "tune &lt;demo&gt; &amp; co"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
  EXPECT_EQ(svg.find("<demo>"), std::string::npos) << "the title must be escaped";
  EXPECT_EQ(Count(svg, "class=\"best\""), 1);
}

TEST(HeatmapSvg, OutlinesTheBestCellForTheObjective) {
  // Cells are 76 x 50 from (96, 48); row 0 (inter 1) is the bottom row.
  const auto latency = BestCellPosition(RenderHeatmapSvg(TwoByTwo(false)));
  EXPECT_EQ(latency.first, 96 + 76 + 2);   // intra 2
  EXPECT_EQ(latency.second, 48 + 50 + 2);  // inter 1: the lower row
  const auto throughput = BestCellPosition(RenderHeatmapSvg(TwoByTwo(true)));
  EXPECT_EQ(throughput.first, 96 + 2);   // intra 1
  EXPECT_EQ(throughput.second, 48 + 2);  // inter 2: the upper row
}

TEST(HeatmapSvg, BestIsGreenWorstIsRedUnmeasuredIsGrey) {
  Heatmap h = TwoByTwo(false);
  h.values[1][1] = std::numeric_limits<double>::quiet_NaN();
  const std::string svg = RenderHeatmapSvg(h);
  EXPECT_NE(svg.find("fill=\"#1a9850\""), std::string::npos);  // 0.5, the best
  EXPECT_NE(svg.find("fill=\"#d73027\""), std::string::npos);  // 4.0, the worst
  EXPECT_NE(svg.find("fill=\"#dddddd\""), std::string::npos);
  EXPECT_NE(svg.find(">n/a<"), std::string::npos);
}

// Every cell's fill colour, in drawing order.
std::vector<std::string> Fills(const std::string& svg) {
  std::vector<std::string> fills;
  const std::regex fill("height=\"50\" fill=\"(#[0-9a-f]{6})\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), fill); it != std::sregex_iterator();
       ++it) {
    fills.push_back((*it)[1]);
  }
  return fills;
}

TEST(HeatmapSvg, ASpreadWithinTheNoiseIsShadedUniformly) {
  Heatmap h = TwoByTwo(false);
  h.values = {{1.00, 1.01}, {1.02, 1.015}};  // a 2 % spread
  h.noise_band = 0.03;
  const std::string svg = RenderHeatmapSvg(h);
  const std::vector<std::string> fills = Fills(svg);
  ASSERT_EQ(fills.size(), 4u) << svg;
  for (const std::string& fill : fills) EXPECT_EQ(fill, "#1a9850");
  EXPECT_NE(svg.find("within \u00b13.0 % (the noise)"), std::string::npos);
  h.noise_band = 0;
  EXPECT_NE(Fills(RenderHeatmapSvg(h)), fills) << "without a band: best to worst";
}

TEST(HeatmapSvg, ShadesByNoiseBandsFromTheBest) {
  Heatmap h = TwoByTwo(true);
  // items/s; the best is 100. 1.5 % below: within the band; 20 % below: 10
  // bands (red); 6 % below: in between.
  h.values = {{100, 98.5}, {100 / 1.06, 100 / 1.2}};
  h.noise_band = 0.02;
  const std::vector<std::string> fills = Fills(RenderHeatmapSvg(h));
  ASSERT_EQ(fills.size(), 4u);
  // Drawn row by row from y = 0: (1,1) (2,1) then (1,2) (2,2).
  EXPECT_EQ(fills[0], "#1a9850");
  EXPECT_EQ(fills[1], "#1a9850");
  EXPECT_NE(fills[2], "#1a9850");
  EXPECT_NE(fills[2], "#d73027");
  EXPECT_EQ(fills[3], "#d73027");
}

TEST(HeatmapSvg, OutlinesTheCellTheCallerPicks) {
  Heatmap h = TwoByTwo(false);
  h.outline_x = 0;
  h.outline_y = 0;  // intra 1 / inter 1, not the best value
  EXPECT_EQ(BestCellPosition(RenderHeatmapSvg(h)), std::make_pair(96 + 2, 48 + 50 + 2));
}

TEST(HeatmapSvg, NotesAreDrawnUnderValues) {
  Heatmap h = TwoByTwo(true);
  h.notes = {{"batch 1", "batch 2"}, {"batch 8", ""}};
  const std::string svg = RenderHeatmapSvg(h);
  EXPECT_NE(svg.find(">batch 8<"), std::string::npos);
  EXPECT_EQ(Count(svg, ">batch "), 3);
}

TEST(HeatmapSvg, MismatchedValuesAreRejected) {
  Heatmap h = TwoByTwo(false);
  h.values.pop_back();
  EXPECT_THROW(RenderHeatmapSvg(h), InvalidArgumentError);
  h = TwoByTwo(false);
  h.notes = {{"a"}};
  EXPECT_THROW(RenderHeatmapSvg(h), InvalidArgumentError);
}

TEST(XmlEscape, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
}

}  // namespace
}  // namespace loom::cli
