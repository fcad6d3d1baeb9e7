// ONNX's random generators (op_kernel.h calling convention):
//  - RandomUniform / RandomNormal: a tensor of attribute `shape` and `dtype`
//    (float types; default float32), uniform in [low, high) (defaults 0, 1)
//    or normal with `mean` and `scale` (defaults 0, 1);
//  - RandomUniformLike / RandomNormalLike: the same with the input's shape,
//    and its dtype unless `dtype` is given;
//  - Bernoulli: each output element 1 with the probability the input holds
//    there (which must lie in [0, 1]), else 0; `dtype` defaults to the
//    input's and may be any numeric type or bool;
//  - Multinomial: input [batch, classes] of unnormalized log-probabilities;
//    output [batch, sample_size] of class indices (`dtype` int32, the
//    default, or int64) drawn with probability softmax(input row).
//
// Seeds. ONNX leaves the values to the runtime. With the `seed` attribute
// the generators are stateless, as TensorFlow's stateless random ops: every
// run of the node gives the same values (a pure function of seed, shape and
// inputs), on any thread count. Without it, each run draws a fresh seed
// from std::random_device. The numbers come from a 64-bit Mersenne twister
// (std::mt19937_64, whose sequence the C++ standard fixes), uniform doubles
// from its top 53 bits and normals by Box-Muller, so they do not depend on
// the standard library's distributions; generation is serial (one sequence
// per node run). The graph optimizer never folds these ops into constants.
//
// Thread safety: stateless (the seedless path reads random_device, which
// is thread-safe).
#pragma once

#include <string_view>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> RandomUniformKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);
std::vector<Tensor> RandomNormalKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs);
std::vector<Tensor> RandomUniformLikeKernel(const KernelContext& ctx, const Attributes& attrs,
                                            KernelInputs inputs);
std::vector<Tensor> RandomNormalLikeKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs);
std::vector<Tensor> BernoulliKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> MultinomialKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);

// Whether `op` is one of the generators above (constant folding skips them).
bool IsRandomOp(std::string_view op);

}  // namespace loom::kernels
