// Einsum (ONNX 12): the Einstein summation of its inputs along an
// equation such as "bij,bjk->bik" (explicit output), "ij,jk" (implicit:
// the labels used once, in alphabetical order, after the ellipsis dims),
// with "..." for broadcast leading dims and repeated labels within a term
// for diagonals ("ii->i").
//
// The kernel works on operands with labelled axes: each input first takes
// its diagonals and sums the labels no other operand nor the output uses;
// then the operands are contracted left to right, each pair as a batched
// matrix product [batch, M, K] x [batch, K, N] after transposing the shared
// labels still needed (batch), the summed shared labels (K) and each side's
// own labels (M, N) into place: float32 through Loom's GEMM (f32_gemm),
// other types through a plain loop. A final transpose gives the output's
// label order. Every type accumulates in its own type (f32_gemm's float32
// for float32); integers wrap.
//
// Parallelism: the float32 products run through f32_gemm on ctx.pool; the
// other steps are serial (Einsum is rare in inference graphs and its
// terms small). Results are bit-identical for any thread count.
#pragma once

#include <string>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> EinsumKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

namespace einsum {

// An equation with every label as a small integer: letters 'a'..'z' are
// 0..25, 'A'..'Z' 26..51, and the ellipsis dims 52.. (right-aligned across
// the terms, so ellipsis dim j of a term with e of them, out of the most
// any term has, E, is label 52 + E - e + j).
struct Equation {
  std::vector<std::vector<int>> inputs;  // each input's labels per axis
  std::vector<int> output;               // the output's labels per axis
};

// Parses `equation` for inputs of the given ranks; throws
// InvalidArgumentError("Einsum: ...") for a malformed equation or a term
// whose rank does not match its input.
Equation ParseEquation(const std::string& equation, const std::vector<int>& ranks);

// The size of every label, from the inputs' shapes (ellipsis dims
// broadcast, 1 yielding to any size); throws for sizes that clash.
std::vector<int64_t> LabelSizes(const Equation& eq, const std::vector<std::vector<int64_t>>& dims);

// The plain oracle: every combination of label values, products summed in
// float64 (integers in int64, wrapping), written in the input dtype.
Tensor EinsumReference(const Equation& eq, const std::vector<const Tensor*>& inputs);

}  // namespace einsum
}  // namespace loom::kernels
