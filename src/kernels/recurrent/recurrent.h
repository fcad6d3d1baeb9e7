// The recurrent layers RNN, GRU and LSTM (ONNX opset 7-22): every direction
// (forward, reverse, bidirectional), per-batch sequence_lens, initial_h /
// initial_c, LSTM peepholes and input_forget, the activations list with
// activation_alpha / activation_beta, clip, GRU's linear_before_reset,
// layout 0 ([seq, batch, ...]) and 1 ([batch, seq, ...]) and every output
// (Y, Y_h and LSTM's Y_c; the kernels always return all of them).
//
// Per direction the kernel is the serial loop
//   P = X W^T                              (one GEMM over all time steps)
//   for step s < seq:
//     G = H R^T + bias                     (one GEMM per step, GRU two)
//     for each batch b still inside its sequence, hidden unit j:
//       gates(b, j) from P[t_b, b], G[b]; H[b, j], C[b, j] updated in place
//       Y[t_b, dir, b, j] = H[b, j]
// where t_b = s (forward) or sequence_lens[b] - 1 - s (reverse: each
// sequence is read backwards from its own last step). The GEMMs split
// their tiles over ctx.pool themselves; the gate math is a ParallelFor over
// (batch, block of hidden units), so every thread count gives bit-identical
// results. Y past a sequence's length is zero; Y_h and Y_c hold the state
// after its last valid step (the initial state for length 0).
//
// Gate math follows ONNX's equations (onnx/reference/ops/op_lstm.py etc.)
// and ONNX Runtime for what the reference leaves out: clip bounds each
// gate's pre-activation to [-clip, clip] after bias and peephole terms;
// input_forget sets f = 1 - i.
//
// float32; float16 and bfloat16 widened to float32 and rounded back once
// (float64 is not taken yet). Errors: InvalidArgumentError naming the op and the input
// or attribute; an activation name outside ONNX's list "is not supported".
#pragma once

#include <memory>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> RnnKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> GruKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);
std::vector<Tensor> LstmKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// The prepare stage (op_kernel.h): with W and R constant float32, they are
// transposed and packed once per session node instead of on every run
// (the projection's W^T and each step GEMM's R^T). The prepared kernel runs
// the same GEMM paths on the same blocks, so its results equal the plain
// kernel's. Null when W or R is not a constant float32 tensor of fitting
// shapes (the plain kernel then runs and reports any error).
std::unique_ptr<PreparedKernel> PrepareRnn(const PrepareArgs& args);
std::unique_ptr<PreparedKernel> PrepareGru(const PrepareArgs& args);
std::unique_ptr<PreparedKernel> PrepareLstm(const PrepareArgs& args);

}  // namespace loom::kernels
