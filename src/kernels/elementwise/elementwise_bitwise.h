// Bitwise operators on integer tensors (ONNX BitwiseAnd, BitwiseOr,
// BitwiseXor, BitwiseNot from opset 18; BitShift from opset 11), in the
// calling convention of op_kernel.h.
//
// - BitwiseAnd/Or/Xor (inputs A, B): every signed and unsigned integer
//   dtype of 8 to 64 bits, A and B of one dtype, NumPy broadcasting.
// - BitwiseNot (input X): the same dtypes; ~x.
// - BitShift (inputs X, Y): uint8, uint16, uint32, uint64, broadcast;
//   attribute direction "LEFT" or "RIGHT" (required). A shift by the bit
//   width or more gives 0 (C++ would be undefined; numpy gives 0 too).
//
// Errors: InvalidArgumentError "<Op>: ..." for a wrong dtype, dtypes that
// differ, shapes that do not broadcast, a missing or unknown direction.
//
// Determinism: each output element is one expression; bit-exact at any
// thread count. Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> BitwiseAndKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> BitwiseOrKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> BitwiseXorKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> BitwiseNotKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs);
std::vector<Tensor> BitShiftKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs);

}  // namespace loom::kernels
