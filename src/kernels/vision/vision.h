// Vision operators: GridSample (sampling an N-D input at the points of a
// grid), AffineGrid (the grid of an affine map), RoiAlign (pooling regions
// of interest) and NonMaxSuppression (greedy box selection by score and
// overlap).
//
// GridSample (ONNX 16, 20, 22): X [N, C, D1..Dk], grid [N, O1..Ok, k] with
// normalized coordinates in [-1, 1], the last grid axis in reverse spatial
// order (x = width first). Modes nearest (rounding half to even, as
// PyTorch and ONNX's reference), linear (ONNX 16: bilinear) and cubic
// (16: bicubic; Keys' kernel with a = -0.75); padding zeros, border or
// reflection; align_corners. Each output point computes its taps (index and
// weight per spatial axis) once and applies them to every channel. The
// serial loop replaced:
//   for each (n, output row o1..o(k-1)): for each point of the row:
//     taps = per axis taps of the point; for each channel c: Y = sum taps
// run as a ParallelFor over (n, output rows): bit-identical for any thread
// count. Arithmetic in float64 from the grid's denormalized coordinates
// (computed in the grid's own type, as ONNX's reference does, so nearest
// ties round identically).
//
// NonMaxSuppression (ONNX 10, 11): boxes [B, N, 4] float32, scores
// [B, C, N], optional max_output_boxes_per_class (int64, absent: 0),
// iou_threshold and score_threshold (float32); center_point_box 0 (corners
// in any order) or 1 (center, width, height). Per (batch, class): boxes
// above score_threshold by descending score (ties: lower index first),
// each kept unless its IoU with a kept box exceeds iou_threshold, until
// max_output_boxes_per_class are kept. Output int64 [num, 3] of
// (batch, class, box) in (batch, class, selection) order. The (batch,
// class) pairs run as a ParallelFor; their lists are joined in order.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> GridSampleKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);

// AffineGrid (ONNX 20): theta [N, 2, 3] or [N, 3, 4], size [N, C, H, W] or
// [N, C, D, H, W] -> grid [N, H, W, 2] or [N, D, H, W, 3]: each point's
// normalized base coordinates (x, y[, z], 1) (cell centers, or corners
// with align_corners) times theta[n]. Parallel over (n, rows).
std::vector<Tensor> AffineGridKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);

// RoiAlign (ONNX 10, 16, 22): X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2),
// batch_indices [R] -> [R, C, output_height, output_width]: each bin
// averages (mode avg) or takes the max (mode max, of the weighted taps, as
// ONNX's reference and ONNX Runtime) of sampling_ratio^2 bilinear samples
// (0: ceil(roi size / bins) per axis); coordinate_transformation_mode
// half_pixel shifts by -0.5 (RoiAlign-10 has only output_half_pixel; the
// version rules set it). Parallel over regions.
std::vector<Tensor> RoiAlignKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);

// MaxRoiPool (ONNX 1, 22): X [N, C, H, W], rois [R, 5] (batch index, x1,
// y1, x2, y2; X's dtype) -> [R, C, PH, PW] (pooled_shape): Fast R-CNN's
// region max pooling as Caffe and ONNX Runtime define it. Box corners are
// round(v * spatial_scale) (half away from zero), the box is x2 - x1 + 1
// by y2 - y1 + 1 pixels (at least 1), bin i of PH covers rows
// [floor(i * h / PH), ceil((i + 1) * h / PH)) from y1 clipped to the image,
// and an empty bin gives 0. A batch index outside [0, N) or not whole, or a
// coordinate that is not finite, is an InvalidArgumentError. Parallel over
// (region, channel).
std::vector<Tensor> MaxRoiPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);

struct RoiAlignOptions {
  bool max_mode = false;
  bool half_pixel = true;
  int64_t output_height = 1, output_width = 1, sampling_ratio = 0;
  double spatial_scale = 1.0;
};
// Reads RoiAlign's attributes; throws InvalidArgumentError("RoiAlign: ...").
RoiAlignOptions ParseRoiAlignOptions(const Attributes& attrs);

// DeformConv (ONNX 19, 22), 2-D: X [N, C, H, W], W [OC, C / group, kh,
// kw], offset [N, offset_group * kh * kw * 2, oh, ow] ((dy, dx) per tap),
// B? [OC], mask? [N, offset_group * kh * kw, oh, ow]. Each kernel tap reads
// X bilinearly (zeros outside) at its regular position plus its offset,
// times the mask; the samples form im2col-like columns (ParallelFor over
// column rows), multiplied by the weights with one f32_gemm per group.
// float32 only; other ranks are refused as not supported.
std::vector<Tensor> DeformConvKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);

struct DeformConvGeometry {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, dh, dw, pad_top, pad_left, group, offset_group, oh, ow;
};
// Reads and checks DeformConv's attributes and input shapes.
DeformConvGeometry ParseDeformConvGeometry(const Attributes& attrs, const Tensor& x,
                                           const Tensor& w, const Tensor& offset,
                                           const Tensor* bias, const Tensor* mask);
// The bilinear sample of an h x w plane at (y, x), zero outside.
double DeformConvSample(const float* plane, int64_t h, int64_t w, double y, double x);

std::vector<Tensor> NonMaxSuppressionKernel(const KernelContext& ctx, const Attributes& attrs,
                                            KernelInputs inputs);

}  // namespace loom::kernels
