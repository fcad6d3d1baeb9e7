// Resize's output shape, shared by the kernel (resize.cc) and its type rule
// (graph/type_rules_resize.cc) so both compute it one way. Header-only: the
// graph library uses it without linking the kernel family.
//
// ONNX Resize (opset 11-19): either `scales` or `sizes` is given, for every
// axis or for the axes in `axes` (opset 18); the other axes keep their size
// and a scale of 1.
//   scales: out[d] = floor(in[d] * scales[d])
//   sizes, keep_aspect_ratio_policy "stretch": out[d] = sizes[d], scale
//     out / in;
//   "not_larger" / "not_smaller": one scale for the resized axes, the min /
//     max of sizes[d] / in[d]; out[d] = floor(scale * in[d] + 0.5).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::kernels::resize {

struct ResizeShape {
  std::vector<int64_t> out;   // every axis
  std::vector<double> scale;  // every axis: the factor the coordinate maps use
};

// The axes Resize changes, normalized, in the order given (all axes when
// `axes` is empty). Returns an error message instead when an axis is out of
// range or repeated.
inline std::optional<std::string> NormalizeResizeAxes(const std::vector<int64_t>& axes, int rank,
                                                      std::vector<int>& out) {
  out.clear();
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) out.push_back(d);
    return std::nullopt;
  }
  for (int64_t a : axes) {
    const int64_t d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank) {
      return "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank);
    }
    if (std::find(out.begin(), out.end(), static_cast<int>(d)) != out.end()) {
      return "axis " + std::to_string(a) + " is repeated";
    }
    out.push_back(static_cast<int>(d));
  }
  return std::nullopt;
}

// The output shape, or an error message. `scales` / `sizes` hold one value
// per entry of `axes` (already normalized); exactly one of them is given.
inline std::optional<std::string> ComputeResizeShape(
    const std::vector<int64_t>& in, const std::vector<int>& axes, const std::vector<float>* scales,
    const std::vector<int64_t>* sizes, const std::string& policy, ResizeShape& shape) {
  const size_t rank = in.size();
  shape.out = in;
  shape.scale.assign(rank, 1.0);
  const size_t count = scales ? scales->size() : sizes->size();
  if (count != axes.size()) {
    return std::string(scales ? "'scales'" : "'sizes'") + " has " + std::to_string(count) +
           " values, expected " + std::to_string(axes.size()) + " (one per resized axis)";
  }
  if (scales) {
    for (size_t k = 0; k < axes.size(); ++k) {
      const double s = (*scales)[k];
      if (!(s > 0) || !std::isfinite(s)) {
        return "'scales' must be positive and finite (got " + std::to_string(s) + ")";
      }
      const double out = std::floor(static_cast<double>(in[axes[k]]) * s);
      if (out > static_cast<double>(int64_t{1} << 40)) return "'scales' make an absurd size";
      shape.scale[axes[k]] = s;
      shape.out[axes[k]] = static_cast<int64_t>(out);
    }
    return std::nullopt;
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    if ((*sizes)[k] < 0) return "'sizes' must not be negative";
    if (in[axes[k]] == 0 && (*sizes)[k] != 0) return "cannot resize an empty axis to a size > 0";
  }
  if (policy == "stretch") {
    for (size_t k = 0; k < axes.size(); ++k) {
      const int d = axes[k];
      shape.out[d] = (*sizes)[k];
      shape.scale[d] = in[d] == 0 ? 1.0 : static_cast<double>((*sizes)[k]) / in[d];
    }
    return std::nullopt;
  }
  if (policy != "not_larger" && policy != "not_smaller") {
    return "attribute 'keep_aspect_ratio_policy' must be stretch, not_larger or not_smaller (got "
           "'" +
           policy + "')";
  }
  std::optional<double> chosen;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (in[axes[k]] == 0) continue;
    const double s = static_cast<double>((*sizes)[k]) / in[axes[k]];
    if (!chosen || (policy == "not_larger" ? s < *chosen : s > *chosen)) chosen = s;
  }
  const double s = chosen.value_or(1.0);
  for (int d : axes) {
    shape.scale[d] = s;
    shape.out[d] = static_cast<int64_t>(std::floor(s * static_cast<double>(in[d]) + 0.5));
  }
  return std::nullopt;
}

}  // namespace loom::kernels::resize
