// More ONNX normalization ops, each in its own file:
//
//   LpNormalization             (1, 22)   lp_norm.cc
//   GroupNormalization          (21)      group_norm.cc
//   LRN                         (1, 13)   lrn.cc
//   MeanVarianceNormalization   (9, 13)   mean_variance_norm.cc
//
// LpNormalization(input; axis = -1, p = 2): y = x / (sum |x|^p)^(1/p) along
// `axis`, p in {1, 2}. A line whose norm is 0 gives 0/0 = NaN, as the ONNX
// test data expects.
// GroupNormalization(X, scale, bias; epsilon = 1e-5, num_groups, stash_type
// = 1): X [N, C, ...] with C a multiple of num_groups; each group of C /
// num_groups channels of one sample is normalized by its own mean and
// population variance, then y = xhat * scale[c] + bias[c] (scale and bias
// [C], opset 21's per-channel form).
// LRN(X; alpha = 1e-4, beta = 0.75, bias = 1, size): X [N, C, ...];
// y = x / (bias + alpha / size * sum x^2)^beta, the sum over channels
// c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2) inside [0, C).
// MeanVarianceNormalization(X; axes = [0, 2, 3]): y = (x - mean) /
// (sqrt(var) + 1e-9), mean and population variance over `axes`, as the
// ONNX function body computes it (the variance here by two passes).
//
// Dtypes: float32, float64; float16 and bfloat16 are computed in float32
// and rounded back once. Statistics accumulate in double.
//
// Parallelism and determinism: work is split over independent lines,
// groups, or output elements; every output's arithmetic is fixed, so
// results are bit-exact across thread counts. No ISA variants.
//
// Errors: InvalidArgumentError "<Op>: ..." for wrong input counts, dtypes,
// ranks, shapes, and attribute values (p not 1 or 2, num_groups not
// dividing C, size < 1, repeated or out-of-range axes).
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> LpNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);
std::vector<Tensor> GroupNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs);
std::vector<Tensor> LrnKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> MeanVarianceNormalizationKernel(const KernelContext& ctx,
                                                    const Attributes& attrs, KernelInputs inputs);

}  // namespace loom::kernels
