// A heatmap as a hand-written SVG document (no dependencies): what
// `loom tune` draws of its sweep. Columns are x values (intra-op threads),
// rows y values (inter-op threads, the smallest at the bottom); each cell is
// coloured from green (best) to red (worst), shows its value and an optional
// note, and the best cell is outlined.
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
};

// The SVG document. Throws loom::InvalidArgumentError if `values` (or a
// non-empty `notes`) is not y_values.size() rows of x_values.size().
std::string RenderHeatmapSvg(const Heatmap& heatmap);

// `text` with &, <, >, " and ' escaped for XML.
std::string XmlEscape(const std::string& text);

}  // namespace loom::cli
