// Window geometry shared by Conv and the pooling ops: resolves the ONNX
// attributes kernel_shape, strides, dilations, pads, auto_pad and ceil_mode
// into per-axis numbers and output sizes.
//
// For each spatial axis i, output position o reads input positions
//   o * stride[i] - pad_begin[i] + t * dilation[i],  t = 0 .. kernel[i] - 1
// (positions outside [0, input[i]) are padding).
//
// Output sizes follow the ONNX spec:
//   explicit pads:  floor((in + pb + pe - ((k - 1) * d + 1)) / s) + 1
//                   (ceil with ceil_mode, but a last window starting in the
//                   end padding is dropped, as ONNX Runtime and PyTorch do);
//   SAME_UPPER/LOWER: ceil(in / s), the total padding split with the extra
//                   element at the end (UPPER) or the beginning (LOWER);
//   VALID:          ceil((in - ((k - 1) * d + 1) + 1) / s), no padding.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "loom/attributes.h"

namespace loom::kernels {

struct SpatialGeometry {
  std::vector<int64_t> input;   // spatial input sizes
  std::vector<int64_t> kernel;  // window sizes
  std::vector<int64_t> stride;
  std::vector<int64_t> dilation;
  std::vector<int64_t> pad_begin;
  std::vector<int64_t> pad_end;
  std::vector<int64_t> output;  // spatial output sizes

  int rank() const { return static_cast<int>(input.size()); }
  // Whether any window can read padding (false lets kernels skip bounds checks).
  bool has_padding() const;
};

struct SpatialGeometryOptions {
  bool allow_ceil_mode = false;  // pooling ops only
  bool allow_dilations = true;   // AveragePool before opset 19 had none
};

// `kernel` comes from the weights (Conv) or the kernel_shape attribute
// (pooling); if both kernel_shape and `kernel` are given they must agree.
// Throws InvalidArgumentError("<op>: ...") for lists of the wrong length,
// non-positive kernel, stride or dilation, negative pads, an unknown auto_pad,
// or a window larger than the padded input.
SpatialGeometry ResolveSpatialGeometry(std::string_view op, const Attributes& attrs,
                                       std::span<const int64_t> input,
                                       std::span<const int64_t> kernel,
                                       const SpatialGeometryOptions& options = {});

}  // namespace loom::kernels
