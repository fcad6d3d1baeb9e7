// ONNX normalization ops:
//
//   Softmax, LogSoftmax      (opset 13: along one axis)       softmax.cc
//   Hardmax                  (opset 13: along one axis)       hardmax.cc
//   BatchNormalization       (inference mode)                 batch_norm.cc
//   LayerNormalization       (opset 17)                       layer_norm.cc
//   InstanceNormalization                                     layer_norm.cc
//
// Softmax(x) = exp(x - max) / sum exp(x - max) along `axis` (default -1);
// LogSoftmax(x) = x - max - log(sum exp(x - max)). Subtracting the max keeps
// exp finite; an element of -inf gives 0 (Softmax) / -inf (LogSoftmax); a
// row of length 1 gives 1 / 0; a row holding NaN or +inf, or only -inf, is
// NaN throughout (0/0, as in the ONNX reference). float32 and float64.
//
// BatchNormalization: inputs X (rank >= 2, channels on axis 1), scale, B,
// input_mean, input_var (each [C], same dtype as X); attribute epsilon
// (1e-5); momentum is ignored; training_mode = 1 is refused ("not
// supported"). Y = (X - mean) / sqrt(var + epsilon) * scale + B.
// float32 and float64. Output: Y only.
//
// LayerNormalization: inputs X, Scale, optional B; attributes axis (-1),
// epsilon (1e-5), stash_type (1 = float32, the only value supported).
// Normalizes over the axes [axis, rank): Y = (X - mean) * InvStdDev * Scale
// + B with InvStdDev = 1 / sqrt(var + epsilon) (population variance).
// Scale and B must have the normalized shape X.shape[axis:] (leading 1s
// allowed). Returns all three outputs Y, Mean, InvStdDev; Mean and
// InvStdDev are float32 with shape X.shape[:axis] + [1] * (rank - axis).
// X float32 or float64.
//
// InstanceNormalization: inputs input (rank >= 3, channels on axis 1),
// scale [C], B [C]; attribute epsilon (1e-5). Each (n, c) plane is
// normalized by its own mean and (population) variance, then scaled and
// shifted by scale[c], B[c]. float32 and float64.
//
// Parallelism and determinism: work is split over independent rows /
// channel planes only, so results are bit-exact across thread counts. The
// float32 Softmax uses a vectorized exp on AVX2 (within a few ulp of
// std::exp); results differ slightly between ISA levels.
//
// Errors (loom::InvalidArgumentError, message starting with the op name):
// wrong input count, dtype, rank or shape; bad axis; unsupported attribute
// values.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> SoftmaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
std::vector<Tensor> LogSoftmaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
// Hardmax(input); attribute axis (default -1): 1 at the first maximum of
// each line along the axis, 0 elsewhere. A NaN counts as the maximum (the
// first NaN wins, as NumPy's argmax). float32, float64, float16.
std::vector<Tensor> HardmaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
std::vector<Tensor> BatchNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs);
std::vector<Tensor> LayerNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs);
std::vector<Tensor> InstanceNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                                KernelInputs inputs);

}  // namespace loom::kernels
