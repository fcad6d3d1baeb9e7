// ONNX Attention's inputs read once (onnx_attention.h): sizes, attributes
// and element addressing shared by the kernel and its reference.
#pragma once

#include <cstdint>

#include "kernels/op_kernel.h"
#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

struct OnnxAttentionGeometry {
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, past_len = 0, total = 0,
          depth = 0, v_depth = 0;
  bool three_d = false;
  float scale = 1.0f;
  bool causal = false;
  float softcap = 0.0f;
  int64_t qk_mode = 0;
  int64_t outputs = 4;  // loom_outputs
  const Tensor *q = nullptr, *k = nullptr, *v = nullptr, *mask = nullptr, *past_key = nullptr,
               *past_value = nullptr, *nonpad = nullptr;
  // The mask's element strides over [B, Hq, Sq] (0 where broadcast) and
  // its last dim (<= total; keys past it are hidden).
  int64_t mask_batch = 0, mask_head = 0, mask_seq = 0, mask_len = 0;

  // Element offset of Q[b, h, i, 0] in Q's layout.
  int64_t QOffset(int64_t b, int64_t h, int64_t i) const {
    return three_d ? ((b * q_len + i) * q_heads + h) * depth
                   : ((b * q_heads + h) * q_len + i) * depth;
  }
  // Element offset of row j of head kh of the new K (last = depth) or V
  // (last = v_depth) in the input's layout.
  int64_t KvOffset(int64_t b, int64_t kh, int64_t j, int64_t last) const {
    return three_d ? ((b * kv_len + j) * kv_heads + kh) * last
                   : ((b * kv_heads + kh) * kv_len + j) * last;
  }
  int64_t KvHead(int64_t h) const { return h / (q_heads / kv_heads); }
  int64_t MaskOffset(int64_t b, int64_t h, int64_t i) const {
    return b * mask_batch + h * mask_head + i * mask_seq;
  }
};

// Checks the inputs (ONNX order, absent = null) and attributes; throws
// InvalidArgumentError "Attention: ...".
OnnxAttentionGeometry ReadOnnxAttentionGeometry(const Attributes& attrs, KernelInputs inputs);

// present = concat(past, new rows) along the sequence, [B, Hkv, T, last],
// in the new tensor's dtype; `key` picks K/past_key (else V/past_value).
Tensor BuildPresent(const OnnxAttentionGeometry& g, bool key, threading::ThreadPool* pool);

}  // namespace loom::kernels
