// Plain reference versions of the vision kernels (vision.h): the test
// oracles. Written after ONNX's reference implementation, one output
// element at a time, in float64, with no parallelism.
#pragma once

#include <vector>

#include "kernels/vision/vision.h"
#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels::vision {

enum class GridSampleMode { kNearest, kLinear, kCubic };
enum class GridSamplePadding { kZeros, kBorder, kReflection };

struct GridSampleOptions {
  GridSampleMode mode = GridSampleMode::kLinear;
  GridSamplePadding padding = GridSamplePadding::kZeros;
  bool align_corners = false;
};

// Reads mode (nearest, linear/bilinear, cubic/bicubic), padding_mode and
// align_corners; throws InvalidArgumentError("GridSample: ...") for other
// values.
GridSampleOptions ParseGridSampleOptions(const Attributes& attrs);

// GridSample of X (float32/float64) at grid (float32/float64); shapes
// already checked.
Tensor GridSampleReference(const Tensor& x, const Tensor& grid, const GridSampleOptions& options);

// NonMaxSuppression's selected indices, int64 [num, 3]; a null threshold
// or count tensor means absent.
Tensor NonMaxSuppressionReference(const Tensor& boxes, const Tensor& scores,
                                  int64_t max_output_boxes_per_class, float iou_threshold,
                                  const float* score_threshold, bool center_point_box);

// AffineGrid's grid for theta (float32/float64) and size (N, C, spatial...).
Tensor AffineGridReference(const Tensor& theta, const std::vector<int64_t>& size,
                           bool align_corners);

// RoiAlign, one output element at a time (inputs checked).
Tensor RoiAlignReference(const Tensor& x, const Tensor& rois, const Tensor& batch_indices,
                         const RoiAlignOptions& options);

// DeformConv, one output element at a time (geometry already checked).
Tensor DeformConvReference(const Tensor& x, const Tensor& w, const Tensor& offset,
                           const Tensor* bias, const Tensor* mask, const DeformConvGeometry& g);

}  // namespace loom::kernels::vision
