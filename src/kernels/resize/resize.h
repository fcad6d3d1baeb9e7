// Resize (ONNX opset 11-19; Resize-10 and Upsample are rewritten to it by
// the importer's version rules): nearest, linear and cubic interpolation of
// any axes of a tensor, with every coordinate transformation mode, nearest
// rounding mode, antialiasing, exclude_outside, tf_crop_and_resize's roi and
// extrapolation value, and keep_aspect_ratio_policy.
//
// The interpolation is separable: for each resized axis, every output index
// reads a few input indices ("taps") with weights, computed once per call
// exactly as ONNX's reference does per element (resize.cc names the
// formulas). The axes are then resized one after the other, last axis
// first, each pass a ParallelFor over output rows: the serial loop
//   for each resized axis d (last first): for each row r of the result:
//     row r = sum over taps of weight * input row at the tap's index
// so any thread count gives bit-identical results. Nearest copies values in
// the input's type; linear and cubic accumulate in float32 (float64 for
// float64 and 32/64-bit integers) and round integers half to even with
// saturation, like ONNX's reference.
//
// Inputs X, roi?, scales?, sizes? as in ONNX: exactly one of scales and
// sizes (a non-empty tensor). Nearest mode "simple" is not ONNX's: it is
// what the version rules give Resize-10 and Upsample (ONNX Runtime's rule
// for them: truncate when upsampling, round up when downsampling).
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> ResizeKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

}  // namespace loom::kernels
