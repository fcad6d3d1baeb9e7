// ConvTranspose (ONNX, 1-D, 2-D and 3-D, float32), NCHW in and out: the
// gradient of Conv with respect to its input, i.e. every input element
// scattered through the kernel into the output:
//
//   Y[n, g*M/G + m, o...] = B[.] + sum over c, i..., t... with
//                           o = i*s - pb + t*d of X[n, g*C/G + c, i...] * W[g*C/G + c, m, t...]
//
// Inputs X [N, C, spatial...], W [C, M/group, kernel...], optional B [M].
// Attributes: auto_pad, dilations, group, kernel_shape, output_padding,
// output_shape, pads, strides. The output size per axis is
//   s * (in - 1) + output_padding + (k - 1) * d + 1 - pb - pe
// unless output_shape gives it; with auto_pad SAME_UPPER / SAME_LOWER the
// output is in * s (or output_shape) and the padding that makes it so is
// split with the extra element at the end (UPPER) or the beginning
// (LOWER), as ONNX's reference does.
//
// Algorithm: per image and group one GEMM, cols[(m, t...), i...] =
// W_g^T X_g (through f32_gemm on ctx.pool), then col2im adds each column
// into the output, in parallel over output channels (each thread owns its
// channels' planes, in a fixed order): bit-identical at any thread count.
//
// Errors: InvalidArgumentError "ConvTranspose: ..." for a wrong dtype or
// rank, channels that do not match group, a bias of the wrong length, bad
// attribute lengths or values, or an output size below 1.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> ConvTransposeKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);

// The output's spatial sizes and the begin/end padding, resolved from the
// attributes (shared with the type rule). Throws like the kernel.
struct ConvTransposeGeometry {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end, output;
};
ConvTransposeGeometry ResolveConvTransposeGeometry(const Attributes& attrs,
                                                   const std::vector<int64_t>& input,
                                                   const std::vector<int64_t>& kernel);

}  // namespace loom::kernels
