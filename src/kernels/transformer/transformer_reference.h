// Plain reference transformer ops (the test oracle for transformer.h):
// the textbook formulas in double, one element at a time, no threads.
#pragma once

#include <cstdint>

#include "loom/tensor.h"

namespace loom::kernels {

// Y = X / sqrt(mean(X^2 over [axis, rank)) + epsilon) * scale, scale
// broadcast from the right; `axis` non-negative; Y has scale's dtype.
Tensor RMSNormReference(const Tensor& x, const Tensor& scale, int axis, float epsilon);

// RotaryEmbedding as in transformer.h; position_ids may be null;
// rotary_dim already resolved (non-zero); num_heads used for 3-D X only.
Tensor RotaryEmbeddingReference(const Tensor& x, const Tensor& cos_cache, const Tensor& sin_cache,
                                const Tensor* position_ids, bool interleaved, int64_t num_heads,
                                int64_t rotary_dim);

}  // namespace loom::kernels
