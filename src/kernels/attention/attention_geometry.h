// LoomAttention's inputs read once (attention.h): sizes, the element
// strides of each operand's layout and of the broadcast mask, and the
// attributes. Shared by the kernel (attention.cc) and the reference.
#pragma once

#include <cstdint>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

// Element strides of one [B, H, S, X] operand; X (the last axis) is
// contiguous in both layouts.
struct AttentionStrides {
  int64_t batch = 0, head = 0, seq = 0;
};

struct AttentionGeometry {
  int64_t batch = 0, heads = 0, q_len = 0, k_len = 0, depth = 0, v_depth = 0;
  // K and V heads (a divisor of `heads`): query head h reads K/V head
  // h / (heads / kv_heads), grouped-query attention when fewer.
  int64_t kv_heads = 0;
  AttentionStrides q, k, v, y;
  Shape y_shape;
  float scale = 1.0f;
  bool causal = false;
  // Causal: query i sees keys j <= i + causal_offset (0: top-left aligned).
  int64_t causal_offset = 0;
  float mask_fill = 0.0f;
  // The mask, null when absent; strides 0 along broadcast axes.
  const Tensor* mask = nullptr;
  bool bool_mask = false;
  AttentionStrides mask_strides;
  int64_t mask_key_stride = 0;  // 1, or 0 when the mask is the same for every key

  int64_t MaskOffset(int64_t b, int64_t h, int64_t i) const {
    return b * mask_strides.batch + h * mask_strides.head + i * mask_strides.seq;
  }
  // The K/V head query head h reads.
  int64_t KvHead(int64_t h) const { return h / (heads / kv_heads); }
};

// Checks the inputs and attributes; throws InvalidArgumentError
// "LoomAttention: ..." naming the input and what was expected.
AttentionGeometry ReadAttentionGeometry(const Attributes& attrs, const Tensor& q, const Tensor& k,
                                        const Tensor& v, const Tensor* mask);

}  // namespace loom::kernels
