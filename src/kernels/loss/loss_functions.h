// The loss functions ONNX defines (op_kernel.h calling convention), forward
// only: models exported with their loss (PyTorch's cross-entropy head) run
// as they are.
//
//  - NegativeLogLikelihoodLoss(input [N, C, d1..dk], target [N, d1..dk] of
//    int32/int64, weight [C] optional): loss[n, d] = -input[n, target[n, d],
//    d] * w[n, d], where w = weight[target] (1 without weight) and 0 where
//    target == ignore_index. reduction "none" keeps [N, d1..dk]; "sum" sums;
//    "mean" (the default) divides the sum by the sum of w (NaN when every
//    element is ignored, as ONNX's reference gives). A target outside
//    [0, C) that is not ignore_index is an InvalidArgumentError.
//  - SoftmaxCrossEntropyLoss(scores [N, C, d1..dk], labels, weights): the
//    same loss on log_prob = LogSoftmax(scores, axis 1) (the LogSoftmax
//    kernel; float16 and bfloat16 through float32), which is the optional
//    second output.
// The loss sums run in double, serially, in element order: the result does
// not depend on the thread count (these ops are a model's last node).
//
// Thread safety: stateless.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> NegativeLogLikelihoodLossKernel(const KernelContext& ctx,
                                                    const Attributes& attrs, KernelInputs inputs);
std::vector<Tensor> SoftmaxCrossEntropyLossKernel(const KernelContext& ctx, const Attributes& attrs,
                                                  KernelInputs inputs);

}  // namespace loom::kernels
