#include "heatmap_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "loom/errors.h"

namespace loom::cli {
namespace {

constexpr int kCellWidth = 76;
constexpr int kCellHeight = 50;
constexpr int kLeft = 96;    // room for the y label and values
constexpr int kTop = 48;     // the title
constexpr int kBottom = 86;  // axis values, label, two legend lines
constexpr int kRight = 24;
constexpr int kMinWidth = 440;  // the title and legend fit even over a 1x1 grid

struct Rgb {
  double r, g, b;
};

Rgb Mix(Rgb a, Rgb b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

// Green → yellow → red for badness 0..1 (ColorBrewer's RdYlGn ends).
std::string Colour(double badness) {
  const Rgb green{26, 152, 80}, yellow{254, 224, 139}, red{215, 48, 39};
  const Rgb c = badness < 0.5 ? Mix(green, yellow, badness * 2) : Mix(yellow, red, badness * 2 - 1);
  char hex[8];
  std::snprintf(hex, sizeof(hex), "#%02x%02x%02x", static_cast<int>(std::lround(c.r)),
                static_cast<int>(std::lround(c.g)), static_cast<int>(std::lround(c.b)));
  return hex;
}

// 0 (the best's green) to 1 (red) for value `v`; see Heatmap::noise_band.
double Badness(const Heatmap& h, double v, double best, double lo, double hi) {
  if (h.noise_band > 0) {
    // How much worse than the best, as a fraction, in noise bands.
    const double shortfall = h.higher_is_better ? (v > 0 ? best / v - 1 : 1e300) : v / best - 1;
    const double bands = shortfall / h.noise_band;
    return std::clamp((bands - 1) / (kRedAtNoiseBands - 1), 0.0, 1.0);
  }
  const double spread = hi - lo;
  const double badness = spread > 0 ? (v - lo) / spread : 0;
  return h.higher_is_better ? 1 - badness : badness;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%#.3g", value);
  return text;
}

std::string Text(int x, int y, const std::string& text, const char* extra = "") {
  return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) +
         "\" text-anchor=\"middle\"" + extra + ">" + XmlEscape(text) + "</text>\n";
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderHeatmapSvg(const Heatmap& h) {
  const size_t nx = h.x_values.size(), ny = h.y_values.size();
  bool fits = h.values.size() == ny && (h.notes.empty() || h.notes.size() == ny);
  for (size_t y = 0; fits && y < ny; ++y) {
    fits = h.values[y].size() == nx && (h.notes.empty() || h.notes[y].size() == nx);
  }
  if (!fits) {
    throw InvalidArgumentError("heatmap '" + h.title + "': values must be " + std::to_string(ny) +
                               " rows of " + std::to_string(nx));
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  size_t best_x = nx, best_y = ny;
  for (size_t y = 0; y < ny; ++y) {
    for (size_t x = 0; x < nx; ++x) {
      const double v = h.values[y][x];
      if (std::isnan(v)) continue;
      const bool better = best_x == nx || (h.higher_is_better ? v > h.values[best_y][best_x]
                                                              : v < h.values[best_y][best_x]);
      if (better) {
        best_x = x;
        best_y = y;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }

  const double best_value = best_x < nx ? h.values[best_y][best_x] : 0;
  const int width = std::max(kMinWidth, kLeft + static_cast<int>(nx) * kCellWidth + kRight);
  const int height = kTop + static_cast<int>(ny) * kCellHeight + kBottom;
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
         " " + std::to_string(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n"
         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += Text(width / 2, 24, h.title, " font-size=\"15\" font-weight=\"bold\"");

  const int grid_bottom = kTop + static_cast<int>(ny) * kCellHeight;
  for (size_t y = 0; y < ny; ++y) {
    // Row 0 (the smallest y value) at the bottom, as on a plot.
    const int top = grid_bottom - static_cast<int>(y + 1) * kCellHeight;
    svg += Text(kLeft - 14, top + kCellHeight / 2 + 4, std::to_string(h.y_values[y]));
    for (size_t x = 0; x < nx; ++x) {
      const int left = kLeft + static_cast<int>(x) * kCellWidth;
      const double v = h.values[y][x];
      std::string fill = "#dddddd";
      if (!std::isnan(v)) fill = Colour(Badness(h, v, best_value, lo, hi));
      svg += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top) + "\" width=\"" +
             std::to_string(kCellWidth) + "\" height=\"" + std::to_string(kCellHeight) +
             "\" fill=\"" + fill + "\" stroke=\"white\"/>\n";
      const int cx = left + kCellWidth / 2;
      svg += Text(cx, top + 22, std::isnan(v) ? "n/a" : Number(v), " font-weight=\"bold\"");
      if (!h.notes.empty() && !h.notes[y][x].empty()) {
        svg += Text(cx, top + 38, h.notes[y][x], " font-size=\"10\"");
      }
    }
  }
  if (h.outline_x < nx && h.outline_y < ny) {
    best_x = h.outline_x;
    best_y = h.outline_y;
  }
  if (best_x < nx) {
    const int left = kLeft + static_cast<int>(best_x) * kCellWidth;
    const int top = grid_bottom - static_cast<int>(best_y + 1) * kCellHeight;
    svg += "<rect class=\"best\" x=\"" + std::to_string(left + 2) + "\" y=\"" +
           std::to_string(top + 2) + "\" width=\"" + std::to_string(kCellWidth - 4) +
           "\" height=\"" + std::to_string(kCellHeight - 4) +
           "\" fill=\"none\" stroke=\"black\" stroke-width=\"3\"/>\n";
  }
  for (size_t x = 0; x < nx; ++x) {
    svg += Text(kLeft + static_cast<int>(x) * kCellWidth + kCellWidth / 2, grid_bottom + 18,
                std::to_string(h.x_values[x]));
  }
  const int grid_center_x = kLeft + static_cast<int>(nx) * kCellWidth / 2;
  svg += Text(grid_center_x, grid_bottom + 40, h.x_label);
  const int grid_center_y = kTop + static_cast<int>(ny) * kCellHeight / 2;
  svg += "<text x=\"24\" y=\"" + std::to_string(grid_center_y) +
         "\" text-anchor=\"middle\" transform=\"rotate(-90 24 " + std::to_string(grid_center_y) +
         ")\">" + XmlEscape(h.y_label) + "</text>\n";
  const std::string legend = std::string("cell values in ") + h.unit + ", " +
                             (h.higher_is_better ? "higher" : "lower") +
                             " is better; the outlined cell is the pick";
  svg += Text(width / 2, grid_bottom + 58, legend, " font-size=\"11\" fill=\"#444444\"");
  if (h.noise_band > 0) {
    char band[96];
    std::snprintf(band, sizeof(band),
                  "cells within \u00b1%.1f %% (the noise) of the best share its green",
                  h.noise_band * 100);
    svg += Text(width / 2, grid_bottom + 74, band, " font-size=\"11\" fill=\"#444444\"");
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace loom::cli
