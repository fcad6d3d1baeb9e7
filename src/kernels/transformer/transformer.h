// ONNX opset-23 transformer building blocks (the attention itself lives in
// attention/onnx_attention.h):
//
//   RMSNormalization   (opset 23)   rms_norm.cc
//   RotaryEmbedding    (opset 23)   rotary_embedding.cc
//
// RMSNormalization: inputs X, scale; attributes axis (-1), epsilon (1e-5),
// stash_type (1 = float32, the only value supported). Over the axes
// [axis, rank): Y = X / sqrt(mean(X^2) + epsilon) * scale, scale
// broadcasting (NumPy, from the right) to X.shape[axis:]. X and scale may
// be any of float32, float64, float16, bfloat16, independently; Y has
// scale's dtype. Computed in float32 (float64 when either is float64),
// float16/bfloat16 rounded once at the end.
//
// RotaryEmbedding: inputs X, cos_cache, sin_cache, optional position_ids
// (int64 [B, S]); attributes interleaved (0), num_heads (needed for 3-D X),
// rotary_embedding_dim (0 = the head size). X is [B, H, S, D] or
// [B, S, H * D]. With position_ids the caches are [max_position, R / 2] and
// row p = position_ids[b, s] is used; without, they are [B, S, R / 2].
// The first R dims of each head are rotated as pairs (x1, x2) (halves
// x[j], x[j + R/2], or interleaved x[2j], x[2j+1]):
//   y1 = cos * x1 - sin * x2,  y2 = sin * x1 + cos * x2
// the other D - R dims are copied. float32, float16, bfloat16 (computed in
// float32).
//
// Parallelism: work is split over independent rows only, so results are
// bit-exact across thread counts.
//
// Errors: InvalidArgumentError starting with the op name for wrong input
// counts, dtypes, shapes, attributes or out-of-range position ids.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> RMSNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs);
std::vector<Tensor> RotaryEmbeddingKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);

}  // namespace loom::kernels
