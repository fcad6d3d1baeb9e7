// Plain reference normalization ops (the test oracle for normalization.h):
// textbook formulas in double, one output element at a time. Slow on
// purpose; no threads, no ISA. Same dtype rules as the kernels.
#pragma once

#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

// Softmax (log = false) or LogSoftmax along `axis` (non-negative).
Tensor SoftmaxReference(const Tensor& x, int axis, bool log);

// Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c], c = axis 1.
Tensor BatchNormReference(const Tensor& x, const Tensor& scale, const Tensor& bias,
                          const Tensor& mean, const Tensor& var, float epsilon);

// {Y, Mean, InvStdDev} normalizing over [axis, rank); bias may be null.
std::vector<Tensor> LayerNormReference(const Tensor& x, const Tensor& scale, const Tensor* bias,
                                       int axis, float epsilon);

// Y[n, c, ...] = (X - mean[n, c]) / sqrt(var[n, c] + epsilon) * scale[c] + B[c],
// with mean and variance over the spatial dims of plane (n, c).
Tensor InstanceNormReference(const Tensor& x, const Tensor& scale, const Tensor& bias,
                             float epsilon);

}  // namespace loom::kernels
