// ONNX Attention (opsets 23 and 24), on the fused kernel's machinery
// (attention.h) where it can:
//
//   Attention(Q, K, V, attn_mask?, past_key?, past_value?,
//             nonpad_kv_seqlen? (24)) -> Y, present_key, present_value,
//                                         qk_matmul_output
//
//   Q [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv], or 3-D
//   [B, S, H * X] with attributes q_num_heads / kv_num_heads; Hkv divides
//   Hq (grouped-query attention: query head h reads K/V head
//   h / (Hq / Hkv)). past_key/past_value [B, Hkv, P, D|Dv] are prepended
//   along the sequence: present_* [B, Hkv, T = P + Skv, D|Dv].
//   attn_mask broadcasts (NumPy) to [B, Hq, Sq, T]; a last dim shorter
//   than T is padded with -inf (bool: false). bool false means -inf, any
//   other dtype is added. is_causal: key j is hidden from query i when
//   j > i + P. nonpad_kv_seqlen [B]: keys j >= it are hidden.
//   scores = scale * Q·Kᵀ (scale default 1/sqrt(D)) + bias; softcap > 0:
//   softcap * tanh(scores / softcap); softmax over the keys; Y = P·V (3-D:
//   [B, Sq, Hq * Dv]). qk_matmul_output [B, Hq, Sq, T] by
//   qk_matmul_output_mode: 0 the scaled Q·Kᵀ, 1 plus the bias, 2 after
//   softcap, 3 the softmax. A row whose every score is -inf is NaN (the
//   ONNX reference's softmax).
//
//   Attribute loom_outputs (set by the ONNX importer's version adapter,
//   absent = 4): how many outputs the node has; outputs past it are
//   returned as empty placeholders, so the qk_matmul_output (Sq x T per
//   head) is made only when asked for.
//
// Paths: float32 Q/K/V without softcap and without the qk_matmul_output
// run on LoomAttention's flash-attention units (ISA micro-kernels, online
// softmax; its causal_offset and grouped heads); the mask is passed as is
// when it already covers T keys, else combined (padding, nonpad lengths)
// into one additive float mask. Everything else (float16, bfloat16,
// float64, softcap, integer masks, the qk output) runs a plain path in
// double, parallel over (batch, head, query) rows. Both are bit-exact
// across thread counts.
//
// Errors: InvalidArgumentError "Attention: ..." naming the input and the
// expected vs actual shape, dtype or attribute.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> OnnxAttentionKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);

// The test oracle: the op by its definition, serial, in double, all four
// outputs (inputs in ONNX order, absent = null; valid inputs assumed).
std::vector<Tensor> OnnxAttentionReference(const Attributes& attrs,
                                           const std::vector<const Tensor*>& inputs);

}  // namespace loom::kernels
