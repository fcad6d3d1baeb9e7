// A heatmap as a hand-written SVG document (no dependencies): what
// `loom tune` draws of its sweep. Columns are x values (intra-op threads),
// rows y values (inter-op threads, the smallest at the bottom); each cell is
// coloured from green (best) towards red, shows its value and an optional
// note, and the best cell (or the one the caller picks) is outlined.
//
// With a noise band the colour says how many bands a cell is from the best
// value: cells within one band share the best's green, and red means
// kRedAtNoiseBands bands or more — so a 2 % spread under 3 % noise is one
// colour, not green to red. Without one, colours run from the best value to
// the worst.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

struct Heatmap {
  std::string title;
  std::string x_label;  // "intra-op threads"
  std::string y_label;  // "inter-op threads"
  std::vector<int> x_values;
  std::vector<int> y_values;
  // values[y][x], in `unit`; NaN marks a cell that was not measured.
  std::vector<std::vector<double>> values;
  // notes[y][x], drawn under the value (e.g. "batch 8"); may be empty.
  std::vector<std::vector<std::string>> notes;
  std::string unit;  // "ms", "items/s"
  bool higher_is_better = false;
  // Relative noise (0.03: ±3 %); 0: shade from the best to the worst value.
  double noise_band = 0;
  // The cell to outline, as (x, y) indices; out of range (the default): the
  // cell with the best value.
  size_t outline_x = static_cast<size_t>(-1), outline_y = static_cast<size_t>(-1);
};

// With a noise band, cells this many bands (or more) worse than the best are
// full red: a guess at where "clearly worse" stops needing finer shades.
inline constexpr double kRedAtNoiseBands = 10;

// The SVG document. Throws loom::InvalidArgumentError if `values` (or a
// non-empty `notes`) is not y_values.size() rows of x_values.size().
std::string RenderHeatmapSvg(const Heatmap& heatmap);

// `text` with &, <, >, " and ' escaped for XML.
std::string XmlEscape(const std::string& text);

}  // namespace loom::cli
