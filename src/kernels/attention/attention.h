// Fused scaled-dot-product attention (LoomAttention), the op the graph
// optimizer (graph/passes/attention_fusion.cc) writes in place of
//
//   MatMul(Q, Kᵀ) → Div/Mul(scale) → [Add(mask) | Where(mask, ·, fill)]
//     → Softmax(axis -1) → MatMul(·, V)
//
// Op (Loom-internal, registered in kernels/registry.cc; the ONNX importer
// refuses it in model files):
//
//   LoomAttention(Q, K, V, mask?) -> Y
//     Q     float32 [B, H, Sq, D]   (q_layout "bhsd", the default)
//                or [B, Sq, H, D]   (q_layout "bshd": the Reshape output
//                                    before the exporter's Transpose)
//     K     float32 [B, Hk, Sk, D] or [B, Sk, Hk, D] (k_layout); not Kᵀ: the
//           pass reads K from before the transposes that made Kᵀ. Hk
//           divides H: query head h reads K/V head h / (H / Hk)
//           (grouped-query attention; Hk = H in the fusion pass's graphs)
//     V     float32 [B, Hk, Sk, Dv] or [B, Sk, Hk, Dv] (v_layout)
//     mask  optional, broadcastable (NumPy, unidirectional) to
//           [B, H, Sq, Sk]: float32 is added to the scaled scores; bool
//           keeps a score where true and replaces it by `mask_fill` where
//           false (Where(mask, scores, fill))
//     Y     float32 [B, H, Sq, Dv] (output_layout "bhsd") or [B, Sq, H, Dv]
//   attributes
//     scale       float, default 1/sqrt(D): scores = scale * Q·Kᵀ
//     causal      int, default 0; 1 excludes key j from query i when
//                 j > i + causal_offset (top-left aligned, as torch's
//                 is_causal, with the default offset 0), after the mask
//     causal_offset  int >= 0, default 0: the keys before the queries (a
//                 past cache), as ONNX Attention's causal mask with past
//     mask_fill   float, default -inf: the score a false bool mask leaves
//     q_layout, k_layout, v_layout, output_layout   "bhsd" | "bshd"
//
//   Y[b, h, i, :] = Σ_j softmax_j(s[i, j]) · V[b, h, j, :]
//
// Fully masked rows give what the unfused graph gives: when every score of
// a row is -inf (additive -inf mask, or bool mask with the default fill)
// the row is NaN, as Softmax of all -inf is; a finite mask (-10000, the
// float32 lowest) leaves ordinary finite scores and a normal softmax. Sk == 0
// gives zeros (the unfused MatMul over an empty axis).
//
// Algorithm (flash attention). First K is packed transposed, per block of
// kAttentionKeyBlock keys ([D, keys], zero-padded to whole vectors), once
// per call: every query block reads every key block. Then a unit (one
// batch, one head, up to kAttentionQueryBlock query rows) walks the key
// blocks: a register-tiled micro-kernel computes the score block
// (broadcast q[i][d] times a vector of keys); per row the scores are
// scaled, masked and folded in by the online softmax (a running max m and
// sum l; a new max rescales the row's output so far by exp(m_old - m_new));
// a second micro-kernel adds p[i][j] times V's row j to the [rows, Dv]
// output block (V read in place, or copied when Dv is not whole vectors),
// which is divided by l at the end. No unit holds more than one score
// block; nothing of size Sq x Sk exists.
//
// Parallelism: ParallelFor over the key blocks to pack, then over the
// (batch, head, query block) units; a unit's arithmetic depends only on
// shapes, never on which thread runs it, so results are bit-identical for
// any thread count. ISA: the micro-kernels come from one
// template (attention_micro_kernel_impl.h) compiled for AVX-512, AVX2+FMA
// and portable C++, chosen by ctx.isa, the online-softmax row step (scale,
// mask, max, a polynomial exp, sum, rescale) included.
//
// Errors: InvalidArgumentError "LoomAttention: ..." for wrong dtypes, ranks,
// layouts, mismatched B/H/Sk/D or a mask that does not broadcast.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_kernel.h"
#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

// Query rows per unit and keys per block. Guesses sized for L1: with D = Dv
// = 64 the score block (64 x 64), K and V blocks and the output block are
// 16 KiB each; measure before changing.
inline constexpr int64_t kAttentionQueryBlock = 64;
inline constexpr int64_t kAttentionKeyBlock = 64;

// The registry's kernel: LoomAttention(Q, K, V, mask?) -> Y as above.
std::vector<Tensor> AttentionKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);

// The test oracle: the same op by the unfused definition (scores, softmax,
// product), in double, one row at a time. Same inputs, attributes and
// output layout; assumes valid inputs.
Tensor AttentionReference(const Attributes& attrs, const Tensor& q, const Tensor& k,
                          const Tensor& v, const Tensor* mask);

}  // namespace loom::kernels
